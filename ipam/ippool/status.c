// SPDX-License-Identifier: Apache-2.0
/* STATUS: the store can be read and written. */
#include "setup.h"
#include "cmds.h"

int cmd_status(struct plugin_ctx *ctx)
{
	struct ippool p;
	int ret = setup_open(ctx, &p);

	if (!ret) {
		ret = p.store->ops->status(p.store, &ctx->err);
		setup_close(&p);
	}
	/* The spec's code for "the plugin cannot serve ADD now". */
	if (ret && ctx->err.code == CNI_ERR_STORE)
		ctx->err.code = CNI_ERR_NOT_READY;
	return ret;
}
