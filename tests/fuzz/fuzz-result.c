// SPDX-License-Identifier: Apache-2.0
/* Fuzz target: result_parse, then result_to_json in every version must parse back the same. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What survives every version: 1.1.0-only fields are dropped below it. */
static void strip(struct cni_result *r)
{
	int i;

	for (i = 0; i < r->n_ifaces; i++) {
		r->ifaces[i].mtu = 0;
		memset(r->ifaces[i].pci_id, 0, sizeof(r->ifaces[i].pci_id));
	}
}

static void round_trip(const struct cni_result *r, enum cni_version v, struct cni_result *back)
{
	struct cni_err err = { 0 };
	cJSON *json = result_to_json(r, v), *again;
	char *text;

	if (!json)
		abort();
	text = cJSON_PrintUnformatted(json);
	again = text ? cJSON_Parse(text) : NULL;
	if (!again || result_parse(again, back, &err))
		abort();	/* we must read what we print */
	cJSON_Delete(again);
	free(text);
	cJSON_Delete(json);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *doc = malloc(size + 1);
	struct cni_result *r = malloc(sizeof(*r)), *back = malloc(sizeof(*back));
	struct cni_err err = { 0 };
	cJSON *root = NULL;
	int v;

	if (!doc || !r || !back)
		goto out;
	memcpy(doc, data, size);
	doc[size] = '\0';
	root = cJSON_Parse(doc);
	if (!root)
		goto out;
	if (result_parse(root, r, &err)) {
		if (err.code != CNI_ERR_DECODE)
			abort();
		goto out;
	}
	for (v = 0; v < CNI_VERSION_COUNT; v++) {
		round_trip(r, v, back);
		if (v == CNI_V110 && memcmp(r, back, sizeof(*r)))
			abort();	/* 1.1.0 keeps everything */
	}
	strip(r);
	strip(back);
	round_trip(r, CNI_V040, back);
	if (memcmp(r, back, sizeof(*r)))
		abort();
out:
	cJSON_Delete(root);
	free(back);
	free(r);
	free(doc);
	return 0;
}
