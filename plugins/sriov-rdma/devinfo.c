// SPDX-License-Identifier: Apache-2.0
/* The VF's device-info document (NPWG Device Information Specification 1.1.0), made or completed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "devinfo.h"
#include "json.h"

/* Sets obj[key] = value (replacing it); "" leaves obj as it is. */
static int set_str(cJSON *obj, const char *key, const char *value)
{
	cJSON *s;

	if (!*value)
		return 0;
	s = cJSON_CreateString(value);
	if (!s)
		return -ENOMEM;
	/* keys are case-sensitive (cJSON_HasObjectItem is not) */
	if (cJSON_GetObjectItemCaseSensitive(obj, key) ?
	    cJSON_ReplaceItemInObjectCaseSensitive(obj, key, s) : cJSON_AddItemToObject(obj, key, s))
		return 0;
	cJSON_Delete(s);
	return -ENOMEM;
}

/* A key the device plugin already set must describe our device. */
static int same_device(const cJSON *pci, const char *key, const char *want, const char *path,
		       struct cni_err *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(pci, key);

	if (!v || !*want)
		return 0;
	if (cJSON_IsString(v) && !strcmp(v->valuestring, want))
		return 0;
	cni_err_set(err, CNI_ERR_CONFIG, "device-info file %s: \"%s\" is not %s: it describes "
		    "another device", path, key, want);
	return -EINVAL;
}

/* What the device plugin wrote, checked; a new object when there is none. */
static int load(const char *old, size_t len, const char *path, cJSON **root, cJSON **pci,
		struct cni_err *err)
{
	const char *end = NULL;
	const cJSON *type;

	*root = old ? cJSON_ParseWithLengthOpts(old, len, &end, false) : cJSON_CreateObject();
	/* one document and nothing after it but white space */
	while (*root && old && end < old + len && strchr(" \t\r\n", *end) && *end)
		end++;
	if (*root && old && end != old + len) {
		cJSON_Delete(*root);
		*root = NULL;
	}
	if (!*root || !cJSON_IsObject(*root)) {
		if (old)
			cni_err_set(err, CNI_ERR_DECODE, "device-info file %s: not a JSON object",
				    path);
		return old ? -EBADMSG : -ENOMEM;
	}
	type = cJSON_GetObjectItemCaseSensitive(*root, "type");
	if (type && !(cJSON_IsString(type) && !strcmp(type->valuestring, "pci"))) {
		cni_err_set(err, CNI_ERR_CONFIG, "device-info file %s: \"type\" is not \"pci\": "
			    "it describes another kind of device", path);
		return -EINVAL;
	}
	*pci = cJSON_GetObjectItemCaseSensitive(*root, "pci");
	if (*pci && !cJSON_IsObject(*pci)) {
		cni_err_set(err, CNI_ERR_DECODE, "device-info file %s: \"pci\" is not an object",
			    path);
		return -EBADMSG;
	}
	return 0;
}

int devinfo_merge(const char *old, size_t len, const struct devinfo *d, const char *path,
		  char **out, struct cni_err *err)
{
	cJSON *root = NULL, *pci = NULL;
	int ret;

	*out = NULL;
	ret = load(old, len, path, &root, &pci, err);
	if (!ret)
		ret = same_device(pci, "pci-address", d->pci, path, err);
	if (!ret)
		ret = same_device(pci, "pf-pci-address", d->pf_pci, path, err);
	if (ret)
		goto fail;
	/* a new document gets the keys in the spec's order */
	ret = set_str(root, "type", "pci");
	if (!ret)
		ret = set_str(root, "version", DEVINFO_VERSION);
	if (!ret && !pci && !(pci = cJSON_AddObjectToObject(root, "pci")))
		ret = -ENOMEM;
	if (!ret)
		ret = set_str(pci, "pci-address", d->pci);
	if (!ret)
		ret = set_str(pci, "pf-pci-address", d->pf_pci);
	if (!ret)
		ret = set_str(pci, "rdma-device", d->rdma);
	if (ret)
		goto fail;
	*out = json_print_free(root, 0);
	if (!*out)
		ret = -ENOMEM;
	goto done;
fail:
	cJSON_Delete(root);
done:
	if (ret == -ENOMEM && !err->code)
		cni_err_set(err, CNI_ERR_IO, "out of memory");
	return ret;
}
