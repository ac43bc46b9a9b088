/* SPDX-License-Identifier: Apache-2.0 */
/* Whether a node can serve sriov-rdma: RDMA netns mode, /dev/infiniband, VFs. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

enum ready_mode { READY_MODE_UNKNOWN, READY_MODE_SHARED, READY_MODE_EXCLUSIVE };

struct ready {
	enum ready_mode mode;	/* ib_core's netns_mode; unknown: ib_core not loaded */
	int uverbs;		/* uverbs* under <dev>/infiniband, -1 when it is absent */
	int pfs;		/* PCI functions with sriov_numvfs > 0 */
	int vfs;		/* PCI functions with a physfn link */
	int vfs_rdma;		/* of those, with an RDMA device in this netns */
};

/* Reads under sysfs (the SYSFS_PATH convention) and dev (normally "/dev"). */
void ready_read(const char *sysfs, const char *dev, struct ready *out);
/* Exclusive mode, /dev/infiniband and at least one VF. */
bool ready_ok(const struct ready *r);
/* One "node: ..." line per fact, then the verdict and what to fix. */
void ready_print(FILE *f, const struct ready *r, const char *dev);
