// SPDX-License-Identifier: Apache-2.0
/* One attachment while a verb works on it: made from the request or a state file, its handles opened and released, its state saved under its locks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "attach.h"
#include "confpath.h"
#include "guid.h"
#include "log.h"
#include "netns.h"
#include "nodelock.h"
#include "statefile.h"

/* Sets the attachment's identity (from the env, or from a state file for GC). */
static void set_id(struct attach *a, const char *containerid, const char *ifname,
		   const char *netns)
{
	struct record_state *s = &a->state;

	snprintf(s->containerid, sizeof(s->containerid), "%s", containerid ? containerid : "");
	snprintf(s->ifname, sizeof(s->ifname), "%s", ifname ? ifname : "");
	snprintf(s->netns, sizeof(s->netns), "%s", netns ? netns : "");
}

int attach_new(const struct plugin_ctx *ctx, struct attach **out, struct cni_err *err)
{
	struct attach *a;
	int ret;

	*out = NULL;
	a = calloc(1, sizeof(*a));
	if (!a) {
		cni_err_set(err, CNI_ERR_IO, "out of memory");
		return -ENOMEM;
	}
	set_id(a, ctx->env.containerid, ctx->env.ifname, ctx->env.netns);
	a->conf_text = ctx->conf;
	a->conf_len = ctx->conf_len;
	a->host_ns = -1;
	a->pod_ns = -1;
	a->lock_fd = -1;
	a->guid_lock_fd = -1;
	a->ipam = (struct ipamexec_run)IPAMEXEC_RUN_INIT;
	ret = cniargs_parse(ctx->env.args, &a->args, err);
	if (ret == 0)
		ret = conf_parse(ctx->conf, &a->args, conf_needs(ctx->env.cmd), &a->conf, err);
	/* before anything is opened or created: the paths the config names */
	if (ret == 0 && (confpath_check("dataDir", a->conf.data_dir, sizeof(a->conf.data_dir),
					CONFPATH_WRITE_DIR, err) ||
			 confpath_check("logFile", a->conf.log_file, sizeof(a->conf.log_file),
					CONFPATH_WRITE_FILE, err) ||
			 confpath_check("runtimeConfig.CNIDeviceInfoFile", a->conf.devinfo_file,
					sizeof(a->conf.devinfo_file), CONFPATH_WRITE_FILE, err)))
		ret = -EINVAL;
	if (ret == 0)
		log_init(a->conf.log_level[0] ? a->conf.log_level : NULL,
			 a->conf.log_file[0] ? a->conf.log_file : NULL);
	if (ret < 0) {
		attach_free(a);
		return ret;
	}
	snprintf(a->state.network, sizeof(a->state.network), "%s", a->conf.net.name);
	*out = a;
	return 0;
}

int attach_new_saved(const struct plugin_ctx *ctx, const char *dir, const char *containerid,
		     const char *ifname, struct attach **out, struct cni_err *err)
{
	struct attach *a = NULL;
	int ret;

	*out = NULL;
	ret = attach_new(ctx, &a, err);
	if (ret == 0) {
		set_id(a, containerid, ifname, "");
		snprintf(a->conf.data_dir, sizeof(a->conf.data_dir), "%s", dir);
		ret = attach_load(a, err);
	}
	if (ret < 0) {
		attach_free(a);
		return ret;
	}
	snprintf(a->conf.device_id, sizeof(a->conf.device_id), "%s", a->vf.bdf);
	a->conf.is_aux = !sysfs_valid_bdf(a->vf.bdf);
	*out = a;
	return 0;
}

void attach_free(struct attach *a)
{
	if (!a)
		return;
	cJSON_Delete(a->out);
	free(a->devinfo_doc);
	nodelock_release(a->guid_lock_fd);
	nodelock_release(a->lock_fd);
	link_sock_close(a->pod_nl);
	link_sock_close(a->host_nl);
	netns_close(a->pod_ns);
	netns_close(a->host_ns);
	conf_release(&a->conf);
	free(a);
}

int attach_open_netns(struct attach *a, bool missing_ok, struct cni_err *err)
{
	const char *path = a->state.netns;
	int ret;

	a->host_ns = netns_current();
	if (a->host_ns < 0) {
		cni_err_set(err, CNI_ERR_IO, "failed to open the host netns: %s",
			    strerror(-a->host_ns));
		return a->host_ns;
	}
	ret = link_sock_open(-1, &a->host_nl, err);
	if (ret < 0 || !path[0])
		return ret;
	ret = netns_open(path, &a->pod_ns, err);
	if (ret == -ENOENT && missing_ok)
		return 0;
	if (ret == -ENOENT)
		cni_err_set(err, CNI_ERR_ENV, "netns \"%s\" does not exist", path);
	if (ret < 0)
		return ret;
	return link_sock_open(a->pod_ns, &a->pod_nl, err);
}

int attach_lock(struct attach *a, int wait_ms, struct cni_err *err)
{
	int ret = nodelock_vf(a->conf.device_id, wait_ms, err);

	if (ret < 0)
		return ret;
	a->lock_fd = ret;
	return 0;
}

int attach_lock_guid(struct attach *a, uint64_t guid, int wait_ms, struct cni_err *err)
{
	int ret = nodelock_guid(guid, wait_ms, err);

	if (ret < 0)
		return ret;
	a->guid_lock_fd = ret;
	return 0;
}

void attach_unlock_guid(struct attach *a)
{
	nodelock_release(a->guid_lock_fd);
	a->guid_lock_fd = -1;
}

/* The state names the VF the steps found (vf). */
static void vf_to_state(struct attach *a)
{
	snprintf(a->state.device_id, sizeof(a->state.device_id), "%s", a->vf.bdf);
	a->state.vf_index = a->vf.vf_index;
}

int attach_save(struct attach *a, struct cni_err *err)
{
	vf_to_state(a);
	return statefile_save(a->conf.data_dir, &a->state, a->lock_fd, a->conf.device_id, err);
}

int attach_load(struct attach *a, struct cni_err *err)
{
	int ret = statefile_load(a->conf.data_dir, a->state.containerid, a->state.ifname,
				 &a->state, err);

	if (ret < 0)
		return ret;
	snprintf(a->vf.bdf, sizeof(a->vf.bdf), "%s", a->state.device_id);
	a->vf.vf_index = a->state.vf_index;
	return 0;
}

int attach_remove(struct attach *a, struct cni_err *err)
{
	vf_to_state(a);
	return statefile_remove(a->conf.data_dir, &a->state, a->lock_fd, a->conf.device_id, err);
}

bool attach_is_holder(const struct attach *a, const struct record_holder *h)
{
	return record_holder_is(h, a->conf.data_dir, a->state.containerid, a->state.ifname);
}
