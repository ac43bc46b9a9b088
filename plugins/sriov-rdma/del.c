// SPDX-License-Identifier: Apache-2.0
/* DEL: undo what ADD did, in reverse, from the state file or from what the
 * host and pod show; whatever is already gone is success. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "del.h"
#include "devfile.h"
#include "ib.h"
#include "ipamstep.h"
#include "log.h"
#include "netdev.h"
#include "nodelock.h"
#include "rdma.h"
#include "vf.h"

/* State first (it knows the original VF settings); without it, the alias on
 * the pod link and the RDMA device whose netdev is that link. */
static int locate(struct attach *a, struct cni_err *err)
{
	char env_netns[PATH_MAX];
	struct cni_err ignored = { 0 };
	int link_ifindex, ret;

	if (vf_read(a, &ignored) < 0)
		log_warn("VF %s: %s; releasing what is left", a->conf.device_id, ignored.msg);
	snprintf(env_netns, sizeof(env_netns), "%s", a->state.netns);
	ret = attach_load(a, err);
	if (ret < 0 && ret != -ENOENT)
		return ret;
	a->from_state = ret == 0;
	if (env_netns[0])
		snprintf(a->state.netns, sizeof(a->state.netns), "%s", env_netns);
	/* the kernel gave the VF back; whatever is at that path is not the pod */
	if (a->netns_gone)
		a->state.netns[0] = '\0';
	ret = attach_open_netns(a, true, err);
	if (ret < 0)
		return ret;
	netdev_find_pod(a, &link_ifindex);
	if (!a->from_state)
		ib_locate(a);
	if (!a->state.has_rdma && a->conf.rdma)
		rdma_find_pod(a, link_ifindex);
	return 0;
}

/* Every step runs even after one fails, so the IP is released whatever
 * happened to the device; the first error is reported and the state file
 * kept so a retry can finish the job. IPAM starts first: it runs beside the
 * moves, or before them while the link is still in the pod. */
static int undo_all(struct attach *a, bool release_ip, struct cni_err *err)
{
	int rdma, netdev, ib = 0, vf = 0, ipam = 0;

	if (release_ip)
		ipam = ipamstep_del_start(a, err);
	rdma = rdma_to_host(a, err);
	netdev = netdev_to_host(a, err);
	if (rdma == 0 && (netdev == 0 || netdev == -ENOENT))
		ib = ib_restore(a, err);
	if (netdev == 0 || a->state.chained)
		vf = vf_restore(a, err);
	else
		log_info("VF %s is not ours to restore (held elsewhere or gone)", a->vf.bdf);
	if (ipam == 0)
		ipam = ipamstep_del_finish(a, err);
	if (rdma < 0 || (netdev < 0 && netdev != -ENOENT) || ib < 0 || vf < 0 || ipam < 0)
		return -EIO;
	return attach_remove(a, err);
}

int del_locked(struct attach *a, bool release_ip, struct cni_err *err)
{
	int ret = locate(a, err);

	if (ret == 0)
		ret = undo_all(a, release_ip, err);
	return ret;
}

int del_own(struct attach *a, struct cni_err *err)
{
	int ret = del_locked(a, true, err);

	/* not in del_locked: an ADD or GC undoing another attachment there has
	 * its own config, whose device-info file is not that attachment's */
	if (ret == 0)
		ret = devfile_remove(a, err);
	return ret;
}

int cmd_del(struct plugin_ctx *ctx)
{
	struct attach *a = NULL;
	int ret;

	ret = attach_new(ctx, &a, &ctx->err);
	if (ret == 0)
		ret = attach_lock(a, NODELOCK_WAIT_MS, &ctx->err);
	if (ret == 0)
		ret = del_own(a, &ctx->err);
	attach_free(a);
	return ret;
}
