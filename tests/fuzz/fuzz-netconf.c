// SPDX-License-Identifier: Apache-2.0
/* Fuzz target: netconf_parse, the typed getters and the version sniffer on arbitrary JSON. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "callrec.h"
#include "fuzz.h"
#include "env.h"
#include "netconf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void getters(const cJSON *root)
{
	struct cni_err err = { 0 };
	const cJSON *obj;
	const char *s;
	char buf[32];
	bool b, present;
	long l;

	netconf_get_string(root, "deviceID", buf, sizeof(buf), &present, &err);
	netconf_get_str(root, "mac", &s, &err);
	netconf_get_object(root, "runtimeConfig", &obj, &err);
	netconf_get_bool(root, "spoofchk", &b, &present, &err);
	netconf_get_int(root, "vlan", 0, 4095, &l, &present, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *doc = fuzz_text(data, size), version[16], name[CALLREC_NETWORK_MAX + 1];
	struct cni_netconf *nc = malloc(sizeof(*nc));
	struct cni_err err = { 0 };
	cJSON *root = NULL;

	if (!doc || !nc)
		goto out;
	netconf_sniff(doc, version, name, sizeof(name));
	if (name[0] && !env_valid_id(name))
		abort();
	root = cJSON_Parse(doc);
	if (!root)
		goto out;
	if (netconf_parse(root, nc, &err)) {
		if (!err.code || nc->valid)
			abort();	/* failures say why and leave nothing to free */
	} else if (version_parse(nc->version_str, &nc->version) || !env_valid_id(nc->name)) {
		abort();	/* a config that parses has a known version and a safe name */
	}
	netconf_release(nc);
	getters(root);
out:
	cJSON_Delete(root);
	free(nc);
	free(doc);
	return 0;
}
