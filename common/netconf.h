/* SPDX-License-Identifier: Apache-2.0 */
/* The keys every CNI network config has, read into a plain struct. */
#pragma once

#include <stdbool.h>
#include <cjson/cJSON.h>
#include "err.h"
#include "result.h"
#include "version.h"

#define NETCONF_NAME_MAX 256
#define NETCONF_MAX_ATTACHMENTS 4096

struct cni_attachment {
	char containerid[NETCONF_NAME_MAX];
	char ifname[16];
};

struct cni_netconf {
	enum cni_version version;
	char version_str[16];
	char name[NETCONF_NAME_MAX];
	char type[NETCONF_NAME_MAX];	/* "" when absent */
	struct cni_result *prev_result;	/* NULL when absent (it is large) */
	/* cni.dev/valid-attachments (GC); NULL when absent. */
	struct cni_attachment *valid;
	int n_valid;
	bool has_valid;
};

/* Reads cniVersion, name, type (optional), prevResult, cni.dev/valid-attachments.
 * cniVersion missing or unknown: CNI_ERR_VERSION; name invalid (env_valid_id,
 * docs/internals.md (Contracts)): CNI_ERR_CONFIG; wrong types: CNI_ERR_DECODE. */
int netconf_parse(const cJSON *root, struct cni_netconf *out, struct cni_err *err);
void netconf_release(struct cni_netconf *nc);
/* Best effort, in one parse: the cniVersion string of a document for the
 * error JSON, even when the rest does not parse ("1.1.0" when none), and its
 * name for the call record (cut to name_size - 1 bytes; "" when absent or
 * not a valid network name). Returns version. */
const char *netconf_sniff(const char *doc, char version[16], char *name, size_t name_size);

/* The member of obj (an object, else NULL) named key as Go's encoding/json
 * finds it: ASCII case ignored, the last of repeated keys; NULL when absent
 * or null. Every reader below and netconf_parse look keys up this way. */
const cJSON *netconf_get(const cJSON *obj, const char *key);

/* Typed field readers for plugin-specific keys: absent or null = 0, *out
 * untouched (netconf_get_str, netconf_get_object: NULL) and *present false;
 * wrong type or out of range = CNI_ERR_DECODE/CNI_ERR_CONFIG naming key and
 * value. netconf_get_str borrows the string from the tree. */
int netconf_get_str(const cJSON *obj, const char *key, const char **out, struct cni_err *err);
int netconf_get_string(const cJSON *obj, const char *key, char *out, size_t size, bool *present,
		       struct cni_err *err);
int netconf_get_object(const cJSON *obj, const char *key, const cJSON **out, struct cni_err *err);
int netconf_get_bool(const cJSON *obj, const char *key, bool *out, bool *present, struct cni_err *err);
int netconf_get_int(const cJSON *obj, const char *key, long min, long max, long *out, bool *present, struct cni_err *err);
