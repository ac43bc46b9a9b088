// SPDX-License-Identifier: Apache-2.0
/* CHECK: the pod still has what prevResult says ADD gave it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cmds.h"
#include "ib.h"
#include "ipamexec.h"
#include "linkip.h"
#include "rdma.h"
#include "rdmanl.h"

#define CHECK_MAX_ADDRS 64
#define CHECK_MAX_ROUTES 256

/* The prevResult interface that is ours: our name in our sandbox. */
static int find_iface(const struct attach *a, struct cni_err *err)
{
	const struct cni_result *r = a->conf.net.prev_result;

	for (int i = 0; i < r->n_ifaces; i++) {
		if (strcmp(r->ifaces[i].name, a->state.ifname) == 0 &&
		    (!r->ifaces[i].sandbox[0] || strcmp(r->ifaces[i].sandbox, a->state.netns) == 0))
			return i;
	}
	cni_err_set(err, CNI_ERR_CHECK, "prevResult has no interface %s in sandbox %s",
		    a->state.ifname, a->state.netns);
	return -ENOENT;
}

static int check_link(struct attach *a, const struct link_info *link, int iface,
		      struct cni_err *err)
{
	const struct cni_iface *want = &a->conf.net.prev_result->ifaces[iface];
	char mac[LINK_ADDR_STR_MAX];

	link_addr_format(link, mac);
	if (want->mac[0] && strcasecmp(want->mac, mac) != 0) {
		cni_err_set(err, CNI_ERR_CHECK, "%s in netns %s has MAC %s, prevResult says %s",
			    a->state.ifname, a->state.netns, mac, want->mac);
		return -EINVAL;
	}
	if (want->mtu && (unsigned int)want->mtu != link->mtu) {
		cni_err_set(err, CNI_ERR_CHECK, "%s in netns %s has MTU %u, prevResult says %d",
			    a->state.ifname, a->state.netns, link->mtu, want->mtu);
		return -EINVAL;
	}
	return 0;
}

static bool has_addr(const struct ipprefix *have, int n, const struct ipprefix *want)
{
	for (int i = 0; i < n; i++) {
		if (ipprefix_equal(&have[i], want))
			return true;
	}
	return false;
}

static int check_addrs(struct attach *a, const struct link_info *link, int iface,
		       struct cni_err *err)
{
	const struct cni_result *r = a->conf.net.prev_result;
	struct ipprefix have[CHECK_MAX_ADDRS];
	char buf[IPADDR_STR_MAX];
	int n = 0, ret;

	ret = link_addr_list(a->pod_nl, link->ifindex, have, CHECK_MAX_ADDRS, &n);
	for (int i = 0; ret == 0 && i < r->n_ips; i++) {
		if (r->ips[i].iface != iface || has_addr(have, n, &r->ips[i].address))
			continue;
		ipprefix_format(&r->ips[i].address, buf);
		cni_err_set(err, CNI_ERR_CHECK, "%s in netns %s lacks address %s", a->state.ifname,
			    a->state.netns, buf);
		ret = -ENOENT;
	}
	return ret;
}

static bool has_route(const struct link_route *have, int n, const struct cni_route *want)
{
	for (int i = 0; i < n; i++) {
		if (ipprefix_equal(&have[i].dst, &want->dst) &&
		    (!want->gw.family || ipaddr_equal(&have[i].gw, &want->gw)))
			return true;
	}
	return false;
}

static int check_routes(struct attach *a, const struct link_info *link, int iface,
			struct cni_err *err)
{
	const struct cni_result *r = a->conf.net.prev_result;
	struct link_route have[CHECK_MAX_ROUTES];
	char buf[IPADDR_STR_MAX];
	int n = 0, ret;

	(void)iface;
	ret = link_route_list(a->pod_nl, link->ifindex, have, CHECK_MAX_ROUTES, &n);
	for (int i = 0; ret == 0 && i < r->n_routes; i++) {
		if (has_route(have, n, &r->routes[i]))
			continue;
		ipprefix_format(&r->routes[i].dst, buf);
		cni_err_set(err, CNI_ERR_CHECK, "netns %s lacks route %s via %s", a->state.netns,
			    buf, a->state.ifname);
		ret = -ENOENT;
	}
	return ret;
}

static int check_rdma(struct attach *a, const struct link_info *link, int iface,
		      struct cni_err *err)
{
	(void)iface;
	if (!a->conf.rdma || rdma_find_pod(a, link->ifindex) == 0)
		return 0;
	cni_err_set(err, CNI_ERR_CHECK, "no RDMA device for %s in netns %s: it was moved out "
		    "or the VF has none", a->state.ifname, a->state.netns);
	return -ENODEV;
}

static int check_guid(struct attach *a, const struct link_info *link, int iface,
		      struct cni_err *err)
{
	(void)link;
	(void)iface;
	return ib_check(a, err);
}

static int (*const checks[])(struct attach *, const struct link_info *, int,
			     struct cni_err *) = {
	check_link, check_addrs, check_routes, check_rdma, check_guid,
};

static int check_pod(struct attach *a, struct cni_err *err)
{
	struct link_info link;
	int iface, ret;

	if (!a->conf.net.prev_result) {
		cni_err_set(err, CNI_ERR_CONFIG, "CHECK needs prevResult");
		return -EINVAL;
	}
	iface = find_iface(a, err);
	if (iface < 0)
		return iface;
	ret = link_get_by_name(a->pod_nl, a->state.ifname, &link);
	if (ret < 0) {
		cni_err_set(err, CNI_ERR_CHECK, "no interface %s in netns %s", a->state.ifname,
			    a->state.netns);
		return ret;
	}
	for (size_t i = 0; ret == 0 && i < sizeof(checks) / sizeof(checks[0]); i++)
		ret = checks[i](a, &link, iface, err);
	return ret;
}

int cmd_check(struct plugin_ctx *ctx)
{
	struct attach *a = NULL;
	int ret;

	ret = attach_new(ctx, &a, &ctx->err);
	if (ret == 0)
		ret = attach_open_netns(a, false, &ctx->err);
	if (ret == 0)
		ret = check_pod(a, &ctx->err);
	if (ret == 0 && a->conf.has_ipam)
		ret = ipamexec_call(CNI_CMD_CHECK, a->conf.ipam_type, a->conf_text, a->conf_len, NULL,
				    &ctx->err);
	attach_free(a);
	return ret;
}
