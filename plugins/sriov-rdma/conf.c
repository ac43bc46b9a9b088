// SPDX-License-Identifier: Apache-2.0
/* Parsing and validation of the sriov-rdma config; no I/O. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <linux/if_ether.h>
#include <cjson/cJSON.h>

#include "conf.h"

struct word {
	const char *name;
	int value;
};

static const struct word on_off[] = {
	{ "on", 1 }, { "off", 0 }, { NULL, 0 },
};

static const struct word link_states[] = {
	{ "auto", VF_LINK_AUTO }, { "enable", VF_LINK_ENABLE }, { "disable", VF_LINK_DISABLE },
	{ NULL, 0 },
};

static const struct word vlan_protos[] = {
	{ "802.1q", ETH_P_8021Q }, { "802.1ad", ETH_P_8021AD }, { NULL, 0 },
};

/* String-valued VF keys: the words each takes and the field it sets. */
static const struct {
	const char *key;
	const struct word *words;
	size_t field;
	unsigned int mask;
} word_keys[] = {
	{ "spoofchk", on_off, offsetof(struct vf_config, spoofchk), VF_SPOOFCHK },
	{ "trust", on_off, offsetof(struct vf_config, trust), VF_TRUST },
	{ "link_state", link_states, offsetof(struct vf_config, link_state), VF_LINK_STATE },
	{ "vlanProto", vlan_protos, offsetof(struct vf_config, vlan_proto), VF_VLAN },
};

/* Integer VF keys with the range sriov-cni and the kernel accept. */
static const struct {
	const char *key;
	long min, max;
	size_t field;
	unsigned int mask;
} int_keys[] = {
	{ "vlan", 0, 4094, offsetof(struct vf_config, vlan), VF_VLAN },
	{ "vlanQoS", 0, 7, offsetof(struct vf_config, qos), VF_VLAN },
};

static const struct {
	const char *key;
	size_t field;
} rate_keys[] = {
	{ "min_tx_rate", offsetof(struct vf_config, min_tx_rate) },
	{ "max_tx_rate", offsetof(struct vf_config, max_tx_rate) },
};

int conf_parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	char tail;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
		   &tail) != 6 || strlen(s) != 17)
		return -EINVAL;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

static int parse_word_key(const cJSON *root, int k, struct conf *c, struct cni_err *err)
{
	char val[32] = "";
	int ret;

	ret = netconf_get_string(root, word_keys[k].key, val, sizeof(val), err);
	if (ret < 0 || !cJSON_GetObjectItemCaseSensitive(root, word_keys[k].key))
		return ret;
	for (const struct word *w = word_keys[k].words; w->name; w++) {
		if (strcasecmp(w->name, val) == 0) {
			*(int *)((char *)&c->vf + word_keys[k].field) = w->value;
			c->vf_mask |= word_keys[k].mask;
			return 0;
		}
	}
	cni_err_set(err, CNI_ERR_CONFIG, "invalid %s \"%s\"", word_keys[k].key, val);
	return -EINVAL;
}

static int parse_vf_keys(const cJSON *root, struct conf *c, struct cni_err *err)
{
	bool present;
	long val;
	int ret;

	for (size_t k = 0; k < sizeof(word_keys) / sizeof(word_keys[0]); k++) {
		ret = parse_word_key(root, (int)k, c, err);
		if (ret < 0)
			return ret;
	}
	for (size_t k = 0; k < sizeof(int_keys) / sizeof(int_keys[0]); k++) {
		ret = netconf_get_int(root, int_keys[k].key, int_keys[k].min, int_keys[k].max,
				      &val, &present, err);
		if (ret < 0)
			return ret;
		if (present) {
			*(int *)((char *)&c->vf + int_keys[k].field) = (int)val;
			c->vf_mask |= int_keys[k].mask;
		}
	}
	for (size_t k = 0; k < sizeof(rate_keys) / sizeof(rate_keys[0]); k++) {
		ret = netconf_get_int(root, rate_keys[k].key, 0, UINT32_MAX, &val, &present, err);
		if (ret < 0)
			return ret;
		if (present) {
			*(uint32_t *)((char *)&c->vf + rate_keys[k].field) = (uint32_t)val;
			c->vf_mask |= VF_RATE;
		}
	}
	return 0;
}

static int check_vf_keys(const struct conf *c, struct cni_err *err)
{
	if (c->vf.vlan == 0 && c->vf.qos != 0) {
		cni_err_set(err, CNI_ERR_CONFIG, "vlanQoS %d needs a non-zero vlan", c->vf.qos);
		return -EINVAL;
	}
	if (c->vf.vlan == 0 && c->vf.vlan_proto == ETH_P_8021AD) {
		cni_err_set(err, CNI_ERR_CONFIG, "vlanProto \"802.1ad\" needs a non-zero vlan");
		return -EINVAL;
	}
	if (c->vf.max_tx_rate != 0 && c->vf.min_tx_rate > c->vf.max_tx_rate) {
		cni_err_set(err, CNI_ERR_CONFIG, "min_tx_rate %u is above max_tx_rate %u",
			    c->vf.min_tx_rate, c->vf.max_tx_rate);
		return -EINVAL;
	}
	return 0;
}

/* mac, then CNI_ARGS MAC=, then runtimeConfig.mac: the last one set wins. */
static int parse_mac(const cJSON *root, const cJSON *rc, const struct cni_args *args,
		     struct conf *c, struct cni_err *err)
{
	char found[3][CNIARGS_VAL_MAX] = { "", "", "" };
	const char *names[3] = { "mac", "CNI_ARGS MAC", "runtimeConfig.mac" };
	int ret;

	ret = netconf_get_string(root, "mac", found[0], sizeof(found[0]), err);
	if (ret == 0 && args)
		snprintf(found[1], sizeof(found[1]), "%s", args->mac);
	if (ret == 0 && rc)
		ret = netconf_get_string(rc, "mac", found[2], sizeof(found[2]), err);
	for (int i = 0; ret == 0 && i < 3; i++) {
		if (!found[i][0])
			continue;
		if (conf_parse_mac(found[i], c->mac) < 0 || (c->mac[0] & 1) ||
		    !memcmp(c->mac, "\0\0\0\0\0\0", 6)) {
			cni_err_set(err, CNI_ERR_CONFIG, "invalid %s \"%s\": want a unicast "
				    "aa:bb:cc:dd:ee:ff", names[i], found[i]);
			return -EINVAL;
		}
		c->has_mac = true;
	}
	if (ret == 0 && c->has_mac) {
		memcpy(c->vf.mac, c->mac, 6);
		c->vf_mask |= VF_MAC;
	}
	return ret;
}

/* runtimeConfig.deviceID, then deviceID, then pciBusID. */
static int parse_device(const cJSON *root, const cJSON *rc, bool need_device, struct conf *c,
			struct cni_err *err)
{
	static const char *const keys[] = { "deviceID", "pciBusID" };
	int ret = 0;

	if (rc)
		ret = netconf_get_string(rc, "deviceID", c->device_id, sizeof(c->device_id), err);
	for (size_t k = 0; ret == 0 && !c->device_id[0] && k < 2; k++)
		ret = netconf_get_string(root, keys[k], c->device_id, sizeof(c->device_id), err);
	if (ret < 0 || (!need_device && !c->device_id[0]))
		return ret;
	if (!c->device_id[0]) {
		cni_err_set(err, CNI_ERR_CONFIG, "no deviceID: the VF's PCI address comes from "
			    "the device plugin through Multus (deviceID, pciBusID or "
			    "runtimeConfig.deviceID)");
		return -EINVAL;
	}
	c->is_aux = sysfs_valid_aux_id(c->device_id);
	if (!c->is_aux && !sysfs_valid_bdf(c->device_id)) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid deviceID \"%s\": want a PCI address "
			    "like 0000:3b:00.2 or an auxiliary device like mlx5_core.sf.4",
			    c->device_id);
		return -EINVAL;
	}
	return 0;
}

static int parse_ipam(const cJSON *root, struct conf *c, struct cni_err *err)
{
	const cJSON *ipam = cJSON_GetObjectItemCaseSensitive(root, "ipam");
	int ret;

	if (!ipam || cJSON_IsNull(ipam))
		return 0;
	if (!cJSON_IsObject(ipam)) {
		cni_err_set(err, CNI_ERR_DECODE, "ipam: want an object");
		return -EINVAL;
	}
	if (cJSON_GetArraySize(ipam) == 0)
		return 0;
	ret = netconf_get_string(ipam, "type", c->ipam_type, sizeof(c->ipam_type), err);
	if (ret == 0 && !c->ipam_type[0]) {
		cni_err_set(err, CNI_ERR_CONFIG, "ipam: no type");
		ret = -EINVAL;
	}
	c->has_ipam = ret == 0;
	return ret;
}

static int parse_own_keys(const cJSON *root, struct conf *c, struct cni_err *err)
{
	bool present;
	int ret;

	ret = netconf_get_bool(root, "rdma", &c->rdma, &present, err);
	if (ret == 0)
		ret = netconf_get_string(root, "dataDir", c->data_dir, sizeof(c->data_dir), err);
	if (ret == 0)
		ret = netconf_get_string(root, "logLevel", c->log_level, sizeof(c->log_level), err);
	if (ret == 0)
		ret = netconf_get_string(root, "logFile", c->log_file, sizeof(c->log_file), err);
	if (ret < 0)
		return ret;
	if (c->data_dir[0] != '/') {
		cni_err_set(err, CNI_ERR_CONFIG, "dataDir \"%s\" is not an absolute path",
			    c->data_dir);
		return -EINVAL;
	}
	return 0;
}

static void set_defaults(struct conf *c)
{
	memset(c, 0, sizeof(*c));
	c->rdma = true;
	c->vf.vlan_proto = ETH_P_8021Q;
	c->vf.spoofchk = -1;
	c->vf.trust = -1;
	c->vf.link_state = -1;
	snprintf(c->data_dir, sizeof(c->data_dir), "%s", CONF_DEFAULT_DATA_DIR);
}

int conf_parse(const char *doc, const struct cni_args *args, bool need_device,
	       struct conf *out, struct cni_err *err)
{
	cJSON *root;
	const cJSON *rc;
	int ret = -EINVAL;

	set_defaults(out);
	root = cJSON_Parse(doc);
	if (!root || !cJSON_IsObject(root)) {
		cni_err_set(err, CNI_ERR_DECODE, "config on stdin is not a JSON object");
		goto out;
	}
	rc = cJSON_GetObjectItemCaseSensitive(root, "runtimeConfig");
	if (rc && !cJSON_IsObject(rc)) {
		cni_err_set(err, CNI_ERR_DECODE, "runtimeConfig: want an object");
		goto out;
	}
	ret = netconf_parse(root, &out->net, err);
	if (ret == 0)
		ret = parse_device(root, rc, need_device, out, err);
	if (ret == 0)
		ret = parse_vf_keys(root, out, err);
	if (ret == 0)
		ret = check_vf_keys(out, err);
	if (ret == 0)
		ret = parse_mac(root, rc, args, out, err);
	if (ret == 0)
		ret = parse_ipam(root, out, err);
	if (ret == 0)
		ret = parse_own_keys(root, out, err);
out:
	cJSON_Delete(root);
	if (ret < 0)
		conf_release(out);
	return ret;
}

void conf_release(struct conf *c)
{
	netconf_release(&c->net);
}
