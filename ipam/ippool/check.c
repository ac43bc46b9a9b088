// SPDX-License-Identifier: Apache-2.0
/* CHECK: the attachment's reservation is in prevResult, and prevResult holds no other address of our ranges. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "ipaddr.h"
#include "range.h"
#include "setup.h"
#include "cmds.h"

static bool in_result(const struct cni_result *r, const struct pool_addr *a)
{
	for (int i = 0; i < r->n_ips; i++) {
		const struct ipprefix *p = &r->ips[i].address;

		if (p->addr.family == a->family && ipaddr_to_u128(&p->addr) == a->addr &&
		    p->len == a->prefix_len)
			return true;
	}
	return false;
}

static bool in_lease(const struct pool_lease *l, int family, ipaddr_u128 a)
{
	for (int i = 0; i < l->n_addrs; i++)
		if (l->addrs[i].family == family && l->addrs[i].addr == a)
			return true;
	return false;
}

/* An address of prevResult inside one of our ranges must be ours. */
static bool stray(const struct pool_conf *c, const struct pool_lease *l, const struct ipaddr *ip)
{
	ipaddr_u128 a = ipaddr_to_u128(ip);

	for (int i = 0; i < c->n_ranges; i++)
		if (c->ranges[i].family == ip->family && range_contains(&c->ranges[i], a))
			return !in_lease(l, ip->family, a);
	return false;
}

static int compare(const struct pool_conf *c, const struct pool_lease *l,
		   const struct cni_result *prev, struct cni_err *err)
{
	char text[IPADDR_STR_MAX];

	for (int i = 0; i < l->n_addrs; i++) {
		if (!in_result(prev, &l->addrs[i])) {
			ipaddr_format_u128(l->addrs[i].family, l->addrs[i].addr, text);
			cni_err_set(err, CNI_ERR_CHECK, "reserved address %s/%d is not in prevResult",
				    text, l->addrs[i].prefix_len);
			return -EINVAL;
		}
	}
	for (int i = 0; i < prev->n_ips; i++) {
		if (stray(c, l, &prev->ips[i].address.addr)) {
			ipaddr_format(&prev->ips[i].address.addr, text);
			cni_err_set(err, CNI_ERR_CHECK, "prevResult address %s is not reserved for this attachment",
				    text);
			return -EINVAL;
		}
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
	if (!p.nc.prev_result) {
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
		ret = compare(p.conf, &lease, p.nc.prev_result, &ctx->err);
out:
	setup_close(&p);
	return ret;
}
