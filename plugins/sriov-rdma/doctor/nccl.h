/* SPDX-License-Identifier: Apache-2.0 */
/* NCCL's device and interface lists (NCCL_IB_HCA, NCCL_SOCKET_IFNAME) read and
 * matched by NCCL's own rules, so the doctor agrees with NCCL on what they select. */
#pragma once

#include <stdbool.h>

/* NCCL keeps at most this many entries (MAX_IB_DEVS, and each prefix in a
 * 64-byte buffer); what lies past them is ignored, as NCCL ignores it. */
#define NCCL_LIST_MAX 32
#define NCCL_PREFIX_MAX 64

struct nccl_list {
	bool exclude;		/* leading '^': the entries name what NOT to use */
	bool exact;		/* then '=': whole names, not prefixes */
	int n;
	struct {
		char prefix[NCCL_PREFIX_MAX];
		int port;	/* -1: any port */
	} entry[NCCL_LIST_MAX];
};

/* "^=mlx5_0:1,mlx5_2" and the like: entries are separated by ',', an entry's
 * ":N" names a port (atoi, as NCCL), empty entries are skipped. */
void nccl_list_parse(const char *s, struct nccl_list *out);
/* Does the list select (name, port)? port -1 matches every entry's port.
 * An empty list selects everything, or, with '^', nothing. */
bool nccl_list_selects(const struct nccl_list *l, const char *name, int port);
