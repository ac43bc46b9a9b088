// SPDX-License-Identifier: Apache-2.0
/* The simulated PF's VF info over real rtnetlink sockets of the host netns.
 * Requests are judged as the kernel's do_setvfinfo() (net/core/rtnetlink.c)
 * and a driver's ndo_set_vf_* would: attributes in the kernel's order, each
 * one applied before the next is looked at, so a refused one leaves those
 * before it set. Replies carry what rtnl_fill_vfinfo() would. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if_arp.h>
#include <libmnl/libmnl.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include "drvproto.h"
#include "state.h"
#include "vfinfo.h"

#define MAX_PENDING 32
#define KERNEL_REPLY_MAX (32 * 1024)
/* one IFLA_VF_INFO takes 296 bytes with its stats */
#define VF_INFO_MAX 512
#define REPLY_MAX (KERNEL_REPLY_MAX + RDMASIM_MAX_VFS * VF_INFO_MAX)

/* A datagram the simulator owes fd, or a kernel reply it must add VFs to. */
static struct pending {
	int fd;
	bool splice;		/* the next kernel datagram is a GETLINK reply of the PF */
	bool stats;		/* that GETLINK did not ask RTEXT_FILTER_SKIP_STATS */
	bool vfs;		/* it asked for VF info (RTEXT_FILTER_VF) */
	char *buf;		/* queued datagram, NULL when none */
	size_t len;
} pending[MAX_PENDING];
/* Recursive: a sanitizer's report may close() a file (our close() hook
 * takes the lock) while this thread holds it. */
static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

struct req {
	struct rdmasim_pf *pf;
	const struct nlmsghdr *nlh;
};

/* ---- which sockets and requests are ours ------------------------------- */

/* An rtnetlink socket; *host: of the host netns. */
static bool rtnl(int fd, bool *host)
{
	int proto = 0, domain = 0, ns;
	socklen_t len = sizeof(int);
	struct stat st;

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0 || domain != AF_NETLINK ||
	    getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) < 0 || proto != NETLINK_ROUTE)
		return false;
	ns = ioctl(fd, SIOCGSKNS);
	if (ns < 0)
		return false;
	*host = fstat(ns, &st) == 0 && st.st_ino == rdmasim_host_netns();
	syscall(SYS_close, ns);
	return true;
}

static const struct nlattr *find_attr(const struct nlmsghdr *nlh, uint16_t type)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct ifinfomsg))
		if (mnl_attr_get_type(a) == type)
			return a;
	return NULL;
}

static bool only_attr(const struct nlmsghdr *nlh, uint16_t type)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct ifinfomsg))
		if (mnl_attr_get_type(a) != type)
			return false;
	return true;
}

static const struct ifinfomsg *link_req(const void *buf, size_t len)
{
	const struct nlmsghdr *nlh = buf;

	if (len < NLMSG_HDRLEN + sizeof(struct ifinfomsg) || nlh->nlmsg_len > len ||
	    nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(struct ifinfomsg))
		return NULL;
	return mnl_nlmsg_get_payload(nlh);
}

/* ---- the driver: ndo_set_vf_* -------------------------------------------- */

/* do_setvfinfo() refuses vf >= INT_MAX, then a missing op; the driver
 * refuses a VF the PF does not have. */
static int vf_of(struct rdmasim_pf *pf, uint32_t vf, unsigned int op, struct rdmasim_vf **out)
{
	if (vf >= INT_MAX)
		return -EINVAL;
	if (pf->lacks & op)
		return -EOPNOTSUPP;
	if ((int)vf >= pf->n_vfs)
		return -EINVAL;
	*out = &pf->vfs[vf];
	return 0;
}

static int set_vlan(struct rdmasim_pf *pf, uint32_t vf, uint32_t vlan, uint32_t qos,
		    uint16_t proto)
{
	struct rdmasim_vf *v;
	int ret = vf_of(pf, vf, VFOP_VLAN, &v);

	if (ret)
		return ret;
	if (vlan > 4095 || qos > 7)
		return -EINVAL;
	if (proto != ETH_P_8021Q && proto != ETH_P_8021AD)
		return -EPROTONOSUPPORT;
	v->vlan = vlan;
	v->qos = qos;
	v->vlan_proto = vlan || qos ? proto : ETH_P_8021Q;
	return 0;
}

static int set_rate(struct rdmasim_pf *pf, uint32_t vf, uint32_t min, uint32_t max)
{
	struct rdmasim_vf *v;
	int ret = vf_of(pf, vf, VFOP_RATE, &v);

	if (ret)
		return ret;
	if (max && min > max)
		return -EINVAL;
	v->min_tx_rate = min;
	v->max_tx_rate = max;
	return 0;
}

static int do_mac(struct rdmasim_pf *pf, const void *data)
{
	const struct ifla_vf_mac *m = data;
	struct rdmasim_vf *v;
	int ret = vf_of(pf, m->vf, VFOP_MAC, &v);

	if (ret)
		return ret;
	if (m->mac[0] & 1)		/* multicast */
		return -EINVAL;
	memcpy(v->mac, m->mac, sizeof(v->mac));
	return 0;
}

static int do_vlan(struct rdmasim_pf *pf, const void *data)
{
	const struct ifla_vf_vlan *x = data;

	return set_vlan(pf, x->vf, x->vlan, x->qos, ETH_P_8021Q);
}

static int do_vlan_list(struct rdmasim_pf *pf, const void *data)
{
	const struct nlattr *list = (const struct nlattr *)data - 1, *a;
	const struct ifla_vf_vlan_info *first = NULL;
	int n = 0;

	mnl_attr_for_each_nested(a, list) {
		if (mnl_attr_get_type(a) != IFLA_VF_VLAN_INFO ||
		    mnl_attr_get_payload_len(a) < sizeof(*first))
			return -EINVAL;
		if (n++ >= MAX_VLAN_LIST_LEN)
			return -EOPNOTSUPP;
		first = first ? first : mnl_attr_get_payload(a);
	}
	if (!first)
		return -EINVAL;
	return set_vlan(pf, first->vf, first->vlan, first->qos, ntohs(first->vlan_proto));
}

static int do_tx_rate(struct rdmasim_pf *pf, const void *data)
{
	const struct ifla_vf_tx_rate *x = data;

	if (x->vf >= INT_MAX || (int)x->vf >= pf->n_vfs)
		return -EINVAL;
	return set_rate(pf, x->vf, pf->vfs[x->vf].min_tx_rate, x->rate);
}

static int do_rate(struct rdmasim_pf *pf, const void *data)
{
	const struct ifla_vf_rate *x = data;

	return set_rate(pf, x->vf, x->min_tx_rate, x->max_tx_rate);
}

/* An on/off setting: struct ifla_vf_spoofchk and ifla_vf_trust are both
 * { vf, setting }. */
static int set_switch(struct rdmasim_pf *pf, const void *data, unsigned int op, size_t field)
{
	const struct ifla_vf_trust *x = data;
	struct rdmasim_vf *v;
	int ret = vf_of(pf, x->vf, op, &v);

	if (!ret)
		*(bool *)((char *)v + field) = x->setting != 0;
	return ret;
}

static int do_spoofchk(struct rdmasim_pf *pf, const void *data)
{
	return set_switch(pf, data, VFOP_SPOOFCHK, offsetof(struct rdmasim_vf, spoofchk));
}

static int do_link_state(struct rdmasim_pf *pf, const void *data)
{
	const struct ifla_vf_link_state *x = data;
	struct rdmasim_vf *v;
	int ret = vf_of(pf, x->vf, VFOP_LINK_STATE, &v);

	if (!ret && x->link_state > IFLA_VF_LINK_STATE_DISABLE)
		ret = -EINVAL;
	if (!ret)
		v->link_state = x->link_state;
	return ret;
}

static int do_trust(struct rdmasim_pf *pf, const void *data)
{
	return set_switch(pf, data, VFOP_TRUST, offsetof(struct rdmasim_vf, trust));
}

/* ndo_set_vf_guid exists on IPoIB PFs only (handle_vf_guid() also wants
 * ARPHRD_INFINIBAND: the same PFs); mlx5_ib keeps it for the next probe. */
static int set_guid(struct rdmasim_pf *pf, const void *data, size_t field)
{
	struct ifla_vf_guid g;

	/* the attribute is 4-byte aligned, the struct wants 8 */
	memcpy(&g, data, sizeof(g));
	if (g.vf >= INT_MAX)
		return -EINVAL;
	if (!pf->ib || pf->lacks & VFOP_GUID)
		return -EOPNOTSUPP;
	if ((int)g.vf >= pf->n_vfs)
		return -EINVAL;
	*(uint64_t *)((char *)&pf->vfs[g.vf] + field) = g.guid;
	return 0;
}

static int do_node_guid(struct rdmasim_pf *pf, const void *data)
{
	return set_guid(pf, data, offsetof(struct rdmasim_vf, node_guid));
}

static int do_port_guid(struct rdmasim_pf *pf, const void *data)
{
	return set_guid(pf, data, offsetof(struct rdmasim_vf, port_guid));
}

static int unsupported(struct rdmasim_pf *pf, const void *data)
{
	(void)pf;
	(void)data;
	return -EOPNOTSUPP;
}

/* do_setvfinfo()'s order, with ifla_vf_policy's minimum lengths; it returns
 * right after a GUID attribute (last), whatever follows in the nest. */
static const struct {
	uint16_t type;
	const char *name;		/* in the request log */
	size_t min_len;
	int (*set)(struct rdmasim_pf *pf, const void *data);
	bool last;
} vf_attrs[] = {
	{ IFLA_VF_MAC, "mac", sizeof(struct ifla_vf_mac), do_mac, false },
	{ IFLA_VF_VLAN, "vlan", sizeof(struct ifla_vf_vlan), do_vlan, false },
	{ IFLA_VF_VLAN_LIST, "vlan_list", 0, do_vlan_list, false },
	{ IFLA_VF_TX_RATE, "tx_rate", sizeof(struct ifla_vf_tx_rate), do_tx_rate, false },
	{ IFLA_VF_RATE, "rate", sizeof(struct ifla_vf_rate), do_rate, false },
	{ IFLA_VF_SPOOFCHK, "spoofchk", sizeof(struct ifla_vf_spoofchk), do_spoofchk, false },
	{ IFLA_VF_LINK_STATE, "link_state", sizeof(struct ifla_vf_link_state), do_link_state,
	  false },
	{ IFLA_VF_RSS_QUERY_EN, "rss_query_en", sizeof(struct ifla_vf_rss_query_en), unsupported,
	  false },
	{ IFLA_VF_TRUST, "trust", sizeof(struct ifla_vf_trust), do_trust, false },
	{ IFLA_VF_IB_NODE_GUID, "node_guid", sizeof(struct ifla_vf_guid), do_node_guid, true },
	{ IFLA_VF_IB_PORT_GUID, "port_guid", sizeof(struct ifla_vf_guid), do_port_guid, true },
};

/* The VF an attribute names: every struct ifla_vf_* starts with __u32 vf;
 * IFLA_VF_VLAN_LIST nests them. -1 when it names none. */
static long attr_vf(const struct nlattr *a)
{
	const struct nlattr *in;

	if (mnl_attr_get_type(a) == IFLA_VF_VLAN_LIST) {
		mnl_attr_for_each_nested(in, a)
			return mnl_attr_get_payload_len(in) >= sizeof(uint32_t) ?
			       (long)*(const uint32_t *)mnl_attr_get_payload(in) : -1;
		return -1;
	}
	return mnl_attr_get_payload_len(a) >= sizeof(uint32_t) ?
	       (long)*(const uint32_t *)mnl_attr_get_payload(a) : -1;
}

/* The request log, <state>.vf.log, a line per VF setting the driver was
 * asked for: "<pf> vf <n> <setting> <0 or -errno>". A driver logs what it
 * refuses; tests count what reached it (a refused setting sent again). */
static void log_set(int logfd, const struct rdmasim_pf *pf, const struct nlattr *a,
		    const char *name, int ret)
{
	if (logfd >= 0)
		dprintf(logfd, "%s vf %ld %s %d\n", pf->name, attr_vf(a), name, ret);
}

static int set_vf_info(struct rdmasim_pf *pf, const struct nlattr *info, int logfd)
{
	const struct nlattr *tb[IFLA_VF_MAX + 1] = { 0 }, *a;

	mnl_attr_for_each_nested(a, info) {
		if (mnl_attr_get_type(a) <= IFLA_VF_MAX)
			tb[mnl_attr_get_type(a)] = a;
	}
	for (size_t i = 0; i < sizeof(vf_attrs) / sizeof(vf_attrs[0]); i++) {
		a = tb[vf_attrs[i].type];
		if (a && mnl_attr_get_payload_len(a) < vf_attrs[i].min_len)
			return -ERANGE;
	}
	for (size_t i = 0; i < sizeof(vf_attrs) / sizeof(vf_attrs[0]); i++) {
		int ret;

		a = tb[vf_attrs[i].type];
		if (!a)
			continue;
		ret = vf_attrs[i].set(pf, mnl_attr_get_payload(a));
		log_set(logfd, pf, a, vf_attrs[i].name, ret);
		if (ret || vf_attrs[i].last)
			return ret;
	}
	return 0;
}

/* do_setlink(): every IFLA_VF_INFO in turn; the first refusal ends it. */
static int set_vfinfo_list(struct rdmasim_pf *pf, const struct nlattr *list, int logfd)
{
	const struct nlattr *info;
	int ret = 0;

	mnl_attr_for_each_nested(info, list) {
		if (mnl_attr_get_type(info) != IFLA_VF_INFO ||
		    mnl_attr_get_payload_len(info) < NLA_HDRLEN)
			return -EINVAL;
		ret = set_vf_info(pf, info, logfd);
		if (ret)
			return ret;
	}
	return ret;
}

/* ---- replies --------------------------------------------------------------- */

static void queue(int fd, char *buf, size_t len)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_PENDING; i++) {
		if (pending[i].fd == fd && (pending[i].buf || pending[i].splice)) {
			free(pending[i].buf);
			pending[i] = (struct pending){ .fd = fd, .buf = buf, .len = len };
			buf = NULL;
			break;
		}
	}
	for (int i = 0; buf && i < MAX_PENDING; i++) {
		if (!pending[i].buf && !pending[i].splice) {
			pending[i] = (struct pending){ .fd = fd, .buf = buf, .len = len };
			buf = NULL;
		}
	}
	pthread_mutex_unlock(&lock);
	free(buf);
}

static void mark_splice(int fd, bool stats, bool vfs)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_PENDING; i++) {
		if (!pending[i].buf && !pending[i].splice) {
			pending[i] = (struct pending){ .fd = fd, .splice = true, .stats = stats,
						       .vfs = vfs };
			break;
		}
	}
	pthread_mutex_unlock(&lock);
}

/* netlink_ack(): the error and the request's header, addressed to the
 * sending socket's port id (iproute2 skips a reply with another). */
static void ack(int fd, const struct nlmsghdr *req, int err)
{
	char *buf = calloc(1, MNL_SOCKET_BUFFER_SIZE);
	struct sockaddr_nl self = { 0 };
	socklen_t len = sizeof(self);
	struct nlmsghdr *nlh;
	struct nlmsgerr *e;

	if (!buf || getsockname(fd, (struct sockaddr *)&self, &len) < 0) {
		free(buf);
		return;
	}
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_CAPPED;	/* the request's header only */
	nlh->nlmsg_seq = req->nlmsg_seq;
	nlh->nlmsg_pid = self.nl_pid;
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	e->error = err;
	e->msg = *req;
	queue(fd, buf, nlh->nlmsg_len);
}

/* nla_nest_start_noflag(): these nests carry no NLA_F_NESTED, as the
 * kernel sends them (iproute2 reads them that way). */
static struct nlattr *nest_start(struct nlmsghdr *nlh, uint16_t type)
{
	struct nlattr *a = mnl_nlmsg_get_payload_tail(nlh);

	a->nla_type = type;
	nlh->nlmsg_len += MNL_ALIGN(sizeof(struct nlattr));
	return a;
}

/* IFLA_VF_STATS: the counters of a VF that moved no traffic; u64s need no
 * pad attribute on x86-64 (nla_put_u64_64bit()). */
static void put_vf_stats(struct nlmsghdr *nlh)
{
	static const uint16_t counters[] = {
		IFLA_VF_STATS_RX_PACKETS, IFLA_VF_STATS_TX_PACKETS, IFLA_VF_STATS_RX_BYTES,
		IFLA_VF_STATS_TX_BYTES, IFLA_VF_STATS_BROADCAST, IFLA_VF_STATS_MULTICAST,
		IFLA_VF_STATS_RX_DROPPED, IFLA_VF_STATS_TX_DROPPED,
	};
	struct nlattr *stats = nest_start(nlh, IFLA_VF_STATS);

	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
		mnl_attr_put_u64(nlh, counters[i], 0);
	mnl_attr_nest_end(nlh, stats);
}

/* struct ifla_vf_info (include/linux/if_link.h) as ndo_get_vf_config() fills it. */
struct vf_report {
	uint8_t mac[32];
	uint32_t vlan, qos, min_tx_rate, max_tx_rate, spoofchk, linkstate, rss_query_en, trusted;
	uint16_t vlan_proto;		/* network order */
};

/* rtnl_fill_vfinfo() presets -1 for what a driver may not report, then
 * asks the driver; mlx5_ib_get_vf_config() zeroes everything but the link
 * state, and ipoib_get_vf_config() puts the PF's own address as the MAC. */
static void get_vf_config(const struct rdmasim_pf *pf, uint32_t i, struct vf_report *r)
{
	const struct rdmasim_vf *v = &pf->vfs[i];

	memset(r, 0, sizeof(*r));
	r->linkstate = v->link_state;
	if (pf->ib) {
		rdmasim_pf_addr(pf, r->mac);
		return;
	}
	memcpy(r->mac, v->mac, sizeof(v->mac));
	r->vlan = v->vlan;
	r->qos = v->qos;
	r->vlan_proto = htons(v->vlan_proto);
	r->min_tx_rate = v->min_tx_rate;
	r->max_tx_rate = v->max_tx_rate;
	/* no ndo_set_vf_rss_query_en, nor spoof check or trust where it lacks them */
	r->rss_query_en = (uint32_t)-1;
	r->spoofchk = pf->lacks & VFOP_SPOOFCHK ? (uint32_t)-1 : v->spoofchk;
	r->trusted = pf->lacks & VFOP_TRUST ? (uint32_t)-1 : v->trust;
}

/* IFLA_VF_IB_NODE_GUID and IFLA_VF_IB_PORT_GUID, from ndo_get_vf_guid(). */
static void put_vf_guids(struct nlmsghdr *nlh, const struct rdmasim_vf *v, uint32_t i)
{
	struct ifla_vf_guid node = { .vf = i, .guid = v->node_guid };
	struct ifla_vf_guid port = { .vf = i, .guid = v->port_guid };

	mnl_attr_put(nlh, IFLA_VF_IB_NODE_GUID, sizeof(node), &node);
	mnl_attr_put(nlh, IFLA_VF_IB_PORT_GUID, sizeof(port), &port);
}

static void put_vf(struct nlmsghdr *nlh, const struct rdmasim_pf *pf, uint32_t i, bool stats)
{
	struct vf_report r;
	struct ifla_vf_mac mac = { .vf = i };
	struct ifla_vf_broadcast bcast = { { 0 } };
	struct ifla_vf_rss_query_en rss = { .vf = i };
	struct ifla_vf_vlan vlan = { .vf = i };
	struct ifla_vf_rate rate = { .vf = i };
	struct ifla_vf_tx_rate tx = { .vf = i };
	struct ifla_vf_spoofchk spoof = { .vf = i };
	struct ifla_vf_trust trust = { .vf = i };
	struct ifla_vf_link_state ls = { .vf = i };
	struct ifla_vf_vlan_info vi = { .vf = i };
	struct nlattr *info = nest_start(nlh, IFLA_VF_INFO), *list;

	get_vf_config(pf, i, &r);
	memcpy(mac.mac, r.mac, sizeof(mac.mac));
	/* the PF's dev->broadcast, addr_len bytes of it */
	if (pf->ib)
		memcpy(bcast.broadcast, rdmasim_ipoib_bcast, RDMASIM_IPOIB_ALEN);
	else
		memset(bcast.broadcast, 0xff, ETH_ALEN);
	vlan.vlan = vi.vlan = r.vlan;
	vlan.qos = vi.qos = r.qos;
	vi.vlan_proto = r.vlan_proto;
	rate.min_tx_rate = r.min_tx_rate;
	rate.max_tx_rate = tx.rate = r.max_tx_rate;
	spoof.setting = r.spoofchk;
	ls.link_state = r.linkstate;
	rss.setting = r.rss_query_en;
	trust.setting = r.trusted;
	mnl_attr_put(nlh, IFLA_VF_MAC, sizeof(mac), &mac);
	mnl_attr_put(nlh, IFLA_VF_BROADCAST, sizeof(bcast), &bcast);
	mnl_attr_put(nlh, IFLA_VF_VLAN, sizeof(vlan), &vlan);
	mnl_attr_put(nlh, IFLA_VF_RATE, sizeof(rate), &rate);
	mnl_attr_put(nlh, IFLA_VF_TX_RATE, sizeof(tx), &tx);
	mnl_attr_put(nlh, IFLA_VF_SPOOFCHK, sizeof(spoof), &spoof);
	mnl_attr_put(nlh, IFLA_VF_LINK_STATE, sizeof(ls), &ls);
	mnl_attr_put(nlh, IFLA_VF_RSS_QUERY_EN, sizeof(rss), &rss);
	mnl_attr_put(nlh, IFLA_VF_TRUST, sizeof(trust), &trust);
	if (pf->ib)
		put_vf_guids(nlh, &pf->vfs[i], i);
	list = nest_start(nlh, IFLA_VF_VLAN_LIST);
	mnl_attr_put(nlh, IFLA_VF_VLAN_INFO, sizeof(vi), &vi);
	mnl_attr_nest_end(nlh, list);
	if (stats)
		put_vf_stats(nlh);
	mnl_attr_nest_end(nlh, info);
}

/* The state, its lock held in *lockfd, when ifindex is a simulated PF (in
 * *pf); NULL, nothing held, otherwise. */
static struct rdmasim_state *pf_state(const char *path, int ifindex, int *lockfd,
				      struct rdmasim_pf **pf)
{
	struct rdmasim_state *st = calloc(1, sizeof(*st));

	*lockfd = st ? rdmasim_lock(path) : -ENOMEM;
	if (*lockfd < 0 || rdmasim_load(path, st) ||
	    !(*pf = rdmasim_pf_find(st, (uint32_t)ifindex))) {
		rdmasim_unlock(*lockfd);
		if (st)
			rdmasim_free(st);
		free(st);
		return NULL;
	}
	return st;
}

/* The veth standing in for an IPoIB netdev, as rtnl_fill_ifinfo() reports
 * one: ARPHRD_INFINIBAND and 20-byte addresses (addr) in place of its own.
 * The message is rebuilt in place; buf holds REPLY_MAX bytes. */
static void ipoib_link(struct nlmsghdr *nlh, const uint8_t addr[RDMASIM_IPOIB_ALEN])
{
	struct nlmsghdr *was = malloc(nlh->nlmsg_len);
	const struct nlattr *a;

	if (!was)
		return;
	memcpy(was, nlh, nlh->nlmsg_len);
	nlh->nlmsg_len = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct ifinfomsg));
	((struct ifinfomsg *)mnl_nlmsg_get_payload(nlh))->ifi_type = ARPHRD_INFINIBAND;
	mnl_attr_for_each(a, was, sizeof(struct ifinfomsg)) {
		uint16_t type = mnl_attr_get_type(a);

		if (type == IFLA_ADDRESS || type == IFLA_PERM_ADDRESS)
			mnl_attr_put(nlh, type, RDMASIM_IPOIB_ALEN, addr);
		else if (type == IFLA_BROADCAST)
			mnl_attr_put(nlh, type, RDMASIM_IPOIB_ALEN, rdmasim_ipoib_bcast);
		else
			mnl_attr_put(nlh, type, mnl_attr_get_payload_len(a), mnl_attr_get_payload(a));
	}
	free(was);
}

/* rdmasim-drv's IPoIB netdev stand-in (a tun device of type
 * ARPHRD_INFINIBAND) has no hardware address: it gets the one ipoib gives its
 * netdev, the QP number and the port GID (fe80::<port GUID>), and the
 * broadcast address; the daemon knows which netdev (netns and ifindex) is
 * whose. */
static void ipoib_addr(const char *path, int fd, struct nlmsghdr *nlh, const struct ifinfomsg *ifi)
{
	char req[RDMASIM_DRV_REQ_MAX], out[64];
	uint8_t addr[RDMASIM_IPOIB_ALEN];
	unsigned long long guid;
	unsigned int qpn;
	struct stat st;
	int ns;

	if (ifi->ifi_type != ARPHRD_INFINIBAND || find_attr(nlh, IFLA_ADDRESS))
		return;
	ns = ioctl(fd, SIOCGSKNS);
	if (ns < 0)
		return;
	if (fstat(ns, &st) < 0) {
		syscall(SYS_close, ns);
		return;
	}
	syscall(SYS_close, ns);
	snprintf(req, sizeof(req), "ipoib-addr %lu %d", (unsigned long)st.st_ino, ifi->ifi_index);
	if (rdmasim_drv_query(path, req, -1, out, sizeof(out)) != 0 ||
	    sscanf(out, "%x %llx", &qpn, &guid) != 2)
		return;
	rdmasim_ipoib_addr(qpn, guid, addr);
	nlh->nlmsg_len = NLMSG_ALIGN(nlh->nlmsg_len);
	mnl_attr_put(nlh, IFLA_ADDRESS, RDMASIM_IPOIB_ALEN, addr);
	mnl_attr_put(nlh, IFLA_BROADCAST, RDMASIM_IPOIB_ALEN, rdmasim_ipoib_bcast);
}

/* The kernel's RTM_NEWLINK of the PF, with IFLA_NUM_VF and IFLA_VFINFO_LIST
 * where rtnl_fill_ifinfo() puts them: before IFLA_XDP and what follows it
 * (the kernel lane saw IFLA_XDP right after the list on 6.1 and 6.12); an
 * IPoIB PF's own link looks IPoIB. */
static void add_vfs(const char *path, bool stats, char *buf, size_t *len)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	const struct ifinfomsg *ifi = link_req(buf, *len);
	uint8_t addr[RDMASIM_IPOIB_ALEN];
	struct rdmasim_state *st;
	struct rdmasim_pf *pf;
	const struct nlattr *xdp;
	struct nlattr *list;
	uint32_t tail_len = 0;
	char *tail = NULL;
	int lockfd;

	if (!ifi || nlh->nlmsg_type != RTM_NEWLINK)
		return;
	st = pf_state(path, ifi->ifi_index, &lockfd, &pf);
	if (!st)
		return;
	rdmasim_unlock(lockfd);
	if (pf->ib) {
		rdmasim_pf_addr(pf, addr);
		ipoib_link(nlh, addr);
	}
	nlh->nlmsg_len = NLMSG_ALIGN(nlh->nlmsg_len);
	xdp = find_attr(nlh, IFLA_XDP);
	if (xdp) {
		tail_len = nlh->nlmsg_len - (uint32_t)((const char *)xdp - buf);
		tail = malloc(tail_len);
		if (!tail)
			goto out;
		memcpy(tail, xdp, tail_len);
		nlh->nlmsg_len -= tail_len;
	}
	mnl_attr_put_u32(nlh, IFLA_NUM_VF, (uint32_t)pf->n_vfs);
	list = nest_start(nlh, IFLA_VFINFO_LIST);
	for (int i = 0; i < pf->n_vfs; i++)
		put_vf(nlh, pf, (uint32_t)i, stats);
	mnl_attr_nest_end(nlh, list);
	if (tail) {
		memcpy(buf + nlh->nlmsg_len, tail, tail_len);
		nlh->nlmsg_len += tail_len;
		free(tail);
	}
	*len = nlh->nlmsg_len;
out:
	rdmasim_free(st);
	free(st);
}

/* ---- the two directions ---------------------------------------------------- */

/* RTM_SETLINK / RTM_NEWLINK carrying only IFLA_VFINFO_LIST for the PF. */
static bool set_request(const char *path, int fd, const struct nlmsghdr *nlh,
			const struct ifinfomsg *ifi)
{
	char log[PATH_MAX];
	struct rdmasim_state *st;
	struct rdmasim_pf *pf;
	int lockfd, logfd = -1, ret;

	if ((nlh->nlmsg_type != RTM_SETLINK && nlh->nlmsg_type != RTM_NEWLINK) ||
	    !find_attr(nlh, IFLA_VFINFO_LIST))
		return false;
	st = pf_state(path, ifi->ifi_index, &lockfd, &pf);
	if (!st)
		return false;
	/* under the world's lock: lines of concurrent requests do not mix */
	if (snprintf(log, sizeof(log), "%s.vf.log", path) < (int)sizeof(log))
		logfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	/* extra attributes would be the kernel's to apply: not simulated */
	ret = only_attr(nlh, IFLA_VFINFO_LIST) ?
	      set_vfinfo_list(pf, find_attr(nlh, IFLA_VFINFO_LIST), logfd) : -EOPNOTSUPP;
	if (logfd >= 0)
		syscall(SYS_close, logfd);
	/* what was set before a refusal stays set, as in the kernel */
	if (rdmasim_save(path, st) && ret == 0)
		ret = -EIO;
	rdmasim_unlock(lockfd);
	rdmasim_free(st);
	free(st);
	if (ret || (nlh->nlmsg_flags & NLM_F_ACK))
		ack(fd, nlh, ret);
	return true;
}

/* The errno the simulated PF ifindex fails a VF info GETLINK with; 0 none. */
static int getlink_error(const char *path, int ifindex)
{
	struct rdmasim_pf *pf;
	int lockfd, err;
	struct rdmasim_state *st = pf_state(path, ifindex, &lockfd, &pf);

	if (!st)
		return 0;
	rdmasim_unlock(lockfd);
	err = (int)pf->getlink_error;
	rdmasim_free(st);
	free(st);
	return err;
}

/* RTM_GETLINK of one link asking for VF info: the kernel answers, we add;
 * or the PF's getlink_error, as rtnl_getlink() returns one (true: answered). */
static bool get_request(const char *path, int fd, const struct nlmsghdr *nlh,
			const struct ifinfomsg *ifi, bool host)
{
	const struct nlattr *attr = find_attr(nlh, IFLA_EXT_MASK);
	uint32_t mask;
	int err;

	if (nlh->nlmsg_type != RTM_GETLINK || (nlh->nlmsg_flags & NLM_F_DUMP))
		return false;
	if (!attr || mnl_attr_get_payload_len(attr) < sizeof(uint32_t) || !host) {
		/* any link's reply may be an IPoIB stand-in's */
		mark_splice(fd, false, false);
		return false;
	}
	mask = mnl_attr_get_u32(attr);
	if (!(mask & RTEXT_FILTER_VF)) {
		mark_splice(fd, false, false);
		return false;
	}
	err = getlink_error(path, ifi->ifi_index);
	if (err) {
		ack(fd, nlh, -err);
		return true;
	}
	mark_splice(fd, !(mask & RTEXT_FILTER_SKIP_STATS), true);
	return false;
}

bool vfinfo_send(const char *path, int fd, const void *buf, size_t len)
{
	const struct ifinfomsg *ifi = link_req(buf, len);
	bool host;

	if (!path || !ifi || !rtnl(fd, &host))
		return false;
	return (host && set_request(path, fd, buf, ifi)) || get_request(path, fd, buf, ifi, host);
}

static struct pending *find(int fd)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (pending[i].fd == fd && (pending[i].buf || pending[i].splice))
			return &pending[i];
	return NULL;
}

/* recvmsg() of a queued datagram: MSG_PEEK keeps it, MSG_TRUNC gives its length. */
static ssize_t serve(struct pending *p, struct msghdr *msg, int flags)
{
	size_t off = 0;

	for (size_t i = 0; i < msg->msg_iovlen && off < p->len; i++) {
		size_t n = msg->msg_iov[i].iov_len < p->len - off ? msg->msg_iov[i].iov_len :
								    p->len - off;

		if (n)		/* a size probe passes no buffer (iproute2) */
			memcpy(msg->msg_iov[i].iov_base, p->buf + off, n);
		off += n;
	}
	msg->msg_flags = off < p->len ? MSG_TRUNC : 0;
	msg->msg_controllen = 0;
	if (msg->msg_name && msg->msg_namelen >= sizeof(struct sockaddr_nl)) {
		*(struct sockaddr_nl *)msg->msg_name = (struct sockaddr_nl){ .nl_family = AF_NETLINK };
		msg->msg_namelen = sizeof(struct sockaddr_nl);
	}
	off = (flags & MSG_TRUNC) ? p->len : off;
	if (!(flags & MSG_PEEK)) {
		free(p->buf);
		*p = (struct pending){ .fd = -1 };
	}
	return (ssize_t)off;
}

/* The kernel's next datagram, read whole into our buffer, with the VFs added. */
static int fetch(const char *path, int fd, struct pending *p, vfinfo_recvmsg_t kernel)
{
	char *buf = malloc(REPLY_MAX);
	struct iovec iov = { buf, KERNEL_REPLY_MAX };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	n = kernel(fd, &m, 0);
	if (n < 0) {
		int err = errno;

		free(buf);
		*p = (struct pending){ .fd = -1 };
		errno = err;
		return -1;
	}
	p->len = (size_t)n;
	if (p->vfs) {
		add_vfs(path, p->stats, buf, &p->len);
	} else if (link_req(buf, p->len) && ((struct nlmsghdr *)buf)->nlmsg_type == RTM_NEWLINK) {
		ipoib_addr(path, fd, (struct nlmsghdr *)buf, link_req(buf, p->len));
		p->len = ((struct nlmsghdr *)buf)->nlmsg_len;
	}
	p->buf = buf;
	p->splice = false;
	return 0;
}

ssize_t vfinfo_recv(const char *path, int fd, struct msghdr *msg, int flags,
		    vfinfo_recvmsg_t kernel)
{
	struct pending *p;
	ssize_t ret;

	pthread_mutex_lock(&lock);
	p = find(fd);
	if (p && p->splice && fetch(path, fd, p, kernel) < 0) {
		pthread_mutex_unlock(&lock);
		return -1;
	}
	ret = p ? serve(p, msg, flags) : -2;
	pthread_mutex_unlock(&lock);
	return ret == -2 ? kernel(fd, msg, flags) : ret;
}

void vfinfo_close(int fd)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_PENDING; i++) {
		if (pending[i].fd == fd && (pending[i].buf || pending[i].splice)) {
			free(pending[i].buf);
			pending[i] = (struct pending){ .fd = -1 };
		}
	}
	pthread_mutex_unlock(&lock);
}
