/* SPDX-License-Identifier: Apache-2.0 */
/* A VF's RDMA device as the host's sysfs shows it (<VF>/infiniband/<dev>/): its port's link layer and the GUIDs it uses. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include "sysfs.h"

/* Whether port 1 of the VF's one RDMA device is InfiniBand. */
bool ibsysfs_is_ib(const struct sysfs_vf *vf);
/* What a VF uses now: its RDMA device's node GUID, and the port GUID its
 * GID 0 (fe80::<port GUID>) carries. -ENOENT while the device is not in
 * the host. */
int ibsysfs_guids(const struct sysfs_vf *vf, uint64_t *node, uint64_t *port);
