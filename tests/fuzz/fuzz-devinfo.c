// SPDX-License-Identifier: Apache-2.0
/* Fuzz target: completing a device-info file (a device plugin's copy) of arbitrary bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "devinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *str_at(const cJSON *obj, const char *a, const char *b)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, a);

	if (b)
		v = cJSON_GetObjectItemCaseSensitive(v, b);
	return cJSON_IsString(v) ? v->valuestring : "";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct devinfo d = { .pci = "0000:3b:00.2", .pf_pci = "0000:3b:00.0",
					  .rdma = "mlx5_3" };
	struct cni_err err = { 0 };
	char *out = NULL;
	cJSON *doc;

	if (devinfo_merge((const char *)data, size, &d, "/f", &out, &err)) {
		if (!err.code)
			abort();	/* every refusal says why */
		return 0;
	}
	/* what is written describes our VF, in the spec's version */
	doc = cJSON_Parse(out);
	if (!cJSON_IsObject(doc) || strcmp(str_at(doc, "type", NULL), "pci") ||
	    strcmp(str_at(doc, "version", NULL), DEVINFO_VERSION) ||
	    strcmp(str_at(doc, "pci", "pci-address"), d.pci) ||
	    strcmp(str_at(doc, "pci", "pf-pci-address"), d.pf_pci) ||
	    strcmp(str_at(doc, "pci", "rdma-device"), d.rdma))
		abort();
	cJSON_Delete(doc);
	free(out);
	return 0;
}
