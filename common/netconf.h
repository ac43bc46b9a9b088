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
	char type[NETCONF_NAME_MAX];
	struct cni_result *prev_result;	/* NULL when absent (it is large) */
	/* cni.dev/valid-attachments (GC); NULL when absent. */
	struct cni_attachment *valid;
	int n_valid;
	bool has_valid;
};

/* Reads cniVersion, name, type, prevResult, cni.dev/valid-attachments.
 * cniVersion missing or unknown: CNI_ERR_VERSION; name invalid (design.md
 * rule): CNI_ERR_CONFIG; wrong types: CNI_ERR_DECODE. */
int netconf_parse(const cJSON *root, struct cni_netconf *out, struct cni_err *err);
void netconf_release(struct cni_netconf *nc);
/* Best effort: the cniVersion string of a document for the error JSON, even
 * when the rest does not parse ("1.1.0" when none). */
const char *netconf_sniff_version(const char *doc, char buf[16]);

/* Typed field readers for plugin-specific keys: absent = 0 and *out untouched;
 * wrong type or out of range = CNI_ERR_DECODE/CNI_ERR_CONFIG naming key. */
int netconf_get_string(const cJSON *obj, const char *key, char *out, size_t size, struct cni_err *err);
int netconf_get_bool(const cJSON *obj, const char *key, bool *out, bool *present, struct cni_err *err);
int netconf_get_int(const cJSON *obj, const char *key, long min, long max, long *out, bool *present, struct cni_err *err);
