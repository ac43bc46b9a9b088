// SPDX-License-Identifier: Apache-2.0
/* Reads the CNI conf dir and flattens its lists into plugin configs. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "conffiles.h"
#include "fileio.h"

/* A copy of plugin carrying the list's cniVersion and name when it has none. */
static int add_plugin(const cJSON *plugin, const cJSON *version, const cJSON *name, cJSON *out)
{
	cJSON *copy;

	if (!cJSON_IsObject(plugin) || !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(plugin, "type")))
		return 0;
	copy = cJSON_Duplicate(plugin, true);
	if (!copy)
		return -ENOMEM;
	if ((cJSON_IsString(version) && !cJSON_HasObjectItem(copy, "cniVersion") &&
	     !cJSON_AddStringToObject(copy, "cniVersion", version->valuestring)) ||
	    (cJSON_IsString(name) && !cJSON_HasObjectItem(copy, "name") &&
	     !cJSON_AddStringToObject(copy, "name", name->valuestring)) ||
	    !cJSON_AddItemToArray(out, copy)) {
		cJSON_Delete(copy);
		return -ENOMEM;
	}
	return 0;
}

int conffiles_flatten(const char *text, cJSON *out)
{
	cJSON *root = cJSON_Parse(text);
	const cJSON *plugins, *version, *name, *p;
	int ret = -EINVAL;

	if (!cJSON_IsObject(root))
		goto out;
	plugins = cJSON_GetObjectItemCaseSensitive(root, "plugins");
	version = cJSON_GetObjectItemCaseSensitive(root, "cniVersion");
	name = cJSON_GetObjectItemCaseSensitive(root, "name");
	if (!cJSON_IsArray(plugins)) {
		ret = add_plugin(root, version, name, out);
		goto out;
	}
	ret = 0;
	cJSON_ArrayForEach(p, plugins) {
		ret = add_plugin(p, version, name, out);
		if (ret < 0)
			break;
	}
out:
	cJSON_Delete(root);
	return ret;
}

static bool is_conf_file(const char *name)
{
	static const char *const suffixes[] = { ".conf", ".conflist", ".json" };
	size_t len = strlen(name);

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t slen = strlen(suffixes[i]);

		if (len > slen && !strcmp(name + len - slen, suffixes[i]))
			return true;
	}
	return false;
}

int conffiles_load(const char *dir, cJSON **out)
{
	char **names = NULL;
	size_t n = 0;
	int ret;

	*out = cJSON_CreateArray();
	if (!*out)
		return -ENOMEM;
	ret = fileio_list(dir, "", &names, &n);
	for (size_t i = 0; i < n; i++) {
		char *text = NULL;
		size_t len;

		if (ret == 0 && is_conf_file(names[i]) &&
		    fileio_read(dir, names[i], &text, &len) == 0 &&
		    conffiles_flatten(text, *out) == -ENOMEM)
			ret = -ENOMEM;
		free(text);
		free(names[i]);
	}
	free(names);
	if (ret < 0) {
		cJSON_Delete(*out);
		*out = NULL;
	}
	return ret;
}
