// SPDX-License-Identifier: Apache-2.0
/* Node check of the IPAM stores: ippool STATUS, as the runtime runs it, for
 * each distinct store the node's CNI config files name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ipamexec.h"
#include "json.h"
#include "node.h"

/* What tells two ippool configs' stores apart. */
static char *store_key(const cJSON *ipam)
{
	static const char *const keys[] = { "store", "dataDir", "configuration_path" };
	cJSON *k = cJSON_CreateObject();

	for (size_t i = 0; k && i < sizeof(keys) / sizeof(keys[0]); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(ipam, keys[i]);
		cJSON *copy = v ? cJSON_Duplicate(v, true) : NULL;

		if (copy && !cJSON_AddItemToObject(k, keys[i], copy))
			cJSON_Delete(copy);
	}
	return json_print_free(k, k ? 0 : -ENOMEM);
}

static bool seen_before(cJSON *seen, const char *key)
{
	const cJSON *s;

	cJSON_ArrayForEach(s, seen)
		if (cJSON_IsString(s) && !strcmp(s->valuestring, key))
			return true;
	cJSON_AddItemToArray(seen, cJSON_CreateString(key));
	return false;
}

/* STATUS exists from CNI 1.1.0 on: the config is sent as 1.1.0. */
static void run_status(const cJSON *conf, const char *key, struct report *r)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(conf, "name");
	const char *subject = cJSON_IsString(name) ? name->valuestring : "(no name)";
	struct cni_err err = { 0 };
	cJSON *doc = cJSON_Duplicate(conf, true);
	char *text;

	cJSON_DeleteItemFromObjectCaseSensitive(doc, "cniVersion");
	cJSON_AddStringToObject(doc, "cniVersion", "1.1.0");
	text = json_print_free(doc, doc ? 0 : -ENOMEM);
	if (!text) {
		report_add(r, REPORT_FAIL, "ippool", subject, "retry", "out of memory");
		return;
	}
	if (ipamexec_call(CNI_CMD_STATUS, "ippool", text, strlen(text), NULL, &err) < 0)
		report_add(r, REPORT_FAIL, "ippool", subject, "the message names the store and what "
			   "failed: fix its permissions, endpoints or credentials (README: ippool)",
			   "store %s: STATUS failed with %d: %s", key, err.code, err.msg);
	else
		report_add(r, REPORT_OK, "ippool", subject, NULL, "store %s: STATUS ready", key);
	free(text);
}

void node_ippool_checks(struct node *n, struct report *r)
{
	cJSON *seen = cJSON_CreateArray();
	const cJSON *c;
	int stores = 0;

	if (!seen)
		return;
	setenv("CNI_PATH", n->o->cni_bin_dir, 1);
	cJSON_ArrayForEach(c, n->confs) {
		const cJSON *ipam = cJSON_GetObjectItemCaseSensitive(c, "ipam");
		const cJSON *type = cJSON_GetObjectItemCaseSensitive(ipam, "type");
		char *key;

		if (!cJSON_IsString(type) || strcmp(type->valuestring, "ippool"))
			continue;
		key = store_key(ipam);
		if (key && !seen_before(seen, key)) {
			stores++;
			run_status(c, key, r);
		}
		free(key);
	}
	cJSON_Delete(seen);
	if (!stores)
		report_add(r, REPORT_OK, "ippool", "node", NULL, "no config in %s uses ippool",
			   n->o->conf_dir);
}
