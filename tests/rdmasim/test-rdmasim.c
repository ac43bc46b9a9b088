// SPDX-License-Identifier: Apache-2.0
/* The RDMA netlink simulator against the uapi alone (raw libmnl sockets,
 * hand-built requests), then the same flows through rdmanl. Runs with
 * librdmasim.so preloaded; needs root for network namespaces. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <cjson/cJSON.h>
#include <libmnl/libmnl.h>
#include <rdma/rdma_netlink.h>
#include <netlink/socket.h>
#include "link.h"
#include "linkvf.h"
#include "nlreq.h"
#include "rdmanl.h"
#include "state.h"

#define NLDEV(op) RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op)
#define BUF 8192

static char dir[96], state[128], ns[48], ns_path[80], veth_a[IFNAMSIZ], veth_b[IFNAMSIZ];
static int host_fd = -1, pod_fd = -1;
static unsigned long pod_ino;

__attribute__((format(printf, 1, 2)))
static int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* Every test's netns is "rsim<runner pid>-<test pid>" and holds one end of
 * its veth pair, so deleting it removes the pair; the runner sweeps them and
 * the run directory at the end, whatever the tests did. */
static void sweep(pid_t runner, const char *run_dir)
{
	sh("ip netns list | awk '{print $1}' | grep '^rsim%d-' | xargs -r -n1 ip netns del; "
	   "rm -rf %s", runner, run_dir);
}

/* One world per test: a pod netns, a veth pair standing in for two VF
 * netdevs (the second already in the pod), two RDMA devices in the host,
 * exclusive mode. */
static void setup(void)
{
	const char *ctl = getenv("RDMASIM_CTL");
	struct stat st;

	ck_assert_ptr_nonnull(ctl);
	ck_assert_int_lt(snprintf(dir, sizeof(dir), "%s/XXXXXX", getenv("RDMASIM_RUN_DIR")),
			 (int)sizeof(dir));
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(state, sizeof(state), "%s/state.json", dir);
	snprintf(ns, sizeof(ns), "rsim%d-%d", getppid(), getpid());
	snprintf(ns_path, sizeof(ns_path), "/run/netns/%s", ns);
	snprintf(veth_a, sizeof(veth_a), "rsa%d", getpid());
	snprintf(veth_b, sizeof(veth_b), "rsb%d", getpid());
	setenv("RDMA_SIM_STATE", state, 1);
	ck_assert_int_eq(sh("ip netns add %s", ns), 0);
	ck_assert_int_eq(sh("ip link add %s type veth peer name %s", veth_a, veth_b), 0);
	ck_assert_int_eq(sh("ip link set %s netns %s || ip link del %s", veth_b, ns, veth_a), 0);
	ck_assert_int_eq(sh("%s init %s exclusive", ctl, state), 0);
	ck_assert_int_eq(sh("%s add %s mlx5_2 3 0000:3b:00.2 %s", ctl, state, veth_a), 0);
	ck_assert_int_eq(sh("%s add %s mlx5_3 4 0000:3b:00.3 lo", ctl, state), 0);
	host_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	pod_fd = open(ns_path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(host_fd, 0);
	ck_assert_int_ge(pod_fd, 0);
	ck_assert_int_eq(fstat(pod_fd, &st), 0);
	pod_ino = st.st_ino;
}

static void enter(int fd)
{
	ck_assert_int_eq(setns(fd, CLONE_NEWNET), 0);
}

__attribute__((format(printf, 1, 2)))
static int ctl(const char *fmt, ...)
{
	char args[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	return sh("%s %s >/dev/null 2>&1", getenv("RDMASIM_CTL"), args);
}

/* The whole state file, malloc'd. */
static char *slurp(const char *path)
{
	char *buf = malloc(1 << 16);
	size_t len;
	FILE *f;

	ck_assert_ptr_nonnull(buf);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	len = fread(buf, 1, (1 << 16) - 1, f);
	ck_assert_uint_gt(len, 0);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/* The "netns" of device index in the state file. */
static const char *dev_netns(uint32_t index)
{
	static char out[32];
	const cJSON *d, *devs;
	char *buf = slurp(state);
	cJSON *root;

	root = cJSON_Parse(buf);
	free(buf);
	ck_assert_ptr_nonnull(root);
	devs = cJSON_GetObjectItem(root, "devices");
	out[0] = '\0';
	cJSON_ArrayForEach(d, devs)
		if (cJSON_GetObjectItem(d, "index")->valueint == (int)index)
			snprintf(out, sizeof(out), "%s", cJSON_GetObjectItem(d, "netns")->valuestring);
	cJSON_Delete(root);
	return out;
}

static const char *pod_ino_str(void)
{
	static char s[32];

	snprintf(s, sizeof(s), "%lu", pod_ino);
	return s;
}

static struct mnl_socket *nl_open(bool ext_ack, bool cap_ack)
{
	struct mnl_socket *nl = mnl_socket_open(NETLINK_RDMA);
	int on = 1;

	ck_assert_ptr_nonnull(nl);
	if (ext_ack)
		ck_assert_int_eq(mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &on, sizeof(on)), 0);
	if (cap_ack)
		ck_assert_int_eq(mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &on, sizeof(on)), 0);
	ck_assert_int_eq(mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID), 0);
	return nl;
}

static struct nlmsghdr *req(char *buf, uint16_t type, uint16_t flags, uint32_t seq)
{
	struct nlmsghdr *nlh;

	memset(buf, 0, BUF);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	return nlh;
}

static void tx(struct mnl_socket *nl, const struct nlmsghdr *nlh)
{
	ck_assert_int_eq(mnl_socket_sendto(nl, nlh, nlh->nlmsg_len), (ssize_t)nlh->nlmsg_len);
}

static ssize_t rx(struct mnl_socket *nl, char *buf)
{
	ssize_t n = mnl_socket_recvfrom(nl, buf, BUF);

	ck_assert_int_gt(n, 0);
	return n;
}

static void rx_nothing(struct mnl_socket *nl)
{
	char buf[BUF];

	ck_assert_int_lt(recv(mnl_socket_get_fd(nl), buf, sizeof(buf), MSG_DONTWAIT), 0);
	ck_assert_int_eq(errno, EAGAIN);
}

static const struct nlmsgerr *as_err(const char *buf)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;

	ck_assert_uint_eq(nlh->nlmsg_type, NLMSG_ERROR);
	return mnl_nlmsg_get_payload(nlh);
}

struct extack {
	const char *msg;
	int has_offs;
	uint32_t offs;
};

static int extack_cb(const struct nlattr *a, void *data)
{
	struct extack *e = data;

	if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG)
		e->msg = mnl_attr_get_str(a);
	if (mnl_attr_get_type(a) == NLMSGERR_ATTR_OFFS) {
		e->has_offs = 1;
		e->offs = mnl_attr_get_u32(a);
	}
	return MNL_CB_OK;
}

static struct extack get_extack(const char *buf)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	struct extack x = { 0 };
	size_t off = sizeof(*e);

	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
		mnl_attr_parse(nlh, off, extack_cb, &x);
	return x;
}

/* A doit request and its NLMSG_ERROR; returns the error. */
static int request_err(struct mnl_socket *nl, struct nlmsghdr *nlh, char *reply)
{
	tx(nl, nlh);
	rx(nl, reply);
	return as_err(reply)->error;
}

static struct nlmsghdr *move_req(char *buf, uint32_t index, int fd)
{
	struct nlmsghdr *nlh = req(buf, NLDEV(RDMA_NLDEV_CMD_SET), NLM_F_REQUEST | NLM_F_ACK, 9);

	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, index);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_NET_NS_FD, (uint32_t)fd);
	return nlh;
}

static int raw_move(uint32_t index, int fd)
{
	struct mnl_socket *nl = nl_open(false, true);
	char buf[BUF], reply[BUF];
	int ret;

	ret = request_err(nl, move_req(buf, index, fd), reply);
	mnl_socket_close(nl);
	return ret;
}

/* The device indexes a GET dump shows from the current netns. */
static int dump(uint32_t *idx, int max)
{
	struct mnl_socket *nl = nl_open(true, true);
	char buf[BUF], reply[BUF];
	const struct nlmsghdr *nlh;
	int n = 0, done = 0;
	ssize_t len;

	tx(nl, req(buf, NLDEV(RDMA_NLDEV_CMD_GET), NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP, 5));
	while (!done) {
		len = rx(nl, reply);
		for (nlh = (void *)reply; mnl_nlmsg_ok(nlh, (int)len); nlh = mnl_nlmsg_next(nlh, (int *)&len)) {
			ck_assert_uint_eq(nlh->nlmsg_seq, 5);
			ck_assert(nlh->nlmsg_flags & NLM_F_MULTI);
			if (nlh->nlmsg_type == NLMSG_DONE) {
				done = 1;
				break;
			}
			ck_assert_uint_eq(nlh->nlmsg_type, NLDEV(RDMA_NLDEV_CMD_GET));
			ck_assert_int_lt(n, max);
			idx[n++] = mnl_attr_get_u32(mnl_nlmsg_get_payload(nlh));
		}
	}
	rx_nothing(nl);
	mnl_socket_close(nl);
	return n;
}

/* ---- the PF's VF info (vfinfo.c): veth_a stands in for a PF with 2 VFs ---- */

static struct mnl_socket *rt_open(void)
{
	struct mnl_socket *nl = mnl_socket_open(NETLINK_ROUTE);

	ck_assert_ptr_nonnull(nl);
	ck_assert_int_eq(mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID), 0);
	return nl;
}

static struct nlmsghdr *link_req(char *buf, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh = req(buf, type, NLM_F_REQUEST | flags, 7);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	ifi->ifi_index = (int)if_nametoindex(veth_a);
	return nlh;
}

/* An IFLA_VFINFO_LIST / IFLA_VF_INFO holding one attribute. */
static void put_vf_attr(struct nlmsghdr *nlh, uint16_t type, const void *data, size_t len)
{
	struct nlattr *list = mnl_attr_nest_start(nlh, IFLA_VFINFO_LIST);
	struct nlattr *info = mnl_attr_nest_start(nlh, IFLA_VF_INFO);

	mnl_attr_put(nlh, type, len, data);
	mnl_attr_nest_end(nlh, info);
	mnl_attr_nest_end(nlh, list);
}

/* An IFLA_VFINFO_LIST / IFLA_VF_INFO holding two attributes, in this order. */
static void put_vf_pair(struct nlmsghdr *nlh, uint16_t t1, const void *d1, size_t l1,
			uint16_t t2, const void *d2, size_t l2)
{
	struct nlattr *list = mnl_attr_nest_start(nlh, IFLA_VFINFO_LIST);
	struct nlattr *info = mnl_attr_nest_start(nlh, IFLA_VF_INFO);

	mnl_attr_put(nlh, t1, l1, d1);
	mnl_attr_put(nlh, t2, l2, d2);
	mnl_attr_nest_end(nlh, info);
	mnl_attr_nest_end(nlh, list);
}

/* A field of VF vf in the state file, as text. */
static const char *vf_field(int vf, const char *key)
{
	static char out[64];
	char buf[8192] = "";
	const cJSON *v;
	cJSON *root;
	FILE *f = fopen(state, "r");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_gt(fread(buf, 1, sizeof(buf) - 1, f), 0);
	fclose(f);
	root = cJSON_Parse(buf);
	v = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(
					cJSON_GetObjectItem(root, "pfs"), 0), "vfs"), vf), key);
	ck_assert_ptr_nonnull(v);
	if (cJSON_IsString(v))
		snprintf(out, sizeof(out), "%s", v->valuestring);
	else if (cJSON_IsBool(v))
		snprintf(out, sizeof(out), "%s", cJSON_IsTrue(v) ? "true" : "false");
	else
		snprintf(out, sizeof(out), "%d", v->valueint);
	cJSON_Delete(root);
	return out;
}

static const struct ifla_vf_mac vf_mac_ok = { .vf = 1, .mac = { 0x02, 0, 0, 0, 0, 0x07 } };
static const struct ifla_vf_mac vf_mac_multicast = { .vf = 1, .mac = { 0x01, 0, 0x5e, 0, 0, 1 } };
static const struct ifla_vf_mac vf_mac_no_vf = { .vf = 2, .mac = { 0x02, 0, 0, 0, 0, 0x07 } };
static const struct ifla_vf_vlan vf_vlan_4096 = { .vf = 1, .vlan = 4096 };
static const struct ifla_vf_vlan vf_vlan_qos8 = { .vf = 1, .vlan = 10, .qos = 8 };
static const struct ifla_vf_rate vf_rate_inverted = { .vf = 1, .min_tx_rate = 100, .max_tx_rate = 10 };
static const struct ifla_vf_link_state vf_link_state_3 = { .vf = 1, .link_state = 3 };
static const struct ifla_vf_trust vf_trust_on = { .vf = 1, .setting = 1 };
static const uint16_t vf_trust_short = 1;

/* One refused request each: the errno, and nothing changed on VF 1. */
static const struct {
	uint16_t type;
	const void *data;
	size_t len;
	int err;
} vf_err_cases[] = {
	{ IFLA_VF_MAC, &vf_mac_multicast, sizeof(vf_mac_multicast), -EINVAL },
	{ IFLA_VF_MAC, &vf_mac_no_vf, sizeof(vf_mac_no_vf), -EINVAL },
	{ IFLA_VF_VLAN, &vf_vlan_4096, sizeof(vf_vlan_4096), -EINVAL },
	{ IFLA_VF_VLAN, &vf_vlan_qos8, sizeof(vf_vlan_qos8), -EINVAL },
	{ IFLA_VF_RATE, &vf_rate_inverted, sizeof(vf_rate_inverted), -EINVAL },
	{ IFLA_VF_LINK_STATE, &vf_link_state_3, sizeof(vf_link_state_3), -EINVAL },
	{ IFLA_VF_TRUST, &vf_trust_short, sizeof(vf_trust_short), -ERANGE },
};

START_TEST(test_vf_errors)
{
	struct mnl_socket *nl = rt_open();
	char buf[BUF], reply[BUF];
	struct nlmsghdr *nlh;

	ck_assert_int_eq(ctl("pf %s %s 2", state, veth_a), 0);
	nlh = link_req(buf, RTM_SETLINK, NLM_F_ACK);
	put_vf_attr(nlh, vf_err_cases[_i].type, vf_err_cases[_i].data, vf_err_cases[_i].len);
	ck_assert_int_eq(request_err(nl, nlh, reply), vf_err_cases[_i].err);
	ck_assert_str_eq(vf_field(1, "mac"), "00:00:00:00:00:00");
	ck_assert_str_eq(vf_field(1, "vlan"), "0");
	ck_assert_str_eq(vf_field(1, "max_tx_rate"), "0");
	ck_assert_str_eq(vf_field(1, "link_state"), "0");
	ck_assert_str_eq(vf_field(1, "trust"), "false");
	mnl_socket_close(nl);
}
END_TEST

/* VLAN list: one entry with a protocol; another protocol, or two entries, refused. */
START_TEST(test_vf_vlan_list)
{
	struct ifla_vf_vlan_info vi = { .vf = 0, .vlan = 30, .qos = 2, .vlan_proto = htons(0x88a8) };
	struct mnl_socket *nl = rt_open();
	char buf[BUF], reply[BUF];
	struct nlattr *list, *info, *vlans;
	struct nlmsghdr *nlh;

	ck_assert_int_eq(ctl("pf %s %s 2", state, veth_a), 0);
	for (int n = 1; n <= 3; n++) {
		nlh = link_req(buf, RTM_SETLINK, NLM_F_ACK);
		list = mnl_attr_nest_start(nlh, IFLA_VFINFO_LIST);
		info = mnl_attr_nest_start(nlh, IFLA_VF_INFO);
		vlans = mnl_attr_nest_start(nlh, IFLA_VF_VLAN_LIST);
		vi.vlan_proto = htons(n == 2 ? 0x1234 : 0x88a8);
		for (int i = 0; i < (n == 3 ? 2 : 1); i++)
			mnl_attr_put(nlh, IFLA_VF_VLAN_INFO, sizeof(vi), &vi);
		mnl_attr_nest_end(nlh, vlans);
		mnl_attr_nest_end(nlh, info);
		mnl_attr_nest_end(nlh, list);
		ck_assert_int_eq(request_err(nl, nlh, reply),
				 n == 1 ? 0 : n == 2 ? -EPROTONOSUPPORT : -EOPNOTSUPP);
	}
	ck_assert_str_eq(vf_field(0, "vlan"), "30");
	ck_assert_str_eq(vf_field(0, "qos"), "2");
	ck_assert_str_eq(vf_field(0, "vlan_proto"), "34984");
	mnl_socket_close(nl);
}
END_TEST

/* The kernel's order: MAC before TRUST, so a driver without trust leaves
 * the MAC set; a request with other attributes is not half-simulated. */
START_TEST(test_vf_partial_and_extra)
{
	struct mnl_socket *nl = rt_open();
	char buf[BUF], reply[BUF];
	struct nlmsghdr *nlh;

	ck_assert_int_eq(ctl("pf %s %s 2", state, veth_a), 0);
	ck_assert_int_eq(ctl("lacks %s trust", state), 0);
	nlh = link_req(buf, RTM_SETLINK, NLM_F_ACK);
	put_vf_pair(nlh, IFLA_VF_TRUST, &vf_trust_on, sizeof(vf_trust_on),
		    IFLA_VF_MAC, &vf_mac_ok, sizeof(vf_mac_ok));
	ck_assert_int_eq(request_err(nl, nlh, reply), -EOPNOTSUPP);
	ck_assert_str_eq(vf_field(1, "mac"), "02:00:00:00:00:07");
	ck_assert_str_eq(vf_field(1, "trust"), "false");
	nlh = link_req(buf, RTM_SETLINK, NLM_F_ACK);
	mnl_attr_put_u32(nlh, IFLA_MTU, 1400);
	put_vf_attr(nlh, IFLA_VF_MAC, &vf_mac_no_vf, sizeof(vf_mac_no_vf));
	ck_assert_int_eq(request_err(nl, nlh, reply), -EOPNOTSUPP);
	/* no ack asked, none sent */
	nlh = link_req(buf, RTM_SETLINK, 0);
	put_vf_attr(nlh, IFLA_VF_MAC, &vf_mac_ok, sizeof(vf_mac_ok));
	tx(nl, nlh);
	rx_nothing(nl);
	mnl_socket_close(nl);
}
END_TEST

/* What the VF list of a reply holds, counted over all its VFs. */
struct vf_seen {
	int infos, broadcasts, stats, counters;
	bool wrapped;		/* the list's 16-bit length wrapped */
};

static int vf_stat_cb(const struct nlattr *a, void *data)
{
	struct vf_seen *seen = data;

	if (mnl_attr_get_payload_len(a) == sizeof(uint64_t) && mnl_attr_get_u64(a) == 0)
		seen->counters++;
	return MNL_CB_OK;
}

static int vf_attr_cb(const struct nlattr *a, void *data)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct vf_seen *seen = data;

	if (mnl_attr_get_type(a) == IFLA_VF_BROADCAST &&
	    mnl_attr_get_payload_len(a) == sizeof(struct ifla_vf_broadcast) &&
	    !memcmp(mnl_attr_get_payload(a), bcast, sizeof(bcast)))
		seen->broadcasts++;
	if (mnl_attr_get_type(a) == IFLA_VF_STATS) {
		seen->stats++;
		mnl_attr_parse_nested(a, vf_stat_cb, seen);
	}
	return MNL_CB_OK;
}

static int vf_info_cb(const struct nlattr *a, void *data)
{
	struct vf_seen *seen = data;

	if (mnl_attr_get_type(a) == IFLA_VF_INFO) {
		seen->infos++;
		mnl_attr_parse_nested(a, vf_attr_cb, seen);
	}
	return MNL_CB_OK;
}

/* The VF info of a GETLINK reply asking for mask, in one read: the
 * IFLA_NUM_VF entries from the start of IFLA_VFINFO_LIST, whose own length
 * must be their true length modulo 2^16, as the kernel's nla_nest_end()
 * leaves it. The top level is read only up to the list. */
static struct vf_seen vf_getlink(struct mnl_socket *nl, uint32_t mask)
{
	const size_t size = 256 * 1024;
	struct vf_seen seen = { 0 };
	char buf[BUF], *reply = malloc(size);
	const struct nlattr *a, *list = NULL;
	struct nlmsghdr *nlh;
	uint32_t n_vfs = 0;
	size_t len = MNL_ATTR_HDRLEN;
	int rest;

	ck_assert_ptr_nonnull(reply);
	nlh = link_req(buf, RTM_GETLINK, 0);
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, mask);
	tx(nl, nlh);
	ck_assert_int_gt(mnl_socket_recvfrom(nl, reply, size), 0);
	nlh = (struct nlmsghdr *)reply;
	ck_assert_uint_eq(nlh->nlmsg_type, RTM_NEWLINK);
	mnl_attr_for_each(a, nlh, sizeof(struct ifinfomsg)) {
		if (mnl_attr_get_type(a) == IFLA_NUM_VF)
			n_vfs = mnl_attr_get_u32(a);
		if (mnl_attr_get_type(a) == IFLA_VFINFO_LIST) {
			list = a;
			break;
		}
	}
	ck_assert_ptr_nonnull(list);
	a = mnl_attr_get_payload(list);
	rest = (int)((char *)nlh + nlh->nlmsg_len - (char *)a);
	for (uint32_t i = 0; i < n_vfs; i++, a = mnl_attr_next(a)) {
		ck_assert(mnl_attr_ok(a, rest));
		vf_info_cb(a, &seen);
		len += MNL_ALIGN(a->nla_len);
		rest -= MNL_ALIGN(a->nla_len);
	}
	ck_assert_uint_eq(list->nla_len, (uint16_t)len);
	seen.wrapped = len > UINT16_MAX;
	free(reply);
	return seen;
}

/* GETLINK with RTEXT_FILTER_VF: the kernel's reply with IFLA_NUM_VF and one
 * IFLA_VF_INFO per VF; a peek with MSG_TRUNC tells its full length first. */
START_TEST(test_vf_getlink)
{
	struct mnl_socket *nl = rt_open();
	char buf[BUF], reply[BUF], small[16];
	struct iovec iov = { small, sizeof(small) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	const struct nlattr *a, *num = NULL, *list = NULL;
	struct vf_seen infos = { 0 };
	struct nlmsghdr *nlh;
	ssize_t peeked, n;

	ck_assert_int_eq(ctl("pf %s %s 2", state, veth_a), 0);
	nlh = link_req(buf, RTM_GETLINK, 0);
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_VF);
	tx(nl, nlh);
	peeked = recvmsg(mnl_socket_get_fd(nl), &msg, MSG_PEEK | MSG_TRUNC);
	ck_assert(msg.msg_flags & MSG_TRUNC);
	n = rx(nl, reply);
	ck_assert_int_eq(peeked, n);
	nlh = (struct nlmsghdr *)reply;
	ck_assert_uint_eq(nlh->nlmsg_type, RTM_NEWLINK);
	ck_assert_uint_eq(nlh->nlmsg_len, (uint32_t)n);
	mnl_attr_for_each(a, nlh, sizeof(struct ifinfomsg)) {
		if (mnl_attr_get_type(a) == IFLA_NUM_VF)
			num = a;
		if (mnl_attr_get_type(a) == IFLA_VFINFO_LIST)
			list = a;
	}
	ck_assert_ptr_nonnull(num);
	ck_assert_uint_eq(mnl_attr_get_u32(num), 2);
	ck_assert_ptr_nonnull(list);
	ck_assert_uint_eq(list->nla_type & NLA_F_NESTED, 0);
	mnl_attr_parse_nested(list, vf_info_cb, &infos);
	ck_assert_int_eq(infos.infos, 2);
	/* without the filter the kernel's reply is left as it is */
	tx(nl, link_req(buf, RTM_GETLINK, 0));
	rx(nl, reply);
	mnl_attr_for_each(a, (struct nlmsghdr *)reply, sizeof(struct ifinfomsg))
		ck_assert_uint_ne(mnl_attr_get_type(a), IFLA_VFINFO_LIST);
	mnl_socket_close(nl);
}
END_TEST

/* rtnl_fill_vfinfo(): the broadcast address, and the 8 counters of
 * IFLA_VF_STATS unless RTEXT_FILTER_SKIP_STATS, for every VF of the largest
 * PF the simulator keeps, whose list is past what 16 bits can measure. */
START_TEST(test_vf_getlink_stats)
{
	struct mnl_socket *nl = rt_open();
	struct vf_seen seen;

	ck_assert_int_eq(ctl("pf %s %s %d", state, veth_a, RDMASIM_MAX_VFS), 0);
	seen = vf_getlink(nl, RTEXT_FILTER_VF);
	ck_assert_int_eq(seen.infos, RDMASIM_MAX_VFS);
	ck_assert_int_eq(seen.broadcasts, RDMASIM_MAX_VFS);
	ck_assert_int_eq(seen.stats, RDMASIM_MAX_VFS);
	ck_assert_int_eq(seen.counters, 8 * RDMASIM_MAX_VFS);
	ck_assert(seen.wrapped);
	seen = vf_getlink(nl, RTEXT_FILTER_VF | RTEXT_FILTER_SKIP_STATS);
	ck_assert_int_eq(seen.infos, RDMASIM_MAX_VFS);
	ck_assert_int_eq(seen.broadcasts, RDMASIM_MAX_VFS);
	ck_assert_int_eq(seen.stats, 0);
	ck_assert(seen.wrapped);
	ck_assert_int_ne(ctl("pf %s %s %d", state, veth_a, RDMASIM_MAX_VFS + 1), 0);
	mnl_socket_close(nl);
}
END_TEST


/* ---- an IPoIB PF: VF GUIDs (do_setvfinfo(), ipoib, mlx5_ib) ---- */

static const struct ifla_vf_guid guid_node = { .vf = 1, .guid = 0x0002c90300216e70ULL };
static const struct ifla_vf_guid guid_port = { .vf = 1, .guid = 0x0002c90300216e78ULL };
static const struct ifla_vf_guid guid_no_vf = { .vf = 2, .guid = 0x0002c90300216e70ULL };
static const struct ifla_vf_guid guid_huge_vf = { .vf = INT_MAX, .guid = 1 };

/* VF 1's GUIDs as the state file holds them. */
static void assert_guids(const char *node, const char *port)
{
	ck_assert_str_eq(vf_field(1, "node_guid"), node);
	ck_assert_str_eq(vf_field(1, "port_guid"), port);
}

/* Each GUID in a request of its own is kept for the VF's next probe. */
START_TEST(test_vf_guid_set)
{
	struct mnl_socket *nl = rt_open();
	char buf[BUF], reply[BUF];
	struct nlmsghdr *nlh;

	ck_assert_int_eq(ctl("pf %s %s 2 ib", state, veth_a), 0);
	assert_guids("0000000000000000", "0000000000000000");
	nlh = link_req(buf, RTM_SETLINK, NLM_F_ACK);
	put_vf_attr(nlh, IFLA_VF_IB_NODE_GUID, &guid_node, sizeof(guid_node));
	ck_assert_int_eq(request_err(nl, nlh, reply), 0);
	assert_guids("0002c90300216e70", "0000000000000000");
	nlh = link_req(buf, RTM_SETLINK, NLM_F_ACK);
	put_vf_attr(nlh, IFLA_VF_IB_PORT_GUID, &guid_port, sizeof(guid_port));
	ck_assert_int_eq(request_err(nl, nlh, reply), 0);
	assert_guids("0002c90300216e70", "0002c90300216e78");
	ck_assert_str_eq(vf_field(0, "port_guid"), "0000000000000000");
	mnl_socket_close(nl);
}
END_TEST

/* do_setvfinfo() returns right after the node GUID: a port GUID in the
 * same IFLA_VF_INFO is dropped without a word, the request succeeds. */
START_TEST(test_vf_guid_one_per_nest)
{
	struct mnl_socket *nl = rt_open();
	char buf[BUF], reply[BUF];
	struct nlmsghdr *nlh;

	ck_assert_int_eq(ctl("pf %s %s 2 ib", state, veth_a), 0);
	nlh = link_req(buf, RTM_SETLINK, NLM_F_ACK);
	put_vf_pair(nlh, IFLA_VF_IB_PORT_GUID, &guid_port, sizeof(guid_port),
		    IFLA_VF_IB_NODE_GUID, &guid_node, sizeof(guid_node));
	ck_assert_int_eq(request_err(nl, nlh, reply), 0);
	assert_guids("0002c90300216e70", "0000000000000000");
	mnl_socket_close(nl);
}
END_TEST

/* One refused GUID request each, on an IPoIB PF (ib) or an Ethernet PF. */
static const struct {
	bool ib;
	uint16_t type;
	const void *data;
	size_t len;
	int err;
} guid_err_cases[] = {
	/* no ndo_set_vf_guid (mlx5e, veth...) */
	{ false, IFLA_VF_IB_NODE_GUID, &guid_node, sizeof(guid_node), -EOPNOTSUPP },
	{ false, IFLA_VF_IB_PORT_GUID, &guid_port, sizeof(guid_port), -EOPNOTSUPP },
	/* vf >= INT_MAX before anything else */
	{ false, IFLA_VF_IB_NODE_GUID, &guid_huge_vf, sizeof(guid_huge_vf), -EINVAL },
	{ true, IFLA_VF_IB_PORT_GUID, &guid_huge_vf, sizeof(guid_huge_vf), -EINVAL },
	{ true, IFLA_VF_IB_NODE_GUID, &guid_no_vf, sizeof(guid_no_vf), -EINVAL },
	{ true, IFLA_VF_IB_NODE_GUID, &guid_node, 12, -ERANGE },
	/* ipoib_netdev_ops_pf has no ndo_set_vf_mac/vlan/trust...: EOPNOTSUPP
	 * whatever the VF index */
	{ true, IFLA_VF_MAC, &vf_mac_ok, sizeof(vf_mac_ok), -EOPNOTSUPP },
	{ true, IFLA_VF_MAC, &vf_mac_no_vf, sizeof(vf_mac_no_vf), -EOPNOTSUPP },
	{ true, IFLA_VF_VLAN, &vf_vlan_qos8, sizeof(vf_vlan_qos8), -EOPNOTSUPP },
	{ true, IFLA_VF_TRUST, &vf_trust_on, sizeof(vf_trust_on), -EOPNOTSUPP },
	{ true, IFLA_VF_LINK_STATE, &vf_link_state_3, sizeof(vf_link_state_3), -EINVAL },
};

START_TEST(test_vf_guid_errors)
{
	struct mnl_socket *nl = rt_open();
	char buf[BUF], reply[BUF];
	struct nlmsghdr *nlh;

	ck_assert_int_eq(ctl("pf %s %s 2%s", state, veth_a, guid_err_cases[_i].ib ? " ib" : ""), 0);
	nlh = link_req(buf, RTM_SETLINK, NLM_F_ACK);
	put_vf_attr(nlh, guid_err_cases[_i].type, guid_err_cases[_i].data, guid_err_cases[_i].len);
	ck_assert_int_eq(request_err(nl, nlh, reply), guid_err_cases[_i].err);
	assert_guids("0000000000000000", "0000000000000000");
	ck_assert_str_eq(vf_field(1, "mac"), "00:00:00:00:00:00");
	ck_assert_str_eq(vf_field(1, "link_state"), "0");
	mnl_socket_close(nl);
}
END_TEST

struct ib_vf_seen {
	int vf;
	uint64_t node, port;
	int guids, spoof, trust, rss;	/* counts, and the last settings */
	uint8_t mac[32];
};

static int ib_vf_attr_cb(const struct nlattr *a, void *data)
{
	struct ib_vf_seen *v = data;
	const uint32_t *p = mnl_attr_get_payload(a);
	struct ifla_vf_guid guid;

	switch (mnl_attr_get_type(a)) {
	case IFLA_VF_MAC:
		v->vf = (int)p[0];
		memcpy(v->mac, ((const struct ifla_vf_mac *)p)->mac, sizeof(v->mac));
		break;
	case IFLA_VF_SPOOFCHK:
		v->spoof = (int)p[1];
		break;
	case IFLA_VF_TRUST:
		v->trust = (int)p[1];
		break;
	case IFLA_VF_RSS_QUERY_EN:
		v->rss = (int)p[1];
		break;
	case IFLA_VF_IB_NODE_GUID:
		ck_assert_uint_eq(mnl_attr_get_payload_len(a), sizeof(guid));
		memcpy(&guid, p, sizeof(guid));	/* 4-byte aligned, the struct wants 8 */
		ck_assert_int_eq(guid.vf, v->vf);
		v->node = guid.guid;
		v->guids++;
		break;
	case IFLA_VF_IB_PORT_GUID:
		memcpy(&guid, p, sizeof(guid));
		ck_assert_int_eq(guid.vf, v->vf);
		v->port = guid.guid;
		v->guids++;
		break;
	}
	return MNL_CB_OK;
}

/* The reply of an IPoIB PF: ARPHRD_INFINIBAND and 20-byte addresses, and
 * per VF the GUIDs last set (0 never), mlx5_ib's zeroed spoof check, trust
 * and RSS query, and the PF's own address in IFLA_VF_MAC. */
START_TEST(test_vf_guid_getlink)
{
	struct mnl_socket *nl = rt_open();
	char buf[BUF], reply[BUF];
	const struct nlattr *a, *list = NULL, *info, *addr = NULL;
	const struct ifinfomsg *ifi;
	struct ib_vf_seen vfs[2];
	struct nlmsghdr *nlh;
	int n = 0;

	ck_assert_int_eq(ctl("pf %s %s 2 ib", state, veth_a), 0);
	nlh = link_req(buf, RTM_SETLINK, NLM_F_ACK);
	put_vf_attr(nlh, IFLA_VF_IB_PORT_GUID, &guid_port, sizeof(guid_port));
	ck_assert_int_eq(request_err(nl, nlh, reply), 0);
	nlh = link_req(buf, RTM_GETLINK, 0);
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_VF | RTEXT_FILTER_SKIP_STATS);
	tx(nl, nlh);
	rx(nl, reply);
	nlh = (struct nlmsghdr *)reply;
	ifi = mnl_nlmsg_get_payload(nlh);
	ck_assert_uint_eq(ifi->ifi_type, 32);	/* ARPHRD_INFINIBAND */
	mnl_attr_for_each(a, nlh, sizeof(*ifi)) {
		if (mnl_attr_get_type(a) == IFLA_ADDRESS)
			addr = a;
		if (mnl_attr_get_type(a) == IFLA_VFINFO_LIST)
			list = a;
	}
	ck_assert_ptr_nonnull(addr);
	ck_assert_uint_eq(mnl_attr_get_payload_len(addr), 20);
	ck_assert_ptr_nonnull(list);
	memset(vfs, 0, sizeof(vfs));
	mnl_attr_for_each_nested(info, list) {
		ck_assert_int_lt(n, 2);
		vfs[n].spoof = vfs[n].trust = vfs[n].rss = 7;
		mnl_attr_parse_nested(info, ib_vf_attr_cb, &vfs[n]);
		ck_assert_int_eq(vfs[n].vf, n);
		ck_assert_int_eq(vfs[n].guids, 2);
		ck_assert_int_eq(vfs[n].spoof, 0);
		ck_assert_int_eq(vfs[n].trust, 0);
		ck_assert_int_eq(vfs[n].rss, 0);
		ck_assert_mem_eq(vfs[n].mac, mnl_attr_get_payload(addr), 20);
		n++;
	}
	ck_assert_int_eq(n, 2);
	ck_assert_uint_eq(vfs[0].node, 0);
	ck_assert_uint_eq(vfs[0].port, 0);
	ck_assert_uint_eq(vfs[1].node, 0);
	ck_assert_uint_eq(vfs[1].port, 0x0002c90300216e78ULL);
	mnl_socket_close(nl);
}
END_TEST

struct guid_walk {
	int vfs;
	uint64_t node[2], port[2];
};

static int note_guids(int vf, const struct vf_config *cfg, void *arg)
{
	struct guid_walk *w = arg;

	ck_assert(cfg->guids);
	ck_assert_int_lt(vf, 2);
	w->node[vf] = cfg->node_guid;
	w->port[vf] = cfg->port_guid;
	w->vfs++;
	return 0;
}

/* The plugin's link module against the IPoIB PF: link_vf_set sends node and
 * port GUID one request each, so both take; link_vf_walk reads each VF's. */
START_TEST(test_vf_guid_link)
{
	struct vf_config cfg = { .node_guid = 0x0002c90300216e70ULL,
				 .port_guid = 0x0002c90300216e78ULL };
	struct guid_walk w = { 0 };
	struct cni_err err = { 0 };
	struct link_sock *s;
	int pf = (int)if_nametoindex(veth_a);

	ck_assert_int_eq(ctl("pf %s %s 2 ib", state, veth_a), 0);
	ck_assert_int_eq(link_sock_open(-1, &s, &err), 0);
	ck_assert_int_eq(link_vf_set(s, pf, 1, &cfg, VF_NODE_GUID | VF_PORT_GUID, &err), 0);
	assert_guids("0002c90300216e70", "0002c90300216e78");
	ck_assert_int_eq(link_vf_walk(s, pf, note_guids, &w), 0);
	ck_assert_int_eq(w.vfs, 2);
	ck_assert_uint_eq(w.node[0], 0);
	ck_assert_uint_eq(w.port[0], 0);
	ck_assert_uint_eq(w.node[1], cfg.node_guid);
	ck_assert_uint_eq(w.port[1], cfg.port_guid);
	/* an Ethernet PF has no ndo_set_vf_guid: the first GUID is refused */
	ck_assert_int_eq(ctl("pf %s %s 2", state, veth_a), 0);
	ck_assert_int_eq(link_vf_set(s, pf, 1, &cfg, VF_NODE_GUID | VF_PORT_GUID, &err),
			 -EOPNOTSUPP);
	ck_assert_msg(strstr(err.msg, "failed to set node_guid 00:02:c9:03:00:21:6e:70 on VF 1"),
		      "%s", err.msg);
	link_sock_close(s);
}
END_TEST

/* iproute2, preloaded, as an independent reader and writer: `ip link set
 * ... vf 1 node_guid X port_guid Y` puts both in one nest, so only the
 * node GUID takes; `ip link show` prints what the PF reports. */
START_TEST(test_vf_guid_iproute2)
{
	const char *lib = getenv("RDMASIM_LIB");
	char out[4096] = "", path[160];
	FILE *f;

	ck_assert_int_eq(ctl("pf %s %s 2 ib", state, veth_a), 0);
	ck_assert_int_eq(sh("LD_PRELOAD=%s ip link set dev %s vf 1 node_guid 00:02:c9:03:00:21:6e:70 "
			    "port_guid 00:02:c9:03:00:21:6e:78", lib, veth_a), 0);
	assert_guids("0002c90300216e70", "0000000000000000");
	ck_assert_int_eq(sh("LD_PRELOAD=%s ip link set dev %s vf 1 port_guid 00:02:c9:03:00:21:6e:78",
			    lib, veth_a), 0);
	assert_guids("0002c90300216e70", "0002c90300216e78");
	ck_assert_int_eq(sh("LD_PRELOAD=%s ip link show dev %s > %s/ip.out", lib, veth_a, dir), 0);
	snprintf(path, sizeof(path), "%s/ip.out", dir);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_gt(fread(out, 1, sizeof(out) - 1, f), 0);
	fclose(f);
	ck_assert_msg(strstr(out, "link/infiniband "), "%s", out);
	ck_assert_msg(strstr(out, "vf 1     link/infiniband"), "%s", out);
	ck_assert_msg(strstr(out, "NODE_GUID 00:02:c9:03:00:21:6e:70, PORT_GUID 00:02:c9:03:00:21:6e:78"),
		      "%s", out);
	ck_assert_msg(strstr(out, "NODE_GUID 00:00:00:00:00:00:00:00, PORT_GUID 00:00:00:00:00:00:00:00"),
		      "%s", out);
}
END_TEST

/* rdmasim-ctl getlink-error: a GETLINK of the PF asking for its VF info gets
 * that error, as from rtnl_getlink(); one that does not ask gets the link. */
START_TEST(test_vf_getlink_error)
{
	struct mnl_socket *nl = rt_open();
	char buf[BUF], reply[BUF];
	struct nlmsghdr *nlh;

	ck_assert_int_eq(ctl("pf %s %s 2", state, veth_a), 0);
	ck_assert_int_eq(ctl("getlink-error %s 90", state), 0);
	nlh = link_req(buf, RTM_GETLINK, 0);
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_VF | RTEXT_FILTER_SKIP_STATS);
	ck_assert_int_eq(request_err(nl, nlh, reply), -EMSGSIZE);
	ck_assert_uint_eq(((struct nlmsghdr *)reply)->nlmsg_seq, 7);
	tx(nl, link_req(buf, RTM_GETLINK, 0));
	rx(nl, reply);
	ck_assert_uint_eq(((struct nlmsghdr *)reply)->nlmsg_type, RTM_NEWLINK);
	ck_assert_int_eq(ctl("getlink-error %s 0", state), 0);
	nlh = link_req(buf, RTM_GETLINK, 0);
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_VF);
	tx(nl, nlh);
	rx(nl, reply);
	ck_assert_uint_eq(((struct nlmsghdr *)reply)->nlmsg_type, RTM_NEWLINK);
	mnl_socket_close(nl);
}
END_TEST

START_TEST(test_sys_get_layout)
{
	struct mnl_socket *nl = nl_open(true, true);
	char buf[BUF], reply[BUF];
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)reply;
	const struct nlattr *a;
	int mode = -1;

	tx(nl, req(buf, NLDEV(RDMA_NLDEV_CMD_SYS_GET), NLM_F_REQUEST | NLM_F_ACK, 77));
	rx(nl, reply);
	ck_assert_uint_eq(nlh->nlmsg_type, NLDEV(RDMA_NLDEV_CMD_SYS_GET));
	ck_assert_uint_eq(nlh->nlmsg_seq, 77);
	ck_assert_uint_eq(nlh->nlmsg_pid, mnl_socket_get_portid(nl));
	ck_assert_uint_eq(nlh->nlmsg_flags, 0);
	mnl_attr_for_each(a, nlh, 0)
		if (mnl_attr_get_type(a) == RDMA_NLDEV_SYS_ATTR_NETNS_MODE) {
			ck_assert_uint_eq(mnl_attr_get_payload_len(a), 1);
			mode = mnl_attr_get_u8(a);
		}
	ck_assert_int_eq(mode, 0);
	rx(nl, reply);
	ck_assert_int_eq(as_err(reply)->error, 0);
	ck_assert_uint_eq(as_err(reply)->msg.nlmsg_seq, 77);
	ck_assert_uint_eq(nlh->nlmsg_seq, 77);
	ck_assert(nlh->nlmsg_flags & NLM_F_CAPPED);
	rx_nothing(nl);
	mnl_socket_close(nl);
}
END_TEST

START_TEST(test_dump_layout)
{
	uint32_t idx[8];

	ck_assert_int_eq(dump(idx, 8), 2);
	ck_assert_uint_eq(idx[0], 3);
	ck_assert_uint_eq(idx[1], 4);
}
END_TEST

/* Doit replies then an ack; the reply to PORT_GET has the GET type. */
START_TEST(test_port_get_layout)
{
	struct mnl_socket *nl = nl_open(true, true);
	char buf[BUF], reply[BUF];
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)reply;
	struct nlmsghdr *r;
	struct rdmanl_dev dev;

	r = req(buf, NLDEV(RDMA_NLDEV_CMD_PORT_GET), NLM_F_REQUEST | NLM_F_ACK, 8);
	mnl_attr_put_u32(r, RDMA_NLDEV_ATTR_DEV_INDEX, 3);
	mnl_attr_put_u32(r, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	tx(nl, r);
	rx(nl, reply);
	ck_assert_uint_eq(nlh->nlmsg_type, NLDEV(RDMA_NLDEV_CMD_GET));
	ck_assert_int_eq(rdmanl_parse_dev(reply, &dev), 0);
	ck_assert_str_eq(dev.name, "mlx5_2");
	ck_assert_str_eq(dev.ndev_name, veth_a);
	ck_assert_int_eq(dev.ndev_index, (int)if_nametoindex(veth_a));
	rx(nl, reply);
	ck_assert_int_eq(as_err(reply)->error, 0);
	mnl_socket_close(nl);
}
END_TEST

/* A port dump names one device: its port 1, typed PORT_GET, then DONE. */
START_TEST(test_port_dump_layout)
{
	struct mnl_socket *nl = nl_open(true, true);
	char buf[BUF], reply[BUF];
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)reply;
	struct nlmsghdr *r;
	struct rdmanl_dev dev;

	r = req(buf, NLDEV(RDMA_NLDEV_CMD_PORT_GET), NLM_F_REQUEST | NLM_F_DUMP, 9);
	mnl_attr_put_u32(r, RDMA_NLDEV_ATTR_DEV_INDEX, 3);
	tx(nl, r);
	rx(nl, reply);
	ck_assert_uint_eq(nlh->nlmsg_type, NLDEV(RDMA_NLDEV_CMD_PORT_GET));
	ck_assert(nlh->nlmsg_flags & NLM_F_MULTI);
	ck_assert_int_eq(rdmanl_parse_dev(reply, &dev), 0);
	ck_assert_int_eq(dev.index, 3);
	ck_assert_str_eq(dev.ndev_name, veth_a);
	nlh = mnl_nlmsg_next(nlh, &(int){ BUF });
	ck_assert_uint_eq(nlh->nlmsg_type, NLMSG_DONE);
	rx_nothing(nl);
	mnl_socket_close(nl);
}
END_TEST

struct err_case {
	const char *name;
	uint16_t op;
	uint16_t flags;
	uint32_t index;		/* 0: none */
	bool short_index;
	int error;
	const char *extack;
};

static const struct err_case err_cases[] = {
	{ "unknown index", RDMA_NLDEV_CMD_GET, 0, 99, false, -EINVAL, NULL },
	{ "no index", RDMA_NLDEV_CMD_GET, 0, 0, false, -EINVAL, NULL },
	{ "short u32", RDMA_NLDEV_CMD_GET, 0, 3, true, -EINVAL,
	  "Attribute failed policy validation" },
	{ "port without port index", RDMA_NLDEV_CMD_PORT_GET, 0, 3, false, -EINVAL, NULL },
	{ "sys_get has no dump", RDMA_NLDEV_CMD_SYS_GET, NLM_F_DUMP, 0, false, -EINVAL, NULL },
	{ "no such op", 8, 0, 0, false, -EINVAL, NULL },
	{ "op past the end", RDMA_NLDEV_NUM_OPS, 0, 0, false, -EINVAL, NULL },
	{ "not simulated", RDMA_NLDEV_CMD_RES_GET, 0, 3, false, -EOPNOTSUPP,
	  "rdmasim: command not simulated" },
	{ "set without netns", RDMA_NLDEV_CMD_SET, 0, 0, false, -EINVAL, NULL },
};

/* Errors as the kernel sends them, with and without NETLINK_CAP_ACK. */
START_TEST(test_errors)
{
	const struct err_case *c = &err_cases[_i];
	char buf[BUF], reply[BUF];
	int cap;

	for (cap = 0; cap < 2; cap++) {
		struct mnl_socket *nl = nl_open(true, cap);
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)reply;
		struct nlmsghdr *r = req(buf, NLDEV(c->op), NLM_F_REQUEST | c->flags, 31);
		uint16_t two = 3;
		struct extack x;

		if (c->short_index)
			mnl_attr_put(r, RDMA_NLDEV_ATTR_DEV_INDEX, sizeof(two), &two);
		else if (c->index)
			mnl_attr_put_u32(r, RDMA_NLDEV_ATTR_DEV_INDEX, c->index);
		ck_assert_msg(request_err(nl, r, reply) == c->error, "%s", c->name);
		ck_assert_uint_eq(nlh->nlmsg_seq, 31);
		ck_assert_uint_eq(as_err(reply)->msg.nlmsg_type, NLDEV(c->op));
		ck_assert_int_eq(!!(nlh->nlmsg_flags & NLM_F_CAPPED), cap);
		if (!cap)
			ck_assert_int_eq(memcmp(&as_err(reply)->msg, r, r->nlmsg_len), 0);
		x = get_extack(reply);
		if (c->extack)
			ck_assert_str_eq(x.msg, c->extack);
		else
			ck_assert_ptr_null(x.msg);
		if (c->short_index)
			ck_assert_uint_eq(x.offs, MNL_NLMSG_HDRLEN);
		rx_nothing(nl);
		mnl_socket_close(nl);
	}
}
END_TEST

/* A dumpit that fails ends the dump with its -errno in NLMSG_DONE, not in
 * an NLMSG_ERROR (netlink_dump(); seen on 6.1 and 6.12 by the kernel lane):
 * a port dump without a device or of one not there. */
static const uint32_t dump_err_index[] = { 0, 99 };

START_TEST(test_dump_errors)
{
	struct mnl_socket *nl = nl_open(true, true);
	char buf[BUF], reply[BUF];
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)reply;
	struct nlmsghdr *r = req(buf, NLDEV(RDMA_NLDEV_CMD_PORT_GET), NLM_F_REQUEST | NLM_F_DUMP, 32);
	int err;

	if (dump_err_index[_i])
		mnl_attr_put_u32(r, RDMA_NLDEV_ATTR_DEV_INDEX, dump_err_index[_i]);
	tx(nl, r);
	rx(nl, reply);
	ck_assert_uint_eq(nlh->nlmsg_type, NLMSG_DONE);
	ck_assert_uint_eq(nlh->nlmsg_seq, 32);
	ck_assert_uint_eq(mnl_nlmsg_get_payload_len(nlh), sizeof(err));
	memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	ck_assert_int_eq(err, -EINVAL);
	rx_nothing(nl);
	mnl_socket_close(nl);
}
END_TEST

static int count_msgs(const struct nlmsghdr *nlh, void *arg)
{
	(void)nlh;
	++*(int *)arg;
	return 0;
}

/* The same through common's one exchange, as the plugins read every dump:
 * the errno in NLMSG_DONE is the request's (it once read as an empty dump). */
START_TEST(test_dump_errors_nlreq)
{
	char buf[BUF], text[NLREQ_TEXT_MAX];
	struct nlmsghdr *r = req(buf, NLDEV(RDMA_NLDEV_CMD_PORT_GET), NLM_F_REQUEST | NLM_F_DUMP, 33);
	struct nl_sock *sk;
	int msgs = 0;

	ck_assert_int_eq(nlreq_socket(NETLINK_RDMA, false, &sk), 0);
	mnl_attr_put_u32(r, RDMA_NLDEV_ATTR_DEV_INDEX, 99);
	ck_assert_int_eq(nlreq_exchange(sk, r, count_msgs, &msgs, text), -EINVAL);
	ck_assert_int_eq(msgs, 0);
	nl_socket_free(sk);
}
END_TEST

/* Without NETLINK_EXT_ACK there is no text; without NLM_F_REQUEST the
 * message is only acked. */
START_TEST(test_ack_options)
{
	struct mnl_socket *nl = nl_open(false, false);
	char buf[BUF], reply[BUF];
	struct nlmsghdr *r;

	r = req(buf, NLDEV(RDMA_NLDEV_CMD_GET), NLM_F_REQUEST, 3);
	mnl_attr_put(r, RDMA_NLDEV_ATTR_DEV_INDEX, 2, "ab");
	ck_assert_int_eq(request_err(nl, r, reply), -EINVAL);
	ck_assert(!(((struct nlmsghdr *)reply)->nlmsg_flags & NLM_F_ACK_TLVS));
	ck_assert_int_eq(request_err(nl, req(buf, NLDEV(RDMA_NLDEV_CMD_SYS_GET), NLM_F_ACK, 4),
				     reply), 0);
	rx_nothing(nl);
	mnl_socket_close(nl);
}
END_TEST

START_TEST(test_exclusive_visibility)
{
	uint32_t idx[8];
	struct mnl_socket *nl;
	char buf[BUF], reply[BUF];
	struct nlmsghdr *r;

	enter(pod_fd);
	ck_assert_int_eq(dump(idx, 8), 0);
	nl = nl_open(true, true);
	r = req(buf, NLDEV(RDMA_NLDEV_CMD_GET), NLM_F_REQUEST | NLM_F_ACK, 1);
	mnl_attr_put_u32(r, RDMA_NLDEV_ATTR_DEV_INDEX, 3);
	ck_assert_int_eq(request_err(nl, r, reply), -EINVAL);
	mnl_socket_close(nl);
	enter(host_fd);
	ck_assert_int_eq(dump(idx, 8), 2);
}
END_TEST

START_TEST(test_shared_visibility)
{
	uint32_t idx[8];

	ck_assert_int_eq(ctl("set-mode %s shared", state), 0);
	enter(pod_fd);
	ck_assert_int_eq(dump(idx, 8), 2);
	ck_assert_int_eq(raw_move(3, host_fd), -EOPNOTSUPP);
}
END_TEST

/* A soft device (rxe, siw: no disassociate_ucontext) never moves, in
 * exclusive mode too: EOPNOTSUPP without extack text, nothing changes, and
 * it reports no FW version (both as the kernel lane saw them). */
START_TEST(test_soft_device)
{
	struct mnl_socket *nl = nl_open(true, true);
	char buf[BUF], reply[BUF];
	struct nlmsghdr *r = move_req(buf, 3, pod_fd);
	const struct nlattr *a;
	int fw = 0;

	ck_assert_int_eq(ctl("soft %s mlx5_2", state), 0);
	ck_assert_int_eq(request_err(nl, r, reply), -EOPNOTSUPP);
	ck_assert_ptr_null(get_extack(reply).msg);
	ck_assert_str_eq(dev_netns(3), "host");
	r = req(buf, NLDEV(RDMA_NLDEV_CMD_GET), NLM_F_REQUEST, 5);
	mnl_attr_put_u32(r, RDMA_NLDEV_ATTR_DEV_INDEX, 3);
	tx(nl, r);
	rx(nl, reply);
	mnl_attr_for_each(a, (const struct nlmsghdr *)reply, 0)
		fw += mnl_attr_get_type(a) == RDMA_NLDEV_ATTR_FW_VERSION;
	ck_assert_int_eq(fw, 0);
	mnl_socket_close(nl);
	ck_assert_int_ne(ctl("soft %s nosuchdev", state), 0);
}
END_TEST

/* Host to pod and back, each issued from the netns the device is in; the
 * netdev shows up in PORT_GET only where it is, under its name there. */
START_TEST(test_move_round_trip)
{
	char buf[BUF], reply[BUF];
	struct mnl_socket *nl;
	struct nlmsghdr *r;
	struct rdmanl_dev dev;
	uint32_t idx[8];

	ck_assert_int_eq(raw_move(3, pod_fd), 0);
	ck_assert_str_eq(dev_netns(3), pod_ino_str());
	ck_assert_str_eq(dev_netns(4), "host");
	ck_assert_int_eq(dump(idx, 8), 1);
	ck_assert_uint_eq(idx[0], 4);

	ck_assert_int_eq(sh("ip link set %s netns %s name net1", veth_a, ns), 0);
	enter(pod_fd);
	ck_assert_int_eq(dump(idx, 8), 1);
	ck_assert_uint_eq(idx[0], 3);
	nl = nl_open(true, true);
	r = req(buf, NLDEV(RDMA_NLDEV_CMD_PORT_GET), NLM_F_REQUEST, 2);
	mnl_attr_put_u32(r, RDMA_NLDEV_ATTR_DEV_INDEX, 3);
	mnl_attr_put_u32(r, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	tx(nl, r);
	rx(nl, reply);
	ck_assert_int_eq(rdmanl_parse_dev(reply, &dev), 0);
	ck_assert_str_eq(dev.ndev_name, "net1");
	ck_assert_int_eq(dev.ndev_index, (int)if_nametoindex("net1"));
	mnl_socket_close(nl);

	ck_assert_int_eq(raw_move(3, host_fd), 0);
	ck_assert_str_eq(dev_netns(3), "host");
	ck_assert_int_eq(dump(idx, 8), 0);
}
END_TEST

/* The socket sees the device, but the thread sending is elsewhere. */
START_TEST(test_move_wrong_thread_netns)
{
	struct mnl_socket *nl;
	char buf[BUF], reply[BUF];

	ck_assert_int_eq(raw_move(3, pod_fd), 0);
	enter(pod_fd);
	nl = nl_open(true, true);
	enter(host_fd);
	ck_assert_int_eq(request_err(nl, move_req(buf, 3, host_fd), reply), -ENODEV);
	mnl_socket_close(nl);
	ck_assert_str_eq(dev_netns(3), pod_ino_str());
}
END_TEST

START_TEST(test_move_failures)
{
	int file = open(state, O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(file, 0);
	ck_assert_int_eq(raw_move(99, pod_fd), -EINVAL);
	ck_assert_int_eq(raw_move(3, 1000), -EBADF);
	ck_assert_int_eq(raw_move(3, file), -EINVAL);
	ck_assert_int_eq(raw_move(3, host_fd), 0);
	ck_assert_int_eq(raw_move(3, pod_fd), 0);
	ck_assert_int_eq(raw_move(3, pod_fd), -EINVAL);
	ck_assert_str_eq(dev_netns(3), pod_ino_str());
	close(file);
}
END_TEST

/* A SYS_SET of the netns mode: the errno, and whether the ack carried any
 * extack attribute. */
static int sys_set_ack(uint8_t shared, bool *extack)
{
	struct mnl_socket *nl = nl_open(true, true);
	char buf[BUF], reply[BUF];
	struct nlmsghdr *r;
	int ret;

	r = req(buf, NLDEV(RDMA_NLDEV_CMD_SYS_SET), NLM_F_REQUEST | NLM_F_ACK, 6);
	mnl_attr_put_u8(r, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, shared);
	ret = request_err(nl, r, reply);
	*extack = ((struct nlmsghdr *)reply)->nlmsg_flags & NLM_F_ACK_TLVS;
	mnl_socket_close(nl);
	return ret;
}

static int sys_set(uint8_t shared)
{
	bool extack;

	return sys_set_ack(shared, &extack);
}

/* The state file's "mode". */
static bool state_shared(void)
{
	char *buf = slurp(state);
	const cJSON *mode;
	cJSON *root;
	bool shared;

	root = cJSON_Parse(buf);
	free(buf);
	mode = cJSON_GetObjectItem(root, "mode");
	ck_assert(cJSON_IsString(mode));
	shared = !strcmp(mode->valuestring, "shared");
	cJSON_Delete(root);
	return shared;
}

/* rdma_compatdev_set(): EBUSY, no extack, while any netns but the host's
 * exists: this test's pod netns does, devices or not. The same mode is no
 * change. The control path (a node loaded with another ib_core netns_mode)
 * refuses only while a device is out of the host. */
START_TEST(test_sys_set)
{
	bool extack = true;

	ck_assert_int_eq(sys_set(2), -EINVAL);
	ck_assert_int_eq(sys_set(0), 0);
	ck_assert_int_eq(sys_set_ack(1, &extack), -EBUSY);
	ck_assert(!extack);
	ck_assert(!state_shared());
	enter(pod_fd);
	ck_assert_int_eq(sys_set(1), -EBUSY);
	ck_assert_int_eq(sys_set(0), 0);
	enter(host_fd);
	ck_assert_int_eq(raw_move(3, pod_fd), 0);
	ck_assert_int_eq(sys_set(1), -EBUSY);
	ck_assert_int_ne(ctl("set-mode %s shared", state), 0);
	enter(pod_fd);
	ck_assert_int_eq(raw_move(3, host_fd), 0);
	enter(host_fd);
	ck_assert_int_eq(ctl("set-mode %s shared", state), 0);
	ck_assert(state_shared());
}
END_TEST

/* ---- SYS_SET on a node with no netns but the host's ------------------------ */

/* A netns other than the host's, and what keeps it alive. */
struct held {
	pid_t pid;
	int fd;
	char bind[160];
	pthread_t thread;
	int ready[2], done[2];
};

/* A child in a netns of its own (socket_only: it makes a socket there and
 * goes back to the host's, so only the socket holds that netns), once it is. */
static pid_t netns_child(bool socket_only)
{
	int ready[2];
	pid_t pid;
	char c;

	if (pipe(ready) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		if (unshare(CLONE_NEWNET) < 0 ||
		    (socket_only && (socket(AF_INET, SOCK_DGRAM, 0) < 0 ||
				     setns(host_fd, CLONE_NEWNET) < 0)))
			_exit(1);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	if (pid > 0 && read(ready[0], &c, 1) != 1) {
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(ready[0]);
	return pid;
}

static void child_end(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static int hold_process(struct held *h)
{
	h->pid = netns_child(false);
	return h->pid > 0 ? 0 : -1;
}

static int hold_socket(struct held *h)
{
	h->pid = netns_child(true);
	return h->pid > 0 ? 0 : -1;
}

static void release_child(struct held *h)
{
	child_end(h->pid);
}

/* An open nsfs file, as a runtime keeps its pod's: the process is gone. */
static int hold_fd(struct held *h)
{
	char path[64];
	pid_t pid = netns_child(false);

	if (pid < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
	h->fd = open(path, O_RDONLY | O_CLOEXEC);
	child_end(pid);
	return h->fd >= 0 ? 0 : -1;
}

static void release_fd(struct held *h)
{
	close(h->fd);
}

/* A bind mount, as `ip netns add` makes: the process is gone. */
static int hold_mount(struct held *h)
{
	char path[64];
	pid_t pid = netns_child(false);
	int fd, ret;

	if (pid < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
	snprintf(h->bind, sizeof(h->bind), "%s/bound-netns", dir);
	fd = open(h->bind, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ret = fd >= 0 && mount(path, h->bind, NULL, MS_BIND, NULL) == 0 ? 0 : -1;
	if (fd >= 0)
		close(fd);
	child_end(pid);
	return ret;
}

static void release_mount(struct held *h)
{
	umount2(h->bind, MNT_DETACH);
}

/* One thread of the caller's own process, in a netns of its own. */
static void *own_netns_thread(void *arg)
{
	struct held *h = arg;
	char c;

	if (unshare(CLONE_NEWNET) == 0 && write(h->ready[1], "x", 1) == 1)
		(void)!read(h->done[0], &c, 1);
	return NULL;
}

static int hold_thread(struct held *h)
{
	char c;

	if (pipe(h->ready) < 0 || pipe(h->done) < 0 ||
	    pthread_create(&h->thread, NULL, own_netns_thread, h) != 0)
		return -1;
	return read(h->ready[0], &c, 1) == 1 ? 0 : -1;
}

static void release_thread(struct held *h)
{
	(void)!write(h->done[1], "x", 1);
	pthread_join(h->thread, NULL);
}

static const struct {
	const char *what;
	int (*hold)(struct held *h);
	void (*release)(struct held *h);
} holders[] = {
	{ "a process (unshare -n sleep)", hold_process, release_child },
	{ "a socket whose process went back to the host netns", hold_socket, release_child },
	{ "an open nsfs file", hold_fd, release_fd },
	{ "a bind mount", hold_mount, release_mount },
	{ "a thread of the caller", hold_thread, release_thread },
};

/* What the new PID namespace's init saw, for the test to assert. */
struct alone_seen {
	int empty_set, empty_back, held, held_extack, held_shared, hold_ok, gone_set, gone_back;
};

/* Every SYS_SET in a node that has no netns but the host's, then one that
 * holder keeps alive, then none again. */
static void alone_run(int holder, struct alone_seen *seen)
{
	struct held h = { 0 };
	bool extack;

	seen->empty_set = sys_set(1);
	seen->empty_back = sys_set(0);
	seen->hold_ok = holders[holder].hold(&h);
	if (seen->hold_ok)
		return;
	seen->held = sys_set_ack(1, &extack);
	seen->held_extack = extack;
	seen->held_shared = state_shared();
	holders[holder].release(&h);
	seen->gone_set = sys_set(1);
	seen->gone_back = sys_set(0);
}

/* Detaches every nsfs mount of this (private) mount namespace: the netns
 * bind mounts other tests of the machine made, copied into it. */
static void drop_nsfs_mounts(void)
{
	char *line = NULL, mnt[PATH_MAX];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	size_t size = 0;
	const char *dash;

	if (!f)
		return;
	while (getline(&line, &size, f) > 0) {
		dash = strstr(line, " - ");
		if (dash && !strncmp(dash, " - nsfs ", 8) &&
		    sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1)
			umount2(mnt, MNT_DETACH);
	}
	free(line);
	fclose(f);
}

/* A node of its own: a PID namespace, whose /proc shows only this test's
 * processes, and a private mount namespace without the netns bind mounts it
 * copied. Other tests on this machine make netns at any time; here the only
 * netns are the host's and the ones the test makes, as on a node without
 * pods. Its init runs alone_run. */
static int alone(int holder, struct alone_seen *seen)
{
	pid_t pid = fork(), init;
	int status = -1;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (unshare(CLONE_NEWNS | CLONE_NEWPID) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			_exit(2);
		drop_nsfs_mounts();
		init = fork();
		if (init == 0) {
			close(pod_fd);
			if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
				_exit(3);
			alone_run(holder, seen);
			_exit(0);
		}
		if (init < 0 || waitpid(init, &status, 0) < 0)
			_exit(4);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 5);
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The kernel refuses a mode change while a netns other than init_net
 * exists, however it is held, and allows it as soon as the last is gone. */
START_TEST(test_sys_set_alone)
{
	struct alone_seen *seen = mmap(NULL, sizeof(*seen), PROT_READ | PROT_WRITE,
				       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	const char *what = holders[_i].what;

	ck_assert_ptr_ne(seen, MAP_FAILED);
	memset(seen, 0xff, sizeof(*seen));
	ck_assert_msg(alone(_i, seen) == 0, "%s: the node of its own could not be made", what);
	ck_assert_msg(seen->empty_set == 0, "%s: no other netns, change refused: %d", what,
		      seen->empty_set);
	ck_assert_int_eq(seen->empty_back, 0);
	ck_assert_msg(seen->hold_ok == 0, "%s: the netns could not be made", what);
	ck_assert_msg(seen->held == -EBUSY, "%s: a change got %d, not EBUSY", what, seen->held);
	ck_assert_msg(!seen->held_extack, "%s: EBUSY came with extack", what);
	ck_assert_msg(!seen->held_shared, "%s: the refused change was made", what);
	ck_assert_msg(seen->gone_set == 0, "%s: gone, the change got %d", what, seen->gone_set);
	ck_assert_int_eq(seen->gone_back, 0);
	ck_assert(!state_shared());
	munmap(seen, sizeof(*seen));
}
END_TEST

/* ib_core numbers devices from 0 (assign_name(): xa_alloc_cyclic() from
 * 0): index 0 is a device like any other, raw and through rdmanl. */
START_TEST(test_index_zero)
{
	struct cni_err err = { 0 };
	char buf[BUF], reply[BUF];
	struct rdmanl_dev dev;
	struct mnl_socket *nl;
	struct nlmsghdr *r;
	uint32_t idx[8];

	ck_assert_int_eq(ctl("add %s mlx5_0 0 0000:3b:00.1 lo", state), 0);
	ck_assert_int_ne(ctl("add %s mlx5_9 0 0000:3b:00.9 lo", state), 0);
	ck_assert_int_eq(dump(idx, 8), 3);
	ck_assert_uint_eq(idx[2], 0);
	nl = nl_open(true, true);
	r = req(buf, NLDEV(RDMA_NLDEV_CMD_GET), NLM_F_REQUEST, 2);
	mnl_attr_put_u32(r, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	tx(nl, r);
	rx(nl, reply);
	ck_assert_int_eq(rdmanl_parse_dev(reply, &dev), 0);
	ck_assert_str_eq(dev.name, "mlx5_0");
	ck_assert_uint_eq(dev.index, 0);
	mnl_socket_close(nl);

	ck_assert_int_eq(rdmanl_dev_by_name(host_fd, "mlx5_0", &dev, &err), 0);
	ck_assert_uint_eq(dev.index, 0);
	ck_assert_str_eq(dev.ndev_name, "lo");
	ck_assert_int_eq(rdmanl_dev_move(host_fd, dev.index, pod_fd, &err), 0);
	ck_assert_str_eq(dev_netns(0), pod_ino_str());
	ck_assert_int_eq(rdmanl_dev_by_name(host_fd, "mlx5_0", &dev, &err), -ENODEV);
	ck_assert_int_eq(rdmanl_dev_by_name(pod_fd, "mlx5_0", &dev, &err), 0);
	ck_assert_uint_eq(dev.index, 0);
	ck_assert_int_eq(rdmanl_dev_move(pod_fd, dev.index, host_fd, &err), 0);
	ck_assert_str_eq(dev_netns(0), "host");
	ck_assert_int_eq(err.code, CNI_OK);
}
END_TEST

/* rdmasim-ctl refuses what it cannot model and does what the kernel does
 * when a netns dies. */
START_TEST(test_ctl)
{
	ck_assert_int_ne(ctl("add %s mlx5_9 9 0000:3b:00.9 nosuchdev0", state), 0);
	ck_assert_int_ne(ctl("add %s mlx5_9 3 0000:3b:00.9 lo", state), 0);
	ck_assert_int_ne(ctl("add %s mlx5_2 9 0000:3b:00.9 lo", state), 0);
	ck_assert_int_ne(ctl("set-mode %s sharing", state), 0);
	ck_assert_int_ne(ctl("init %s/new.json both", dir), 0);
	ck_assert_int_eq(raw_move(3, pod_fd), 0);
	ck_assert_int_eq(ctl("netns-gone %s %lu", state, pod_ino), 0);
	ck_assert_str_eq(dev_netns(3), "host");
	ck_assert_str_eq(dev_netns(9), "");
}
END_TEST

/* The same flows through rdmanl. */
START_TEST(test_rdmanl_flows)
{
	struct cni_err err = { 0 };
	struct rdmanl_dev *devs, dev;
	enum rdmanl_mode mode;
	int n;

	ck_assert_int_eq(rdmanl_get_mode(pod_fd, &mode, &err), 0);
	ck_assert_int_eq(mode, RDMANL_MODE_EXCLUSIVE);
	ck_assert_int_eq(rdmanl_dev_list(-1, &devs, &n, &err), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(devs[0].name, "mlx5_2");
	ck_assert_str_eq(devs[0].ndev_name, veth_a);
	free(devs);
	ck_assert_int_eq(rdmanl_dev_list(pod_fd, &devs, &n, &err), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_ptr_null(devs);
	ck_assert_int_eq(rdmanl_dev_by_name(pod_fd, "mlx5_2", &dev, &err), -ENODEV);
	ck_assert_int_eq(err.code, CNI_OK);
	ck_assert_int_eq(rdmanl_dev_by_netdev(-1, (int)if_nametoindex(veth_a), &dev, &err), 0);
	ck_assert_str_eq(dev.name, "mlx5_2");
	ck_assert_int_eq(dev.index, 3);
	ck_assert_int_eq(rdmanl_dev_by_netdev(pod_fd, (int)if_nametoindex(veth_a), &dev, &err),
			 -ENODEV);
	ck_assert_int_eq(err.code, CNI_OK);

	ck_assert_int_eq(rdmanl_dev_by_name(host_fd, "mlx5_2", &dev, &err), 0);
	ck_assert_int_eq(rdmanl_dev_move(host_fd, dev.index, pod_fd, &err), 0);
	ck_assert_int_eq(rdmanl_dev_by_name(pod_fd, "mlx5_2", &dev, &err), 0);
	ck_assert_int_eq(dev.ndev_index, 0);
	ck_assert_int_eq(rdmanl_dev_move(pod_fd, dev.index, host_fd, &err), 0);
	ck_assert_int_eq(err.code, CNI_OK);
	ck_assert_str_eq(dev_netns(3), "host");

	ck_assert_int_eq(rdmanl_dev_move(pod_fd, 3, host_fd, &err), -EINVAL);
	ck_assert_int_eq(err.code, CNI_ERR_RDMA_NETLINK);
	ck_assert_str_eq(err.msg, "failed to move RDMA device 3: Invalid argument");

	ck_assert_int_eq(ctl("set-mode %s shared", state), 0);
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(rdmanl_get_mode(-1, &mode, &err), 0);
	ck_assert_int_eq(mode, RDMANL_MODE_SHARED);
	ck_assert_int_eq(rdmanl_dev_move(host_fd, 3, pod_fd, &err), -EOPNOTSUPP);
	ck_assert_int_eq(err.code, CNI_ERR_RDMA_NETLINK);
}
END_TEST

/* A node's shape: 8 PFs with 8 VFs each and the PFs' own devices, 72 more
 * devices (the old fixed list held 64). The dump comes in several
 * datagrams, as the kernel's does past one skb. */
START_TEST(test_rdmanl_many)
{
	char args[4096] = "", *at = args;
	struct cni_err err = { 0 };
	struct rdmanl_dev *devs, dev;
	char *patched, *whole;
	int n, name_sum = 0;

	for (int i = 0; i < 72; i++)
		at += sprintf(at, " mlx5_%d %d 0000:%02x:%02x.%d lo", 10 + i, 100 + i, 0x40 + i / 9,
			      i % 9 / 8, i % 9 % 8);
	ck_assert_int_eq(ctl("add %s%s", state, args), 0);
	ck_assert_int_eq(rdmanl_dev_list(-1, &devs, &n, &err), 0);
	ck_assert_int_eq(n, 74);
	for (int i = 2; i < n; i++) {
		ck_assert_int_eq(devs[i].index, 98 + i);
		ck_assert_int_eq(devs[i].ndev_index, (int)if_nametoindex("lo"));
		name_sum += atoi(devs[i].name + strlen("mlx5_"));
	}
	ck_assert_int_eq(name_sum, 72 * 10 + 71 * 72 / 2);
	free(devs);
	ck_assert_int_eq(rdmanl_dev_by_name(-1, "mlx5_81", &dev, &err), 0);
	ck_assert_int_eq(dev.index, 171);
	ck_assert_str_eq(dev.ndev_name, "lo");
	ck_assert_int_eq(rdmanl_dev_by_name(-1, "mlx5_82", &dev, &err), -ENODEV);
	ck_assert_int_eq(rdmanl_dev_move(host_fd, 171, pod_fd, &err), 0);
	/* the move's own snapshot update serves the next requests */
	ck_assert_int_eq(rdmanl_dev_list(pod_fd, &devs, &n, &err), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(devs[0].name, "mlx5_81");
	free(devs);
	ck_assert_int_eq(rdmanl_dev_by_name(-1, "mlx5_81", &dev, &err), -ENODEV);
	ck_assert_int_eq(rdmanl_dev_by_name(-1, "mlx5_80", &dev, &err), 0);
	ck_assert_int_eq(dev.index, 170);
	ck_assert_int_eq(err.code, CNI_OK);
	/* a move rewrites only its device's object: the same file as a whole
	 * rewrite (a save of a change it cannot patch) makes */
	patched = slurp(state);
	ck_assert_str_eq(dev_netns(171), pod_ino_str());
	ck_assert_str_eq(dev_netns(170), "host");
	ck_assert_str_eq(dev_netns(3), "host");
	ck_assert_int_eq(ctl("set-mode %s exclusive", state), 0);
	whole = slurp(state);
	ck_assert_str_eq(patched, whole);
	free(patched);
	free(whole);
	/* and back, patched twice over the snapshot */
	ck_assert_int_eq(rdmanl_dev_move(pod_fd, 171, host_fd, &err), 0);
	ck_assert_int_eq(rdmanl_dev_by_name(-1, "mlx5_81", &dev, &err), 0);
	ck_assert_str_eq(dev_netns(171), "host");
}
END_TEST

/* The raw dump of 74 devices: several datagrams, none past one skb, every
 * device once, then NLMSG_DONE. */
START_TEST(test_dump_datagrams)
{
	struct mnl_socket *nl = nl_open(false, false);
	char args[4096] = "", *at = args, buf[32768];
	struct nlmsghdr *req = (struct nlmsghdr *)buf;
	int datagrams = 0, devices = 0;
	bool done = false;

	for (int i = 0; i < 72; i++)
		at += sprintf(at, " mlx5_%d %d 0000:50:%02x.%d lo", 10 + i, 100 + i, i / 8, i % 8);
	ck_assert_int_eq(ctl("add %s%s", state, args), 0);
	req = mnl_nlmsg_put_header(buf);
	req->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET);
	req->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req->nlmsg_seq = 7;
	ck_assert_int_ge(mnl_socket_sendto(nl, req, req->nlmsg_len), 0);
	while (!done) {
		ssize_t len = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
		int rem = (int)len;

		ck_assert_int_gt(len, 0);
		ck_assert_int_le(len, 3776);
		datagrams++;
		for (; mnl_nlmsg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem)) {
			ck_assert_int_eq(nlh->nlmsg_seq, 7);
			if (nlh->nlmsg_type == NLMSG_DONE)
				done = true;
			else
				devices++;
		}
	}
	ck_assert_int_eq(devices, 74);
	ck_assert_int_gt(datagrams, 1);
	mnl_socket_close(nl);
}
END_TEST

/* The kernel's extack text reaches err details. */
START_TEST(test_rdmanl_extack)
{
	struct cni_err err = { 0 };
	struct rdmanl_dev dev;

	ck_assert_int_eq(unlink(state), 0);
	ck_assert_int_eq(rdmanl_dev_by_name(-1, "mlx5_2", &dev, &err), -ENOENT);
	ck_assert_int_eq(err.code, CNI_ERR_RDMA_NETLINK);
	ck_assert_str_eq(err.details, "rdmasim: cannot load the state file");
}
END_TEST

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

int main(void)
{
	Suite *s = suite_create("rdmasim");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	char run_dir[] = "/tmp/rdmasim-XXXXXX";

	if (geteuid() != 0) {
		fprintf(stderr, "SKIP: needs root (network namespaces)\n");
		return 77;
	}
	if (!getenv("LD_PRELOAD") || !strstr(getenv("LD_PRELOAD"), "librdmasim") ||
	    !getenv("RDMASIM_CTL")) {
		fprintf(stderr, "SKIP: run by meson (LD_PRELOAD=librdmasim.so, RDMASIM_CTL)\n");
		return 77;
	}
	/* Only this process needs the simulator; ip, sh and rdmasim-ctl do not,
	 * but for the tests that run iproute2 under it on purpose. */
	setenv("RDMASIM_LIB", getenv("LD_PRELOAD"), 1);
	unsetenv("LD_PRELOAD");
	if (!mkdtemp(run_dir))
		return 1;
	setenv("RDMASIM_RUN_DIR", run_dir, 1);
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_sys_get_layout);
	tcase_add_test(tc, test_dump_layout);
	tcase_add_test(tc, test_port_get_layout);
	tcase_add_test(tc, test_port_dump_layout);
	tcase_add_loop_test(tc, test_errors, 0, N(err_cases));
	tcase_add_loop_test(tc, test_dump_errors, 0, N(dump_err_index));
	tcase_add_test(tc, test_dump_errors_nlreq);
	tcase_add_test(tc, test_ack_options);
	tcase_add_test(tc, test_exclusive_visibility);
	tcase_add_test(tc, test_shared_visibility);
	tcase_add_test(tc, test_move_round_trip);
	tcase_add_test(tc, test_soft_device);
	tcase_add_test(tc, test_move_wrong_thread_netns);
	tcase_add_test(tc, test_move_failures);
	tcase_add_test(tc, test_sys_set);
	tcase_add_loop_test(tc, test_sys_set_alone, 0, N(holders));
	tcase_add_test(tc, test_index_zero);
	tcase_add_test(tc, test_ctl);
	tcase_add_test(tc, test_rdmanl_flows);
	tcase_add_test(tc, test_rdmanl_extack);
	tcase_add_test(tc, test_rdmanl_many);
	tcase_add_test(tc, test_dump_datagrams);
	tcase_add_loop_test(tc, test_vf_errors, 0, N(vf_err_cases));
	tcase_add_test(tc, test_vf_vlan_list);
	tcase_add_test(tc, test_vf_partial_and_extra);
	tcase_add_test(tc, test_vf_getlink);
	tcase_add_test(tc, test_vf_getlink_stats);
	tcase_add_test(tc, test_vf_getlink_error);
	tcase_add_test(tc, test_vf_guid_set);
	tcase_add_test(tc, test_vf_guid_one_per_nest);
	tcase_add_loop_test(tc, test_vf_guid_errors, 0, N(guid_err_cases));
	tcase_add_test(tc, test_vf_guid_getlink);
	tcase_add_test(tc, test_vf_guid_iproute2);
	tcase_add_test(tc, test_vf_guid_link);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	sweep(getpid(), run_dir);
	return failed ? 1 : 0;
}
