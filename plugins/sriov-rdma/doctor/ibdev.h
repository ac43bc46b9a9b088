/* SPDX-License-Identifier: Apache-2.0 */
/* An RDMA device as a sysfs tree shows it: its node GUID, a port's state,
 * link layer and GID table (class/infiniband/<dev>/ports/N), and its uverbs char device
 * (infiniband_verbs/uverbsM/{ibdev,dev}). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include "gid.h"

#define IBDEV_NAME_MAX 64
#define IBDEV_PORT_ACTIVE 4	/* enum ib_port_state IB_PORT_ACTIVE */

struct ibdev_port {
	int state;			/* the number of "4: ACTIVE"; -1 when unreadable */
	char state_text[32];		/* "ACTIVE" */
	char link_layer[32];		/* "Ethernet", "InfiniBand"; "" when unreadable */
	struct gid_entry *gids;		/* the slots that hold a GID */
	int n_gids;
	uint64_t node_guid;		/* the device's node_guid ... */
	bool has_node_guid;		/* ... when it reads */
};

/* Reads port of dev under root (a sysfs mount or $SYSFS_PATH); -ENOENT when
 * the device or port is not there. */
int ibdev_port_read(const char *root, const char *dev, int port, struct ibdev_port *out);
void ibdev_port_release(struct ibdev_port *p);

struct ibdev_uverbs {
	char name[32];			/* "uverbs2": /dev/infiniband/<name> */
	char ibdev[IBDEV_NAME_MAX];	/* the RDMA device it opens */
	bool has_devt;			/* its dev file read as MAJ:MIN */
	unsigned int major, minor;
};

/* The uverbsN entry of dir (<root>/class/infiniband_verbs, or a PCI device's
 * infiniband_verbs) whose ibdev is dev (NULL: the first). -ENOENT if none. */
int ibdev_uverbs_find(const char *dir, const char *dev, struct ibdev_uverbs *out);
