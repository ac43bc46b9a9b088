// SPDX-License-Identifier: Apache-2.0
/* What an attachment leaves for later readers, without I/O: its state file, its VF lock file's holder line, the alias on its VF. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "conf.h"
#include "env.h"
#include "guid.h"
#include "record.h"

void record_state_name(const char *containerid, const char *ifname, char *out, size_t size)
{
	/* ':' is in neither a containerID nor an ifname: the name is unambiguous. */
	snprintf(out, size, "%s:%s.json", containerid, ifname);
}

int record_state_split(const char *name, char *containerid, size_t size, char ifname[IFNAMSIZ])
{
	static const char suffix[] = ".json";
	const char *colon = strchr(name, ':');
	size_t stem = strlen(name), id_len, ifname_len;

	if (!colon || stem < sizeof(suffix) || strcmp(name + stem - strlen(suffix), suffix))
		return -EINVAL;
	stem -= strlen(suffix);
	id_len = (size_t)(colon - name);
	if (id_len >= stem)
		return -EINVAL;
	ifname_len = stem - id_len - 1;
	if (id_len >= size || ifname_len >= IFNAMSIZ)
		return -EINVAL;
	snprintf(containerid, size, "%.*s", (int)id_len, name);
	snprintf(ifname, IFNAMSIZ, "%.*s", (int)ifname_len, colon + 1);
	return env_valid_id(containerid) && env_valid_ifname(ifname) ? 0 : -EINVAL;
}

enum kind { K_STR, K_INT, K_BOOL, K_U32, K_U64, K_MAC, K_GUID };

/* A K_U64 is a JSON number: integral and exact up to 2^53. */
#define NUM_MAX 9007199254740992.0

/* What a string field may hold, beyond fitting its buffer. */
enum check {
	C_ANY, C_ID, C_IFNAME, C_IFNAME_OR_NONE, C_DEVICE, C_PATH_OR_NONE,
	C_VF_INDEX,		/* >= 0, or -1: a sub-function has none (sysfs_aux_read) */
	C_BOOT,			/* a boot id, as nsident_boot_valid takes it */
	C_CONF,			/* a JSON object, no control byte but tab, CR, LF (conf_ok) */
	C_TEXT,			/* visible ASCII and spaces */
};

/* What the state file holds: the host-side facts DEL restores, the network
 * GC is scoped to and an InfiniBand VF's GUIDs (the optional ones are absent
 * in files of earlier versions, and left out while unset). The GUIDs an IB
 * VF had are read before its first save, in every version that writes "ib":
 * in a record with "ib" true an absent ibNodeGuid or ibPortGuid is one that
 * was all zeros, which DEL puts back as it is. */
static const struct field {
	const char *key;
	enum kind kind;
	enum check check;
	bool optional;
	size_t off;
	size_t size;
} fields[] = {
#define F(key, kind, check, member) { key, kind, check, false, \
				      offsetof(struct record_state, member), \
				      sizeof(((struct record_state *)0)->member) }
	{ "network", K_STR, C_ID, true, offsetof(struct record_state, network),
	  sizeof(((struct record_state *)0)->network) },
	F("containerID", K_STR, C_ID, containerid),
	F("ifname", K_STR, C_IFNAME, ifname),
	F("netns", K_STR, C_PATH_OR_NONE, netns),
	F("deviceID", K_STR, C_DEVICE, device_id),
	F("hostIfname", K_STR, C_IFNAME_OR_NONE, host_ifname),
	F("hostAlias", K_STR, C_ANY, host_alias),
	F("hostMac", K_MAC, C_ANY, host_mac),
	F("hostUp", K_BOOL, C_ANY, host_up),
	F("chained", K_BOOL, C_ANY, chained),
	F("vfIndex", K_INT, C_VF_INDEX, vf_index),
	F("vfChanged", K_U32, C_ANY, vf_changed),
	F("vfMac", K_MAC, C_ANY, vf_orig.mac),
	F("vfVlan", K_INT, C_ANY, vf_orig.vlan),
	F("vfQos", K_INT, C_ANY, vf_orig.qos),
	F("vfVlanProto", K_INT, C_ANY, vf_orig.vlan_proto),
	F("vfSpoofchk", K_INT, C_ANY, vf_orig.spoofchk),
	F("vfTrust", K_INT, C_ANY, vf_orig.trust),
	F("vfLinkState", K_INT, C_ANY, vf_orig.link_state),
	F("vfMinTxRate", K_U32, C_ANY, vf_orig.min_tx_rate),
	F("vfMaxTxRate", K_U32, C_ANY, vf_orig.max_tx_rate),
	F("hasRdma", K_BOOL, C_ANY, has_rdma),
	F("rdmaName", K_STR, C_ANY, rdma_name),
	F("rdmaIndex", K_U32, C_ANY, rdma_index),
#define FO(key, kind, check, member) { key, kind, check, true, \
				       offsetof(struct record_state, member), \
				       sizeof(((struct record_state *)0)->member) }
	FO("ib", K_BOOL, C_ANY, ib),
	FO("ibNodeGuid", K_GUID, C_ANY, ib_node_guid),
	FO("ibPortGuid", K_GUID, C_ANY, ib_port_guid),
	FO("ibGuid", K_GUID, C_ANY, ib_guid),
	FO("ibDriver", K_STR, C_ANY, ib_driver),
	/* the request (record_state_set_request): all of it or none */
	FO("netnsDev", K_U64, C_ANY, ns.dev),
	FO("netnsIno", K_U64, C_ANY, ns.ino),
	FO("bootId", K_STR, C_BOOT, ns.boot),
	FO("created", K_U64, C_ANY, created),
	FO("conf", K_STR, C_CONF, conf),
	FO("cniArgs", K_STR, C_TEXT, cni_args),
	FO("cniPath", K_STR, C_TEXT, cni_path),
#undef FO
#undef F
};

static cJSON *field_to_json(const struct field *f, const char *p)
{
	char mac[18], guid[GUID_STR_LEN + 1];

	switch (f->kind) {
	case K_STR:
		return cJSON_CreateString(p);
	case K_INT:
		return cJSON_CreateNumber(*(const int *)p);
	case K_BOOL:
		return cJSON_CreateBool(*(const bool *)p);
	case K_U32:
		return cJSON_CreateNumber(*(const uint32_t *)p);
	case K_U64:
		return cJSON_CreateNumber((double)*(const uint64_t *)p);
	case K_MAC:
		snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", (uint8_t)p[0],
			 (uint8_t)p[1], (uint8_t)p[2], (uint8_t)p[3], (uint8_t)p[4],
			 (uint8_t)p[5]);
		return cJSON_CreateString(mac);
	case K_GUID:
		/* 64 bits do not fit a JSON number */
		guid_format(*(const uint64_t *)p, guid);
		return cJSON_CreateString(guid);
	}
	return NULL;
}

/* An optional field not set: an empty string, false, a zero GUID or number. */
static bool unset(const struct field *f, const char *p)
{
	switch (f->kind) {
	case K_STR:
		return !p[0];
	case K_BOOL:
		return !*(const bool *)p;
	case K_GUID:
	case K_U64:
		return !*(const uint64_t *)p;
	default:
		return false;
	}
}

char *record_state_encode(const struct record_state *s)
{
	cJSON *root = cJSON_CreateObject();
	char *text = NULL;

	for (size_t i = 0; root && i < sizeof(fields) / sizeof(fields[0]); i++) {
		const char *p = (const char *)s + fields[i].off;
		cJSON *v;

		if (fields[i].optional && unset(&fields[i], p))
			continue;	/* an earlier version's record stays one */
		v = field_to_json(&fields[i], p);
		if (!v || !cJSON_AddItemToObject(root, fields[i].key, v)) {
			cJSON_Delete(v);
			goto out;
		}
	}
	text = root ? cJSON_PrintUnformatted(root) : NULL;
out:
	cJSON_Delete(root);
	return text;
}

/* Visible ASCII and spaces. */
static bool text_ok(const char *s)
{
	for (; *s; s++)
		if (*s < ' ' || *s > '~')
			return false;
	return true;
}

/* No control byte but tab, CR and LF: cJSON escapes each of those in two
 * bytes, and writes every other byte (UTF-8 too) as it is. */
static bool conf_ok(const char *s)
{
	cJSON *root;
	bool ok;

	for (const char *c = s; *c; c++)
		if ((unsigned char)*c < ' ' && !strchr("\t\r\n", *c))
			return false;
	root = cJSON_Parse(s);
	ok = cJSON_IsObject(root);
	cJSON_Delete(root);
	return ok;
}

static bool string_ok(enum check c, const char *s)
{
	switch (c) {
	case C_ID:
		return env_valid_id(s);
	case C_IFNAME:
		return env_valid_ifname(s);
	case C_IFNAME_OR_NONE:
		return !s[0] || env_valid_ifname(s);
	case C_DEVICE:
		return sysfs_valid_bdf(s) || sysfs_valid_aux_id(s);
	case C_PATH_OR_NONE:
		return !s[0] || s[0] == '/';
	case C_BOOT:
		return nsident_boot_valid(s);
	case C_CONF:
		return conf_ok(s);
	case C_TEXT:
		return text_ok(s);
	default:
		return true;
	}
}

/* A JSON number that is an integer in [min, max] (checked before any cast:
 * a cast of 1e300 to int is undefined). */
static int whole(const cJSON *v, double min, double max, double *out)
{
	double d;

	if (!cJSON_IsNumber(v))
		return -EBADMSG;
	d = v->valuedouble;
	if (!(d >= min && d <= max) || d != (double)(long long)d)
		return -EBADMSG;
	*out = d;
	return 0;
}

static int field_from_json(const struct field *f, const cJSON *v, char *p)
{
	double d;

	switch (f->kind) {
	case K_BOOL:
		if (!cJSON_IsBool(v))
			return -EBADMSG;
		*(bool *)p = cJSON_IsTrue(v);
		return 0;
	case K_STR:
		if (!cJSON_IsString(v) || strlen(v->valuestring) >= f->size ||
		    !string_ok(f->check, v->valuestring))
			return -EBADMSG;
		memcpy(p, v->valuestring, strlen(v->valuestring) + 1);
		return 0;
	case K_MAC:
		if (!cJSON_IsString(v) || strlen(v->valuestring) != 17 ||
		    conf_parse_mac(v->valuestring, (uint8_t *)p) < 0)
			return -EBADMSG;
		return 0;
	case K_INT:
		if (whole(v, f->check == C_VF_INDEX ? -1 : INT_MIN, INT_MAX, &d) < 0)
			return -EBADMSG;
		*(int *)p = (int)d;
		return 0;
	case K_U32:
		if (whole(v, 0, UINT32_MAX, &d) < 0)
			return -EBADMSG;
		*(uint32_t *)p = (uint32_t)d;
		return 0;
	case K_U64:
		if (whole(v, 0, NUM_MAX, &d) < 0)
			return -EBADMSG;
		*(uint64_t *)p = (uint64_t)d;
		return 0;
	case K_GUID:
		if (!cJSON_IsString(v) || guid_parse(v->valuestring, (uint64_t *)p) < 0)
			return -EBADMSG;
		return 0;
	}
	return -EBADMSG;
}

static void clear_request(struct record_state *s)
{
	memset(&s->ns, 0, sizeof(s->ns));
	s->created = 0;
	s->conf[0] = s->cni_args[0] = s->cni_path[0] = '\0';
}

bool record_state_has_request(const struct record_state *s)
{
	return s->ns.ino && s->ns.boot[0] && s->created && s->conf[0];
}

/* Nothing of the request, or all its parts that cannot be empty. */
static bool request_whole(const struct record_state *s)
{
	int parts = !!s->ns.ino + !!s->ns.boot[0] + !!s->created + !!s->conf[0];

	return parts == 0 || (parts == 4 && s->netns[0]);
}

int record_state_set_request(struct record_state *s, const struct nsident *ns, uint64_t created,
			     const char *conf, size_t len, const char *args, const char *path)
{
	int ret = 0;

	clear_request(s);
	args = args ? args : "";
	path = path ? path : "";
	if (len >= RECORD_CONF_MAX || strlen(args) >= RECORD_ARGS_MAX ||
	    strlen(path) >= RECORD_PATH_MAX)
		ret = -E2BIG;
	else if (!s->netns[0] || !ns->ino || (double)ns->ino > NUM_MAX ||
		 (double)ns->dev > NUM_MAX || !nsident_boot_valid(ns->boot) || !created ||
		 (double)created > NUM_MAX || strlen(conf) != len || !conf_ok(conf) ||
		 !text_ok(args) || !text_ok(path))
		ret = -EINVAL;
	if (ret < 0)
		return ret;
	s->ns = *ns;
	s->created = created;
	memcpy(s->conf, conf, len + 1);
	snprintf(s->cni_args, sizeof(s->cni_args), "%s", args);
	snprintf(s->cni_path, sizeof(s->cni_path), "%s", path);
	return 0;
}

int record_state_decode(const char *text, size_t len, struct record_state *s)
{
	struct record_state scratch;
	cJSON *root = NULL;
	int ret = -EBADMSG;

	if (len > RECORD_STATE_MAX || strlen(text) != len)
		return -EBADMSG;
	root = cJSON_ParseWithOpts(text, NULL, true);
	if (!cJSON_IsObject(root))
		goto out;
	/* Fields land in a scratch copy so a bad file changes nothing. */
	scratch = *s;
	/* optional fields an absent key leaves unset */
	scratch.network[0] = '\0';
	scratch.ib = false;
	scratch.ib_node_guid = scratch.ib_port_guid = scratch.ib_guid = 0;
	scratch.ib_driver[0] = '\0';
	clear_request(&scratch);
	ret = 0;
	for (size_t i = 0; ret == 0 && i < sizeof(fields) / sizeof(fields[0]); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, fields[i].key);

		if (v)
			ret = field_from_json(&fields[i], v, (char *)&scratch + fields[i].off);
		else if (!fields[i].optional)
			ret = -EBADMSG;
	}
	/* only a sub-function (an auxiliary device id) has no VF index */
	if (ret == 0 && scratch.vf_index < 0 && !sysfs_valid_aux_id(scratch.device_id))
		ret = -EBADMSG;
	if (ret == 0 && !request_whole(&scratch))
		ret = -EBADMSG;
	if (ret == 0)
		*s = scratch;
out:
	cJSON_Delete(root);
	return ret;
}

/* What the holder line's directory may be: what a dataDir config can name
 * and nothing that leaves it. */
static bool dir_ok(const char *dir, size_t len)
{
	if (len == 0 || dir[0] != '/' || len >= PATH_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (dir[i] <= ' ' || dir[i] > '~')
			return false;
	for (const char *c = dir; c < dir + len;) {
		const char *next = memchr(c + 1, '/', (size_t)(dir + len - c - 1));
		size_t n = (size_t)((next ? next : dir + len) - c - 1);

		/* c points at a '/': the component is c+1 .. next */
		if (n == 0 || (n == 1 && c[1] == '.') || (n == 2 && c[1] == '.' && c[2] == '.'))
			return false;
		c = next ? next : dir + len;
	}
	return true;
}

int record_holder_format(const char *dir, const char *containerid, const char *ifname,
			 char out[RECORD_HOLDER_MAX])
{
	if (!dir_ok(dir, strlen(dir)))
		return -EINVAL;
	if (snprintf(out, RECORD_HOLDER_MAX, "%s/%s:%s.json", dir, containerid, ifname) >=
	    RECORD_HOLDER_MAX)
		return -ENAMETOOLONG;
	return 0;
}

int record_holder_parse(const char *text, size_t len, struct record_holder *h)
{
	char name[NAME_MAX + 1];
	const char *slash;
	size_t dir_len;

	memset(h, 0, sizeof(*h));
	if (len == 0)
		return 0;
	if (strnlen(text, len) != len || len >= RECORD_HOLDER_MAX)
		return -EBADMSG;
	slash = memrchr(text, '/', len);
	if (!slash || (size_t)(text + len - slash - 1) > NAME_MAX)
		return -EBADMSG;
	dir_len = (size_t)(slash - text);
	snprintf(name, sizeof(name), "%.*s", (int)(text + len - slash - 1), slash + 1);
	if (!dir_ok(text, dir_len) ||
	    record_state_split(name, h->containerid, sizeof(h->containerid), h->ifname) < 0) {
		memset(h, 0, sizeof(*h));
		return -EBADMSG;
	}
	memcpy(h->dir, text, dir_len);
	h->dir[dir_len] = '\0';
	return 0;
}

bool record_holder_is(const struct record_holder *h, const char *dir, const char *containerid,
		      const char *ifname)
{
	return !strcmp(h->dir, dir) && !strcmp(h->containerid, containerid) &&
	       !strcmp(h->ifname, ifname);
}

int record_alias(const struct record_state *s, char out[LINK_ALIAS_MAX])
{
	int len = snprintf(out, LINK_ALIAS_MAX, RECORD_ALIAS_PREFIX "%s:%s", s->host_ifname,
			   s->containerid);

	return len < LINK_ALIAS_MAX ? 0 : -ENAMETOOLONG;
}

int record_alias_parse(const char *alias, char host_ifname[IFNAMSIZ], char *containerid,
		       size_t size)
{
	const char *name = alias + strlen(RECORD_ALIAS_PREFIX);
	const char *colon;

	if (strncmp(alias, RECORD_ALIAS_PREFIX, strlen(RECORD_ALIAS_PREFIX)) != 0)
		return -EINVAL;
	colon = strchr(name, ':');
	if (!colon || colon == name || colon - name >= IFNAMSIZ || !env_valid_id(colon + 1) ||
	    strlen(colon + 1) >= size)
		return -EINVAL;
	snprintf(host_ifname, IFNAMSIZ, "%.*s", (int)(colon - name), name);
	snprintf(containerid, size, "%s", colon + 1);
	return 0;
}
