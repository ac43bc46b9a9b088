// SPDX-License-Identifier: Apache-2.0
/* CHECK: the attachment's reservation exists and is exactly the addresses of prevResult. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "ipaddr.h"
#include "setup.h"
#include "verbs.h"

static bool in_result(const struct cni_result *r, const struct pool_addr *a)
{
	char want[IPADDR_STR_MAX], have[IPADDR_STR_MAX];

	pool_addr_format(a->family, a->addr, want, sizeof(want));
	for (int i = 0; i < r->n_ips; i++) {
		ipaddr_format(&r->ips[i].address.addr, have);
		if (!strcmp(want, have) && r->ips[i].address.len == a->prefix_len)
			return true;
	}
	return false;
}

static int compare(const struct pool_lease *l, const struct cni_result *prev, struct cni_err *err)
{
	char text[IPADDR_STR_MAX];

	for (int i = 0; i < l->n_addrs; i++) {
		if (!in_result(prev, &l->addrs[i])) {
			pool_addr_format(l->addrs[i].family, l->addrs[i].addr, text, sizeof(text));
			cni_err_set(err, CNI_ERR_CHECK, "reserved address %s/%d is not in prevResult",
				    text, l->addrs[i].prefix_len);
			return -EINVAL;
		}
	}
	if (prev->n_ips != l->n_addrs) {
		cni_err_set(err, CNI_ERR_CHECK, "prevResult has %d addresses, the reservation %d",
			    prev->n_ips, l->n_addrs);
		return -EINVAL;
	}
	return 0;
}

int cmd_check(struct plugin_ctx *ctx)
{
	struct ippool p;
	struct pool_key key = { 0 };
	struct pool_lease lease;
	int ret = setup_open(ctx, &p);

	if (ret)
		return ret;
	if (!p.nc.has_prev_result) {
		ret = -EINVAL;
		cni_err_set(&ctx->err, CNI_ERR_CONFIG, "CHECK needs a prevResult");
		goto out;
	}
	snprintf(key.containerid, sizeof(key.containerid), "%s", ctx->env.containerid);
	snprintf(key.ifname, sizeof(key.ifname), "%s", ctx->env.ifname);
	ret = p.store->ops->lookup(p.store, &key, &lease, &ctx->err);
	if (ret == -ENOENT)
		cni_err_set(&ctx->err, CNI_ERR_CHECK, "no reservation for container %s interface %s",
			    key.containerid, key.ifname);
	if (!ret)
		ret = compare(&lease, &p.nc.prev_result, &ctx->err);
out:
	setup_close(&p);
	return ret;
}
