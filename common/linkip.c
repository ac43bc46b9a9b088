// SPDX-License-Identifier: Apache-2.0
/* A link's IP configuration through rtnetlink: addresses added and listed, routes added and listed. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include "linkip.h"
#include "linksock.h"

static size_t family_len(int family)
{
	return family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;
}

int link_addr_add(struct link_sock *s, int ifindex, const struct ipprefix *addr, struct cni_err *err)
{
	struct ifaddrmsg ifa = {
		.ifa_family = addr->addr.family,
		.ifa_prefixlen = addr->len,
		/* no DAD: the address is usable as soon as the pod starts */
		.ifa_flags = addr->addr.family == AF_INET6 ? IFA_F_NODAD : 0,
		.ifa_index = ifindex,
	};
	size_t len = family_len(addr->addr.family);
	char text[IPADDR_STR_MAX];
	struct nl_msg *msg;
	int put = 0, ret = -EAFNOSUPPORT;

	if (len) {
		msg = linksock_msg(RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, &ifa, sizeof(ifa));
		if (msg)
			put = nla_put(msg, IFA_LOCAL, len, addr->addr.bytes);
		if (msg && put == 0)
			put = nla_put(msg, IFA_ADDRESS, len, addr->addr.bytes);
		ret = linksock_change(s, msg, put);
	}
	if (ret < 0) {
		ipprefix_format(addr, text);
		return linksock_fail(s, err, ret, "failed to add address %s to link %d", text, ifindex);
	}
	return 0;
}

struct addr_list {
	int ifindex;
	struct ipprefix *out;
	int max;
	int n;
};

static int parse_addr(const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[IFA_MAX + 1], *a;
	struct addr_list *l = arg;
	const struct ifaddrmsg *ifa;
	struct ipprefix *p;
	size_t len;

	/* libnl's parser takes no const message; it does not write to it */
	if (nlmsg_parse((struct nlmsghdr *)nlh, sizeof(*ifa), tb, IFA_MAX, NULL) < 0)
		return -EPROTO;
	ifa = nlmsg_data(nlh);
	/* IFA_LOCAL is the address itself; IFA_ADDRESS the peer on point-to-point */
	a = tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
	len = family_len(ifa->ifa_family);
	if ((int)ifa->ifa_index != l->ifindex || !a || !len || (size_t)nla_len(a) < len)
		return 0;
	if (l->n == l->max)
		return -ENOSPC;
	p = &l->out[l->n++];
	memset(p, 0, sizeof(*p));
	p->addr.family = ifa->ifa_family;
	memcpy(p->addr.bytes, nla_data(a), len);
	p->len = ifa->ifa_prefixlen;
	return 0;
}

int link_addr_list(struct link_sock *s, int ifindex, struct ipprefix *out, int max, int *n)
{
	struct ifaddrmsg ifa = { .ifa_family = AF_UNSPEC };
	struct addr_list l = { .ifindex = ifindex, .out = out, .max = max };
	int ret = linksock_dump(s, RTM_GETADDR, &ifa, sizeof(ifa), parse_addr, &l);

	*n = l.n;
	return ret;
}

int link_route_add(struct link_sock *s, int ifindex, const struct ipprefix *dst,
		   const struct ipaddr *gw, struct cni_err *err)
{
	bool via = gw && gw->family;
	struct rtmsg rtm = {
		.rtm_family = dst->addr.family,
		.rtm_dst_len = dst->len,
		.rtm_table = RT_TABLE_MAIN,
		.rtm_protocol = RTPROT_BOOT,
		.rtm_scope = via ? RT_SCOPE_UNIVERSE : RT_SCOPE_LINK,
		.rtm_type = RTN_UNICAST,
	};
	size_t len = family_len(dst->addr.family);
	char d[IPADDR_STR_MAX], g[IPADDR_STR_MAX] = "";
	struct nl_msg *msg = NULL;
	int put = 0, ret = -EAFNOSUPPORT;

	if (len && (!via || gw->family == dst->addr.family)) {
		msg = linksock_msg(RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, &rtm, sizeof(rtm));
		if (msg && dst->len)
			put = nla_put(msg, RTA_DST, len, dst->addr.bytes);
		if (msg && put == 0 && via)
			put = nla_put(msg, RTA_GATEWAY, len, gw->bytes);
		if (msg && put == 0)
			put = nla_put_u32(msg, RTA_OIF, ifindex);
		ret = linksock_change(s, msg, put);
	}
	if (ret < 0) {
		ipprefix_format(dst, d);
		if (via)
			ipaddr_format(gw, g);
		return linksock_fail(s, err, ret, "failed to add route %s%s%s on link %d",
			    d, via ? " via " : "", g, ifindex);
	}
	return 0;
}

struct route_list {
	int ifindex;
	struct link_route *out;
	int max;
	int n;
};

static int parse_route(const struct nlmsghdr *nlh, void *arg)
{
	static const struct nla_policy policy[RTA_MAX + 1] = {
		[RTA_OIF] = { .type = NLA_U32 },
		[RTA_TABLE] = { .type = NLA_U32 },
	};
	struct nlattr *tb[RTA_MAX + 1];
	struct route_list *l = arg;
	const struct rtmsg *rtm;
	struct link_route *r;
	unsigned int table;
	size_t len;

	if (nlmsg_parse((struct nlmsghdr *)nlh, sizeof(*rtm), tb, RTA_MAX, policy) < 0)
		return -EPROTO;
	rtm = nlmsg_data(nlh);
	table = tb[RTA_TABLE] ? nla_get_u32(tb[RTA_TABLE]) : rtm->rtm_table;
	len = family_len(rtm->rtm_family);
	if (table != RT_TABLE_MAIN || rtm->rtm_type != RTN_UNICAST || !len || !tb[RTA_OIF] ||
	    (int)nla_get_u32(tb[RTA_OIF]) != l->ifindex ||
	    (tb[RTA_DST] && (size_t)nla_len(tb[RTA_DST]) < len) ||
	    (tb[RTA_GATEWAY] && (size_t)nla_len(tb[RTA_GATEWAY]) < len))
		return 0;
	if (l->n == l->max)
		return -ENOSPC;
	r = &l->out[l->n++];
	memset(r, 0, sizeof(*r));
	r->dst.addr.family = rtm->rtm_family;
	r->dst.len = rtm->rtm_dst_len;
	if (tb[RTA_DST])
		memcpy(r->dst.addr.bytes, nla_data(tb[RTA_DST]), len);
	if (tb[RTA_GATEWAY]) {
		r->gw.family = rtm->rtm_family;
		memcpy(r->gw.bytes, nla_data(tb[RTA_GATEWAY]), len);
	}
	return 0;
}

int link_route_list(struct link_sock *s, int ifindex, struct link_route *out, int max, int *n)
{
	struct rtmsg rtm = { .rtm_family = AF_UNSPEC };
	struct route_list l = { .ifindex = ifindex, .out = out, .max = max };
	int ret = linksock_dump(s, RTM_GETROUTE, &rtm, sizeof(rtm), parse_route, &l);

	*n = l.n;
	return ret;
}
