// SPDX-License-Identifier: Apache-2.0
/* Parsing and validation of the sriov-rdma config, read as sriov-cni reads its own; no I/O. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <linux/if_ether.h>
#include <cjson/cJSON.h>

#include "conf.h"
#include "confpath.h"

/* sriov-cni decodes its config with Go's encoding/json (netconf_get: keys in
 * any ASCII case, the last of repeated keys, null = absent) into plain
 * strings, so "" means "not set" as much as null does; only vlanProto is a
 * pointer there, and its "" is a value, refused like any other bad one. */

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Only ADD applies the VF settings and the MAC; no other verb reads them,
 * so the DEL of a pod whose ADD they failed goes through, as sriov-cni's DEL
 * (which reads its own cache, not the config) does. */
static const unsigned int needs[CNI_CMD_COUNT] = {
	[CNI_CMD_ADD] = CONF_DEVICE | CONF_VF | CONF_IB,
	[CNI_CMD_CHECK] = CONF_DEVICE | CONF_IB,
	[CNI_CMD_DEL] = CONF_DEVICE,
};

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

/* VF keys that take a word, compared as sriov-cni compares them: exactly.
 * sriov-cni turns spoofchk and trust off for any value but "on" ("ON",
 * "yes", "true" included); such a value is refused here, since its author
 * meant something else than what sriov-cni did with it. */
#define ON_OFF_WANT "\"on\" or \"off\" in lower case (sriov-cni reads any other value as \"off\")"

static const struct {
	const char *key;
	const struct word *words;
	const char *want;
	size_t field;
	unsigned int mask;
} word_keys[] = {
	{ "spoofchk", on_off, ON_OFF_WANT, offsetof(struct vf_config, spoofchk), VF_SPOOFCHK },
	{ "trust", on_off, ON_OFF_WANT, offsetof(struct vf_config, trust), VF_TRUST },
	{ "link_state", link_states, "\"auto\", \"enable\" or \"disable\"",
	  offsetof(struct vf_config, link_state), VF_LINK_STATE },
};

/* Either rate alone sets both, the other at 0 (no limit), as sriov-cni
 * does. Negative or 32-bit overflowing rates, which sriov-cni passes on to
 * the kernel wrapped, are refused. */
static const struct {
	const char *key;
	size_t field;
} rate_keys[] = {
	{ "min_tx_rate", offsetof(struct vf_config, min_tx_rate) },
	{ "max_tx_rate", offsetof(struct vf_config, max_tx_rate) },
};

unsigned int conf_needs(enum cni_cmd cmd)
{
	return needs[cmd];
}

static int hex_digit(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	ch |= 0x20;
	return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* The one form sriov-cni can use: it compares the MAC the kernel reports,
 * printed this way, with the configured one, and fails ADD on any other. */
int conf_parse_mac(const char *s, uint8_t mac[6])
{
	int hi, lo;

	for (int i = 0; i < 6; i++, s += 3) {
		hi = hex_digit(s[0]);
		lo = hi < 0 ? -1 : hex_digit(s[1]);
		if (lo < 0 || s[2] != (i < 5 ? ':' : '\0'))
			return -EINVAL;
		mac[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

static const struct word *find_word(const struct word *w, const char *name, bool any_case)
{
	for (; w->name; w++) {
		if (any_case ? !strcasecmp(w->name, name) : !strcmp(w->name, name))
			return w;
	}
	return NULL;
}

/* ret of a reader of a key inside object name: its error names the object too. */
static int within(const char *name, int ret, struct cni_err *err)
{
	if (ret < 0)
		cni_err_wrap(err, "%s", name);
	return ret;
}

/* Index of the first value that is set (not NULL, not ""), n when none is. */
static size_t first_set(const char *const *vals, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (vals[i] && vals[i][0])
			break;
	}
	return i;
}

static int parse_word_keys(const cJSON *root, struct conf *c, struct cni_err *err)
{
	const struct word *w;
	const char *val;

	for (size_t k = 0; k < N(word_keys); k++) {
		if (netconf_get_str(root, word_keys[k].key, &val, err))
			return -EINVAL;
		if (!val || !val[0])
			continue;
		w = find_word(word_keys[k].words, val, false);
		if (!w) {
			cni_err_set(err, CNI_ERR_CONFIG, "invalid %s \"%.64s\": want %s",
				    word_keys[k].key, val, word_keys[k].want);
			return -EINVAL;
		}
		*(int *)((char *)&c->vf + word_keys[k].field) = w->value;
		c->vf_mask |= word_keys[k].mask;
	}
	return 0;
}

/* sriov-cni's VLAN rules: vlanQoS and vlanProto only next to a vlan; a vlan
 * given is set, 0 included (it clears the VF's VLAN), with QoS 0 and
 * 802.1q unless they are given; vlanProto in any case. */
static int parse_vlan(const cJSON *root, struct conf *c, struct cni_err *err)
{
	const struct word *proto = vlan_protos;
	bool has_vlan, has_qos;
	const char *proto_name;
	long vlan = 0, qos = 0;

	if (netconf_get_int(root, "vlan", 0, 4094, &vlan, &has_vlan, err) ||
	    netconf_get_int(root, "vlanQoS", 0, 7, &qos, &has_qos, err) ||
	    netconf_get_str(root, "vlanProto", &proto_name, err))
		return -EINVAL;
	if (!has_vlan && has_qos) {
		cni_err_set(err, CNI_ERR_CONFIG, "vlanQoS %ld is given without vlan", qos);
		return -EINVAL;
	}
	if (!has_vlan && proto_name) {
		cni_err_set(err, CNI_ERR_CONFIG, "vlanProto \"%.64s\" is given without vlan", proto_name);
		return -EINVAL;
	}
	if (!has_vlan)
		return 0;
	if (proto_name)
		proto = find_word(vlan_protos, proto_name, true);
	if (!proto) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid vlanProto \"%.64s\": want \"802.1q\" or "
			    "\"802.1ad\"", proto_name);
		return -EINVAL;
	}
	if (vlan == 0 && qos != 0) {
		cni_err_set(err, CNI_ERR_CONFIG, "vlanQoS %ld needs a non-zero vlan", qos);
		return -EINVAL;
	}
	if (vlan == 0 && proto->value == ETH_P_8021AD) {
		cni_err_set(err, CNI_ERR_CONFIG, "vlanProto \"%s\" needs a non-zero vlan", proto_name);
		return -EINVAL;
	}
	c->vf.vlan = (int)vlan;
	c->vf.qos = (int)qos;
	c->vf.vlan_proto = proto->value;
	c->vf_mask |= VF_VLAN;
	return 0;
}

static int parse_rates(const cJSON *root, struct conf *c, struct cni_err *err)
{
	bool present;
	long val;

	for (size_t k = 0; k < N(rate_keys); k++) {
		if (netconf_get_int(root, rate_keys[k].key, 0, UINT32_MAX, &val, &present, err))
			return -EINVAL;
		if (present) {
			*(uint32_t *)((char *)&c->vf + rate_keys[k].field) = (uint32_t)val;
			c->vf_mask |= VF_RATE;
		}
	}
	if (c->vf.max_tx_rate != 0 && c->vf.min_tx_rate > c->vf.max_tx_rate) {
		cni_err_set(err, CNI_ERR_CONFIG, "min_tx_rate %u is above max_tx_rate %u",
			    c->vf.min_tx_rate, c->vf.max_tx_rate);
		return -EINVAL;
	}
	return 0;
}

/* runtimeConfig.mac, else CNI_ARGS MAC=, else mac, as sriov-cni takes them;
 * only the MAC taken is parsed, so a stale one below it does no harm. */
static int parse_mac(const cJSON *root, const cJSON *rc, const struct cni_args *args,
		     struct conf *c, struct cni_err *err)
{
	static const char *const names[] = { "runtimeConfig.mac", "CNI_ARGS MAC", "mac" };
	const char *vals[] = { NULL, args ? args->mac : NULL, NULL };
	size_t i;

	if (within("runtimeConfig", netconf_get_str(rc, "mac", &vals[0], err), err) ||
	    netconf_get_str(root, "mac", &vals[2], err))
		return -EINVAL;
	i = first_set(vals, N(vals));
	if (i == N(vals))
		return 0;
	if (conf_parse_mac(vals[i], c->mac) < 0 || (c->mac[0] & 1) ||
	    !memcmp(c->mac, "\0\0\0\0\0\0", 6)) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid %s \"%.64s\": want a unicast MAC like "
			    "02:00:00:00:00:01", names[i], vals[i]);
		return -EINVAL;
	}
	c->has_mac = true;
	memcpy(c->vf.mac, c->mac, 6);
	c->vf_mask |= VF_MAC;
	return 0;
}

/* runtimeConfig.deviceID, else deviceID, else pciBusID. Multus writes the
 * device plugin's VF into deviceID and pciBusID, and into
 * runtimeConfig.deviceID for a network with the deviceID capability (there
 * also a VF the pod asks for); sriov-cni reads deviceID alone. Only the one
 * taken is parsed. */
static int parse_device(const cJSON *root, const cJSON *rc, unsigned int need, struct conf *c,
			struct cni_err *err)
{
	static const char *const names[] = { "runtimeConfig.deviceID", "deviceID", "pciBusID" };
	const char *vals[N(names)];
	size_t i;

	if (within("runtimeConfig", netconf_get_str(rc, "deviceID", &vals[0], err), err) ||
	    netconf_get_str(root, "deviceID", &vals[1], err) ||
	    netconf_get_str(root, "pciBusID", &vals[2], err))
		return -EINVAL;
	i = first_set(vals, N(vals));
	if (i == N(vals) && !(need & CONF_DEVICE))
		return 0;
	if (i == N(vals)) {
		cni_err_set(err, CNI_ERR_CONFIG, "no deviceID: the VF's PCI address comes from "
			    "the device plugin through Multus (deviceID, pciBusID or "
			    "runtimeConfig.deviceID)");
		return -EINVAL;
	}
	c->is_aux = sysfs_valid_aux_id(vals[i]);
	if (!c->is_aux && !sysfs_valid_bdf(vals[i])) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid %s \"%.64s\": want a PCI address like "
			    "0000:3b:00.2 or an auxiliary device like mlx5_core.sf.4", names[i], vals[i]);
		return -EINVAL;
	}
	snprintf(c->device_id, sizeof(c->device_id), "%s", vals[i]);
	return 0;
}

/* sriov-cni runs IPAM when ipam.type is set and skips it otherwise, even
 * when the block has settings: the pod would come up without the addresses
 * the network describes, so that is refused here. */
static int parse_ipam(const cJSON *root, struct conf *c, struct cni_err *err)
{
	const cJSON *ipam, *item;

	if (netconf_get_object(root, "ipam", &ipam, err) ||
	    within("ipam", netconf_get_string(ipam, "type", c->ipam_type, sizeof(c->ipam_type),
					      NULL, err), err))
		return -EINVAL;
	c->has_ipam = c->ipam_type[0] != '\0';
	if (c->has_ipam || !ipam)
		return 0;
	cJSON_ArrayForEach(item, ipam) {
		if (strcasecmp(item->string, "type")) {
			cni_err_set(err, CNI_ERR_CONFIG, "ipam has \"%.64s\" but no type: sriov-cni "
				    "would skip IPAM and leave the pod without addresses",
				    item->string);
			return -EINVAL;
		}
	}
	return 0;
}

/* ib-sriov-cni's rdmaIsolation says what rdma says: the RDMA device moves
 * with the netdev, or stays in the host. */
static int parse_rdma(const cJSON *root, struct conf *c, struct cni_err *err)
{
	bool isolation, has_rdma, has_isolation;

	if (netconf_get_bool(root, "rdma", &c->rdma, &has_rdma, err) ||
	    netconf_get_bool(root, "rdmaIsolation", &isolation, &has_isolation, err))
		return -EINVAL;
	if (has_rdma)
		c->rdma_key = "rdma";
	if (!has_isolation)
		return 0;
	if (has_rdma && c->rdma != isolation) {
		cni_err_set(err, CNI_ERR_CONFIG, "rdma %s and rdmaIsolation %s disagree: set one",
			    c->rdma ? "true" : "false", isolation ? "true" : "false");
		return -EINVAL;
	}
	c->rdma = isolation;
	c->rdma_key = "rdmaIsolation";
	return 0;
}

/* Multus names the file (capability CNIDeviceInfoFile), but a NAD can
 * carry a runtimeConfig of its own: beyond the rule for every path a config
 * names (confpath_check, in attach_new), this one must name a file beneath
 * the spec's directory, and nowhere else. */
static int parse_devinfo_file(const cJSON *rc, struct conf *c, struct cni_err *err)
{
	const char *path = c->devinfo_file;

	if (within("runtimeConfig", netconf_get_string(rc, "CNIDeviceInfoFile", c->devinfo_file,
						      sizeof(c->devinfo_file), NULL, err), err))
		return -EINVAL;
	if (!path[0] || (!confpath_lexical(path) && confpath_under(path, CONF_DEVINFO_DIR) &&
			 path[strlen(path) - 1] != '/'))
		return 0;
	cni_err_set(err, CNI_ERR_CONFIG, "runtimeConfig.CNIDeviceInfoFile \"%.200s\" is not a "
		    "file under " CONF_DEVINFO_DIR, path);
	return -EINVAL;
}

static int parse_own_keys(const cJSON *root, struct conf *c, struct cni_err *err)
{
	const char *level;

	if (parse_rdma(root, c, err) ||
	    netconf_get_string(root, "dataDir", c->data_dir, sizeof(c->data_dir), NULL, err) ||
	    netconf_get_str(root, "logLevel", &level, err) ||
	    netconf_get_string(root, "logFile", c->log_file, sizeof(c->log_file), NULL, err))
		return -EINVAL;
	/* log_init judges the level (an unknown one is logged, not refused); one
	 * too long for the buffer is unknown anyway, so it is cut, not refused */
	snprintf(c->log_level, sizeof(c->log_level), "%s", level ? level : "");
	/* the paths are judged by confpath_check where they are opened */
	if (!c->data_dir[0])
		snprintf(c->data_dir, sizeof(c->data_dir), "%s", CONF_DEFAULT_DATA_DIR);
	/* one spelling per directory: the VF lock file names state files by it */
	for (size_t n = strlen(c->data_dir); n > 1 && c->data_dir[n - 1] == '/'; n--)
		c->data_dir[n - 1] = '\0';
	return 0;
}

static int parse_vf_keys(const cJSON *root, const cJSON *rc, const struct cni_args *args,
			 struct conf *c, struct cni_err *err)
{
	if (parse_vlan(root, c, err) || parse_word_keys(root, c, err) || parse_rates(root, c, err) ||
	    parse_mac(root, rc, args, c, err))
		return -EINVAL;
	return 0;
}

int conf_parse(const char *doc, const struct cni_args *args, unsigned int need,
	       struct conf *out, struct cni_err *err)
{
	cJSON *root;
	const cJSON *rc;
	int ret = -EINVAL;

	memset(out, 0, sizeof(*out));
	out->rdma = true;
	root = cJSON_Parse(doc);
	if (!root || !cJSON_IsObject(root)) {
		cni_err_set(err, CNI_ERR_DECODE, "config on stdin is not a JSON object");
		goto out;
	}
	if (netconf_get_object(root, "runtimeConfig", &rc, err))
		goto out;
	ret = netconf_parse(root, &out->net, err);
	if (ret == 0)
		ret = parse_device(root, rc, need, out, err);
	if (ret == 0 && (need & CONF_VF))
		ret = parse_vf_keys(root, rc, args, out, err);
	if (ret == 0)
		ret = parse_ipam(root, out, err);
	if (ret == 0)
		ret = parse_own_keys(root, out, err);
	if (ret == 0)
		ret = parse_devinfo_file(rc, out, err);
	if (ret == 0 && (need & CONF_IB))
		ret = ibconf_parse(root, rc, &out->ib, err);
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
