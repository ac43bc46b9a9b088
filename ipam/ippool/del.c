// SPDX-License-Identifier: Apache-2.0
/* DEL: releases the attachment's addresses everywhere in the store; nothing to release is success. */
#include <stdio.h>
#include "log.h"
#include "setup.h"
#include "cmds.h"

int cmd_del(struct plugin_ctx *ctx)
{
	struct ippool p;
	struct pool_key key = { 0 };
	int ret = setup_open(ctx, &p);

	if (ret)
		return ret;
	snprintf(key.containerid, sizeof(key.containerid), "%s", ctx->env.containerid);
	snprintf(key.ifname, sizeof(key.ifname), "%s", ctx->env.ifname);
	ret = p.store->ops->release(p.store, &key, &ctx->err);
	if (!ret)
		log_info("DEL %s %s: released", key.containerid, key.ifname);
	setup_close(&p);
	return ret;
}
