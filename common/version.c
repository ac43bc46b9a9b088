// SPDX-License-Identifier: Apache-2.0
/* CNI spec versions by name and the answer to CNI_COMMAND=VERSION. */
#include <errno.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "json.h"
#include "version.h"

static const char *const names[CNI_VERSION_COUNT] = {
	[CNI_V030] = "0.3.0",
	[CNI_V031] = "0.3.1",
	[CNI_V040] = "0.4.0",
	[CNI_V100] = "1.0.0",
	[CNI_V110] = "1.1.0",
};

int version_parse(const char *s, enum cni_version *out)
{
	int v;

	if (!s)
		return -EINVAL;
	for (v = 0; v < CNI_VERSION_COUNT; v++) {
		if (!strcmp(s, names[v])) {
			*out = v;
			return 0;
		}
	}
	return -EINVAL;
}

const char *version_str(enum cni_version v)
{
	if ((unsigned)v >= CNI_VERSION_COUNT)
		return NULL;
	return names[v];
}

char *version_info_json(const char *cni_version)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *list;
	int build_err = -ENOMEM;
	int v;

	if (!root)
		goto out;
	if (!cJSON_AddStringToObject(root, "cniVersion", cni_version ? cni_version : names[CNI_V110]))
		goto out;
	list = cJSON_AddArrayToObject(root, "supportedVersions");
	if (!list)
		goto out;
	for (v = 0; v < CNI_VERSION_COUNT; v++) {
		cJSON *s = cJSON_CreateString(names[v]);

		if (!s || !cJSON_AddItemToArray(list, s)) {
			cJSON_Delete(s);
			goto out;
		}
	}
	build_err = 0;
out:
	return json_print_free(root, build_err);
}
