// SPDX-License-Identifier: Apache-2.0
/* ADD: check everything, then the steps in order, each undone if a later one fails. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cmds.h"
#include "confpath.h"
#include "del.h"
#include "devfile.h"
#include "ib.h"
#include "ipamstep.h"
#include "log.h"
#include "netdev.h"
#include "nodelock.h"
#include "nsident.h"
#include "rdma.h"
#include "statefile.h"
#include "vf.h"

static int build_result(struct attach *a, struct cni_err *err)
{
	a->out = result_to_json(&a->result, a->conf.net.version);
	if (!a->out) {
		cni_err_set(err, CNI_ERR_IO, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* A step that fails undoes what it did itself, except a partial one: its
 * failure can leave part of it done, and its undo, run by roll_back like
 * the others', counts when it fails (the state is then kept for DEL).
 * The state holds only what is known before the first change, and is saved
 * before it: DEL can then undo an ADD killed at any point (a runtime
 * timeout) in full, VF settings and host-side MAC and state included. */
static const struct step {
	const char *what;
	int (*run)(struct attach *a, struct cni_err *err);
	int (*undo)(struct attach *a, struct cni_err *err);
	bool partial;
} steps[] = {
	{ "save state", attach_save, NULL, false },	/* removed by roll_back, or kept for DEL */
	{ "apply VF settings", vf_apply, vf_restore, true },
	{ "set the GUID and rebind the VF", ib_apply, ib_restore, true },
	{ "start the IPAM plugin", ipamstep_add_start, ipamstep_add_abandon, false },
	{ "move the netdev", netdev_to_pod, netdev_to_host, false },
	{ "move the RDMA device", rdma_to_pod, rdma_to_host, false },
	{ "find the IPoIB netdev", ib_netdev_to_pod, ib_netdev_to_host, false },
	{ "allocate addresses", ipamstep_add, ipamstep_del, false },
	{ "configure the pod link", netdev_configure, NULL, false },
	{ "build the result", build_result, NULL, false },
	/* last: nothing after it can fail, so it needs no undo */
	{ "write the device-info file", devfile_write, NULL, false },
};

/* Undoes steps [0, done) in reverse. When an undo fails the state file (and
 * the lock file's record of it) stays: it is what the DEL that follows needs
 * to finish the job (the host MAC, up state, name and VF settings). */
static void roll_back(struct attach *a, int done, struct cni_err *err)
{
	char name[NETCONF_NAME_MAX + IFNAMSIZ + 8];
	int failed = 0;

	for (int i = done - 1; i >= 0; i--) {
		struct cni_err undo_err = { 0 };

		if (steps[i].undo && steps[i].undo(a, &undo_err) < 0 && undo_err.code != 0) {
			log_error("rollback of \"%s\" failed: %s", steps[i].what, undo_err.msg);
			failed++;
		}
	}
	if (!failed) {
		struct cni_err rm_err = { 0 };

		if (done > 0 && attach_remove(a, &rm_err) < 0)
			log_error("rollback of \"save state\" failed: %s", rm_err.msg);
		return;
	}
	record_state_name(a->state.containerid, a->state.ifname, name, sizeof(name));
	cni_err_details(err, "rollback incomplete (%d undo steps failed, see the log): state "
			"%s/%s kept for DEL", failed, a->conf.data_dir, name);
}

/* The VF in the host while its lock file still names another attachment
 * with a state file, in whatever dataDir: that attachment's undo is
 * unfinished (its pod died without DEL, its DEL stopped half-way, or its
 * ADD's rollback failed). Its host side is undone first, as its DEL would
 * (its address stays for its own DEL or GC), so this pod gets the VF as it
 * was before the other one, whatever the VF is named now. A VF in a pod (no
 * netdev in the host) is never taken from it here. Only a state file about
 * this very VF is acted on; a record that does not parse is ignored. */
static int reclaim_unfinished(const struct plugin_ctx *ctx, struct attach *a,
			      struct cni_err *err)
{
	struct cni_err path_err = { 0 };
	struct record_holder h;
	struct attach *old = NULL;
	struct link_info link;
	int ret;

	/* sysfs and rtnetlink agree the netdev is in the host */
	if (!a->vf.ifname[0] || link_get_by_name(a->host_nl, a->vf.ifname, &link) < 0)
		return 0;
	ret = statefile_holder(a->lock_fd, &h);
	if (ret < 0)
		log_warn("VF %s: ignoring the damaged holder record in %s/%s.lock: %s", a->vf.bdf,
			 NODELOCK_DIR, a->conf.device_id, strerror(-ret));
	if (ret < 0 || !h.dir[0] || attach_is_holder(a, &h))
		return 0;
	/* the rule the dataDir that wrote it passed */
	if (confpath_check("dataDir", h.dir, sizeof(h.dir), CONFPATH_WRITE_DIR, &path_err) < 0) {
		log_warn("VF %s: ignoring the holder record in %s/%s.lock: %s", a->vf.bdf,
			 NODELOCK_DIR, a->conf.device_id, path_err.msg);
		return 0;
	}
	ret = attach_new_saved(ctx, h.dir, h.containerid, h.ifname, &old, err);
	if (ret == 0 && strcmp(old->vf.bdf, a->vf.bdf) != 0)
		ret = -ENOENT;		/* that file is about another VF */
	else if (ret == 0)
		ret = del_locked(old, false, err);
	if (ret == 0) {
		log_info("VF %s: finished the undo of %s:%s (state in %s), back as %s", a->vf.bdf,
			 h.containerid, h.ifname, h.dir, old->state.host_ifname);
		snprintf(a->vf.ifname, sizeof(a->vf.ifname), "%s", old->state.host_ifname);
		/* an IB VF was rebound: new netdev, maybe another RDMA device name */
		if (old->state.ib)
			ret = vf_resolve(a, err);
	} else if (ret != -ENOENT) {
		cni_err_wrap(err, "VF %s: the unfinished undo of %s:%s (state in %s) failed",
			     a->vf.bdf, h.containerid, h.ifname, h.dir);
	}
	attach_free(old);
	return ret == -ENOENT ? 0 : ret;
}

/* What reconcile needs to judge and undo the attachment without the
 * runtime: the netns as it is now, when, and the IPAM DEL's input. Without
 * it (a config too big to save) reconcile leaves the attachment to its DEL. */
static void save_request(const struct plugin_ctx *ctx, struct attach *a)
{
	struct nsident ns;
	int ret;

	ret = nsident_of(a->state.netns, &ns);
	if (ret == 0)
		ret = nsident_boot(ns.boot);
	if (ret == 0)
		ret = record_state_set_request(&a->state, &ns, (uint64_t)time(NULL), ctx->conf,
					       ctx->conf_len, ctx->env.args, ctx->env.path);
	if (ret < 0)
		log_warn("%s:%s: the request is not saved for reconcile (%s): only a DEL undoes it",
			 a->state.containerid, a->state.ifname, strerror(-ret));
}

/* Everything that can be refused is refused here, before any change. */
static int prepare(const struct plugin_ctx *ctx, struct attach *a, struct cni_err *err)
{
	int ret;

	ret = attach_open_netns(a, false, err);
	if (ret == 0)
		save_request(ctx, a);
	if (ret == 0)
		ret = attach_lock(a, NODELOCK_WAIT_MS, err);
	if (ret == 0)
		ret = vf_resolve(a, err);
	if (ret == 0)
		ret = reclaim_unfinished(ctx, a, err);
	if (ret == 0)
		ret = netdev_prepare(a, err);
	if (ret == 0)
		ret = rdma_prepare(a, err);
	if (ret == 0)
		ret = ib_prepare(a, err);
	if (ret == 0)
		ret = vf_prepare(a, err);
	if (ret == 0)
		ret = devfile_prepare(a, err);
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
	if (ret < 0 && i > 0) {
		size_t failed = i - 1;

		roll_back(a, (int)(steps[failed].partial ? i : failed), &ctx->err);
	}
	if (ret == 0) {
		ctx->out = a->out;
		a->out = NULL;
	}
	attach_free(a);
	return ret;
}
