// SPDX-License-Identifier: Apache-2.0
/* ADD: check everything, then the steps in order, each undone if a later one fails. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "steps.h"
#include "verbs.h"

static int build_result(struct attach *a, struct cni_err *err)
{
	a->out = result_to_json(&a->result, a->conf.net.version);
	if (!a->out) {
		cni_err_set(err, CNI_ERR_IO, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* The state holds only what is known before the first change, and is saved
 * before it: DEL can then undo an ADD killed at any point (a runtime
 * timeout) in full, VF settings and host-side MAC and state included. */
static int save(struct attach *a, struct cni_err *err)
{
	return attach_save(a, err);
}

static const struct step {
	const char *what;
	int (*run)(struct attach *a, struct cni_err *err);
	int (*undo)(struct attach *a, struct cni_err *err);
} steps[] = {
	{ "save state", save, attach_remove },
	{ "apply VF settings", vf_apply, vf_restore },
	{ "start the IPAM plugin", ipam_add_start, ipam_add_abandon },
	{ "move the netdev", netdev_to_pod, netdev_to_host },
	{ "move the RDMA device", rdma_to_pod, rdma_to_host },
	{ "allocate addresses", ipam_add, ipam_del },
	{ "configure the pod link", netdev_configure, NULL },
	{ "build the result", build_result, NULL },
};

static void roll_back(struct attach *a, int failed)
{
	for (int i = failed - 1; i >= 0; i--) {
		struct cni_err undo_err = { 0 };

		if (steps[i].undo && steps[i].undo(a, &undo_err) < 0 && undo_err.code != 0)
			log_error("rollback of \"%s\" failed: %s", steps[i].what, undo_err.msg);
	}
}

/* An earlier plugin in the chain (sriov-cni) already moved the netdev: we
 * only move the RDMA device and pass its result on. */
static int detect_chained(struct attach *a, struct cni_err *err)
{
	struct link_info link;

	if (a->vf.ifname[0])
		return 0;
	if (a->conf.net.prev_result && link_get_by_name(a->pod_nl, a->ifname, &link) == 0) {
		a->chained = true;
		a->pod_ifindex = link.ifindex;
		a->result = *a->conf.net.prev_result;
		return 0;
	}
	cni_err_set(err, CNI_ERR_DEVICE_BUSY, "VF %s (driver %s) has no netdev in the host "
		    "netns: another pod holds it, or its driver created none", a->vf.bdf,
		    a->vf.driver);
	return -EBUSY;
}

static int check_ifname_free(struct attach *a, struct cni_err *err)
{
	struct link_info link;

	if (a->chained || link_get_by_name(a->pod_nl, a->ifname, &link) == -ENODEV)
		return 0;
	cni_err_set(err, CNI_ERR_ENV, "interface \"%s\" already exists in netns %s", a->ifname,
		    a->netns);
	return -EEXIST;
}

/* The VF in the host while its lock file still names another attachment
 * with a state file: that attachment's undo is unfinished (its pod died
 * without DEL, or its DEL stopped half-way). Its host side is undone first,
 * as its DEL would (its address stays for its own DEL or GC), so this pod
 * gets the VF as it was before the other one, whatever the VF is named now.
 * A VF in a pod (no netdev in the host) is never taken from it here. */
static int reclaim_unfinished(const struct plugin_ctx *ctx, struct attach *a,
			      struct cni_err *err)
{
	char own[NETCONF_NAME_MAX + IFNAMSIZ + 8], held[sizeof(own)];
	char containerid[NETCONF_NAME_MAX], ifname[IFNAMSIZ];
	struct attach *old = NULL;
	int ret;

	attach_state_name(a->containerid, a->ifname, own, sizeof(own));
	if (!a->vf.ifname[0] || attach_owner(a, held, sizeof(held)) <= 0 || !strcmp(held, own) ||
	    attach_state_split(held, containerid, sizeof(containerid), ifname) < 0)
		return 0;
	ret = attach_new_saved(ctx, containerid, ifname, &old, err);
	if (ret == 0 && strcmp(old->vf.bdf, a->vf.bdf) != 0)
		ret = -ENOENT;		/* that file is about another VF */
	else if (ret == 0)
		ret = del_locked(old, false, err);
	if (ret == 0) {
		log_info("VF %s: finished the undo of %s:%s, back as %s", a->vf.bdf, containerid,
			 ifname, old->host_ifname);
		snprintf(a->vf.ifname, sizeof(a->vf.ifname), "%s", old->host_ifname);
	} else if (ret != -ENOENT) {
		cni_err_wrap(err, "VF %s: the unfinished undo of %s:%s failed", a->vf.bdf,
			     containerid, ifname);
	}
	attach_free(old);
	return ret == -ENOENT ? 0 : ret;
}

/* Everything that can be refused is refused here, before any change. */
static int prepare(const struct plugin_ctx *ctx, struct attach *a, struct cni_err *err)
{
	int ret;

	ret = attach_open_netns(a, false, err);
	if (ret == 0)
		ret = attach_lock(a, ATTACH_LOCK_WAIT_MS, err);
	if (ret == 0)
		ret = vf_resolve(a, err);
	if (ret == 0)
		ret = reclaim_unfinished(ctx, a, err);
	if (ret == 0)
		ret = detect_chained(a, err);
	if (ret == 0 && !a->chained)
		ret = netdev_find_host(a, err);
	if (ret == 0)
		ret = check_ifname_free(a, err);
	if (ret == 0)
		ret = rdma_resolve(a, err);
	if (ret == 0)
		ret = vf_prepare(a, err);
	return ret;
}

int cmd_add(struct plugin_ctx *ctx)
{
	struct attach *a = NULL;
	size_t i = 0;
	int ret;

	ret = attach_new(ctx, &a, &ctx->err);
	if (ret == 0)
		ret = prepare(ctx, a, &ctx->err);
	for (i = 0; ret == 0 && i < sizeof(steps) / sizeof(steps[0]); i++)
		ret = steps[i].run(a, &ctx->err);
	if (ret < 0 && i > 0)
		roll_back(a, (int)i - 1);
	if (ret == 0) {
		ctx->out = a->out;
		a->out = NULL;
	}
	attach_free(a);
	return ret;
}
