// SPDX-License-Identifier: Apache-2.0
/* The VF's RDMA device follows its netdev between host and pod. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "rdma.h"

/* Shared mode shows every RDMA device in every netns and moves none. A
 * network that asked for isolation ("rdma": true, rdmaIsolation: true) is
 * refused; one that did not (a NAD of sriov-cni or ib-sriov-cni) gets its
 * netdev alone, the RDMA device left where it is, as with them. *moves:
 * whether it goes into the pod. */
static int check_mode(struct attach *a, bool *moves, struct cni_err *err)
{
	enum rdmanl_mode mode;
	int ret;

	ret = rdmanl_get_mode(a->host_ns, &mode, err);
	*moves = ret == 0 && mode == RDMANL_MODE_EXCLUSIVE;
	if (ret < 0 || *moves)
		return ret;
	if (!a->conf.rdma_key) {
		log_warn("RDMA subsystem is in shared netns mode: RDMA device %s of VF %s stays "
			 "in the host netns, visible from every netns; to give the pod its own, "
			 RDMA_MODE_FIX " and set \"rdma\": true", a->state.rdma_name, a->vf.bdf);
		return 0;
	}
	cni_err_set(err, CNI_ERR_RDMA_MODE, "RDMA subsystem is in shared netns mode, so VF %s's "
		    "RDMA device %s cannot move into the pod as \"%s\": true asks: "
		    RDMA_MODE_FIX, a->vf.bdf, a->state.rdma_name, a->conf.rdma_key);
	return -EOPNOTSUPP;
}

/* ADD: exactly one RDMA device on the VF, visible in the host; it moves in
 * exclusive mode (rdma_name is set either way: the device-info file names it). */
int rdma_prepare(struct attach *a, struct cni_err *err)
{
	struct rdmanl_dev dev;
	bool moves;
	int ret;

	if (!a->conf.rdma)
		return 0;
	if (a->vf.n_rdma != 1) {
		cni_err_set(err, CNI_ERR_NO_RDMA, "VF %s (driver %s) has %d RDMA devices, want "
			    "exactly one: the SriovNetworkNodePolicy needs isRdma: true (or set "
			    "\"rdma\": false for a netdev without RDMA)", a->vf.bdf,
			    a->vf.driver, a->vf.n_rdma);
		return -ENODEV;
	}
	snprintf(a->state.rdma_name, sizeof(a->state.rdma_name), "%s", a->vf.rdma[0]);
	ret = check_mode(a, &moves, err);
	if (ret < 0 || !moves)
		return ret;
	ret = rdmanl_dev_by_name(a->host_ns, a->state.rdma_name, &dev, err);
	if (ret == -ENODEV)
		cni_err_set(err, CNI_ERR_NO_RDMA, "RDMA device %s of VF %s is not visible in the "
			    "host netns", a->state.rdma_name, a->vf.bdf);
	if (ret < 0)
		return ret;
	a->state.rdma_index = dev.index;
	a->state.has_rdma = true;
	return 0;
}

/* DEL without state, CHECK: the pod's RDMA device whose port netdev is our
 * link (a dump of the pod's devices, a port request for each: a pod has
 * few). One the host sees too (shared mode) never left: it is not the
 * pod's to give back (has_rdma stays false). */
int rdma_find_pod(struct attach *a, int link_ifindex)
{
	struct cni_err ignored = { 0 };
	struct rdmanl_dev dev, in_host;

	if (a->pod_ns < 0 || !link_ifindex ||
	    rdmanl_dev_by_netdev(a->pod_ns, link_ifindex, &dev, &ignored) < 0)
		return -ENOENT;
	snprintf(a->state.rdma_name, sizeof(a->state.rdma_name), "%s", dev.name);
	a->state.rdma_index = dev.index;
	a->state.has_rdma = rdmanl_dev_by_name(a->host_ns, dev.name, &in_host, &ignored) < 0;
	return 0;
}

/* The kernel refuses to move a device whose driver cannot take its users
 * away from it (no disassociate_ucontext: Soft-RoCE, siw) with EOPNOTSUPP
 * and no extack; mode was checked before (exclusive). */
static const char *move_error(int ret, const struct cni_err *why)
{
	if (ret == -EOPNOTSUPP && !why->details[0])
		return "its driver cannot move it to another network namespace (as Soft-RoCE "
		       "and siw cannot): Operation not supported";
	return strerror(-ret);
}

static int move(struct attach *a, int from, int to, const char *where, struct cni_err *err)
{
	struct cni_err why = { 0 };
	int ret = rdmanl_dev_move(from, a->state.rdma_index, to, &why);

	if (ret == 0)
		return 0;
	cni_err_set(err, CNI_ERR_RDMA_NETLINK, "failed to move RDMA device %s of VF %s %s: %s",
		    a->state.rdma_name, a->vf.bdf, where, move_error(ret, &why));
	if (why.details[0])
		cni_err_details(err, "%s", why.details);
	return ret;
}

int rdma_to_pod(struct attach *a, struct cni_err *err)
{
	if (!a->state.has_rdma)
		return 0;
	return move(a, a->host_ns, a->pod_ns, "into the pod netns", err);
}

/* From inside the pod netns, where the device is visible; a dead pod netns
 * already gave it back to the host. */
int rdma_to_host(struct attach *a, struct cni_err *err)
{
	struct rdmanl_dev dev;
	int ret;

	if (!a->state.has_rdma || a->pod_ns < 0)
		return 0;
	ret = rdmanl_dev_by_name(a->pod_ns, a->state.rdma_name, &dev, err);
	if (ret == -ENODEV)
		return 0;
	if (ret == 0) {
		a->state.rdma_index = dev.index;
		ret = move(a, a->pod_ns, a->host_ns, "back to the host netns", err);
	}
	if (ret == 0)
		log_info("RDMA device %s is back in the host", a->state.rdma_name);
	return ret;
}
