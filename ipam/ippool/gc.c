// SPDX-License-Identifier: Apache-2.0
/* GC (CNI 1.1): releases the reservations of this CNI network (the config's name) whose attachments are not in cni.dev/valid-attachments. */
#include "setup.h"
#include "cmds.h"

int cmd_gc(struct plugin_ctx *ctx)
{
	struct ippool p;
	int ret = setup_open(ctx, &p);

	if (ret)
		return ret;
	/* Without the list there is no telling what is stale: release nothing. */
	if (p.nc.has_valid)
		ret = p.store->ops->gc(p.store, p.nc.name, p.nc.valid, p.nc.n_valid, &ctx->err);
	setup_close(&p);
	return ret;
}
