/* SPDX-License-Identifier: Apache-2.0 */
/* InfiniBand VFs: the GUID set through the PF, the rebind that makes the VF
 * take it, and the IPoIB netdev the kernel recreates on a rebind or an RDMA move. */
#pragma once

#include "attach.h"

/* ib_prepare (before any change) detects the link layer and refuses what
 * cannot work; ib_apply sets the GUID through the PF and rebinds the VF;
 * ib_netdev_to_pod finds the IPoIB netdev the RDMA move recreated;
 * ib_restore, once the RDMA device is back in the host, puts the old GUIDs
 * and host name back. All are no-ops for Ethernet VFs. */
int ib_prepare(struct attach *a, struct cni_err *err);
int ib_apply(struct attach *a, struct cni_err *err);
int ib_restore(struct attach *a, struct cni_err *err);
int ib_netdev_to_pod(struct attach *a, struct cni_err *err);
int ib_netdev_to_host(struct attach *a, struct cni_err *err);
/* DEL without a state file: the link layer from what the pod or host shows. */
void ib_locate(struct attach *a);
/* CHECK: the PF has the GUID the config gives the VF. */
int ib_check(struct attach *a, struct cni_err *err);
