/* SPDX-License-Identifier: Apache-2.0 */
/* The reversible steps of an attachment: ADD runs them, DEL and rollback undo them.
 * Every undo is idempotent: what is already undone is success. */
#pragma once

#include "attach.h"

/* vf.c: find and judge the VF; its admin settings on the PF. */
int vf_read(struct attach *a, struct cni_err *err);
int vf_resolve(struct attach *a, struct cni_err *err);
int vf_prepare(struct attach *a, struct cni_err *err);
int vf_apply(struct attach *a, struct cni_err *err);
int vf_restore(struct attach *a, struct cni_err *err);
/* The VF's PF netdev in the host: sets pf_ifindex. */
int vf_find_pf(struct attach *a, struct cni_err *err);

/* netdev.c: the VF netdev between host and pod, and its pod-side setup. */
int netdev_find_host(struct attach *a, struct cni_err *err);
int netdev_find_pod(struct attach *a, int *link_ifindex);
int netdev_to_pod(struct attach *a, struct cni_err *err);
/* The move itself, also for an IPoIB netdev ib.c found again. */
int netdev_move_to_pod(struct attach *a, struct cni_err *err);
int netdev_to_host(struct attach *a, struct cni_err *err);
int netdev_configure(struct attach *a, struct cni_err *err);

/* rdma.c: the VF's RDMA device follows its netdev. */
#define RDMA_MODE_FIX "run `rdma system set netns exclusive` (or load ib_core with " \
	"netns_mode=0, or set rdmaMode: exclusive in the SriovNetworkPoolConfig)"

int rdma_resolve(struct attach *a, struct cni_err *err);
int rdma_find_pod(struct attach *a, int link_ifindex);
int rdma_to_pod(struct attach *a, struct cni_err *err);
int rdma_to_host(struct attach *a, struct cni_err *err);

/* ib.c: InfiniBand VFs. ib_prepare (before any change) detects the link
 * layer and refuses what cannot work; ib_apply sets the GUID through the PF
 * and rebinds the VF; ib_netdev_to_pod finds the IPoIB netdev the RDMA move
 * recreated; ib_restore, once the RDMA device is back in the host, puts the
 * old GUIDs and host name back. All are no-ops for Ethernet VFs. */
int ib_prepare(struct attach *a, struct cni_err *err);
int ib_apply(struct attach *a, struct cni_err *err);
int ib_restore(struct attach *a, struct cni_err *err);
int ib_netdev_to_pod(struct attach *a, struct cni_err *err);
int ib_netdev_to_host(struct attach *a, struct cni_err *err);
/* DEL without a state file: the link layer from what the pod or host shows. */
void ib_locate(struct attach *a);
/* CHECK: the PF has the GUID the config gives the VF. */
int ib_check(struct attach *a, struct cni_err *err);

/* ipam.c: delegation to ipam.type. A bookkeeping IPAM type runs while the
 * VF moves: ADD starts it before the moves (ipam_add_start, undone by
 * ipam_add_abandon) and ipam_add collects it; DEL starts it before the moves
 * (ipam_del_start) and collects it after (ipam_del_finish). Any other type
 * runs whole while the link is in the pod. */
int ipam_add_start(struct attach *a, struct cni_err *err);
int ipam_add_abandon(struct attach *a, struct cni_err *err);
int ipam_add(struct attach *a, struct cni_err *err);
int ipam_del(struct attach *a, struct cni_err *err);
int ipam_del_start(struct attach *a, struct cni_err *err);
int ipam_del_finish(struct attach *a, struct cni_err *err);

/* devfile.c: the device-info file runtimeConfig.CNIDeviceInfoFile names:
 * prepare (before any change) refuses a path that crosses a symlink and a
 * device plugin's copy about another device, and makes the document from
 * it; write puts it in place atomically; remove (DEL) deletes it. */
int devfile_prepare(struct attach *a, struct cni_err *err);
int devfile_write(struct attach *a, struct cni_err *err);
int devfile_remove(struct attach *a, struct cni_err *err);

/* del.c: with the VF lock held, undo all an attachment did, from its state
 * file or what the host and pod show; IPAM DEL too when release_ip. */
int del_locked(struct attach *a, bool release_ip, struct cni_err *err);
