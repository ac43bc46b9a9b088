// SPDX-License-Identifier: Apache-2.0
/* The attachment record: setup of its handles, its alias, its state file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "attach.h"
#include "cache.h"
#include "confpath.h"
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
	a->ipam = (struct ipam_run)IPAM_RUN_INIT;
	ret = cniargs_parse(ctx->env.args, &a->args, err);
	if (ret == 0)
		ret = conf_parse(ctx->conf, &a->args, conf_needs(ctx->env.cmd), &a->conf, err);
	/* before anything is opened or created: the paths the config names */
	if (ret == 0 && (confpath_check("dataDir", a->conf.data_dir, sizeof(a->conf.data_dir),
					CONFPATH_WRITE_DIR, err) ||
			 confpath_check("logFile", a->conf.log_file, sizeof(a->conf.log_file),
					CONFPATH_WRITE_FILE, err)))
		ret = -EINVAL;
	if (ret == 0)
		log_init(a->conf.log_level[0] ? a->conf.log_level : NULL,
			 a->conf.log_file[0] ? a->conf.log_file : NULL);
	if (ret < 0) {
		attach_free(a);
		return ret;
	}
	*out = a;
	return 0;
}

int attach_new_saved(const struct plugin_ctx *ctx, const char *containerid, const char *ifname,
		     struct attach **out, struct cni_err *err)
{
	struct attach *a = NULL;
	int ret;

	*out = NULL;
	ret = attach_new(ctx, &a, err);
	if (ret == 0) {
		attach_set_id(a, containerid, ifname, "");
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
	cache_unlock(a->lock_fd);
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

int attach_lock(struct attach *a, int wait_ms, struct cni_err *err)
{
	char dir[PATH_MAX + 8];
	char name[SYSFS_NAME_MAX + 8];
	int ret;

	snprintf(dir, sizeof(dir), "%s/locks", a->conf.data_dir);
	snprintf(name, sizeof(name), "%s.lock", a->conf.device_id);
	ret = cache_mkdir(dir);
	if (ret == 0)
		ret = cache_lock(dir, name, wait_ms);
	if (ret < 0) {
		cni_err_set(err, ret == -ETIMEDOUT ? CNI_ERR_TRY_AGAIN : CNI_ERR_IO,
			    "failed to lock VF %s in %s: %s", a->conf.device_id, dir, strerror(-ret));
		return ret;
	}
	a->lock_fd = ret;
	return 0;
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

void attach_state_name(const char *containerid, const char *ifname, char *out, size_t size)
{
	/* ':' is in neither a containerID nor an ifname: the name is unambiguous. */
	snprintf(out, size, "%s:%s.json", containerid, ifname);
}

/* "<containerID>:<ifname>.json" -> its two parts; -EINVAL for other files. */
int attach_state_split(const char *name, char *containerid, size_t size, char ifname[IFNAMSIZ])
{
	static const char suffix[] = ".json";
	const char *colon = strchr(name, ':');
	size_t stem = strlen(name), id_len, ifname_len;

	if (!colon || stem < sizeof(suffix) || strcmp(name + stem - strlen(suffix), suffix))
		return -EINVAL;
	stem -= strlen(suffix);
	id_len = (size_t)(colon - name);
	ifname_len = stem - id_len - 1;
	if (id_len >= size || ifname_len >= IFNAMSIZ)
		return -EINVAL;
	snprintf(containerid, size, "%.*s", (int)id_len, name);
	snprintf(ifname, IFNAMSIZ, "%.*s", (int)ifname_len, colon + 1);
	return env_valid_id(containerid) && env_valid_ifname(ifname) ? 0 : -EINVAL;
}

enum kind { K_STR, K_INT, K_BOOL, K_U32, K_MAC };

/* What the state file holds: the host-side facts DEL restores. */
static const struct field {
	const char *key;
	enum kind kind;
	size_t off;
	size_t size;
} fields[] = {
#define F(key, kind, member) { key, kind, offsetof(struct attach, member), \
			       sizeof(((struct attach *)0)->member) }
	F("containerID", K_STR, containerid),
	F("ifname", K_STR, ifname),
	F("netns", K_STR, netns),
	F("deviceID", K_STR, vf.bdf),
	F("hostIfname", K_STR, host_ifname),
	F("hostAlias", K_STR, host_alias),
	F("hostMac", K_MAC, host_mac),
	F("hostUp", K_BOOL, host_up),
	F("chained", K_BOOL, chained),
	F("vfIndex", K_INT, vf.vf_index),
	F("vfChanged", K_U32, vf_changed),
	F("vfMac", K_MAC, vf_orig.mac),
	F("vfVlan", K_INT, vf_orig.vlan),
	F("vfQos", K_INT, vf_orig.qos),
	F("vfVlanProto", K_INT, vf_orig.vlan_proto),
	F("vfSpoofchk", K_INT, vf_orig.spoofchk),
	F("vfTrust", K_INT, vf_orig.trust),
	F("vfLinkState", K_INT, vf_orig.link_state),
	F("vfMinTxRate", K_U32, vf_orig.min_tx_rate),
	F("vfMaxTxRate", K_U32, vf_orig.max_tx_rate),
	F("hasRdma", K_BOOL, has_rdma),
	F("rdmaName", K_STR, rdma_name),
	F("rdmaIndex", K_U32, rdma_index),
#undef F
};

static cJSON *field_to_json(const struct field *f, const char *p)
{
	char mac[18];

	switch (f->kind) {
	case K_STR:
		return cJSON_CreateString(p);
	case K_INT:
		return cJSON_CreateNumber(*(const int *)p);
	case K_BOOL:
		return cJSON_CreateBool(*(const bool *)p);
	case K_U32:
		return cJSON_CreateNumber(*(const uint32_t *)p);
	case K_MAC:
		snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", (uint8_t)p[0],
			 (uint8_t)p[1], (uint8_t)p[2], (uint8_t)p[3], (uint8_t)p[4],
			 (uint8_t)p[5]);
		return cJSON_CreateString(mac);
	}
	return NULL;
}

static int field_from_json(const struct field *f, const cJSON *v, char *p)
{
	if (f->kind == K_BOOL) {
		if (!cJSON_IsBool(v))
			return -EINVAL;
		*(bool *)p = cJSON_IsTrue(v);
		return 0;
	}
	if (f->kind == K_STR || f->kind == K_MAC) {
		if (!cJSON_IsString(v) || strlen(v->valuestring) >= (f->kind == K_STR ? f->size : 18))
			return -EINVAL;
		if (f->kind == K_MAC)
			return conf_parse_mac(v->valuestring, (uint8_t *)p);
		memcpy(p, v->valuestring, strlen(v->valuestring) + 1);
		return 0;
	}
	if (!cJSON_IsNumber(v))
		return -EINVAL;
	if (f->kind == K_INT)
		*(int *)p = (int)v->valuedouble;
	else
		*(uint32_t *)p = (uint32_t)v->valuedouble;
	return 0;
}

/* The VF's lock file holds the state name of the attachment that holds the
 * VF: written with its state, cleared with it (only by that attachment). A
 * write that fails costs only the hint: it is logged, not an error. */
static void owner_write(const struct attach *a, const char *name)
{
	ssize_t len = (ssize_t)strlen(name);

	if (a->lock_fd >= 0 &&
	    (pwrite(a->lock_fd, name, (size_t)len, 0) != len || ftruncate(a->lock_fd, len) < 0))
		log_warn("VF %s: cannot record its holder in its lock file: %s", a->vf.bdf,
			 strerror(errno));
}

int attach_owner(const struct attach *a, char *name, size_t size)
{
	ssize_t n;

	name[0] = '\0';
	if (a->lock_fd < 0)
		return -EBADF;
	n = pread(a->lock_fd, name, size - 1, 0);
	if (n < 0)
		return -errno;
	name[n] = '\0';
	return (int)n;
}

int attach_save(const struct attach *a, struct cni_err *err)
{
	char name[NETCONF_NAME_MAX + IFNAMSIZ + 8];
	cJSON *root = cJSON_CreateObject();
	char *text = NULL;
	int ret = -ENOMEM;

	for (size_t i = 0; root && i < sizeof(fields) / sizeof(fields[0]); i++) {
		cJSON *v = field_to_json(&fields[i], (const char *)a + fields[i].off);

		if (!v || !cJSON_AddItemToObject(root, fields[i].key, v)) {
			cJSON_Delete(v);
			goto out;
		}
	}
	text = root ? cJSON_PrintUnformatted(root) : NULL;
	if (!text)
		goto out;
	attach_state_name(a->containerid, a->ifname, name, sizeof(name));
	ret = cache_mkdir(a->conf.data_dir);
	if (ret == 0)
		ret = cache_write(a->conf.data_dir, name, text, strlen(text));
	if (ret == 0)
		owner_write(a, name);
out:
	if (ret < 0)
		cni_err_set(err, CNI_ERR_IO, "failed to save state %s/%s: %s", a->conf.data_dir,
			    name, strerror(-ret));
	free(text);
	cJSON_Delete(root);
	return ret;
}

/* A state file that does not parse is treated as absent (DEL must still
 * succeed), with a warning in the log. */
int attach_load(struct attach *a, struct cni_err *err)
{
	char name[NETCONF_NAME_MAX + IFNAMSIZ + 8];
	struct attach *scratch;
	cJSON *root = NULL;
	char *text = NULL;
	size_t len;
	int ret;

	attach_state_name(a->containerid, a->ifname, name, sizeof(name));
	ret = cache_read(a->conf.data_dir, name, &text, &len);
	if (ret == -ENOENT)
		return ret;
	if (ret < 0) {
		cni_err_set(err, CNI_ERR_IO, "failed to read state %s/%s: %s", a->conf.data_dir,
			    name, strerror(-ret));
		return ret;
	}
	/* Fields land in a scratch copy so a bad file changes nothing. */
	scratch = malloc(sizeof(*scratch));
	root = cJSON_Parse(text);
	ret = root && scratch ? 0 : -EINVAL;
	if (scratch)
		memcpy(scratch, a, sizeof(*a));
	for (size_t i = 0; ret == 0 && i < sizeof(fields) / sizeof(fields[0]); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, fields[i].key);

		ret = v ? field_from_json(&fields[i], v, (char *)scratch + fields[i].off) : -EINVAL;
	}
	if (ret == 0) {
		memcpy(a, scratch, sizeof(*a));
	} else {
		log_warn("ignoring corrupt state %s/%s", a->conf.data_dir, name);
		ret = -ENOENT;
	}
	free(scratch);
	cJSON_Delete(root);
	free(text);
	return ret;
}

int attach_remove(struct attach *a, struct cni_err *err)
{
	char name[NETCONF_NAME_MAX + IFNAMSIZ + 8], owner[sizeof(name)];
	int ret;

	attach_state_name(a->containerid, a->ifname, name, sizeof(name));
	ret = cache_remove(a->conf.data_dir, name);
	if (ret == 0 && attach_owner(a, owner, sizeof(owner)) > 0 && !strcmp(owner, name))
		owner_write(a, "");
	if (ret < 0)
		cni_err_set(err, CNI_ERR_IO, "failed to remove state of %s:%s in %s: %s",
			    a->containerid, a->ifname, a->conf.data_dir, strerror(-ret));
	return ret;
}
