// SPDX-License-Identifier: Apache-2.0
/* STATUS: ready when the RDMA devices can be given as the network asks and IPAM is ready. */
#include <errno.h>

#include "cmds.h"
#include "ipamexec.h"
#include "rdma.h"
#include "rdmanl.h"

/* Shared mode leaves each RDMA device in the host, which is what a network
 * without "rdma" gets there (rdma.c); one with "rdma": true needs exclusive. */
static int check_rdma_mode(const struct attach *a, struct cni_err *err)
{
	struct cni_err why = { 0 };
	enum rdmanl_mode mode;
	int ret;

	ret = rdmanl_get_mode(-1, &mode, &why);
	if (ret < 0) {
		cni_err_set(err, CNI_ERR_NOT_READY, "cannot read the RDMA netns mode: %s", why.msg);
		return ret;
	}
	if (mode != RDMANL_MODE_EXCLUSIVE && a->conf.rdma_key) {
		cni_err_set(err, CNI_ERR_NOT_READY, "RDMA subsystem is in shared netns mode, and "
			    "\"%s\": true needs exclusive: " RDMA_MODE_FIX, a->conf.rdma_key);
		return -EOPNOTSUPP;
	}
	return 0;
}

int cmd_status(struct plugin_ctx *ctx)
{
	struct attach *a = NULL;
	int ret;

	ret = attach_new(ctx, &a, &ctx->err);
	if (ret == 0 && a->conf.rdma)
		ret = check_rdma_mode(a, &ctx->err);
	if (ret == 0 && a->conf.has_ipam)
		ret = ipamexec_call(CNI_CMD_STATUS, a->conf.ipam_type, a->conf_text, a->conf_len, NULL,
				    &ctx->err);
	attach_free(a);
	return ret;
}
