/* SPDX-License-Identifier: Apache-2.0 */
/* A link's IP configuration through rtnetlink: its addresses and the routes through it. */
#pragma once

#include "err.h"
#include "ipaddr.h"

struct link_sock;	/* link.h */

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
