/* SPDX-License-Identifier: Apache-2.0 */
/* The VF netdev: into the pod under CNI_IFNAME and back under its host name. */
#pragma once

#include "attach.h"

/* ADD, before any change: the VF netdev in the host as it is now (its
 * host-side facts into the state), or, chained after a plugin that moved
 * it, the pod's link and that plugin's result; CNI_IFNAME free in the pod. */
int netdev_prepare(struct attach *a, struct cni_err *err);
/* DEL: the link CNI_IFNAME in the pod (its ifindex in *link_ifindex, 0 when
 * none). Ours: sets pod_ifindex and, without a state file, the host name
 * from the alias, and returns 0; -ENOENT otherwise. */
int netdev_find_pod(struct attach *a, int *link_ifindex);
/* ADD's step and its undo, also DEL's. to_host: -ENOENT when neither the pod
 * nor the host holds our VF netdev. */
int netdev_to_pod(struct attach *a, struct cni_err *err);
int netdev_to_host(struct attach *a, struct cni_err *err);
/* The move itself, also for an IPoIB netdev ib.c found again. */
int netdev_move_to_pod(struct attach *a, struct cni_err *err);
/* ADD: MAC, up, the result's addresses and routes on the pod link. */
int netdev_configure(struct attach *a, struct cni_err *err);
