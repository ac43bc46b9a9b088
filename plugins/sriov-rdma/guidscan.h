/* SPDX-License-Identifier: Apache-2.0 */
/* The node-wide GUID scan: whether another VF of the node holds an InfiniBand GUID, now or once its pod detaches. */
#pragma once

#include <stdint.h>
#include "err.h"
#include "link.h"
#include "sysfs.h"

/* Duplicate GUIDs break the fabric: guid, which the config's key gives vf,
 * is refused (CNI_ERR_CONFIG, -EEXIST, naming the holder) while another VF
 * of the node holds it, on any IPoIB PF, or will hold it again when its pod
 * detaches. nl: rtnetlink in the host. One GETLINK per IPoIB PF (8 on a GPU
 * node); sysfs is read only for VFs whose PF never set a GUID; a state file
 * per attached VF. */
int guidscan_check(struct link_sock *nl, const struct sysfs_vf *vf, uint64_t guid,
		   const char *key, struct cni_err *err);
