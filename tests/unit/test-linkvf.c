// SPDX-License-Identifier: Apache-2.0
/* linkvf: the VF request encoding and the PF's VF list (parsed back and built
 * with libmnl), and with root, the errors a veth (no VFs) gives. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include "link.h"
#include "linkvf.h"
#include "veth.h"

static const struct vf_config cfg_all = {
	.mac = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 },
	.vlan = 100,
	.qos = 3,
	.vlan_proto = ETH_P_8021Q,
	.spoofchk = 0,
	.trust = 1,
	.link_state = VF_LINK_DISABLE,
	.min_tx_rate = 10,
	.max_tx_rate = 2500,
	.node_guid = 0x0002c90300216e70ULL,
	.port_guid = 0x0002c90300216e78ULL,
};

#define ALL (VF_MAC | VF_VLAN | VF_SPOOFCHK | VF_TRUST | VF_LINK_STATE | VF_RATE)
#define GUIDS (VF_NODE_GUID | VF_PORT_GUID)

static const struct encode_case {
	const char *name;
	unsigned int mask;
	int vlan_proto;
	int types[8];		/* the attributes expected in IFLA_VF_INFO, in order */
} encode_cases[] = {
	{ "mac", VF_MAC, ETH_P_8021Q, { IFLA_VF_MAC } },
	{ "vlan 802.1Q", VF_VLAN, ETH_P_8021Q, { IFLA_VF_VLAN } },
	{ "vlan 802.1ad", VF_VLAN, ETH_P_8021AD, { IFLA_VF_VLAN_LIST } },
	{ "spoofchk", VF_SPOOFCHK, ETH_P_8021Q, { IFLA_VF_SPOOFCHK } },
	{ "trust", VF_TRUST, ETH_P_8021Q, { IFLA_VF_TRUST } },
	{ "link_state", VF_LINK_STATE, ETH_P_8021Q, { IFLA_VF_LINK_STATE } },
	{ "rate", VF_RATE, ETH_P_8021Q, { IFLA_VF_RATE } },
	{ "node guid", VF_NODE_GUID, ETH_P_8021Q, { IFLA_VF_IB_NODE_GUID } },
	{ "port guid", VF_PORT_GUID, ETH_P_8021Q, { IFLA_VF_IB_PORT_GUID } },
	{ "link_state and guids", VF_LINK_STATE | GUIDS, ETH_P_8021Q,
	  { IFLA_VF_LINK_STATE, IFLA_VF_IB_NODE_GUID, IFLA_VF_IB_PORT_GUID } },
	{ "vlan and trust", VF_VLAN | VF_TRUST, ETH_P_8021Q, { IFLA_VF_VLAN, IFLA_VF_TRUST } },
	{ "all, 802.1Q", ALL, ETH_P_8021Q,
	  { IFLA_VF_MAC, IFLA_VF_VLAN, IFLA_VF_SPOOFCHK, IFLA_VF_TRUST, IFLA_VF_LINK_STATE,
	    IFLA_VF_RATE } },
	{ "all, 802.1ad", ALL, ETH_P_8021AD,
	  { IFLA_VF_MAC, IFLA_VF_VLAN_LIST, IFLA_VF_SPOOFCHK, IFLA_VF_TRUST, IFLA_VF_LINK_STATE,
	    IFLA_VF_RATE } },
};

/* The one nested attribute of type inside nest, asserting it is alone. */
static const struct nlattr *only_child(const struct nlattr *nest, int type)
{
	const struct nlattr *a, *found = NULL;

	mnl_attr_for_each_nested(a, nest) {
		ck_assert_int_eq(mnl_attr_get_type(a), type);
		ck_assert_ptr_null(found);
		found = a;
	}
	ck_assert_ptr_nonnull(found);
	return found;
}

static void check_vlan_info(const struct nlattr *list, int vf, const struct vf_config *cfg)
{
	const struct nlattr *a = only_child(list, IFLA_VF_VLAN_INFO);
	const struct ifla_vf_vlan_info *v = mnl_attr_get_payload(a);

	ck_assert_int_eq(mnl_attr_validate2(a, MNL_TYPE_UNSPEC, sizeof(*v)), 0);
	ck_assert_int_eq(v->vf, vf);
	ck_assert_int_eq(v->vlan, cfg->vlan);
	ck_assert_int_eq(v->qos, cfg->qos);
	ck_assert_int_eq(v->vlan_proto, htons(ETH_P_8021AD));
}

/* Asserts one IFLA_VF_* attribute carries vf and cfg's value. */
static void check_vf_attr(const struct nlattr *a, int vf, const struct vf_config *cfg)
{
	const void *p = mnl_attr_get_payload(a);
	struct ifla_vf_guid guid;
	static const size_t sizes[IFLA_VF_MAX + 1] = {
		[IFLA_VF_MAC] = sizeof(struct ifla_vf_mac),
		[IFLA_VF_VLAN] = sizeof(struct ifla_vf_vlan),
		[IFLA_VF_SPOOFCHK] = sizeof(struct ifla_vf_spoofchk),
		[IFLA_VF_TRUST] = sizeof(struct ifla_vf_trust),
		[IFLA_VF_LINK_STATE] = sizeof(struct ifla_vf_link_state),
		[IFLA_VF_RATE] = sizeof(struct ifla_vf_rate),
		[IFLA_VF_IB_NODE_GUID] = sizeof(struct ifla_vf_guid),
		[IFLA_VF_IB_PORT_GUID] = sizeof(struct ifla_vf_guid),
	};
	int type = mnl_attr_get_type(a);

	if (type == IFLA_VF_VLAN_LIST) {
		check_vlan_info(a, vf, cfg);
		return;
	}
	ck_assert_int_eq(mnl_attr_get_payload_len(a), sizes[type]);
	/* every struct ifla_vf_* starts with the VF index */
	ck_assert_int_eq(*(const uint32_t *)p, vf);
	switch (type) {
	case IFLA_VF_MAC:
		ck_assert_mem_eq(((const struct ifla_vf_mac *)p)->mac, cfg->mac, 6);
		break;
	case IFLA_VF_VLAN:
		ck_assert_int_eq(((const struct ifla_vf_vlan *)p)->vlan, cfg->vlan);
		ck_assert_int_eq(((const struct ifla_vf_vlan *)p)->qos, cfg->qos);
		break;
	case IFLA_VF_SPOOFCHK:
		ck_assert_int_eq(((const struct ifla_vf_spoofchk *)p)->setting, cfg->spoofchk);
		break;
	case IFLA_VF_TRUST:
		ck_assert_int_eq(((const struct ifla_vf_trust *)p)->setting, cfg->trust);
		break;
	case IFLA_VF_LINK_STATE:
		ck_assert_int_eq(((const struct ifla_vf_link_state *)p)->link_state, cfg->link_state);
		break;
	case IFLA_VF_RATE:
		ck_assert_int_eq(((const struct ifla_vf_rate *)p)->min_tx_rate, cfg->min_tx_rate);
		ck_assert_int_eq(((const struct ifla_vf_rate *)p)->max_tx_rate, cfg->max_tx_rate);
		break;
	case IFLA_VF_IB_NODE_GUID:
		memcpy(&guid, p, sizeof(guid));	/* 4-byte aligned, the struct wants 8 */
		ck_assert_uint_eq(guid.guid, cfg->node_guid);
		break;
	case IFLA_VF_IB_PORT_GUID:
		memcpy(&guid, p, sizeof(guid));
		ck_assert_uint_eq(guid.guid, cfg->port_guid);
		break;
	default:
		ck_abort_msg("unexpected IFLA_VF attribute %d", type);
	}
}

START_TEST(test_encode)
{
	const struct encode_case *c = &encode_cases[_i];
	struct vf_config cfg = cfg_all;
	const struct nlattr *list = NULL, *info, *a;
	const struct ifinfomsg *ifi;
	const struct nlmsghdr *nlh;
	char buf[1024];
	int len, n = 0;

	cfg.vlan_proto = c->vlan_proto;
	len = link_vf_encode(buf, sizeof(buf), 7, 2, &cfg, c->mask);
	ck_assert_msg(len > 0, "%s: %d", c->name, len);
	nlh = (const void *)buf;
	ck_assert(mnl_nlmsg_ok(nlh, len));
	ck_assert_int_eq(nlh->nlmsg_len, len);
	ck_assert_int_eq(nlh->nlmsg_type, RTM_SETLINK);
	ck_assert_int_eq(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	ifi = mnl_nlmsg_get_payload(nlh);
	ck_assert_int_eq(ifi->ifi_index, 7);
	mnl_attr_for_each(a, nlh, sizeof(*ifi)) {
		ck_assert_int_eq(mnl_attr_get_type(a), IFLA_VFINFO_LIST);
		ck_assert_ptr_null(list);
		list = a;
	}
	ck_assert_ptr_nonnull(list);
	info = only_child(list, IFLA_VF_INFO);
	mnl_attr_for_each_nested(a, info) {
		ck_assert_msg(mnl_attr_get_type(a) == c->types[n], "%s: attribute %d is %d, want %d",
			      c->name, n, mnl_attr_get_type(a), c->types[n]);
		check_vf_attr(a, 2, &cfg);
		n++;
	}
	ck_assert_int_eq(c->types[n], 0);
}
END_TEST

START_TEST(test_encode_small_buffer)
{
	char buf[32];

	ck_assert_int_eq(link_vf_encode(buf, sizeof(buf), 7, 2, &cfg_all, ALL), -ENOSPC);
}
END_TEST

static const struct {
	const char *name;
	unsigned int mask;
	int vlan_proto;
} round_trips[] = {
	{ "mac", VF_MAC, ETH_P_8021Q },
	{ "mac, vlan 802.1Q", VF_MAC | VF_VLAN, ETH_P_8021Q },
	{ "mac, vlan 802.1ad", VF_MAC | VF_VLAN, ETH_P_8021AD },
	{ "mac, rate", VF_MAC | VF_RATE, ETH_P_8021Q },
	{ "all, 802.1Q", ALL, ETH_P_8021Q },
	{ "all, 802.1ad", ALL, ETH_P_8021AD },
	{ "mac, guids", VF_MAC | GUIDS, ETH_P_8021Q },
	{ "mac, node guid alone", VF_MAC | VF_NODE_GUID, ETH_P_8021Q },
};

/* What link_vf_get reads back is what link_vf_set wrote, field by field;
 * fields not written read as not reported. */
START_TEST(test_decode_round_trip)
{
	unsigned int mask = round_trips[_i].mask;
	struct vf_config cfg = cfg_all, got;
	char buf[1024];
	int len;

	cfg.vlan_proto = round_trips[_i].vlan_proto;
	len = link_vf_encode(buf, sizeof(buf), 7, 2, &cfg, mask);
	ck_assert_int_gt(len, 0);
	ck_assert_int_eq(link_vf_decode(buf, len, 3, &got), -ENOENT);
	ck_assert_int_eq(link_vf_decode(buf, len, 2, &got), 0);
	ck_assert_mem_eq(got.mac, cfg.mac, 6);
	ck_assert_int_eq(got.vlan, mask & VF_VLAN ? cfg.vlan : 0);
	ck_assert_int_eq(got.qos, mask & VF_VLAN ? cfg.qos : 0);
	ck_assert_int_eq(got.vlan_proto, mask & VF_VLAN ? cfg.vlan_proto : ETH_P_8021Q);
	ck_assert_int_eq(got.spoofchk, mask & VF_SPOOFCHK ? cfg.spoofchk : -1);
	ck_assert_int_eq(got.trust, mask & VF_TRUST ? cfg.trust : -1);
	ck_assert_int_eq(got.link_state, mask & VF_LINK_STATE ? cfg.link_state : -1);
	ck_assert_uint_eq(got.min_tx_rate, mask & VF_RATE ? cfg.min_tx_rate : 0);
	ck_assert_uint_eq(got.max_tx_rate, mask & VF_RATE ? cfg.max_tx_rate : 0);
	/* the kernel reports both GUIDs or neither */
	ck_assert_int_eq(got.guids, (mask & GUIDS) == GUIDS);
	ck_assert_uint_eq(got.node_guid, got.guids ? cfg.node_guid : 0);
	ck_assert_uint_eq(got.port_guid, got.guids ? cfg.port_guid : 0);
}
END_TEST

/* A PF reply the way the kernel builds it: IFLA_NUM_VF, then every VF in
 * IFLA_VFINFO_LIST (both VLAN forms, -1 as u32 where the driver has no
 * answer), then more attributes; n_vfs 0 is a link without VF info. */
static int pf_reply(char *buf, size_t size, uint32_t n_vfs)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;
	struct nlattr *list, *info, *vlans;
	uint32_t vf;

	nlh->nlmsg_type = RTM_NEWLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_index = 7;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, "ens8f0");
	if (!n_vfs)
		return nlh->nlmsg_len;
	mnl_attr_put_u32(nlh, IFLA_NUM_VF, n_vfs);
	list = mnl_attr_nest_start(nlh, IFLA_VFINFO_LIST);
	for (vf = 0; vf < n_vfs; vf++) {
		struct ifla_vf_mac mac = { .vf = vf, .mac = { 0x02, 0, 0, 0, vf >> 8, vf & 0xff } };
		struct ifla_vf_vlan vlan = { .vf = vf, .vlan = 10 + vf, .qos = vf % 8 };
		struct ifla_vf_vlan_info vi = { .vf = vf, .vlan = 10 + vf, .qos = vf % 8,
						.vlan_proto = htons(vf == 2 ? ETH_P_8021AD : ETH_P_8021Q) };
		struct ifla_vf_spoofchk spoof = { .vf = vf, .setting = vf == 1 };
		struct ifla_vf_trust trust = { .vf = vf, .setting = (uint32_t)-1 };
		struct ifla_vf_link_state state = { .vf = vf, .link_state = VF_LINK_ENABLE };
		struct ifla_vf_rate rate = { .vf = vf, .min_tx_rate = 0, .max_tx_rate = 1000 * vf };

		info = mnl_attr_nest_start(nlh, IFLA_VF_INFO);
		mnl_attr_put(nlh, IFLA_VF_MAC, sizeof(mac), &mac);
		mnl_attr_put(nlh, IFLA_VF_VLAN, sizeof(vlan), &vlan);
		vlans = mnl_attr_nest_start(nlh, IFLA_VF_VLAN_LIST);
		mnl_attr_put(nlh, IFLA_VF_VLAN_INFO, sizeof(vi), &vi);
		mnl_attr_nest_end(nlh, vlans);
		mnl_attr_put(nlh, IFLA_VF_SPOOFCHK, sizeof(spoof), &spoof);
		mnl_attr_put(nlh, IFLA_VF_LINK_STATE, sizeof(state), &state);
		mnl_attr_put(nlh, IFLA_VF_RATE, sizeof(rate), &rate);
		mnl_attr_put(nlh, IFLA_VF_TRUST, sizeof(trust), &trust);
		mnl_attr_nest_end(nlh, info);
	}
	/* the 16-bit length wraps past 64 KiB, as the kernel's does */
	mnl_attr_nest_end(nlh, list);
	mnl_attr_nest_end(nlh, mnl_attr_nest_start(nlh, IFLA_AF_SPEC));
	ck_assert_uint_le(nlh->nlmsg_len, size);
	return nlh->nlmsg_len;
}

START_TEST(test_decode_pf_reply)
{
	static const uint8_t mac2[6] = { 0x02, 0, 0, 0, 0, 2 };
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct vf_config got;
	int len;

	len = pf_reply(buf, sizeof(buf), 3);
	ck_assert_int_eq(link_vf_decode(buf, len, 2, &got), 0);
	ck_assert_mem_eq(got.mac, mac2, 6);
	ck_assert_int_eq(got.vlan, 12);
	ck_assert_int_eq(got.qos, 2);
	ck_assert_int_eq(got.vlan_proto, ETH_P_8021AD);
	ck_assert_int_eq(got.spoofchk, 0);
	ck_assert_int_eq(got.trust, -1);
	ck_assert_int_eq(got.link_state, VF_LINK_ENABLE);
	ck_assert_uint_eq(got.max_tx_rate, 2000);
	ck_assert_int_eq(link_vf_decode(buf, len, 1, &got), 0);
	ck_assert_int_eq(got.vlan, 11);
	ck_assert_int_eq(got.vlan_proto, ETH_P_8021Q);
	ck_assert_int_eq(got.spoofchk, 1);
	ck_assert_int_eq(link_vf_decode(buf, len, 3, &got), -ENOENT);
	ck_assert_int_eq(link_vf_decode(buf, len - 1, 2, &got), -EINVAL);
	/* a link without VF info, like a veth */
	len = pf_reply(buf, sizeof(buf), 0);
	ck_assert_int_eq(link_vf_decode(buf, len, 0, &got), -ENOENT);
}
END_TEST

/* An IPoIB PF's reply as rtnl_fill_vfinfo() and ipoib/mlx5_ib fill it: the
 * PF's own 20-byte address as every VF's "MAC", spoof checking, trust and
 * RSS query 0 (mlx5_ib_get_vf_config() zeroes them), the VLAN protocol 0,
 * and the two GUIDs right after IFLA_VF_TRUST. */
static int ib_pf_reply(char *buf, uint32_t n_vfs)
{
	static const uint8_t pf_addr[20] = { 0x00, 0x00, 0x0c, 0x79, 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
					     0xa0, 0x88, 0xc2, 0x03, 0x00, 0xd6, 0x49, 0xa2 };
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;
	struct nlattr *list, *info, *vlans;

	nlh->nlmsg_type = RTM_NEWLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_index = 9;
	ifi->ifi_type = 32;	/* ARPHRD_INFINIBAND */
	mnl_attr_put_strz(nlh, IFLA_IFNAME, "ibp59s0");
	mnl_attr_put_u32(nlh, IFLA_NUM_VF, n_vfs);
	list = mnl_attr_nest_start(nlh, IFLA_VFINFO_LIST);
	for (uint32_t vf = 0; vf < n_vfs; vf++) {
		struct ifla_vf_mac mac = { .vf = vf };
		struct ifla_vf_vlan vlan = { .vf = vf };
		struct ifla_vf_vlan_info vi = { .vf = vf };
		struct ifla_vf_spoofchk spoof = { .vf = vf };
		struct ifla_vf_rss_query_en rss = { .vf = vf };
		struct ifla_vf_trust trust = { .vf = vf };
		struct ifla_vf_link_state state = { .vf = vf, .link_state = VF_LINK_AUTO };
		struct ifla_vf_guid node = { .vf = vf, .guid = 0x1100000000000000ULL + vf };
		struct ifla_vf_guid port = { .vf = vf, .guid = 0x2200000000000000ULL + vf };

		memcpy(mac.mac, pf_addr, sizeof(pf_addr));
		info = mnl_attr_nest_start(nlh, IFLA_VF_INFO);
		mnl_attr_put(nlh, IFLA_VF_MAC, sizeof(mac), &mac);
		mnl_attr_put(nlh, IFLA_VF_VLAN, sizeof(vlan), &vlan);
		mnl_attr_put(nlh, IFLA_VF_SPOOFCHK, sizeof(spoof), &spoof);
		mnl_attr_put(nlh, IFLA_VF_LINK_STATE, sizeof(state), &state);
		mnl_attr_put(nlh, IFLA_VF_RSS_QUERY_EN, sizeof(rss), &rss);
		mnl_attr_put(nlh, IFLA_VF_TRUST, sizeof(trust), &trust);
		mnl_attr_put(nlh, IFLA_VF_IB_NODE_GUID, sizeof(node), &node);
		mnl_attr_put(nlh, IFLA_VF_IB_PORT_GUID, sizeof(port), &port);
		vlans = mnl_attr_nest_start(nlh, IFLA_VF_VLAN_LIST);
		mnl_attr_put(nlh, IFLA_VF_VLAN_INFO, sizeof(vi), &vi);
		mnl_attr_nest_end(nlh, vlans);
		mnl_attr_nest_end(nlh, info);
	}
	mnl_attr_nest_end(nlh, list);
	return nlh->nlmsg_len;
}

/* Each VF reads its own two GUIDs back. */
START_TEST(test_decode_ib_pf_reply)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct vf_config got;
	int len = ib_pf_reply(buf, 4);

	for (int vf = 0; vf < 4; vf++) {
		ck_assert_int_eq(link_vf_decode(buf, len, vf, &got), 0);
		ck_assert(got.guids);
		ck_assert_uint_eq(got.node_guid, 0x1100000000000000ULL + (uint64_t)vf);
		ck_assert_uint_eq(got.port_guid, 0x2200000000000000ULL + (uint64_t)vf);
		ck_assert_int_eq(got.spoofchk, 0);
		ck_assert_int_eq(got.trust, 0);
		ck_assert_int_eq(got.link_state, VF_LINK_AUTO);
	}
	ck_assert_int_eq(link_vf_decode(buf, len, 4, &got), -ENOENT);
	/* an Ethernet PF reports none */
	len = pf_reply(buf, sizeof(buf), 3);
	ck_assert_int_eq(link_vf_decode(buf, len, 1, &got), 0);
	ck_assert(!got.guids);
}
END_TEST

/* 500 VFs take 68 KiB: the list's length has wrapped, and a reader that
 * trusts it sees only the first 18. */
START_TEST(test_decode_pf_reply_wrapped)
{
	static const uint8_t mac499[6] = { 0x02, 0, 0, 0, 1, 499 & 0xff };
	static char buf[128 * 1024];
	struct vf_config got;
	int len;

	len = pf_reply(buf, sizeof(buf), 500);
	ck_assert_int_gt(len, 65536 + 1024);
	ck_assert_int_eq(link_vf_decode(buf, len, 499, &got), 0);
	ck_assert_mem_eq(got.mac, mac499, 6);
	ck_assert_int_eq(got.vlan, 509);
	ck_assert_int_eq(got.qos, 499 % 8);
	ck_assert_uint_eq(got.max_tx_rate, 499000);
	ck_assert_int_eq(link_vf_decode(buf, len, 300, &got), 0);
	ck_assert_int_eq(got.vlan, 310);
	ck_assert_int_eq(link_vf_decode(buf, len, 2, &got), 0);
	ck_assert_int_eq(got.vlan_proto, ETH_P_8021AD);
	ck_assert_int_eq(link_vf_decode(buf, len, 500, &got), -ENOENT);
}
END_TEST

START_TEST(test_vf_get_veth)
{
	struct link_sock *s = veth_sock(-1);
	struct vf_config cfg;

	ck_assert_int_eq(link_vf_get(s, veth_ifindex(s, "vA"), 0, &cfg), -ENOENT);
	ck_assert_int_eq(link_vf_get(s, 999, 0, &cfg), -ENODEV);
	link_sock_close(s);
}
END_TEST

static const struct {
	unsigned int mask;
	int vlan_proto;
	const char *msg;
} vf_set_cases[] = {
	{ VF_VLAN, ETH_P_8021Q, "failed to set vlan 100 qos 3 on VF 2 of PF vA" },
	{ VF_VLAN, ETH_P_8021AD, "failed to set vlan 100 qos 3 proto 802.1ad on VF 2 of PF vA" },
	{ VF_MAC, ETH_P_8021Q, "failed to set mac 02:11:22:33:44:55 on VF 2 of PF vA" },
	{ VF_SPOOFCHK, ETH_P_8021Q, "failed to set spoofchk off on VF 2 of PF vA" },
	{ VF_TRUST, ETH_P_8021Q, "failed to set trust on on VF 2 of PF vA" },
	{ VF_LINK_STATE, ETH_P_8021Q, "failed to set link_state disable on VF 2 of PF vA" },
	{ VF_RATE, ETH_P_8021Q, "failed to set min_tx_rate 10 max_tx_rate 2500 on VF 2 of PF vA" },
	{ VF_NODE_GUID, ETH_P_8021Q, "failed to set node_guid 00:02:c9:03:00:21:6e:70 on VF 2 of PF vA" },
	{ VF_PORT_GUID, ETH_P_8021Q, "failed to set port_guid 00:02:c9:03:00:21:6e:78 on VF 2 of PF vA" },
	/* one request per setting: the first refused is the one named */
	{ VF_MAC | VF_TRUST, ETH_P_8021Q, "failed to set mac 02:11:22:33:44:55 on VF 2 of PF vA" },
	{ GUIDS, ETH_P_8021Q, "failed to set node_guid 00:02:c9:03:00:21:6e:70 on VF 2 of PF vA" },
};

START_TEST(test_vf_set_veth)
{
	struct link_sock *s = veth_sock(-1);
	struct vf_config cfg = cfg_all;
	struct cni_err err = { 0 };
	char want[CNI_ERR_MSG_MAX];
	int ret;

	cfg.vlan_proto = vf_set_cases[_i].vlan_proto;
	ret = link_vf_set(s, veth_ifindex(s, "vA"), 2, &cfg, vf_set_cases[_i].mask, &err);
	ck_assert_int_lt(ret, 0);
	snprintf(want, sizeof(want), "%s: %s", vf_set_cases[_i].msg, strerror(-ret));
	ck_assert_str_eq(err.msg, want);
	ck_assert_int_eq(err.code, CNI_ERR_NETLINK);
	/* do_setvfinfo(): a netdev without ndo_set_vf_guid (only IPoIB has it) */
	if (vf_set_cases[_i].mask & GUIDS)
		ck_assert_int_eq(ret, -EOPNOTSUPP);
	link_sock_close(s);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_encode, 0, sizeof(encode_cases) / sizeof(encode_cases[0]));
	tcase_add_test(tc, test_encode_small_buffer);
	tcase_add_loop_test(tc, test_decode_round_trip, 0, sizeof(round_trips) / sizeof(round_trips[0]));
	tcase_add_test(tc, test_decode_pf_reply);
	tcase_add_test(tc, test_decode_pf_reply_wrapped);
	tcase_add_test(tc, test_decode_ib_pf_reply);
}

static void add_root_tests(TCase *tc)
{
	tcase_add_test(tc, test_vf_get_veth);
	tcase_add_loop_test(tc, test_vf_set_veth, 0, sizeof(vf_set_cases) / sizeof(vf_set_cases[0]));
}

int main(void)
{
	return veth_run("linkvf", add_tests, add_root_tests);
}
