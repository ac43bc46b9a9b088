/* SPDX-License-Identifier: Apache-2.0 */
/* The node-wide locks under /run: one per VF, whatever the network or dataDir, and one per InfiniBand GUID. */
#pragma once

#include <stdint.h>
#include "err.h"

/* The per-VF lock: NODELOCK_DIR/<deviceID>.lock for every network and
 * dataDir, so a late DEL of an old pod and the ADD of a new pod that got
 * the same VF, in whatever network, run one after the other, never
 * interleaved. ADD and DEL wait up to NODELOCK_WAIT_MS. The file also
 * carries the holder line of the attachment that holds the VF
 * (statefile.c). The doctor looks here too. */
#define NODELOCK_DIR "/run/sriov-rdma/locks"
#define NODELOCK_WAIT_MS 30000
/* The per-GUID lock: NODELOCK_GUID_DIR/<16 hex digits>.lock (a directory
 * of its own: the doctor counts VF locks). One empty file per GUID ever
 * locked, gone with /run at boot. */
#define NODELOCK_GUID_DIR NODELOCK_DIR "/guids"

/* The lock held (its fd), waiting up to wait_ms; -ETIMEDOUT after
 * (CNI_ERR_TRY_AGAIN), another -errno (CNI_ERR_IO) when it cannot be taken. */
int nodelock_vf(const char *device_id, int wait_ms, struct cni_err *err);
int nodelock_guid(uint64_t guid, int wait_ms, struct cni_err *err);
/* Releases a lock; -1 is none. */
void nodelock_release(int fd);
