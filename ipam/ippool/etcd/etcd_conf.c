// SPDX-License-Identifier: Apache-2.0
/* The "store" block of type "etcd" read into a plain struct; pure. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "etcd_conf.h"
#include "store.h"

static int conf_string(const cJSON *store, const char *name, char *out, struct cni_err *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(store, name);

	if (!v)
		return 0;
	if (!cJSON_IsString(v) || strlen(v->valuestring) >= ETCD_STR_MAX) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid store.%s: not a string of under %d bytes",
			    name, ETCD_STR_MAX);
		return -EINVAL;
	}
	strcpy(out, v->valuestring);
	return 0;
}

static int conf_endpoints(const cJSON *store, struct etcd_conf *out, struct cni_err *err)
{
	const cJSON *eps = cJSON_GetObjectItemCaseSensitive(store, "endpoints");
	const cJSON *ep;

	if (!cJSON_IsArray(eps) || !cJSON_GetArraySize(eps) ||
	    cJSON_GetArraySize(eps) > ETCD_MAX_ENDPOINTS) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid store.endpoints: need 1 to %d URLs",
			    ETCD_MAX_ENDPOINTS);
		return -EINVAL;
	}
	cJSON_ArrayForEach(ep, eps) {
		const char *s = cJSON_GetStringValue(ep);

		if (!s || strlen(s) >= ETCD_STR_MAX ||
		    (strncmp(s, "http://", 7) && strncmp(s, "https://", 8))) {
			cni_err_set(err, CNI_ERR_CONFIG,
				    "invalid store endpoint \"%s\": not an http:// or https:// URL",
				    s ? s : "(not a string)");
			return -EINVAL;
		}
		/* Paths are appended: "https://h:2379/" + "/v3/..." would not route. */
		snprintf(out->endpoints[out->n_endpoints++], ETCD_STR_MAX, "%.*s",
			 (int)(strlen(s) - (s[strlen(s) - 1] == '/')), s);
	}
	return 0;
}

static int conf_prefix(struct etcd_conf *out, struct cni_err *err)
{
	size_t len = strlen(out->prefix), i;

	if (!len)
		strcpy(out->prefix, "/ippool");
	while (len > 1 && out->prefix[len - 1] == '/')
		out->prefix[--len] = '\0';
	for (i = 0; out->prefix[i]; i++) {
		if (out->prefix[i] <= ' ' || out->prefix[i] >= 0x7f) {
			cni_err_set(err, CNI_ERR_CONFIG,
				    "invalid store.prefix \"%s\": printable ASCII only", out->prefix);
			return -EINVAL;
		}
	}
	return 0;
}

static const char *const string_keys[] = {
	"prefix", "cacert", "cert", "key", "username", "password",
};

int etcd_conf_parse(const cJSON *store, struct etcd_conf *out, struct cni_err *err)
{
	char *fields[] = { out->prefix, out->cacert, out->cert, out->key, out->username,
			   out->password };
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < sizeof(string_keys) / sizeof(string_keys[0]); i++) {
		ret = conf_string(store, string_keys[i], fields[i], err);
		if (ret)
			return ret;
	}
	ret = conf_endpoints(store, out, err);
	if (!ret)
		ret = pool_store_timeout(store, &out->timeout_ms, err);
	if (!ret)
		ret = conf_prefix(out, err);
	if (ret)
		return ret;
	if (!*out->cert != !*out->key) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid store: \"cert\" and \"key\" go together");
		return -EINVAL;
	}
	if (*out->username && !*out->password) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid store: username \"%s\" without password",
			    out->username);
		return -EINVAL;
	}
	return 0;
}
