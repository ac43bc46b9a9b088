// SPDX-License-Identifier: Apache-2.0
/* The common network config keys and typed readers for a plugin's own keys. */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "env.h"
#include "netconf.h"

#define ATTACHMENTS_KEY "cni.dev/valid-attachments"

/* As Go's encoding/json fills a struct field, which is how the reference
 * plugins (sriov-cni, whereabouts, libcni) read a config: the key matches
 * whatever its ASCII case ("spoofChk" is spoofchk), and of repeated keys
 * the last one counts. null is no value. */
const cJSON *netconf_get(const cJSON *obj, const char *key)
{
	const cJSON *item, *found = NULL;

	if (!cJSON_IsObject(obj))
		return NULL;
	cJSON_ArrayForEach(item, obj) {
		if (item->string && !strcasecmp(item->string, key) && !cJSON_IsNull(item))
			found = item;
	}
	return found;
}

/* A value as an error message names it: a string quoted (cut), a number or
 * a bool as written, otherwise its kind. */
static const char *shown(const cJSON *item, char *buf, size_t size)
{
	if (cJSON_IsString(item))
		snprintf(buf, size, "\"%.64s\"", item->valuestring);
	else if (cJSON_IsNumber(item))
		snprintf(buf, size, "%.17g", item->valuedouble);
	else
		snprintf(buf, size, "%s", cJSON_IsTrue(item) ? "true" : cJSON_IsFalse(item) ? "false" :
			 cJSON_IsArray(item) ? "an array" : "an object");
	return buf;
}

static int wrong_type(const cJSON *item, const char *key, const char *want, struct cni_err *err)
{
	char val[80];

	cni_err_set(err, CNI_ERR_DECODE, "config key \"%s\" must be %s, not %s", key, want,
		    shown(item, val, sizeof(val)));
	return -EINVAL;
}

int netconf_get_str(const cJSON *obj, const char *key, const char **out, struct cni_err *err)
{
	const cJSON *item = netconf_get(obj, key);

	*out = NULL;
	if (!item)
		return 0;
	if (!cJSON_IsString(item))
		return wrong_type(item, key, "a string", err);
	*out = item->valuestring;
	return 0;
}

int netconf_get_string(const cJSON *obj, const char *key, char *out, size_t size, bool *present,
		       struct cni_err *err)
{
	const char *val;
	size_t len;

	if (present)
		*present = false;
	if (netconf_get_str(obj, key, &val, err))
		return -EINVAL;
	if (!val)
		return 0;
	len = strlen(val);
	if (len >= size) {
		cni_err_set(err, CNI_ERR_CONFIG, "config key \"%s\" value \"%.64s\" is too long "
			    "(%zu bytes, max %zu)", key, val, len, size - 1);
		return -EINVAL;
	}
	memcpy(out, val, len + 1);
	if (present)
		*present = true;
	return 0;
}

int netconf_get_object(const cJSON *obj, const char *key, const cJSON **out, struct cni_err *err)
{
	const cJSON *item = netconf_get(obj, key);

	*out = NULL;
	if (!item)
		return 0;
	if (!cJSON_IsObject(item))
		return wrong_type(item, key, "an object", err);
	*out = item;
	return 0;
}

int netconf_get_bool(const cJSON *obj, const char *key, bool *out, bool *present, struct cni_err *err)
{
	const cJSON *item = netconf_get(obj, key);

	if (present)
		*present = false;
	if (!item)
		return 0;
	if (!cJSON_IsBool(item))
		return wrong_type(item, key, "true or false", err);
	*out = cJSON_IsTrue(item);
	if (present)
		*present = true;
	return 0;
}

int netconf_get_int(const cJSON *obj, const char *key, long min, long max, long *out, bool *present,
		    struct cni_err *err)
{
	const cJSON *item = netconf_get(obj, key);
	double d;

	if (present)
		*present = false;
	if (!item)
		return 0;
	d = item->valuedouble;
	if (!cJSON_IsNumber(item))
		return wrong_type(item, key, "an integer", err);
	if (d < (double)min || d > (double)max) {
		cni_err_set(err, CNI_ERR_CONFIG, "config key \"%s\" value %.0f is out of range [%ld, %ld]",
			    key, d, min, max);
		return -ERANGE;
	}
	if (d != (double)(long)d)
		return wrong_type(item, key, "an integer", err);
	*out = (long)d;
	if (present)
		*present = true;
	return 0;
}

static int parse_version(const cJSON *root, struct cni_netconf *out, struct cni_err *err)
{
	const cJSON *item = netconf_get(root, "cniVersion");

	if (!item) {
		cni_err_set(err, CNI_ERR_VERSION, "network config has no cniVersion");
		return -EINVAL;
	}
	if (netconf_get_string(root, "cniVersion", out->version_str, sizeof(out->version_str), NULL, err))
		return -EINVAL;
	if (version_parse(out->version_str, &out->version)) {
		cni_err_set(err, CNI_ERR_VERSION,
			    "unsupported cniVersion \"%s\": want 0.3.0, 0.3.1, 0.4.0, 1.0.0 or 1.1.0",
			    out->version_str);
		return -EINVAL;
	}
	return 0;
}

static int parse_required(const cJSON *root, const char *key, char *out, size_t size, struct cni_err *err)
{
	if (netconf_get_string(root, key, out, size, NULL, err))
		return -EINVAL;
	if (!out[0]) {
		cni_err_set(err, CNI_ERR_CONFIG, "network config has no \"%s\"", key);
		return -EINVAL;
	}
	return 0;
}

static int parse_prev_result(const cJSON *root, struct cni_netconf *out, struct cni_err *err)
{
	const cJSON *item = netconf_get(root, "prevResult");

	if (!item)
		return 0;
	out->prev_result = malloc(sizeof(*out->prev_result));
	if (!out->prev_result) {
		cni_err_set(err, CNI_ERR_IO, "out of memory");
		return -ENOMEM;
	}
	if (result_parse(item, out->prev_result, err)) {
		cni_err_wrap(err, "invalid prevResult");
		return -EINVAL;
	}
	return 0;
}

static int parse_attachment(const cJSON *item, int i, struct cni_attachment *out, struct cni_err *err)
{
	const cJSON *cid = cJSON_GetObjectItemCaseSensitive(item, "containerID");
	const cJSON *ifname = cJSON_GetObjectItemCaseSensitive(item, "ifname");

	if (!cJSON_IsString(cid) || !cJSON_IsString(ifname)) {
		cni_err_set(err, CNI_ERR_DECODE,
			    "%s[%d] must be an object with string containerID and ifname", ATTACHMENTS_KEY, i);
		return -EINVAL;
	}
	if (!env_valid_id(cid->valuestring) || strlen(cid->valuestring) >= sizeof(out->containerid)) {
		cni_err_set(err, CNI_ERR_CONFIG, "%s[%d]: invalid containerID \"%.64s\"",
			    ATTACHMENTS_KEY, i, cid->valuestring);
		return -EINVAL;
	}
	if (!env_valid_ifname(ifname->valuestring)) {
		cni_err_set(err, CNI_ERR_CONFIG, "%s[%d]: invalid ifname \"%.64s\"",
			    ATTACHMENTS_KEY, i, ifname->valuestring);
		return -EINVAL;
	}
	strcpy(out->containerid, cid->valuestring);
	strcpy(out->ifname, ifname->valuestring);
	return 0;
}

static int parse_attachments(const cJSON *root, struct cni_netconf *out, struct cni_err *err)
{
	const cJSON *list = netconf_get(root, ATTACHMENTS_KEY), *item;
	int n;

	if (!list)
		return 0;
	if (!cJSON_IsArray(list))
		return wrong_type(list, ATTACHMENTS_KEY, "an array", err);
	n = cJSON_GetArraySize(list);
	if (n > NETCONF_MAX_ATTACHMENTS) {
		cni_err_set(err, CNI_ERR_CONFIG, "config key \"%s\" has %d entries (max %d)",
			    ATTACHMENTS_KEY, n, NETCONF_MAX_ATTACHMENTS);
		return -E2BIG;
	}
	out->has_valid = true;
	if (!n)
		return 0;
	out->valid = calloc((size_t)n, sizeof(*out->valid));
	if (!out->valid) {
		cni_err_set(err, CNI_ERR_IO, "failed to allocate %d attachments", n);
		return -ENOMEM;
	}
	cJSON_ArrayForEach(item, list) {
		if (parse_attachment(item, out->n_valid, &out->valid[out->n_valid], err))
			return -EINVAL;
		out->n_valid++;
	}
	return 0;
}

int netconf_parse(const cJSON *root, struct cni_netconf *out, struct cni_err *err)
{
	int ret = -EINVAL;

	memset(out, 0, sizeof(*out));
	if (!cJSON_IsObject(root)) {
		cni_err_set(err, CNI_ERR_DECODE, "network config is not a JSON object");
		goto out;
	}
	/* type is not required: libcni's plugin side (skel) does not require it
	 * either, and an IPAM plugin driven by hand is given configs without it. */
	if (parse_version(root, out, err) ||
	    parse_required(root, "name", out->name, sizeof(out->name), err) ||
	    netconf_get_string(root, "type", out->type, sizeof(out->type), NULL, err))
		goto out;
	if (!env_valid_id(out->name)) {
		cni_err_set(err, CNI_ERR_CONFIG,
			    "invalid network name \"%s\": must match " ENV_ID_RULE, out->name);
		goto out;
	}
	ret = parse_prev_result(root, out, err);
	if (!ret)
		ret = parse_attachments(root, out, err);
out:
	if (ret)
		netconf_release(out);
	return ret;
}

void netconf_release(struct cni_netconf *nc)
{
	if (!nc)
		return;
	free(nc->prev_result);
	nc->prev_result = NULL;
	free(nc->valid);
	nc->valid = NULL;
	nc->n_valid = 0;
	nc->has_valid = false;
}

const char *netconf_sniff(const char *doc, char version[16], char *name, size_t name_size)
{
	cJSON *root = doc ? cJSON_Parse(doc) : NULL;
	const cJSON *item = netconf_get(root, "cniVersion");
	enum cni_version v = CNI_V110;

	if (cJSON_IsString(item))
		version_parse(item->valuestring, &v);
	strcpy(version, version_str(v));
	item = netconf_get(root, "name");
	snprintf(name, name_size, "%s",
		 cJSON_IsString(item) && env_valid_id(item->valuestring) ? item->valuestring : "");
	cJSON_Delete(root);
	return version;
}
