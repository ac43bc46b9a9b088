// SPDX-License-Identifier: Apache-2.0
/* Parsing of the ib-sriov-cni keys of a config; no I/O. */
#include <errno.h>
#include <string.h>

#include "guid.h"
#include "ibconf.h"
#include "netconf.h"

#define EXAMPLE_GUID "00:02:c9:03:00:21:6e:70"
/* The spellings guid_parse_any takes, as net.ParseMAC (ib-sriov-cni) does. */
#define GUID_SPELLINGS EXAMPLE_GUID ", 00-02-c9-03-00-21-6e-70 or 0002.c903.0021.6e70"
/* What ib-kubernetes puts in the pod's cni-args once it has set it up. */
#define IB_K8S_STATUS_KEY "mellanox.infiniband.app"
#define IB_K8S_CONFIGURED "configured"

enum where { IN_RUNTIME_CONFIG, IN_ARGS_CNI, IN_ROOT };

/* Where a GUID may come from, the first one given wins (ib-sriov-cni reads
 * the first two; it documents the third but its code ignores it). */
static const struct {
	enum where where;
	const char *key;
	const char *name;
} guid_keys[] = {
	{ IN_RUNTIME_CONFIG, "infinibandGUID", "runtimeConfig.infinibandGUID" },
	{ IN_ARGS_CNI, "guid", "args.cni.guid" },
	{ IN_ROOT, "guid", "guid" },
};

/* args.cni is a map[string]string to ib-sriov-cni: its keys are matched
 * exactly, the last of repeated ones wins; "" when absent or null. */
static int args_value(const cJSON *cni, const char *key, const char **out, struct cni_err *err)
{
	const cJSON *item, *found = NULL;

	*out = "";
	cJSON_ArrayForEach(item, cni) {
		if (item->string && !strcmp(item->string, key))
			found = item;
	}
	if (!found || cJSON_IsNull(found))
		return 0;
	if (!cJSON_IsString(found)) {
		cni_err_set(err, CNI_ERR_DECODE, "args.cni \"%s\" must be a string", key);
		return -EINVAL;
	}
	*out = found->valuestring;
	return 0;
}

static int parse_guid(const char *key, const char *text, uint64_t *guid, struct cni_err *err)
{
	static const char *const why[] = { "all zeros", "all ones" };

	if (guid_parse_any(text, guid) < 0) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid %s \"%.64s\": want a GUID like "
			    GUID_SPELLINGS, key, text);
		return -EINVAL;
	}
	if (!guid_assigned(*guid)) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid %s \"%s\": %s names no port on the fabric; "
			    "want a GUID of its own like " EXAMPLE_GUID, key, text,
			    why[*guid != 0]);
		return -EINVAL;
	}
	return 0;
}

static int guid_text(const cJSON *const in[], size_t k, const char **text, struct cni_err *err)
{
	if (guid_keys[k].where == IN_ARGS_CNI)
		return args_value(in[IN_ARGS_CNI], guid_keys[k].key, text, err);
	if (netconf_get_str(in[guid_keys[k].where], guid_keys[k].key, text, err)) {
		if (guid_keys[k].where != IN_ROOT)
			cni_err_wrap(err, "runtimeConfig");
		return -EINVAL;
	}
	return 0;
}

static int parse_guids(const cJSON *const in[], struct ib_conf *c, struct cni_err *err)
{
	const char *text;
	uint64_t guid;

	for (size_t k = 0; k < sizeof(guid_keys) / sizeof(guid_keys[0]); k++) {
		if (guid_text(in, k, &text, err))
			return -EINVAL;
		/* "" is "not set", as to ib-sriov-cni's Go strings */
		if (!text || !text[0])
			continue;
		if (parse_guid(guid_keys[k].name, text, &guid, err))
			return -EINVAL;
		if (!c->has_guid) {
			c->has_guid = true;
			c->guid = guid;
			c->guid_key = guid_keys[k].name;
		}
	}
	return 0;
}

/* Keys with no meaning on IPoIB (its PF has no ndo_set_vf_mac/vlan/spoofchk/trust). */
static const char *const eth_keys[] = { "vlan", "vlanQoS", "vlanProto", "spoofchk", "trust", "mac" };

/* Matched as conf.c (and Go's encoding/json) matches them: in any case. */
static const char *find_eth_key(const cJSON *root, const cJSON *rc)
{
	for (size_t k = 0; k < sizeof(eth_keys) / sizeof(eth_keys[0]); k++)
		if (cJSON_GetObjectItem(root, eth_keys[k]))
			return eth_keys[k];
	return cJSON_GetObjectItem(rc, "mac") ? "runtimeConfig.mac" : NULL;
}

int ibconf_parse(const cJSON *root, const cJSON *rc, struct ib_conf *out, struct cni_err *err)
{
	const cJSON *args, *in[3] = { [IN_RUNTIME_CONFIG] = rc, [IN_ROOT] = root };
	const char *pkey, *status;

	memset(out, 0, sizeof(*out));
	if (netconf_get_object(root, "args", &args, err))
		return -EINVAL;
	if (netconf_get_object(args, "cni", &in[IN_ARGS_CNI], err)) {
		cni_err_wrap(err, "args");
		return -EINVAL;
	}
	/* ib-kubernetes reads pkey from the network; ib-sriov-cni only keeps it */
	if (parse_guids(in, out, err) || netconf_get_str(root, "pkey", &pkey, err) ||
	    netconf_get_bool(root, "ibKubernetesEnabled", &out->ib_kubernetes, NULL, err) ||
	    args_value(in[IN_ARGS_CNI], IB_K8S_STATUS_KEY, &status, err))
		return -EINVAL;
	out->ib_configured = !strcmp(status, IB_K8S_CONFIGURED);
	out->eth_key = find_eth_key(root, rc);
	return 0;
}

int ibconf_check_ready(const struct ib_conf *c, struct cni_err *err)
{
	if (!c->ib_kubernetes)
		return 0;
	if (!c->ib_configured) {
		cni_err_set(err, CNI_ERR_TRY_AGAIN, "ibKubernetesEnabled: ib-kubernetes has not set "
			    "this pod up yet (args.cni \"" IB_K8S_STATUS_KEY "\" is not \""
			    IB_K8S_CONFIGURED "\"); check that ib-kubernetes runs");
		return -EAGAIN;
	}
	if (!c->has_guid) {
		cni_err_set(err, CNI_ERR_CONFIG, "ibKubernetesEnabled: no GUID from ib-kubernetes "
			    "(runtimeConfig.infinibandGUID or args.cni.guid)");
		return -EINVAL;
	}
	return 0;
}
