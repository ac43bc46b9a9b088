// SPDX-License-Identifier: Apache-2.0
/* A PF's VFs through rtnetlink: their settings read from the PF's VF list, and set one request per setting. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/socket.h>
#include "err.h"
#include "guid.h"
#include "link.h"
#include "linksock.h"
#include "linkvf.h"

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
	struct nl_msg *msg = linksock_link_msg(RTM_GETLINK, 0, pf_ifindex);
	int ret = -ENOMEM;

	/* no per-VF stats: a driver may fetch each from firmware, and they
	 * take a third of a VF list that must fit a 64 KiB attribute */
	if (msg && nla_put_u32(msg, IFLA_EXT_MASK, RTEXT_FILTER_VF | RTEXT_FILTER_SKIP_STATS) < 0) {
		ret = -EMSGSIZE;
	} else if (msg) {
		/* the reply grows with the PF's VF count: sized by a peek first */
		nl_socket_enable_msg_peek(s->sk);
		ret = linksock_request(s, msg, parse_vf, &w);
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
	msg = linksock_link_msg(RTM_SETLINK, NLM_F_ACK, pf_ifindex);
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
		linksock_fail(s, err, ret, "failed to find PF link %d", pf_ifindex);
		goto out;
	}
	for (size_t i = 0; i < sizeof(vf_settings) / sizeof(vf_settings[0]); i++) {
		if (!(mask & vf_settings[i].field))
			continue;
		ret = vf_msg(pf_ifindex, vf, cfg, vf_settings[i].field, &msg);
		if (ret == 0)
			ret = linksock_request(s, msg, NULL, NULL);
		nlmsg_free(msg);
		if (ret < 0) {
			vf_settings[i].say(what, sizeof(what), cfg);
			linksock_fail(s, err, ret, "failed to set %s on VF %d of PF %s", what, vf, pf.name);
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
