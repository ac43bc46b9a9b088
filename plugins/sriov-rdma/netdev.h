/* SPDX-License-Identifier: Apache-2.0 */
/* The VF netdev: into the pod under CNI_IFNAME and back under its host name. */
#pragma once

#include "attach.h"

/* ADD: the VF netdev as sysfs shows it in the host, its host-side facts
 * into the state. A VF that still carries an alias of ours came back from a
 * dead pod: its host name is in the alias. */
int netdev_find_host(struct attach *a, struct cni_err *err);
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
