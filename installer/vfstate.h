/* SPDX-License-Identifier: Apache-2.0 */
/* The node's VFs by state for the metrics: free, attached, parked, from sysfs and the VF locks' holder records. */
#pragma once

#include "metrics.h"

/* One metrics_pf per SR-IOV PF under $SYSFS_PATH (malloc'd, *n of them): a
 * VF whose lock file records a holder is attached, and parked when its
 * netdev is back in the host (its pod's netns is gone; also for the moment
 * an ADD has yet to move it); the others are free. -errno when the PCI
 * devices do not list. */
int vfstate_read(struct metrics_pf **pfs, int *n);
