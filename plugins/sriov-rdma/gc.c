// SPDX-License-Identifier: Apache-2.0
/* GC: undo attachments the runtime no longer lists, then let IPAM do the same. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "del.h"
#include "fileio.h"
#include "ipamexec.h"
#include "log.h"

static bool is_valid(const struct cni_netconf *nc, const char *containerid, const char *ifname)
{
	for (int i = 0; i < nc->n_valid; i++) {
		if (strcmp(nc->valid[i].containerid, containerid) == 0 &&
		    strcmp(nc->valid[i].ifname, ifname) == 0)
			return true;
	}
	return false;
}

/* An ADD saves its state before it moves anything, so a state file may be an
 * ADD still at work (its VF locked): GC leaves a busy VF to the next GC
 * rather than wait for it and undo what the runtime is creating. */
#define GC_LOCK_WAIT_MS 100

/* One attachment not in valid-attachments, with the device from its own
 * state file: undone when the file says it is of this GC's network. A file
 * of another network sharing the dataDir, or of an earlier version (no
 * network recorded: it could be any network's), is left alone; its DEL
 * still removes it. */
static int collect(struct plugin_ctx *ctx, const struct conf *conf, const char *containerid,
		   const char *ifname)
{
	struct cni_err err = { 0 };
	struct attach *a = NULL;
	int ret;

	ret = attach_new_saved(ctx, conf->data_dir, containerid, ifname, &a, &err);
	if (ret == 0 && strcmp(a->state.network, conf->net.name)) {
		if (!a->state.network[0])
			log_info("gc: %s:%s in %s records no network (an earlier version's): left "
				 "for its DEL", containerid, ifname, conf->data_dir);
		ret = -ENOENT;
	}
	if (ret == 0)
		ret = attach_lock(a, GC_LOCK_WAIT_MS, &err);
	if (ret == -ETIMEDOUT) {
		log_info("gc: VF %s is busy; %s:%s left for the next GC", a->vf.bdf, containerid,
			 ifname);
		ret = 0;
	} else if (ret == 0) {
		ret = del_locked(a, false, &err);
	}
	if (ret < 0 && ret != -ENOENT)
		log_error("gc of %s:%s failed: %s", containerid, ifname, err.msg);
	attach_free(a);
	return ret == -ENOENT ? 0 : ret;
}

static int collect_stale(struct plugin_ctx *ctx, const struct conf *conf)
{
	char containerid[NETCONF_NAME_MAX], ifname[IFNAMSIZ];
	char **names = NULL;
	size_t n = 0;
	int ret, failed = 0;

	ret = fileio_list(conf->data_dir, ".json", &names, &n);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0) {
		cni_err_set(&ctx->err, CNI_ERR_IO, "failed to list %s: %s", conf->data_dir,
			    strerror(-ret));
		return ret;
	}
	for (size_t i = 0; i < n; i++) {
		if (record_state_split(names[i], containerid, sizeof(containerid), ifname) == 0 &&
		    !is_valid(&conf->net, containerid, ifname) &&
		    collect(ctx, conf, containerid, ifname) < 0)
			failed++;
		free(names[i]);
	}
	free(names);
	if (failed)
		cni_err_set(&ctx->err, CNI_ERR_IO, "gc: %d stale attachments could not be undone "
			    "(see the log)", failed);
	return failed ? -EIO : 0;
}

int cmd_gc(struct plugin_ctx *ctx)
{
	struct attach *a = NULL;
	int ret;

	ret = attach_new(ctx, &a, &ctx->err);
	if (ret == 0 && !a->conf.net.has_valid) {
		cni_err_set(&ctx->err, CNI_ERR_CONFIG, "GC needs cni.dev/valid-attachments");
		ret = -EINVAL;
	}
	if (ret == 0)
		ret = collect_stale(ctx, &a->conf);
	if (ret == 0 && a->conf.has_ipam)
		ret = ipamexec_call(CNI_CMD_GC, a->conf.ipam_type, a->conf_text, a->conf_len, NULL,
				    &ctx->err);
	attach_free(a);
	return ret;
}
