// SPDX-License-Identifier: Apache-2.0
/* The table of store backends, the open/close that pick one by name, and the keys they share. */
#include <errno.h>
#include <string.h>
#include "store.h"

static const struct pool_store_ops *const backends[] = {
	&local_store_ops,
	&etcd_store_ops,
};

int pool_store_open(const char *name, const struct pool_store_cfg *cfg,
		    struct pool_store **out, struct cni_err *err)
{
	*out = NULL;
	if (!name || !*name)
		name = "local";
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (!strcmp(backends[i]->name, name))
			return backends[i]->open(cfg, out, err);
	cni_err_set(err, CNI_ERR_CONFIG, "unknown store \"%s\"", name);
	return -EINVAL;
}

void pool_store_close(struct pool_store *s)
{
	if (s)
		s->ops->close(s);
}

int pool_store_timeout(const cJSON *store, int *out_ms, struct cni_err *err)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(store, "timeout_ms");

	*out_ms = POOL_TIMEOUT_MS;
	if (!t)
		return 0;
	if (!cJSON_IsNumber(t) || t->valuedouble < 100 || t->valuedouble > 600000) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid store.timeout_ms: need 100 to 600000");
		return -EINVAL;
	}
	*out_ms = t->valueint;
	return 0;
}
