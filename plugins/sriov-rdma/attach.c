// SPDX-License-Identifier: Apache-2.0
/* The attachment record: setup of its handles, its alias, its state file. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "attach.h"
#include "confpath.h"
#include "fileio.h"
#include "guid.h"
#include "lockfile.h"
#include "log.h"
#include "netns.h"

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
	attach_set_id(a, ctx->env.containerid, ctx->env.ifname, ctx->env.netns);
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
	snprintf(a->network, sizeof(a->network), "%s", a->conf.net.name);
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
		attach_set_id(a, containerid, ifname, "");
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

void attach_set_id(struct attach *a, const char *containerid, const char *ifname,
		   const char *netns)
{
	snprintf(a->containerid, sizeof(a->containerid), "%s", containerid ? containerid : "");
	snprintf(a->ifname, sizeof(a->ifname), "%s", ifname ? ifname : "");
	snprintf(a->netns, sizeof(a->netns), "%s", netns ? netns : "");
}

void attach_free(struct attach *a)
{
	if (!a)
		return;
	cJSON_Delete(a->out);
	free(a->devinfo_doc);
	lockfile_unlock(a->guid_lock_fd);
	lockfile_unlock(a->lock_fd);
	link_sock_close(a->pod_nl);
	link_sock_close(a->host_nl);
	netns_close(a->pod_ns);
	netns_close(a->host_ns);
	conf_release(&a->conf);
	free(a);
}

int attach_open_netns(struct attach *a, bool missing_ok, struct cni_err *err)
{
	const char *path = a->netns;
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

/* dir/name locked, waiting up to wait_ms: its fd, or -errno with err naming what. */
static int lock_in(const char *dir, const char *name, const char *what, int wait_ms,
		   struct cni_err *err)
{
	int ret = fileio_mkdir(dir);

	if (ret == 0)
		ret = lockfile_lock(dir, name, wait_ms);
	if (ret < 0)
		cni_err_set(err, ret == -ETIMEDOUT ? CNI_ERR_TRY_AGAIN : CNI_ERR_IO,
			    "failed to lock %s in %s: %s", what, dir, strerror(-ret));
	return ret;
}

int attach_lock(struct attach *a, int wait_ms, struct cni_err *err)
{
	char name[SYSFS_NAME_MAX + 8], what[SYSFS_NAME_MAX + 8];
	int ret;

	snprintf(name, sizeof(name), "%s.lock", a->conf.device_id);
	snprintf(what, sizeof(what), "VF %s", a->conf.device_id);
	ret = lock_in(ATTACH_LOCK_DIR, name, what, wait_ms, err);
	if (ret < 0)
		return ret;
	a->lock_fd = ret;
	return 0;
}

int attach_lock_guid(struct attach *a, uint64_t guid, int wait_ms, struct cni_err *err)
{
	char name[32], text[GUID_STR_LEN + 1], what[GUID_STR_LEN + 8];
	int ret;

	snprintf(name, sizeof(name), "%016" PRIx64 ".lock", guid);
	guid_format(guid, text);
	snprintf(what, sizeof(what), "GUID %s", text);
	ret = lock_in(ATTACH_GUID_LOCK_DIR, name, what, wait_ms, err);
	if (ret < 0)
		return ret;
	a->guid_lock_fd = ret;
	return 0;
}

void attach_unlock_guid(struct attach *a)
{
	lockfile_unlock(a->guid_lock_fd);
	a->guid_lock_fd = -1;
}

int attach_alias(const struct attach *a, char out[LINK_ALIAS_MAX])
{
	int len = snprintf(out, LINK_ALIAS_MAX, ATTACH_ALIAS_PREFIX "%s:%s", a->host_ifname,
			   a->containerid);

	return len < LINK_ALIAS_MAX ? 0 : -ENAMETOOLONG;
}

int attach_alias_parse(const char *alias, char host_ifname[IFNAMSIZ], char *containerid,
		       size_t size)
{
	const char *name = alias + strlen(ATTACH_ALIAS_PREFIX);
	const char *colon;

	if (strncmp(alias, ATTACH_ALIAS_PREFIX, strlen(ATTACH_ALIAS_PREFIX)) != 0)
		return -EINVAL;
	colon = strchr(name, ':');
	if (!colon || colon == name || colon - name >= IFNAMSIZ || !env_valid_id(colon + 1) ||
	    strlen(colon + 1) >= size)
		return -EINVAL;
	snprintf(host_ifname, IFNAMSIZ, "%.*s", (int)(colon - name), name);
	snprintf(containerid, size, "%s", colon + 1);
	return 0;
}

/* The VF's lock file names the state file of the attachment that holds the
 * VF: written with its state, cleared with it (only by that attachment). A
 * write that fails costs only the hint: it is logged, not an error. */
static void holder_write(const struct attach *a, const char *line)
{
	ssize_t len = (ssize_t)strlen(line);

	if (a->lock_fd >= 0 &&
	    (pwrite(a->lock_fd, line, (size_t)len, 0) != len || ftruncate(a->lock_fd, len) < 0))
		log_warn("VF %s: cannot record its holder in %s/%s.lock: %s", a->vf.bdf,
			 ATTACH_LOCK_DIR, a->conf.device_id, strerror(errno));
}

int attach_holder(const struct attach *a, struct record_holder *h)
{
	char line[RECORD_HOLDER_MAX + 1];
	ssize_t n;

	memset(h, 0, sizeof(*h));
	if (a->lock_fd < 0)
		return -EBADF;
	n = pread(a->lock_fd, line, sizeof(line), 0);
	if (n < 0)
		return -errno;
	if ((size_t)n == sizeof(line))
		return -EBADMSG;
	line[n] = '\0';
	return record_holder_parse(line, (size_t)n, h);
}

int attach_lock_holder(const char *lock_name, struct record_holder *h)
{
	char *text = NULL;
	size_t len = 0;
	int ret;

	memset(h, 0, sizeof(*h));
	ret = fileio_read_max(ATTACH_LOCK_DIR, lock_name, RECORD_HOLDER_MAX, &text, &len);
	if (ret == 0)
		ret = record_holder_parse(text, len, h);
	else if (ret == -EFBIG || ret == -EINVAL)
		ret = -EBADMSG;
	free(text);
	return ret;
}

int attach_save(const struct attach *a, struct cni_err *err)
{
	char name[NETCONF_NAME_MAX + IFNAMSIZ + 8], line[RECORD_HOLDER_MAX];
	char *text = record_state_encode(a);
	int ret = text ? 0 : -ENOMEM;

	record_state_name(a->containerid, a->ifname, name, sizeof(name));
	if (ret == 0)
		ret = fileio_mkdir(a->conf.data_dir);
	if (ret == 0)
		ret = fileio_write(a->conf.data_dir, name, text, strlen(text));
	if (ret == 0 && record_holder_format(a->conf.data_dir, a->containerid, a->ifname, line) < 0)
		log_warn("VF %s: dataDir %s cannot be named in its lock file", a->vf.bdf,
			 a->conf.data_dir);
	else if (ret == 0)
		holder_write(a, line);
	if (ret < 0)
		cni_err_set(err, CNI_ERR_IO, "failed to save state %s/%s: %s", a->conf.data_dir,
			    name, strerror(-ret));
	free(text);
	return ret;
}

/* A state file that does not read, or names another attachment, is treated
 * as absent (DEL must still succeed from what the host and pod show), with a
 * warning naming it. */
int attach_load(struct attach *a, struct cni_err *err)
{
	char name[NETCONF_NAME_MAX + IFNAMSIZ + 8];
	struct attach *copy = NULL;
	char *text = NULL;
	size_t len = 0;
	int ret;

	record_state_name(a->containerid, a->ifname, name, sizeof(name));
	ret = fileio_read_max(a->conf.data_dir, name, RECORD_STATE_MAX, &text, &len);
	if (ret == -ENOENT)
		return ret;
	if (ret < 0 && ret != -EFBIG && ret != -EINVAL) {
		cni_err_set(err, CNI_ERR_IO, "failed to read state %s/%s: %s", a->conf.data_dir,
			    name, strerror(-ret));
		return ret;
	}
	copy = ret == 0 ? malloc(sizeof(*copy)) : NULL;
	if (ret == 0 && !copy) {
		free(text);
		cni_err_set(err, CNI_ERR_IO, "out of memory");
		return -ENOMEM;
	}
	if (copy) {
		memcpy(copy, a, sizeof(*a));
		ret = record_state_decode(text, len, copy);
	}
	if (copy && ret == 0 && !strcmp(a->containerid, copy->containerid) &&
	    !strcmp(a->ifname, copy->ifname)) {
		memcpy(a, copy, sizeof(*a));
	} else {
		log_warn("ignoring damaged state %s/%s: %s", a->conf.data_dir, name,
			 strerror(ret < 0 ? -ret : EBADMSG));
		ret = -ENOENT;
	}
	free(copy);
	free(text);
	return ret;
}

bool attach_is_holder(const struct attach *a, const struct record_holder *h)
{
	return !strcmp(h->dir, a->conf.data_dir) && !strcmp(h->containerid, a->containerid) &&
	       !strcmp(h->ifname, a->ifname);
}

int attach_remove(struct attach *a, struct cni_err *err)
{
	char name[NETCONF_NAME_MAX + IFNAMSIZ + 8];
	struct record_holder h;
	int ret;

	record_state_name(a->containerid, a->ifname, name, sizeof(name));
	ret = fileio_remove(a->conf.data_dir, name);
	if (ret == 0 && attach_holder(a, &h) == 0 && attach_is_holder(a, &h))
		holder_write(a, "");
	if (ret < 0)
		cni_err_set(err, CNI_ERR_IO, "failed to remove state of %s:%s in %s: %s",
			    a->containerid, a->ifname, a->conf.data_dir, strerror(-ret));
	return ret;
}
