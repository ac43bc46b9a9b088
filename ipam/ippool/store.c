// SPDX-License-Identifier: Apache-2.0
/* The table of store backends and the open/close that pick one by name. */
#include <errno.h>
#include <string.h>
#include "store.h"

static const struct pool_store_ops *const backends[] = {
	&pool_store_local,
	&pool_store_etcd,
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
