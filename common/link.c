// SPDX-License-Identifier: Apache-2.0
/* rtnetlink requests through libnl: links, VF settings on a PF, addresses, routes. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include "guid.h"
#include "link.h"
#include "netns.h"
#include "nlreq.h"

/* linux/if.h has it, but clashes with the net/if.h that link.h includes */
#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000
#endif

struct link_sock {
	struct nl_sock *sk;
	int netns;			/* where sk lives, to send links back here */
	char extack[NLREQ_TEXT_MAX];	/* the kernel's text for the last failed request */
};

/* nlreq_exchange of msg, the kernel's text in s->extack. */
static int request(struct link_sock *s, struct nl_msg *msg, nlreq_parse_fn *parse, void *arg)
{
	bool dump = nlmsg_hdr(msg)->nlmsg_flags & NLM_F_DUMP;
	int ret;

	/* the sequence number and port, as nl_send_auto() would give them */
	nl_complete_msg(s->sk, msg);
	/* A dump's datagrams are sized by the kernel to its largest message
	 * (rtnl_calcit) and more: read each whole, sized by a peek, or libnl
	 * reports it truncated (NLE_MSG_TRUNC) on a host with busy links. */
	if (dump)
		nl_socket_enable_msg_peek(s->sk);
	ret = nlreq_exchange(s->sk, nlmsg_hdr(msg), parse, arg, s->extack);
	if (dump)
		nl_socket_disable_msg_peek(s->sk);
	return ret;
}

/* Fills err with "<what>: <strerror>" and the kernel's text; returns ret. */
__attribute__((format(printf, 4, 5)))
static int fail(struct link_sock *s, struct cni_err *err, int ret, const char *fmt, ...)
{
	char what[CNI_ERR_MSG_MAX];
	va_list ap;

	if (!err || cni_err_is_set(err))
		return ret;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	cni_err_set(err, CNI_ERR_NETLINK, "%s: %s", what, strerror(-ret));
	if (s->extack[0])
		cni_err_details(err, "%s", s->extack);
	return ret;
}

static struct nl_msg *new_msg(int type, int flags, const void *hdr, size_t len)
{
	struct nl_msg *msg = nlmsg_alloc_simple(type, NLM_F_REQUEST | flags);

	if (msg && nlmsg_append(msg, (void *)hdr, len, NLMSG_ALIGNTO) < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static struct nl_msg *link_msg(int type, int flags, int ifindex)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex };

	return new_msg(type, flags, &ifi, sizeof(ifi));
}

static int open_socket(struct link_sock *s)
{
	int ret = nlreq_socket(NETLINK_ROUTE, false, &s->sk);

	if (ret < 0)
		return ret;
	s->netns = netns_current();
	return s->netns < 0 ? s->netns : 0;
}

int link_sock_open(int netns_fd, struct link_sock **out, struct cni_err *err)
{
	const char *what = "open rtnetlink socket";
	struct link_sock *s;
	int saved = -1, back, ret;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		ret = -ENOMEM;
		goto out;
	}
	s->netns = -1;
	if (netns_fd >= 0) {
		what = "open the current netns";
		saved = netns_current();
		ret = saved;
		if (ret < 0)
			goto out;
		what = "enter netns for rtnetlink socket";
		ret = netns_enter(netns_fd);
		if (ret < 0)
			goto out;
	}
	what = "open rtnetlink socket";
	ret = open_socket(s);
	if (saved >= 0 && (back = netns_enter(saved)) < 0) {
		what = "return to the original netns";
		ret = back;
	}
out:
	netns_close(saved);
	if (ret < 0) {
		cni_err_set(err, CNI_ERR_NETLINK, "failed to %s: %s", what, strerror(-ret));
		link_sock_close(s);
		return ret;
	}
	*out = s;
	return 0;
}

void link_sock_close(struct link_sock *s)
{
	if (!s)
		return;
	nl_socket_free(s->sk);
	netns_close(s->netns);
	free(s);
}

static int parse_link(const struct nlmsghdr *nlh, struct link_info *out)
{
	static const struct nla_policy policy[IFLA_MAX + 1] = {
		[IFLA_IFNAME] = { .type = NLA_STRING },
		[IFLA_IFALIAS] = { .type = NLA_STRING },
		[IFLA_PARENT_DEV_NAME] = { .type = NLA_STRING },
		[IFLA_MTU] = { .type = NLA_U32 },
	};
	struct nlattr *tb[IFLA_MAX + 1];
	const struct ifinfomsg *ifi;

	/* libnl's parser takes no const message; it does not write to it */
	if (nlmsg_parse((struct nlmsghdr *)nlh, sizeof(*ifi), tb, IFLA_MAX, policy) < 0)
		return -EPROTO;
	ifi = nlmsg_data(nlh);
	memset(out, 0, sizeof(*out));
	out->ifindex = ifi->ifi_index;
	out->type = ifi->ifi_type;
	out->up = ifi->ifi_flags & IFF_UP;
	out->carrier = ifi->ifi_flags & IFF_LOWER_UP;
	if (tb[IFLA_IFNAME])
		snprintf(out->name, sizeof(out->name), "%s", nla_get_string(tb[IFLA_IFNAME]));
	if (tb[IFLA_IFALIAS])
		snprintf(out->alias, sizeof(out->alias), "%s", nla_get_string(tb[IFLA_IFALIAS]));
	if (tb[IFLA_PARENT_DEV_NAME])
		snprintf(out->parent, sizeof(out->parent), "%s", nla_get_string(tb[IFLA_PARENT_DEV_NAME]));
	if (tb[IFLA_ADDRESS] && nla_len(tb[IFLA_ADDRESS]) <= LINK_ADDR_MAX) {
		out->addr_len = nla_len(tb[IFLA_ADDRESS]);
		memcpy(out->addr, nla_data(tb[IFLA_ADDRESS]), (size_t)out->addr_len);
	}
	if (out->addr_len == sizeof(out->mac))
		memcpy(out->mac, out->addr, sizeof(out->mac));
	if (tb[IFLA_MTU])
		out->mtu = nla_get_u32(tb[IFLA_MTU]);
	return 0;
}

void link_addr_format(const struct link_info *link, char out[LINK_ADDR_STR_MAX])
{
	size_t len = 0;

	out[0] = '\0';
	for (int i = 0; i < link->addr_len; i++)
		len += (size_t)snprintf(out + len, LINK_ADDR_STR_MAX - len, "%s%02x", i ? ":" : "",
					link->addr[i]);
}

int link_decode(const void *buf, size_t len, struct link_info *out)
{
	const struct nlmsghdr *nlh = buf;

	if (len < NLMSG_HDRLEN || nlh->nlmsg_len > len || nlh->nlmsg_type != RTM_NEWLINK ||
	    nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(struct ifinfomsg))
		return -EINVAL;
	return parse_link(nlh, out);
}

static int parse_one_link(const struct nlmsghdr *nlh, void *arg)
{
	return parse_link(nlh, arg);
}

static int get_link(struct link_sock *s, int ifindex, const char *name, struct link_info *out)
{
	struct nl_msg *msg = link_msg(RTM_GETLINK, 0, ifindex);
	int ret = -ENOMEM;

	/* the kernel skips gathering the counters nobody here reads */
	if (msg && ((name && nla_put_string(msg, IFLA_IFNAME, name) < 0) ||
		    nla_put_u32(msg, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS) < 0))
		ret = -EMSGSIZE;
	else if (msg)
		ret = request(s, msg, parse_one_link, out);
	nlmsg_free(msg);
	return ret;
}

int link_get_by_name(struct link_sock *s, const char *name, struct link_info *out)
{
	return get_link(s, 0, name, out);
}

int link_get_by_index(struct link_sock *s, int ifindex, struct link_info *out)
{
	return get_link(s, ifindex, NULL, out);
}

struct link_walk {
	int (*fn)(const struct link_info *, void *);
	void *arg;
};

static int parse_each_link(const struct nlmsghdr *nlh, void *arg)
{
	struct link_walk *w = arg;
	struct link_info info;
	int ret;

	ret = parse_link(nlh, &info);
	return ret < 0 ? ret : w->fn(&info, w->arg);
}

int link_for_each(struct link_sock *s, int (*fn)(const struct link_info *, void *), void *arg)
{
	struct link_walk w = { .fn = fn, .arg = arg };
	struct nl_msg *msg = link_msg(RTM_GETLINK, NLM_F_DUMP, 0);
	int ret = -ENOMEM;

	if (msg)
		ret = request(s, msg, parse_each_link, &w);
	nlmsg_free(msg);
	return ret;
}

struct parent_query {
	const char *parent;
	struct link_info *out;
};

static int match_parent(const struct link_info *link, void *arg)
{
	struct parent_query *q = arg;

	if (strcmp(link->parent, q->parent))
		return 0;
	*q->out = *link;
	return 1;
}

int link_get_by_parent(struct link_sock *s, const char *parent, struct link_info *out)
{
	struct parent_query q = { .parent = parent, .out = out };
	int ret = link_for_each(s, match_parent, &q);

	return ret == 1 ? 0 : ret < 0 ? ret : -ENODEV;
}

/* An RTM_NEWLINK changing ifindex; flags/change as in struct ifinfomsg. */
static struct nl_msg *change_msg(int ifindex, unsigned int flags, unsigned int change)
{
	struct ifinfomsg ifi = {
		.ifi_family = AF_UNSPEC,
		.ifi_index = ifindex,
		.ifi_flags = flags,
		.ifi_change = change,
	};

	return new_msg(RTM_NEWLINK, 0, &ifi, sizeof(ifi));
}

/* Sends msg (NULL: allocation failed), frees it; -errno. */
static int send_change(struct link_sock *s, struct nl_msg *msg, int put)
{
	int ret = -ENOMEM;

	if (msg)
		ret = put < 0 ? -EMSGSIZE : request(s, msg, NULL, NULL);
	nlmsg_free(msg);
	return ret;
}

static int move(struct link_sock *s, int ifindex, int netns_fd, const char *name,
		const char *alias)
{
	struct nl_msg *msg = change_msg(ifindex, 0, 0);
	int put = 0;

	if (msg)
		put = nla_put_u32(msg, IFLA_NET_NS_FD, netns_fd);
	if (msg && put == 0)
		put = nla_put_string(msg, IFLA_IFNAME, name);
	if (msg && put == 0 && alias)
		put = nla_put(msg, IFLA_IFALIAS, strlen(alias), alias);
	return send_change(s, msg, put);
}

/* Sends the link described by was back to netns if it is in t's netns (same
 * name and MAC: the kernel only renames after moving). */
static void send_back(struct link_sock *t, const struct link_info *was, int netns)
{
	struct link_info now;

	if (link_get_by_name(t, was->name, &now) == 0 && !memcmp(now.mac, was->mac, sizeof(now.mac)))
		move(t, now.ifindex, netns, was->name, NULL);
}

/* The kernel moves first and renames after (the new name only matters when
 * the old one is taken in the target): a taken or invalid new name fails with
 * the link already moved, under its old name. So look in the target first,
 * and send the link back when the kernel refused after moving it. */
int link_move(struct link_sock *s, struct link_sock *target, int ifindex, const char *new_name,
	      const char *alias, struct cni_err *err)
{
	struct link_info was, info;
	int ret;

	ret = link_get_by_index(s, ifindex, &was);
	if (ret < 0)
		goto out;
	ret = link_get_by_name(target, new_name, &info);
	if (ret != -ENODEV) {
		ret = ret ? ret : -EEXIST;
		memcpy(s->extack, target->extack, sizeof(s->extack));
		goto out;
	}
	ret = move(s, ifindex, target->netns, new_name, alias);
	if (ret < 0)
		send_back(target, &was, s->netns);
out:
	if (ret < 0)
		return fail(s, err, ret, "failed to move link %d into netns as \"%s\"", ifindex, new_name);
	return 0;
}

int link_set_name(struct link_sock *s, int ifindex, const char *name, struct cni_err *err)
{
	struct nl_msg *msg = change_msg(ifindex, 0, 0);
	int ret;

	ret = send_change(s, msg, msg ? nla_put_string(msg, IFLA_IFNAME, name) : 0);
	if (ret < 0)
		return fail(s, err, ret, "failed to rename link %d to \"%s\"", ifindex, name);
	return 0;
}

int link_set_alias(struct link_sock *s, int ifindex, const char *alias, struct cni_err *err)
{
	struct nl_msg *msg = change_msg(ifindex, 0, 0);
	int ret;

	/* a zero-length IFLA_IFALIAS clears the alias */
	ret = send_change(s, msg, msg ? nla_put(msg, IFLA_IFALIAS, strlen(alias), alias) : 0);
	if (ret < 0)
		return fail(s, err, ret, "failed to set alias \"%s\" on link %d", alias, ifindex);
	return 0;
}

int link_set_up(struct link_sock *s, int ifindex, bool up, struct cni_err *err)
{
	int ret;

	ret = send_change(s, change_msg(ifindex, up ? IFF_UP : 0, IFF_UP), 0);
	if (ret < 0)
		return fail(s, err, ret, "failed to set link %d %s", ifindex, up ? "up" : "down");
	return 0;
}

int link_set_mac(struct link_sock *s, int ifindex, const uint8_t mac[6], struct cni_err *err)
{
	struct nl_msg *msg = change_msg(ifindex, 0, 0);
	int ret;

	ret = send_change(s, msg, msg ? nla_put(msg, IFLA_ADDRESS, 6, mac) : 0);
	if (ret < 0)
		return fail(s, err, ret,
			    "failed to set mac %02x:%02x:%02x:%02x:%02x:%02x on link %d",
			    mac[0], mac[1], mac[2], mac[3], mac[4], mac[5], ifindex);
	return 0;
}

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
		msg = new_msg(RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, &ifa, sizeof(ifa));
		if (msg)
			put = nla_put(msg, IFA_LOCAL, len, addr->addr.bytes);
		if (msg && put == 0)
			put = nla_put(msg, IFA_ADDRESS, len, addr->addr.bytes);
		ret = send_change(s, msg, put);
	}
	if (ret < 0) {
		ipprefix_format(addr, text);
		return fail(s, err, ret, "failed to add address %s to link %d", text, ifindex);
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
	struct nl_msg *msg = new_msg(RTM_GETADDR, NLM_F_DUMP, &ifa, sizeof(ifa));
	int ret = -ENOMEM;

	if (msg)
		ret = request(s, msg, parse_addr, &l);
	nlmsg_free(msg);
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
		msg = new_msg(RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, &rtm, sizeof(rtm));
		if (msg && dst->len)
			put = nla_put(msg, RTA_DST, len, dst->addr.bytes);
		if (msg && put == 0 && via)
			put = nla_put(msg, RTA_GATEWAY, len, gw->bytes);
		if (msg && put == 0)
			put = nla_put_u32(msg, RTA_OIF, ifindex);
		ret = send_change(s, msg, put);
	}
	if (ret < 0) {
		ipprefix_format(dst, d);
		if (via)
			ipaddr_format(gw, g);
		return fail(s, err, ret, "failed to add route %s%s%s on link %d",
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
	struct nl_msg *msg = new_msg(RTM_GETROUTE, NLM_F_DUMP, &rtm, sizeof(rtm));
	int ret = -ENOMEM;

	if (msg)
		ret = request(s, msg, parse_route, &l);
	nlmsg_free(msg);
	*n = l.n;
	return ret;
}

/* A walk over a PF's VF entries: fn sees each VF, a non-zero return ends it. */
struct vf_walk {
	int (*fn)(int vf, const struct vf_config *cfg, void *arg);
	void *arg;
	int ret;
};

/* Netlink aligns attributes to 4 bytes, struct ifla_vf_guid wants 8 (its
 * __u64): read it through a copy, not in place. */
static uint64_t vf_guid(const struct nlattr *a)
{
	struct ifla_vf_guid g;

	memcpy(&g, nla_data(a), sizeof(g));
	return g.guid;
}

/* One IFLA_VF_INFO into *out; -EPROTO for an entry without its VF's MAC
 * (the attribute that names the VF). */
static int parse_vf_info(struct nlattr *info, int *vf, struct vf_config *out)
{
	static const struct nla_policy policy[IFLA_VF_MAX + 1] = {
		[IFLA_VF_MAC] = { .minlen = sizeof(struct ifla_vf_mac) },
		[IFLA_VF_VLAN] = { .minlen = sizeof(struct ifla_vf_vlan) },
		[IFLA_VF_SPOOFCHK] = { .minlen = sizeof(struct ifla_vf_spoofchk) },
		[IFLA_VF_TRUST] = { .minlen = sizeof(struct ifla_vf_trust) },
		[IFLA_VF_LINK_STATE] = { .minlen = sizeof(struct ifla_vf_link_state) },
		[IFLA_VF_RATE] = { .minlen = sizeof(struct ifla_vf_rate) },
		[IFLA_VF_IB_NODE_GUID] = { .minlen = sizeof(struct ifla_vf_guid) },
		[IFLA_VF_IB_PORT_GUID] = { .minlen = sizeof(struct ifla_vf_guid) },
	};
	struct nlattr *tb[IFLA_VF_MAX + 1], *v;
	const struct ifla_vf_mac *mac;
	int rem;

	if (nla_parse_nested(tb, IFLA_VF_MAX, info, policy) < 0 || !tb[IFLA_VF_MAC])
		return -EPROTO;
	mac = nla_data(tb[IFLA_VF_MAC]);
	*vf = (int)mac->vf;
	*out = (struct vf_config){ .vlan_proto = ETH_P_8021Q, .spoofchk = -1, .trust = -1,
				   .link_state = -1 };
	memcpy(out->mac, mac->mac, sizeof(out->mac));
	if (tb[IFLA_VF_VLAN]) {
		const struct ifla_vf_vlan *vlan = nla_data(tb[IFLA_VF_VLAN]);

		out->vlan = vlan->vlan;
		out->qos = vlan->qos;
	}
	/* the list carries the protocol; drivers report one entry */
	if (tb[IFLA_VF_VLAN_LIST]) {
		nla_for_each_nested(v, tb[IFLA_VF_VLAN_LIST], rem) {
			const struct ifla_vf_vlan_info *vi = nla_data(v);

			if (nla_type(v) != IFLA_VF_VLAN_INFO || (size_t)nla_len(v) < sizeof(*vi))
				continue;
			out->vlan = vi->vlan;
			out->qos = vi->qos;
			out->vlan_proto = ntohs(vi->vlan_proto);
			break;
		}
	}
	/* the kernel reports -1 (as u32) where the driver has no answer */
	if (tb[IFLA_VF_SPOOFCHK])
		out->spoofchk = (int32_t)((const struct ifla_vf_spoofchk *)nla_data(tb[IFLA_VF_SPOOFCHK]))->setting;
	if (tb[IFLA_VF_TRUST])
		out->trust = (int32_t)((const struct ifla_vf_trust *)nla_data(tb[IFLA_VF_TRUST]))->setting;
	if (tb[IFLA_VF_LINK_STATE])
		out->link_state = ((const struct ifla_vf_link_state *)nla_data(tb[IFLA_VF_LINK_STATE]))->link_state;
	if (tb[IFLA_VF_RATE]) {
		const struct ifla_vf_rate *rate = nla_data(tb[IFLA_VF_RATE]);

		out->min_tx_rate = rate->min_tx_rate;
		out->max_tx_rate = rate->max_tx_rate;
	}
	/* rtnl_fill_vfinfo() puts both or neither (ndo_get_vf_guid: IPoIB only) */
	if (tb[IFLA_VF_IB_NODE_GUID] && tb[IFLA_VF_IB_PORT_GUID]) {
		out->node_guid = vf_guid(tb[IFLA_VF_IB_NODE_GUID]);
		out->port_guid = vf_guid(tb[IFLA_VF_IB_PORT_GUID]);
		out->guids = true;
	}
	return 0;
}

/* Past 64 KiB (about 334 VFs without stats) the kernel's nla_nest_end()
 * wraps IFLA_VFINFO_LIST's 16-bit length, yet all its entries are there. So
 * the top level is read only up to the list (IFLA_NUM_VF comes before it),
 * and the entries are walked by that count, bounded by the message's end. */
static int parse_vf(const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *a, *list = NULL;
	struct vf_walk *w = arg;
	struct vf_config cfg;
	uint32_t n_vfs = UINT32_MAX, i;
	int rem, vf;

	nlmsg_for_each_attr(a, nlh, sizeof(struct ifinfomsg), rem) {
		if (nla_type(a) == IFLA_NUM_VF && nla_len(a) >= (int)sizeof(uint32_t))
			n_vfs = nla_get_u32(a);
		if (nla_type(a) == IFLA_VFINFO_LIST) {
			list = a;
			break;
		}
	}
	if (!list)
		return 0;
	/* without the count before it (not the kernel's order): the list's own length */
	rem = n_vfs == UINT32_MAX ? nla_len(list) :
	      (int)((char *)nlmsg_tail(nlh) - (char *)nla_data(list));
	for (a = nla_data(list), i = 0; i < n_vfs && !w->ret && nla_ok(a, rem);
	     i++, a = nla_next(a, &rem)) {
		if (nla_type(a) == IFLA_VF_INFO && parse_vf_info(a, &vf, &cfg) == 0)
			w->ret = w->fn(vf, &cfg, w->arg);
	}
	return 0;
}

struct vf_query {
	int vf;
	struct vf_config *out;
};

static int match_vf(int vf, const struct vf_config *cfg, void *arg)
{
	struct vf_query *q = arg;

	if (vf != q->vf)
		return 0;
	*q->out = *cfg;
	return 1;
}

int link_vf_decode(const void *buf, size_t len, int vf, struct vf_config *out)
{
	struct vf_query q = { .vf = vf, .out = out };
	struct vf_walk w = { .fn = match_vf, .arg = &q };
	const struct nlmsghdr *nlh = buf;

	if (len < NLMSG_HDRLEN || nlh->nlmsg_len > len)
		return -EINVAL;
	parse_vf(nlh, &w);
	return w.ret ? 0 : -ENOENT;
}

int link_vf_walk(struct link_sock *s, int pf_ifindex,
		 int (*fn)(int vf, const struct vf_config *cfg, void *arg), void *arg)
{
	struct vf_walk w = { .fn = fn, .arg = arg };
	struct nl_msg *msg = link_msg(RTM_GETLINK, 0, pf_ifindex);
	int ret = -ENOMEM;

	/* no per-VF stats: a driver may fetch each from firmware, and they
	 * take a third of a VF list that must fit a 64 KiB attribute */
	if (msg && nla_put_u32(msg, IFLA_EXT_MASK, RTEXT_FILTER_VF | RTEXT_FILTER_SKIP_STATS) < 0) {
		ret = -EMSGSIZE;
	} else if (msg) {
		/* the reply grows with the PF's VF count: sized by a peek first */
		nl_socket_enable_msg_peek(s->sk);
		ret = request(s, msg, parse_vf, &w);
		nl_socket_disable_msg_peek(s->sk);
	}
	nlmsg_free(msg);
	return ret < 0 ? ret : w.ret;
}

int link_vf_get(struct link_sock *s, int pf_ifindex, int vf, struct vf_config *out)
{
	struct vf_query q = { .vf = vf, .out = out };
	int ret = link_vf_walk(s, pf_ifindex, match_vf, &q);

	return ret < 0 ? ret : ret ? 0 : -ENOENT;
}

static int put_mac(struct nl_msg *msg, int vf, const struct vf_config *cfg)
{
	struct ifla_vf_mac v;

	memset(&v, 0, sizeof(v));
	v.vf = vf;
	memcpy(v.mac, cfg->mac, sizeof(cfg->mac));
	return nla_put(msg, IFLA_VF_MAC, sizeof(v), &v);
}

static int put_vlan(struct nl_msg *msg, int vf, const struct vf_config *cfg)
{
	struct ifla_vf_vlan_info info;
	struct ifla_vf_vlan v;
	struct nlattr *list;

	/* only the list form carries the protocol; the old form means 802.1Q */
	if (cfg->vlan_proto != ETH_P_8021AD) {
		v = (struct ifla_vf_vlan){ .vf = vf, .vlan = cfg->vlan, .qos = cfg->qos };
		return nla_put(msg, IFLA_VF_VLAN, sizeof(v), &v);
	}
	memset(&info, 0, sizeof(info));
	info.vf = vf;
	info.vlan = cfg->vlan;
	info.qos = cfg->qos;
	info.vlan_proto = htons(cfg->vlan_proto);
	list = nla_nest_start(msg, IFLA_VF_VLAN_LIST);
	if (!list || nla_put(msg, IFLA_VF_VLAN_INFO, sizeof(info), &info) < 0)
		return -EMSGSIZE;
	return nla_nest_end(msg, list);
}

static int put_spoofchk(struct nl_msg *msg, int vf, const struct vf_config *cfg)
{
	struct ifla_vf_spoofchk v = { .vf = vf, .setting = cfg->spoofchk };

	return nla_put(msg, IFLA_VF_SPOOFCHK, sizeof(v), &v);
}

static int put_trust(struct nl_msg *msg, int vf, const struct vf_config *cfg)
{
	struct ifla_vf_trust v = { .vf = vf, .setting = cfg->trust };

	return nla_put(msg, IFLA_VF_TRUST, sizeof(v), &v);
}

static int put_link_state(struct nl_msg *msg, int vf, const struct vf_config *cfg)
{
	struct ifla_vf_link_state v = { .vf = vf, .link_state = cfg->link_state };

	return nla_put(msg, IFLA_VF_LINK_STATE, sizeof(v), &v);
}

static int put_rate(struct nl_msg *msg, int vf, const struct vf_config *cfg)
{
	struct ifla_vf_rate v = {
		.vf = vf,
		.min_tx_rate = cfg->min_tx_rate,
		.max_tx_rate = cfg->max_tx_rate,
	};

	return nla_put(msg, IFLA_VF_RATE, sizeof(v), &v);
}

/* do_setvfinfo() returns right after the first GUID attribute of a nest:
 * node and port GUID each go in a request of their own (vf_settings). */
static int put_guid(struct nl_msg *msg, int type, int vf, uint64_t guid)
{
	struct ifla_vf_guid v;

	memset(&v, 0, sizeof(v));
	v.vf = vf;
	v.guid = guid;
	return nla_put(msg, type, sizeof(v), &v);
}

static int put_node_guid(struct nl_msg *msg, int vf, const struct vf_config *cfg)
{
	return put_guid(msg, IFLA_VF_IB_NODE_GUID, vf, cfg->node_guid);
}

static int put_port_guid(struct nl_msg *msg, int vf, const struct vf_config *cfg)
{
	return put_guid(msg, IFLA_VF_IB_PORT_GUID, vf, cfg->port_guid);
}

static int say_mac(char *buf, size_t size, const struct vf_config *c)
{
	return snprintf(buf, size, "mac %02x:%02x:%02x:%02x:%02x:%02x",
			c->mac[0], c->mac[1], c->mac[2], c->mac[3], c->mac[4], c->mac[5]);
}

static int say_vlan(char *buf, size_t size, const struct vf_config *c)
{
	char qos[16] = "";

	if (c->qos)
		snprintf(qos, sizeof(qos), " qos %d", c->qos);
	return snprintf(buf, size, "vlan %d%s%s", c->vlan, qos,
			c->vlan_proto == ETH_P_8021AD ? " proto 802.1ad" : "");
}

static int say_spoofchk(char *buf, size_t size, const struct vf_config *c)
{
	return snprintf(buf, size, "spoofchk %s", c->spoofchk ? "on" : "off");
}

static int say_trust(char *buf, size_t size, const struct vf_config *c)
{
	return snprintf(buf, size, "trust %s", c->trust ? "on" : "off");
}

static int say_link_state(char *buf, size_t size, const struct vf_config *c)
{
	static const char *const names[] = {
		[VF_LINK_AUTO] = "auto", [VF_LINK_ENABLE] = "enable", [VF_LINK_DISABLE] = "disable",
	};
	unsigned int state = c->link_state;

	return snprintf(buf, size, "link_state %s", state <= VF_LINK_DISABLE ? names[state] : "?");
}

static int say_rate(char *buf, size_t size, const struct vf_config *c)
{
	return snprintf(buf, size, "min_tx_rate %u max_tx_rate %u", c->min_tx_rate, c->max_tx_rate);
}

static int say_guid(char *buf, size_t size, const char *which, uint64_t guid)
{
	char text[GUID_STR_LEN + 1];

	guid_format(guid, text);
	return snprintf(buf, size, "%s %s", which, text);
}

static int say_node_guid(char *buf, size_t size, const struct vf_config *c)
{
	return say_guid(buf, size, "node_guid", c->node_guid);
}

static int say_port_guid(char *buf, size_t size, const struct vf_config *c)
{
	return say_guid(buf, size, "port_guid", c->port_guid);
}

/* Each settable field: how it is encoded and how an error names it. */
static const struct vf_setting {
	unsigned int field;
	int (*put)(struct nl_msg *msg, int vf, const struct vf_config *cfg);
	int (*say)(char *buf, size_t size, const struct vf_config *cfg);
} vf_settings[] = {
	{ VF_MAC, put_mac, say_mac },
	{ VF_VLAN, put_vlan, say_vlan },
	{ VF_SPOOFCHK, put_spoofchk, say_spoofchk },
	{ VF_TRUST, put_trust, say_trust },
	{ VF_LINK_STATE, put_link_state, say_link_state },
	{ VF_RATE, put_rate, say_rate },
	{ VF_NODE_GUID, put_node_guid, say_node_guid },
	{ VF_PORT_GUID, put_port_guid, say_port_guid },
};

/* The one builder of the RTM_SETLINK that link_vf_set sends. */
static int vf_msg(int pf_ifindex, int vf, const struct vf_config *cfg, unsigned int mask,
		  struct nl_msg **out)
{
	struct nlattr *list, *info;
	struct nl_msg *msg;
	size_t i;
	int ret = -EMSGSIZE;

	*out = NULL;
	msg = link_msg(RTM_SETLINK, NLM_F_ACK, pf_ifindex);
	if (!msg)
		return -ENOMEM;
	list = nla_nest_start(msg, IFLA_VFINFO_LIST);
	info = list ? nla_nest_start(msg, IFLA_VF_INFO) : NULL;
	if (!info)
		goto out;
	for (i = 0; i < sizeof(vf_settings) / sizeof(vf_settings[0]); i++) {
		if ((mask & vf_settings[i].field) && vf_settings[i].put(msg, vf, cfg) < 0)
			goto out;
	}
	nla_nest_end_keep_empty(msg, info);
	nla_nest_end_keep_empty(msg, list);
	*out = msg;
	msg = NULL;
	ret = 0;
out:
	nlmsg_free(msg);
	return ret;
}

int link_vf_encode(void *buf, size_t size, int pf_ifindex, int vf, const struct vf_config *cfg,
		   unsigned int mask)
{
	struct nlmsghdr *nlh;
	struct nl_msg *msg;
	int ret;

	ret = vf_msg(pf_ifindex, vf, cfg, mask, &msg);
	if (ret < 0)
		return ret;
	nlh = nlmsg_hdr(msg);
	ret = -ENOSPC;
	if (nlh->nlmsg_len <= size) {
		memcpy(buf, nlh, nlh->nlmsg_len);
		ret = nlh->nlmsg_len;
	}
	nlmsg_free(msg);
	return ret;
}

/* One request per setting, in the table's order: a refusal names the one
 * setting the PF's driver refused; those before it stay set (*set: the
 * caller puts them back). */
int link_vf_set_some(struct link_sock *s, int pf_ifindex, int vf, const struct vf_config *cfg,
		     unsigned int mask, unsigned int *set, struct cni_err *err)
{
	char what[CNI_ERR_MSG_MAX / 2];
	unsigned int done = 0;
	struct link_info pf;
	struct nl_msg *msg;
	int ret = 0;

	if (!mask)
		goto out;
	/* the PF's name first: a failed request is reported with it */
	ret = link_get_by_index(s, pf_ifindex, &pf);
	if (ret < 0) {
		fail(s, err, ret, "failed to find PF link %d", pf_ifindex);
		goto out;
	}
	for (size_t i = 0; i < sizeof(vf_settings) / sizeof(vf_settings[0]); i++) {
		if (!(mask & vf_settings[i].field))
			continue;
		ret = vf_msg(pf_ifindex, vf, cfg, vf_settings[i].field, &msg);
		if (ret == 0)
			ret = request(s, msg, NULL, NULL);
		nlmsg_free(msg);
		if (ret < 0) {
			vf_settings[i].say(what, sizeof(what), cfg);
			fail(s, err, ret, "failed to set %s on VF %d of PF %s", what, vf, pf.name);
			goto out;
		}
		done |= vf_settings[i].field;
	}
out:
	if (set)
		*set = done;
	return ret;
}

int link_vf_set(struct link_sock *s, int pf_ifindex, int vf, const struct vf_config *cfg,
		unsigned int mask, struct cni_err *err)
{
	return link_vf_set_some(s, pf_ifindex, vf, cfg, mask, NULL, err);
}
