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

/* A VF the kernel returned from a dead pod still carries that pod's alias
 * and VF settings. With that attachment's state file, its host side is
 * undone first, as its DEL would (its address stays for its own DEL or GC),
 * so this pod gets the VF as it was before the dead one. 1 when it did. */
static int reclaim_returned(const struct plugin_ctx *ctx, struct attach *a,
			    const struct link_info *link, struct cni_err *err)
{
	char host_ifname[IFNAMSIZ], owner[NETCONF_NAME_MAX];
	struct attach *old = NULL;
	int ret;

	if (attach_alias_parse(link->alias, host_ifname, owner, sizeof(owner)) < 0 ||
	    !strcmp(owner, a->containerid))
		return 0;
	ret = attach_find_saved(ctx, a->conf.data_dir, owner, a->vf.bdf, &old, err);
	if (ret == 0)
		ret = del_locked(old, false, err);
	if (ret == 0) {
		log_info("VF %s came back from the dead pod of %s: put back as %s first", a->vf.bdf,
			 owner, old->host_ifname);
		snprintf(a->vf.ifname, sizeof(a->vf.ifname), "%s", old->host_ifname);
		ret = 1;
	} else if (ret != -ENOENT) {
		cni_err_wrap(err, "VF %s came back from the dead pod of %s", a->vf.bdf, owner);
	}
	attach_free(old);
	return ret == -ENOENT ? 0 : ret;
}

/* The VF netdev in the host, after putting back one a dead pod left. */
static int find_host(const struct plugin_ctx *ctx, struct attach *a, struct cni_err *err)
{
	struct link_info link;
	int ret = netdev_find_host(a, &link, err);

	if (ret == 0)
		ret = reclaim_returned(ctx, a, &link, err);
	if (ret == 1)
		ret = netdev_find_host(a, &link, err);
	return ret;
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
		ret = detect_chained(a, err);
	if (ret == 0 && !a->chained)
		ret = find_host(ctx, a, err);
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
