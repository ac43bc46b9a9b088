/* SPDX-License-Identifier: Apache-2.0 */
/* The VF's RDMA device follows its netdev between host and pod. */
#pragma once

#include "attach.h"

#define RDMA_MODE_FIX "run `rdma system set netns exclusive` (or load ib_core with " \
	"netns_mode=0, or set rdmaMode: exclusive in the SriovNetworkPoolConfig)"

/* ADD, before any change: exactly one RDMA device on the VF, visible in the
 * host; whether it moves (the RDMA netns mode and the config's "rdma"). */
int rdma_prepare(struct attach *a, struct cni_err *err);
/* DEL without state, CHECK: the pod's RDMA device whose port netdev is
 * link_ifindex; -ENOENT when none. */
int rdma_find_pod(struct attach *a, int link_ifindex);
/* ADD's step and its undo, also DEL's. */
int rdma_to_pod(struct attach *a, struct cni_err *err);
int rdma_to_host(struct attach *a, struct cni_err *err);
