/* SPDX-License-Identifier: Apache-2.0 */
/* A PF's VFs through rtnetlink: their admin settings (IFLA_VFINFO_LIST / IFLA_VF_*), read and set. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "err.h"

struct link_sock;	/* link.h */

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
