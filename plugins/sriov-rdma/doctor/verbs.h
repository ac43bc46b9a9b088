/* SPDX-License-Identifier: Apache-2.0 */
/* What NCCL sees through libibverbs in the current netns: every device it
 * lists, opened and its ports queried. libibverbs is loaded at run time
 * (dlopen): a node without it still gets every other check. */
#pragma once

#include <stddef.h>

#define VERBS_NAME_MAX 64
#define VERBS_PORTS_MAX 4
#define VERBS_PORT_ACTIVE 4	/* IBV_PORT_ACTIVE */

struct verbs_port {
	int num;
	int state;		/* enum ibv_port_state */
	int link_layer;		/* IBV_LINK_LAYER_* */
	int active_mtu;		/* bytes */
	int gid_tbl_len;
	int err;		/* errno of the query, 0 when it worked */
};

struct verbs_dev {
	char name[VERBS_NAME_MAX];
	int err;		/* errno of open or query_device, 0 when both worked */
	int n_ports;
	struct verbs_port ports[VERBS_PORTS_MAX];
};

/* Lists the devices into *out (malloc'd, *n of them). -ELIBACC when
 * libibverbs cannot be loaded, with the loader's reason in why. */
int verbs_scan(struct verbs_dev **out, int *n, char *why, size_t size);
const char *verbs_port_state_name(int state);
const char *verbs_link_layer_name(int link_layer);
