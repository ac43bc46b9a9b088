// SPDX-License-Identifier: Apache-2.0
/* ADD: the attachment's addresses (the same ones on a repeat), printed as a CNI result. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cniargs.h"
#include "log.h"
#include "nsident.h"
#include "result.h"
#include "setup.h"
#include "cmds.h"

/* What reconcile will judge the lease by: CNI_NETNS, and the netns it names
 * now with this boot's id. A path or identity the store could not record
 * is left out, as older versions did: reconcile then never frees the lease. */
static void fill_netns(const char *netns, struct pool_owner *o)
{
	bool fits = snprintf(o->netns, sizeof(o->netns), "%s", netns) < (int)sizeof(o->netns);
	int ret = nsident_of(netns, &o->ns);

	if (!ret)
		ret = nsident_boot(o->ns.boot);
	if (ret) {
		log_warn("ADD %s %s: cannot identify netns %s (%s): reconcile will keep its lease",
			 o->key.containerid, o->key.ifname, netns, strerror(-ret));
		memset(&o->ns, 0, sizeof(o->ns));
	}
	if (!fits || !pool_owner_netns_valid(o)) {
		log_warn("ADD %s %s: netns %.64s not recorded: reconcile will keep its lease",
			 o->key.containerid, o->key.ifname, netns);
		o->netns[0] = '\0';
		memset(&o->ns, 0, sizeof(o->ns));
	}
}

static void fill_owner(const struct plugin_ctx *ctx, const struct ippool *p, const struct cni_args *args,
		       struct pool_owner *o)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->key.containerid, sizeof(o->key.containerid), "%s", ctx->env.containerid);
	snprintf(o->key.ifname, sizeof(o->key.ifname), "%s", ctx->env.ifname);
	snprintf(o->cni_network, sizeof(o->cni_network), "%s", p->nc.name);
	snprintf(o->pod_namespace, sizeof(o->pod_namespace), "%s", args->pod_namespace);
	snprintf(o->pod_name, sizeof(o->pod_name), "%s", args->pod_name);
	snprintf(o->pod_uid, sizeof(o->pod_uid), "%s", args->pod_uid);
	o->created = (int64_t)time(NULL);
	fill_netns(ctx->env.netns, o);
}

int cmd_add(struct plugin_ctx *ctx)
{
	struct ippool p;
	struct cni_args args;
	struct pool_owner owner;
	struct pool_lease lease;
	struct cni_result *res = NULL;
	int ret = setup_open(ctx, &p);

	if (ret)
		return ret;
	ret = cniargs_parse(ctx->env.args, &args, &ctx->err);
	if (!ret)
		ret = poolconf_request(p.conf, args.ip, &ctx->err);
	if (ret)
		goto out;
	fill_owner(ctx, &p, &args, &owner);
	ret = p.store->ops->reserve(p.store, &owner, p.conf->ranges, p.conf->n_ranges, &lease, &ctx->err);
	if (ret)
		goto out;
	res = malloc(sizeof(*res));
	if (!res) {
		ret = -ENOMEM;
		cni_err_set(&ctx->err, CNI_ERR_IO, "out of memory");
		goto out;
	}
	for (int i = 0; i < lease.n_addrs; i++) {
		char text[64];

		ipaddr_format_u128(lease.addrs[i].family, lease.addrs[i].addr, text);
		log_info("ADD %s %s: %s in %s", owner.key.containerid, owner.key.ifname, text,
			 lease.addrs[i].pool);
	}
	poolconf_result(p.conf, &lease, res);
	ctx->out = result_to_json(res, p.nc.version);
	if (!ctx->out) {
		ret = -ENOMEM;
		cni_err_set(&ctx->err, CNI_ERR_IO, "out of memory printing the result");
	}
out:
	free(res);
	setup_close(&p);
	return ret;
}
