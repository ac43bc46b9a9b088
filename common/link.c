// SPDX-License-Identifier: Apache-2.0
/* Network links through rtnetlink: a socket in a netns, then links read, moved, renamed, aliased, set up. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include "link.h"
#include "linksock.h"
#include "netns.h"

/* linux/if.h has it, but clashes with the net/if.h that link.h includes */
#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000
#endif

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
	struct nl_msg *msg = linksock_link_msg(RTM_GETLINK, 0, ifindex);
	int ret = -ENOMEM;

	/* the kernel skips gathering the counters nobody here reads */
	if (msg && ((name && nla_put_string(msg, IFLA_IFNAME, name) < 0) ||
		    nla_put_u32(msg, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS) < 0))
		ret = -EMSGSIZE;
	else if (msg)
		ret = linksock_request(s, msg, parse_one_link, out);
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
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct link_walk w = { .fn = fn, .arg = arg };

	return linksock_dump(s, RTM_GETLINK, &ifi, sizeof(ifi), parse_each_link, &w);
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

	return linksock_msg(RTM_NEWLINK, 0, &ifi, sizeof(ifi));
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
	return linksock_change(s, msg, put);
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
		return linksock_fail(s, err, ret, "failed to move link %d into netns as \"%s\"", ifindex, new_name);
	return 0;
}

int link_set_name(struct link_sock *s, int ifindex, const char *name, struct cni_err *err)
{
	struct nl_msg *msg = change_msg(ifindex, 0, 0);
	int ret;

	ret = linksock_change(s, msg, msg ? nla_put_string(msg, IFLA_IFNAME, name) : 0);
	if (ret < 0)
		return linksock_fail(s, err, ret, "failed to rename link %d to \"%s\"", ifindex, name);
	return 0;
}

int link_set_alias(struct link_sock *s, int ifindex, const char *alias, struct cni_err *err)
{
	struct nl_msg *msg = change_msg(ifindex, 0, 0);
	int ret;

	/* a zero-length IFLA_IFALIAS clears the alias */
	ret = linksock_change(s, msg, msg ? nla_put(msg, IFLA_IFALIAS, strlen(alias), alias) : 0);
	if (ret < 0)
		return linksock_fail(s, err, ret, "failed to set alias \"%s\" on link %d", alias, ifindex);
	return 0;
}

int link_set_up(struct link_sock *s, int ifindex, bool up, struct cni_err *err)
{
	int ret;

	ret = linksock_change(s, change_msg(ifindex, up ? IFF_UP : 0, IFF_UP), 0);
	if (ret < 0)
		return linksock_fail(s, err, ret, "failed to set link %d %s", ifindex, up ? "up" : "down");
	return 0;
}

int link_set_mac(struct link_sock *s, int ifindex, const uint8_t mac[6], struct cni_err *err)
{
	struct nl_msg *msg = change_msg(ifindex, 0, 0);
	int ret;

	ret = linksock_change(s, msg, msg ? nla_put(msg, IFLA_ADDRESS, 6, mac) : 0);
	if (ret < 0)
		return linksock_fail(s, err, ret,
			    "failed to set mac %02x:%02x:%02x:%02x:%02x:%02x on link %d",
			    mac[0], mac[1], mac[2], mac[3], mac[4], mac[5], ifindex);
	return 0;
}
