// SPDX-License-Identifier: Apache-2.0
/* The table of store backends, the open/close that pick one by name, and the rules their records share. */
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

/* The kernel's boot id: "6c1d0e2f-0000-4000-8000-000000000001". */
static bool netns_path_valid(const char *p)
{
	size_t i;

	if (p[0] != '/')
		return false;
	for (i = 0; p[i] && i < POOL_NETNS_MAX; i++)
		if ((unsigned char)p[i] <= ' ' || (unsigned char)p[i] >= 0x7f)
			return false;
	return i < POOL_NETNS_MAX;
}

bool pool_owner_netns_valid(const struct pool_owner *o)
{
	const struct nsident *n = &o->ns;
	bool none = !n->dev && !n->ino && !n->boot[0];

	if (!o->netns[0])
		return none;
	if (!netns_path_valid(o->netns))
		return false;
	return none || (n->ino && n->ino <= POOL_NS_NUM_MAX && n->dev <= POOL_NS_NUM_MAX &&
			nsident_boot_valid(n->boot));
}
