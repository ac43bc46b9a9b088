// SPDX-License-Identifier: Apache-2.0
/* The kernel lane's probe: RDMA netlink and VF-info requests sent to whatever answers them (the kernel in a guest, rdmasim outside), each answer printed as one normalized line for a diff. */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>
#include <rdma/rdma_netlink.h>
#include "link.h"
#include "linkvf.h"
#include "rdmanl.h"

#define RDMA_TYPE(op) RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op)

/* What one exchange got: the error (0, or -errno of NLMSG_ERROR), whether it
 * carried extack text, and its data messages described one by one. */
struct answer {
	int err;
	int done_err;		/* NLMSG_DONE's payload */
	bool extack;
	int msgs;
	char text[8192];
};

static void append(struct answer *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void append(struct answer *a, const char *fmt, ...)
{
	size_t len = strlen(a->text);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->text + len, sizeof(a->text) - len, fmt, ap);
	va_end(ap);
}

/* Attributes an RDMA answer is judged by, value and all; the rest by type
 * alone (GUIDs, node types and ifindexes belong to the device, not to the
 * kernel's rules). */
static bool rdma_value_kept(uint16_t type)
{
	switch (type) {
	case RDMA_NLDEV_ATTR_DEV_INDEX:
	case RDMA_NLDEV_ATTR_DEV_NAME:
	case RDMA_NLDEV_ATTR_PORT_INDEX:
	case RDMA_NLDEV_SYS_ATTR_NETNS_MODE:
		return true;
	default:
		return false;
	}
}

static int rdma_attr(const struct nlattr *attr, void *arg)
{
	struct answer *a = arg;
	uint16_t type = mnl_attr_get_type(attr);
	uint16_t len = mnl_attr_get_payload_len(attr);

	append(a, " %u", type);
	if (!rdma_value_kept(type))
		return MNL_CB_OK;
	if (type == RDMA_NLDEV_ATTR_DEV_NAME)
		append(a, "=%.*s", (int)strnlen(mnl_attr_get_payload(attr), len),
		       (const char *)mnl_attr_get_payload(attr));
	else if (len == 1)
		append(a, "=%u", mnl_attr_get_u8(attr));
	else if (len == 4)
		append(a, "=%u", mnl_attr_get_u32(attr));
	return MNL_CB_OK;
}

static int rdma_msg(const struct nlmsghdr *nlh, void *arg)
{
	struct answer *a = arg;

	a->msgs++;
	append(a, " {op %u:", RDMA_NL_GET_OP(nlh->nlmsg_type));
	mnl_attr_parse(nlh, 0, rdma_attr, a);
	append(a, "}");
	return MNL_CB_OK;
}

/* The VF list of a GETLINK answer: its raw 16-bit length, the entries
 * counted by walking IFLA_VF_INFO nests to the end of the message (the
 * length wraps past 64 KiB), the attribute types of the first entry and the
 * type of what follows the list. */
static void vf_list(struct answer *a, const struct nlmsghdr *nlh, const struct nlattr *list)
{
	const char *end = (const char *)nlh + nlh->nlmsg_len;
	const struct nlattr *e = mnl_attr_get_payload(list), *in;
	int n = 0;

	append(a, " vfinfo_len=%u", list->nla_len);
	while ((const char *)e + sizeof(*e) <= end && mnl_attr_get_type(e) == IFLA_VF_INFO &&
	       e->nla_len >= sizeof(*e) && (const char *)e + e->nla_len <= end) {
		if (n++ == 0) {
			append(a, " vf0=[");
			mnl_attr_for_each_nested(in, e)
				append(a, " %u:%u", mnl_attr_get_type(in), mnl_attr_get_payload_len(in));
			append(a, " ]");
		}
		e = (const struct nlattr *)((const char *)e + MNL_ALIGN(e->nla_len));
	}
	append(a, " entries=%d", n);
	if ((const char *)e + sizeof(*e) <= end)
		append(a, " then=%u", mnl_attr_get_type(e));
	else
		append(a, " then=end");
}

static int link_msg(const struct nlmsghdr *nlh, void *arg)
{
	struct answer *a = arg;
	const struct nlattr *attr;

	a->msgs++;
	mnl_attr_for_each(attr, nlh, sizeof(struct ifinfomsg)) {
		if (mnl_attr_get_type(attr) == IFLA_NUM_VF)
			append(a, " num_vf=%u", mnl_attr_get_u32(attr));
		if (mnl_attr_get_type(attr) == IFLA_VFINFO_LIST) {
			vf_list(a, nlh, attr);
			break;	/* its length cannot be trusted past 64 KiB */
		}
	}
	return MNL_CB_OK;
}

static int on_error(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	struct answer *a = arg;
	const struct nlattr *attr;
	size_t off = sizeof(*e);

	a->err = e->error;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
		mnl_attr_for_each(attr, nlh, off)
			if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG)
				a->extack = true;
	return MNL_CB_STOP;
}

/* A dump's end; a dumpit that failed ends it with its -errno here, not in
 * an NLMSG_ERROR. */
static int on_done(const struct nlmsghdr *nlh, void *arg)
{
	struct answer *a = arg;
	int err = 0;

	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(err))
		memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	a->done_err = err;
	return MNL_CB_STOP;
}

/* Sends req on a new socket of bus (NETLINK_EXT_ACK, NETLINK_CAP_ACK, as
 * the plugin's) and reads until the ack, the error or the dump's end. */
static void exchange(int bus, struct nlmsghdr *req, mnl_cb_t cb, struct answer *a)
{
	static char buf[1 << 20];
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = { [NLMSG_ERROR] = on_error, [NLMSG_DONE] = on_done };
	struct mnl_socket *nl = mnl_socket_open(bus);
	int one = 1, ret = MNL_CB_OK;
	ssize_t n;

	memset(a, 0, sizeof(*a));
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		a->err = -errno;
		goto out;
	}
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &one, sizeof(one));
	req->nlmsg_seq = 1;
	if (mnl_socket_sendto(nl, req, req->nlmsg_len) < 0) {
		a->err = -errno;
		goto out;
	}
	while (ret > MNL_CB_STOP) {
		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n <= 0) {
			a->err = n < 0 ? -errno : -ENODATA;
			break;
		}
		ret = mnl_cb_run2(buf, n, 1, mnl_socket_get_portid(nl), cb, a, ctl, NLMSG_MIN_TYPE);
	}
out:
	if (nl)
		mnl_socket_close(nl);
}

static void print(const char *name, const struct answer *a)
{
	printf("%s: err=%s done=%s extack=%s msgs=%d%s\n", name,
	       a->err ? strerrorname_np(-a->err) : "0",
	       a->done_err ? strerrorname_np(-a->done_err) : "0", a->extack ? "yes" : "no", a->msgs,
	       a->text);
}

static struct nlmsghdr *rdma_req(char *buf, int op, bool dump)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = RDMA_TYPE(op);
	nlh->nlmsg_flags = NLM_F_REQUEST | (dump ? NLM_F_DUMP : NLM_F_ACK);
	return nlh;
}

static void rdma_send(const char *name, struct nlmsghdr *req)
{
	struct answer a;

	exchange(NETLINK_RDMA, req, rdma_msg, &a);
	print(name, &a);
}

/* A child in a netns of its own, holding it while the parent asks. */
static pid_t netns_holder(int *fd)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		if (unshare(CLONE_NEWNET) < 0)
			_exit(1);
		(void)!write(p[1], "x", 1);
		pause();
		_exit(0);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &c, 1) != 1) {
		close(p[0]);
		return -1;
	}
	close(p[0]);
	if (fd) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
		*fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	return pid;
}

static void netns_release(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* SYS_SET of mode until it is not EBUSY (the kernel frees a netns from a
 * workqueue after its last holder went), for at most 5 s. */
static void sys_set_settled(const char *name, uint8_t mode)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *req;
	struct answer a;

	for (int i = 0; i < 50; i++) {
		req = rdma_req(buf, RDMA_NLDEV_CMD_SYS_SET, false);
		mnl_attr_put_u8(req, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, mode);
		exchange(NETLINK_RDMA, req, rdma_msg, &a);
		if (a.err != -EBUSY)
			break;
		usleep(100000);
	}
	print(name, &a);
}

/* An RDMA request of the probe: op, dump or doit (acked), up to two
 * attributes of 1, 2 or 4 bytes (len 0: none). */
struct rdma_case {
	const char *name;
	int op;
	bool dump;
	struct {
		uint16_t type, len;
		uint32_t value;
	} attr[2];
};

#define U8(t, v) { RDMA_NLDEV_##t, 1, v }
#define U32(t, v) { RDMA_NLDEV_##t, 4, v }

static const struct rdma_case mode_cases[] = {
	{ "sys_get", RDMA_NLDEV_CMD_SYS_GET, false, { { 0 } } },
	{ "sys_get dump", RDMA_NLDEV_CMD_SYS_GET, true, { { 0 } } },
	{ "sys_set no mode", RDMA_NLDEV_CMD_SYS_SET, false, { { 0 } } },
	{ "sys_set mode 2", RDMA_NLDEV_CMD_SYS_SET, false, { U8(SYS_ATTR_NETNS_MODE, 2) } },
	{ "sys_set exclusive, unchanged", RDMA_NLDEV_CMD_SYS_SET, false,
	  { U8(SYS_ATTR_NETNS_MODE, 0) } },
};

/* Index 0 is a soft device (rxe: no disassociate_ucontext); 99 is none. */
static const struct rdma_case dev_cases[] = {
	{ "get dump", RDMA_NLDEV_CMD_GET, true, { { 0 } } },
	{ "get index 0", RDMA_NLDEV_CMD_GET, false, { U32(ATTR_DEV_INDEX, 0) } },
	{ "get index 99", RDMA_NLDEV_CMD_GET, false, { U32(ATTR_DEV_INDEX, 99) } },
	{ "get index as u16", RDMA_NLDEV_CMD_GET, false, { { RDMA_NLDEV_ATTR_DEV_INDEX, 2, 0 } } },
	{ "port_get 0/1", RDMA_NLDEV_CMD_PORT_GET, false,
	  { U32(ATTR_DEV_INDEX, 0), U32(ATTR_PORT_INDEX, 1) } },
	{ "port_get 0/2", RDMA_NLDEV_CMD_PORT_GET, false,
	  { U32(ATTR_DEV_INDEX, 0), U32(ATTR_PORT_INDEX, 2) } },
	{ "port_get 0, no port", RDMA_NLDEV_CMD_PORT_GET, false, { U32(ATTR_DEV_INDEX, 0) } },
	{ "port_get dump 0", RDMA_NLDEV_CMD_PORT_GET, true, { U32(ATTR_DEV_INDEX, 0) } },
	{ "port_get dump, no index", RDMA_NLDEV_CMD_PORT_GET, true, { { 0 } } },
	{ "set netns, fd not open", RDMA_NLDEV_CMD_SET, false,
	  { U32(ATTR_DEV_INDEX, 0), U32(NET_NS_FD, 999) } },
};

static void rdma_case_send(const struct rdma_case *c)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *req = rdma_req(buf, c->op, c->dump);

	for (size_t i = 0; i < 2 && c->attr[i].len; i++) {
		if (c->attr[i].len == 1)
			mnl_attr_put_u8(req, c->attr[i].type, (uint8_t)c->attr[i].value);
		else if (c->attr[i].len == 2)
			mnl_attr_put_u16(req, c->attr[i].type, (uint16_t)c->attr[i].value);
		else
			mnl_attr_put_u32(req, c->attr[i].type, c->attr[i].value);
	}
	rdma_send(c->name, req);
}

/* While another netns exists: a mode change, and a move of the soft device
 * into that netns. */
static void with_other_netns(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *req;
	int fd = -1;
	pid_t holder = netns_holder(&fd);

	if (holder <= 0 || fd < 0) {
		printf("another netns: cannot make one\n");
		return;
	}
	req = rdma_req(buf, RDMA_NLDEV_CMD_SYS_SET, false);
	mnl_attr_put_u8(req, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 1);
	rdma_send("sys_set shared, another netns", req);
	req = rdma_req(buf, RDMA_NLDEV_CMD_SET, false);
	mnl_attr_put_u32(req, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	mnl_attr_put_u32(req, RDMA_NLDEV_NET_NS_FD, (uint32_t)fd);
	rdma_send("set netns, soft device", req);
	close(fd);
	netns_release(holder);
}

/* The RDMA requests; the node is in exclusive mode. */
static void probe_rdma(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	for (size_t i = 0; i < sizeof(mode_cases) / sizeof(mode_cases[0]); i++)
		rdma_case_send(&mode_cases[i]);
	with_other_netns();
	sys_set_settled("sys_set shared, alone", 1);
	rdma_send("sys_get shared", rdma_req(buf, RDMA_NLDEV_CMD_SYS_GET, false));
	sys_set_settled("sys_set exclusive, alone", 0);
	for (size_t i = 0; i < sizeof(dev_cases) / sizeof(dev_cases[0]); i++)
		rdma_case_send(&dev_cases[i]);
}

static struct nlmsghdr *link_req(char *buf, int type, int ifindex)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	ifm->ifi_index = ifindex;
	return nlh;
}

static void link_send(const char *name, struct nlmsghdr *req)
{
	struct answer a;

	exchange(NETLINK_ROUTE, req, link_msg, &a);
	print(name, &a);
}

/* One IFLA_VFINFO_LIST > IFLA_VF_INFO > attr of type (payload p, len) for VF vf. */
static void vf_set(const char *name, int pf, int type, void *p, size_t len)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *req = link_req(buf, RTM_SETLINK, pf);
	struct nlattr *list = mnl_attr_nest_start(req, IFLA_VFINFO_LIST);
	struct nlattr *info = mnl_attr_nest_start(req, IFLA_VF_INFO);

	mnl_attr_put(req, type, len, p);
	mnl_attr_nest_end(req, info);
	mnl_attr_nest_end(req, list);
	link_send(name, req);
}

/* The VF requests to PF pf (ifindex) with nvfs VFs. */
static void probe_vfs(int pf, int nvfs)
{
	char buf[MNL_SOCKET_BUFFER_SIZE], name[64];
	struct nlmsghdr *req;
	uint32_t last = (uint32_t)nvfs - 1;
	struct ifla_vf_vlan vlan = { .vf = last, .vlan = 100, .qos = 3 };
	struct ifla_vf_mac mac = { .vf = last, .mac = { 0x03, 0x11, 0x22, 0x33, 0x44, 0x55 } };

	for (int stats = 0; stats < 2; stats++) {
		req = link_req(buf, RTM_GETLINK, pf);
		mnl_attr_put_u32(req, IFLA_EXT_MASK,
				 RTEXT_FILTER_VF | (stats ? 0 : RTEXT_FILTER_SKIP_STATS));
		snprintf(name, sizeof(name), "getlink %d VFs%s", nvfs, stats ? ", stats" : "");
		link_send(name, req);
	}
	snprintf(name, sizeof(name), "vlan 100 qos 3 on vf %u", last);
	vf_set(name, pf, IFLA_VF_VLAN, &vlan, sizeof(vlan));
	vlan.qos = 8;
	vf_set("qos 8", pf, IFLA_VF_VLAN, &vlan, sizeof(vlan));
	vlan.qos = 0;
	vlan.vlan = 0;
	vf_set("vlan 0", pf, IFLA_VF_VLAN, &vlan, sizeof(vlan));
	vf_set("multicast mac", pf, IFLA_VF_MAC, &mac, sizeof(mac));
	vlan.vf = (uint32_t)nvfs;
	vf_set("vf past sriov_numvfs", pf, IFLA_VF_VLAN, &vlan, sizeof(vlan));
	vf_set("vlan attribute of 4 bytes", pf, IFLA_VF_VLAN, &vlan, 4);
}

/* A VF as the plugin's own parser (link_vf_get) reads it. */
static int probe_vf(const char *pf_name, int vf)
{
	struct cni_err err = { 0 };
	struct link_sock *s = NULL;
	struct link_info pf;
	struct vf_config c;
	int ret;

	ret = link_sock_open(-1, &s, &err);
	if (ret == 0)
		ret = link_get_by_name(s, pf_name, &pf);
	if (ret == 0)
		ret = link_vf_get(s, pf.ifindex, vf, &c);
	if (ret == 0)
		printf("vf %d mac=%02x:%02x:%02x:%02x:%02x:%02x vlan=%d qos=%d proto=%#x spoofchk=%d "
		       "trust=%d link_state=%d min_tx_rate=%u max_tx_rate=%u\n", vf, c.mac[0],
		       c.mac[1], c.mac[2], c.mac[3], c.mac[4], c.mac[5], c.vlan, c.qos, c.vlan_proto,
		       c.spoofchk, c.trust, c.link_state, c.min_tx_rate, c.max_tx_rate);
	else
		fprintf(stderr, "probe: vf %d of %s: %s\n", vf, pf_name, strerror(-ret));
	link_sock_close(s);
	return ret == 0 ? 0 : 1;
}

/* The mode, and a device found by name (a GET dump, then PORT_GET for its
 * netdev), as the plugin's own rdmanl reads them. */
static int probe_rdmanl(const char *name)
{
	struct cni_err err = { 0 };
	enum rdmanl_mode mode;
	struct rdmanl_dev dev;
	int ret;

	ret = rdmanl_get_mode(-1, &mode, &err);
	if (ret == 0)
		printf("mode %s\n", mode == RDMANL_MODE_EXCLUSIVE ? "exclusive" : "shared");
	if (ret == 0 && name)
		ret = rdmanl_dev_by_name(-1, name, &dev, &err);
	if (ret == 0 && name)
		printf("dev %s index %u ndev %s\n", dev.name, dev.index,
		       dev.ndev_name[0] ? dev.ndev_name : "-");
	if (ret)
		fprintf(stderr, "probe: %s: %s\n", name ? name : "mode",
			err.msg[0] ? err.msg : strerror(-ret));
	return ret == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "rdma")) {
		probe_rdma();
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "vfs")) {
		probe_vfs(atoi(argv[2]), atoi(argv[3]));
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "vf"))
		return probe_vf(argv[2], atoi(argv[3]));
	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "rdmanl"))
		return probe_rdmanl(argc == 3 ? argv[2] : NULL);
	fprintf(stderr, "usage: probe rdma | vfs PF-IFINDEX NUM-VFS | vf PF-NAME VF | rdmanl [DEV]\n");
	return 2;
}
