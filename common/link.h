/* SPDX-License-Identifier: Apache-2.0 */
/* Network links through rtnetlink: a socket bound to one netns, and the links seen and changed through it. */
#pragma once

/* A link's addresses and routes are linkip.h's, a PF's VFs linkvf.h's. No
 * libnl type shows in any of them. */

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>
#include "err.h"

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
