/* SPDX-License-Identifier: Apache-2.0 */
/* rtnetlink through libnl-route: links, VF settings on a PF, addresses, routes.
 * Nothing outside this module sees libnl types. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>
#include "err.h"
#include "ipaddr.h"

#define LINK_ALIAS_MAX 256
/* MAX_ADDR_LEN: an IPoIB address takes 20 bytes, an Ethernet one 6. */
#define LINK_ADDR_MAX 32
#define LINK_ADDR_STR_MAX (LINK_ADDR_MAX * 3)
#define LINK_PARENT_MAX 64

struct link_sock;	/* one rtnetlink socket, bound to one netns */

/* Opens a socket in the netns of netns_fd (-1 = current), with
 * NETLINK_EXT_ACK and NETLINK_CAP_ACK; the caller's netns is unchanged. */
int link_sock_open(int netns_fd, struct link_sock **out, struct cni_err *err);
void link_sock_close(struct link_sock *s);

struct link_info {
	int ifindex;
	unsigned short type;		/* ARPHRD_*: ARPHRD_INFINIBAND for IPoIB */
	char name[IFNAMSIZ];
	char alias[LINK_ALIAS_MAX];
	uint8_t mac[6];			/* the address when it is an Ethernet one */
	uint8_t addr[LINK_ADDR_MAX];	/* the hardware address, of any length */
	int addr_len;
	/* IFLA_PARENT_DEV_NAME (Linux 5.14+): a VF netdev's PCI address, also
	 * in a pod's netns where sysfs does not show it; "" when none */
	char parent[LINK_PARENT_MAX];
	unsigned int mtu;
	bool up;
	bool carrier;		/* IFF_LOWER_UP: the link below is up */
};

/* "aa:bb:..." of the link's hardware address, as `ip link` prints it. */
void link_addr_format(const struct link_info *link, char out[LINK_ADDR_STR_MAX]);

/* -ENODEV when absent (err untouched). */
int link_get_by_name(struct link_sock *s, const char *name, struct link_info *out);
int link_get_by_index(struct link_sock *s, int ifindex, struct link_info *out);
/* Calls fn for every link (stops on non-zero return, which it returns).
 * -EINTR: a link changed during the dump (NLM_F_DUMP_INTR; fn has seen every
 * reply, maybe not a consistent set): walk again if it matters. */
int link_for_each(struct link_sock *s, int (*fn)(const struct link_info *, void *), void *arg);
/* The link whose parent device is parent (a PCI address); -ENODEV when none. */
int link_get_by_parent(struct link_sock *s, const char *parent, struct link_info *out);
/* For unit tests and fuzzing: reads one RTM_NEWLINK as the calls above do. */
int link_decode(const void *buf, size_t len, struct link_info *out);

/* One RTM_NEWLINK on s: moves ifindex into the netns of target and names it
 * new_name (and sets alias when non-NULL) in the same request. EEXIST when
 * the name is taken in the target: nothing moved. The kernel renames after
 * moving, so a name it refuses then (e.g. "a/b") sends the link back:
 * nothing moved. */
int link_move(struct link_sock *s, struct link_sock *target, int ifindex, const char *new_name,
	      const char *alias, struct cni_err *err);
int link_set_name(struct link_sock *s, int ifindex, const char *name, struct cni_err *err);
/* "" clears it. */
int link_set_alias(struct link_sock *s, int ifindex, const char *alias, struct cni_err *err);
int link_set_up(struct link_sock *s, int ifindex, bool up, struct cni_err *err);
int link_set_mac(struct link_sock *s, int ifindex, const uint8_t mac[6], struct cni_err *err);

/* Addresses and routes on ifindex. */
int link_addr_add(struct link_sock *s, int ifindex, const struct ipprefix *addr, struct cni_err *err);
int link_addr_list(struct link_sock *s, int ifindex, struct ipprefix *out, int max, int *n);
/* gw family 0 = on-link; dst len 0 = default route. */
int link_route_add(struct link_sock *s, int ifindex, const struct ipprefix *dst,
		   const struct ipaddr *gw, struct cni_err *err);
struct link_route {
	struct ipprefix dst;
	struct ipaddr gw;
};
/* Main-table routes through ifindex, both families. */
int link_route_list(struct link_sock *s, int ifindex, struct link_route *out, int max, int *n);

/* VF admin settings on a PF (IFLA_VFINFO_LIST / IFLA_VF_*). */
enum vf_link_state { VF_LINK_AUTO = 0, VF_LINK_ENABLE = 1, VF_LINK_DISABLE = 2 };

struct vf_config {
	uint8_t mac[6];
	int vlan;		/* 0-4095 */
	int qos;		/* 0-7 */
	int vlan_proto;		/* ETH_P_8021Q or ETH_P_8021AD, host order */
	int spoofchk;		/* -1 = unknown/not reported */
	int trust;		/* -1 = unknown/not reported */
	int link_state;		/* enum vf_link_state, -1 = unknown */
	uint32_t min_tx_rate;	/* Mbps */
	uint32_t max_tx_rate;	/* Mbps */
	/* InfiniBand: what the PF last set for the VF's next probe (0 never),
	 * not what the VF uses now; only an IPoIB PF reports them (guids). */
	uint64_t node_guid;
	uint64_t port_guid;
	bool guids;
};

/* Which fields of a vf_config to apply. */
enum vf_field {
	VF_MAC = 1 << 0,
	VF_VLAN = 1 << 1,	/* vlan, qos, vlan_proto together */
	VF_SPOOFCHK = 1 << 2,
	VF_TRUST = 1 << 3,
	VF_LINK_STATE = 1 << 4,
	VF_RATE = 1 << 5,	/* min and max together */
	VF_NODE_GUID = 1 << 6,
	VF_PORT_GUID = 1 << 7,
};

/* Reads VF vf of PF pf_ifindex. -ENOENT when the PF reports no VF info
 * (e.g. a veth stand-in) or no entry for that VF. */
int link_vf_get(struct link_sock *s, int pf_ifindex, int vf, struct vf_config *out);
/* Calls fn for each VF the PF reports, in one read of its VF list; a
 * non-zero return of fn ends the walk and is returned (-errno of the read). */
int link_vf_walk(struct link_sock *s, int pf_ifindex,
		 int (*fn)(int vf, const struct vf_config *cfg, void *arg), void *arg);
/* Applies the fields in mask, one RTM_SETLINK each (enum vf_field order), so
 * the error names the one setting refused, with the PF, the VF index and the
 * kernel's extack text in details. Fields before the refused one stay set:
 * *set (when not NULL) says which, all of mask on success, so an undo can
 * put back those alone and never send the refused one again. */
int link_vf_set_some(struct link_sock *s, int pf_ifindex, int vf, const struct vf_config *cfg,
		     unsigned int mask, unsigned int *set, struct cni_err *err);
/* link_vf_set_some for a caller that needs no *set. */
int link_vf_set(struct link_sock *s, int pf_ifindex, int vf, const struct vf_config *cfg,
		unsigned int mask, struct cni_err *err);

/* For unit tests: encodes the RTM_SETLINK for the fields in mask (link_vf_set
 * sends one per field) into buf (a struct nlmsghdr); returns its length or -errno. */
int link_vf_encode(void *buf, size_t size, int pf_ifindex, int vf, const struct vf_config *cfg,
		   unsigned int mask);
/* For unit tests: reads VF vf from an RTM_NEWLINK (or the request above: the
 * same nesting) the way link_vf_get reads the kernel's reply. */
int link_vf_decode(const void *buf, size_t len, int vf, struct vf_config *out);
