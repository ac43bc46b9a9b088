// SPDX-License-Identifier: Apache-2.0
/* Kernel behaviour of RDMA netlink nldev commands, modelled on the state file:
 * visibility per netns, moves, netns mode, acks and extack like the kernel. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/nsfs.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <libmnl/libmnl.h>
#include <rdma/rdma_netlink.h>
#include "drvproto.h"
#include "netns.h"
#include "nldev.h"
#include "state.h"

#define REPLY_MAX 16384
/* NLMSG_GOODSIZE with 4 KiB pages: the size of a dump's first skb. */
#define DUMP_SKB 3776
/* An mlx5 node GUID prefix; the device index makes it unique. */
#define MLX5_GUID_BASE 0x0c42a10300000000ULL
/* Ours, like the kernel's -EINTR: a dump answered, no ack follows. */
#define DUMPED 1
/* Newer than Debian 12's uapi headers. PRIVILEGED_QKEY_MODE: since 6.7 and
 * in Debian's 6.1; NAME_ASSIGN_TYPE and MONITOR_MODE: since 6.11 (the
 * kernel lane saw each where it says). The simulator answers as 6.12. */
#ifndef RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE
#define RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE 96
#endif
#ifndef RDMA_NLDEV_ATTR_NAME_ASSIGN_TYPE
#define RDMA_NLDEV_ATTR_NAME_ASSIGN_TYPE 101
#endif
#ifndef RDMA_NLDEV_SYS_ATTR_MONITOR_MODE
#define RDMA_NLDEV_SYS_ATTR_MONITOR_MODE 103
#endif
/* enum ib_port_state / ib_port_phys_state (include/rdma/ib_verbs.h). */
#define IB_PORT_ACTIVE 4
#define IB_PORT_PHYS_LINK_UP 5

struct req {
	const struct rdmasim_sock *sock;
	const struct nlmsghdr *nlh;
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	const struct nlattr *bad;
	const char *extack;
	struct rdmasim_state st;
	bool dirty;
	rdmasim_emit_t emit;
	void *ctx;
	char moved[32];		/* a device moved: its PCI address */
	int moved_to;		/* the netns fd it moved to */
	unsigned long moved_from;	/* the netns it was in */
};

/* Minimum payload per attribute, as nldev_policy says (NLA_U32, NLA_U8). */
static const uint8_t min_len[RDMA_NLDEV_ATTR_MAX] = {
	[RDMA_NLDEV_ATTR_DEV_INDEX] = 4,
	[RDMA_NLDEV_ATTR_PORT_INDEX] = 4,
	[RDMA_NLDEV_ATTR_NDEV_INDEX] = 4,
	[RDMA_NLDEV_NET_NS_FD] = 4,
	[RDMA_NLDEV_SYS_ATTR_NETNS_MODE] = 1,
	[RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK] = 1,
};

static int parse_attrs(struct req *r)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, r->nlh, 0) {
		uint16_t type = mnl_attr_get_type(a);

		if (type >= RDMA_NLDEV_ATTR_MAX)
			continue;
		if (mnl_attr_get_payload_len(a) < min_len[type]) {
			r->bad = a;
			r->extack = "Attribute failed policy validation";
			return -EINVAL;
		}
		r->tb[type] = a;
	}
	return 0;
}

static struct rdmasim_dev *visible(struct req *r, const struct nlattr *index)
{
	struct rdmasim_dev *d;

	if (!index)
		return NULL;
	d = rdmasim_find(&r->st, mnl_attr_get_u32(index));
	if (!d || (!r->st.shared && d->netns != r->sock->netns))
		return NULL;
	return d;
}

static struct nlmsghdr *reply(struct req *r, char *at, int op, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(at);

	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op);
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = r->nlh->nlmsg_seq;
	nlh->nlmsg_pid = r->sock->portid;
	return nlh;
}

static void put_handle(struct nlmsghdr *nlh, const struct rdmasim_dev *d)
{
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, d->index);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, d->name);
}

/* fill_dev_info(): what an mlx5 VF's device reports (one port, RoCE). */
static void put_dev(struct nlmsghdr *nlh, const struct rdmasim_dev *d)
{
	uint64_t guid = MLX5_GUID_BASE | d->index;

	put_handle(nlh, d);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_CAP_FLAGS, 0);
	/* rxe and siw have no firmware: no FW_VERSION (a kernel lane finding) */
	if (!d->soft)
		mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_FW_VERSION, "22.39.1002");
	mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_NODE_GUID, guid);
	mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_SYS_IMAGE_GUID, guid);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_DEV_NODE_TYPE, RDMA_NODE_IB_CA);
	/* use_cq_dim, always reported (6.1 and 6.12 checked: the kernel lane) */
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_DEV_DIM, 1);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_NAME_ASSIGN_TYPE, 0);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_PROTOCOL, "roce");
}

/* The netdev is reported only when it is in the socket's netns; its name is
 * whatever it is called there now. */
static void put_port(struct req *r, struct nlmsghdr *nlh, const struct rdmasim_dev *d)
{
	struct ifreq ifr = { .ifr_ifindex = (int)d->ndev_index };

	put_handle(nlh, d);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	/* fill_port_info(): the port's state, then its netdev (a RoCE port:
	 * no LID, SM LID or subnet prefix) */
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_PORT_STATE, IB_PORT_ACTIVE);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_PORT_PHYS_STATE, IB_PORT_PHYS_LINK_UP);
	if (!d->ndev_index || ioctl(r->sock->inet_fd, SIOCGIFNAME, &ifr) < 0)
		return;
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_NDEV_INDEX, d->ndev_index);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_NDEV_NAME, ifr.ifr_name);
}

static int get_doit(struct req *r)
{
	struct rdmasim_dev *d = visible(r, r->tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	char buf[REPLY_MAX];
	struct nlmsghdr *nlh;

	if (!d)
		return -EINVAL;
	nlh = reply(r, buf, RDMA_NLDEV_CMD_GET, 0);
	put_dev(nlh, d);
	r->emit(r->ctx, buf, nlh->nlmsg_len);
	return 0;
}

/* NLMSG_DONE ends a dump with its dumpit's result: 0, or the -errno a
 * dumpit that failed returned (netlink_dump() sends no NLMSG_ERROR then). */
static void put_done(struct req *r, char *at, int err)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(at);

	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_flags = NLM_F_MULTI;
	nlh->nlmsg_seq = r->nlh->nlmsg_seq;
	nlh->nlmsg_pid = r->sock->portid;
	memcpy(mnl_nlmsg_put_extra_header(nlh, sizeof(err)), &err, sizeof(err));
}

/* A dumpit that failed: its -errno in NLMSG_DONE, with the extack text when
 * the socket asked for it (netlink_dump()'s NLM_F_ACK_TLVS). */
static int dump_failed(struct req *r, int err)
{
	char buf[NLMSG_SPACE(sizeof(int)) + 512];
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;

	put_done(r, buf, err);
	if (r->sock->ext_ack && r->extack) {
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, r->extack);
	}
	r->emit(r->ctx, buf, nlh->nlmsg_len);
	return DUMPED;
}

/* netlink_dump(): as many messages as fit in one skb per datagram, then
 * NLMSG_DONE (in the last one when it fits), so a client reads a long dump
 * in several recvmsg() calls. */
static int get_dumpit(struct req *r)
{
	char buf[REPLY_MAX];
	size_t len = 0;
	int i;

	for (i = 0; i < r->st.n; i++) {
		struct rdmasim_dev *d = &r->st.devs[i];
		struct nlmsghdr *nlh;

		if (!r->st.shared && d->netns != r->sock->netns)
			continue;
		nlh = reply(r, buf + len, RDMA_NLDEV_CMD_GET, NLM_F_MULTI);
		put_dev(nlh, d);
		if (len && len + nlh->nlmsg_len > DUMP_SKB) {
			r->emit(r->ctx, buf, len);
			memmove(buf, nlh, nlh->nlmsg_len);
			len = 0;
		}
		len += NLMSG_ALIGN(((struct nlmsghdr *)(buf + len))->nlmsg_len);
	}
	if (len && len + NLMSG_SPACE(sizeof(int)) > DUMP_SKB) {
		r->emit(r->ctx, buf, len);
		len = 0;
	}
	put_done(r, buf + len, 0);
	r->emit(r->ctx, buf, len + NLMSG_SPACE(sizeof(int)));
	return DUMPED;
}

/* The kernel replies to PORT_GET with the RDMA_NLDEV_CMD_GET type. */
static int port_get_doit(struct req *r)
{
	struct rdmasim_dev *d = visible(r, r->tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	const struct nlattr *port = r->tb[RDMA_NLDEV_ATTR_PORT_INDEX];
	char buf[REPLY_MAX];
	struct nlmsghdr *nlh;

	if (!d || !port || mnl_attr_get_u32(port) != 1)
		return -EINVAL;
	nlh = reply(r, buf, RDMA_NLDEV_CMD_GET, 0);
	put_port(r, nlh, d);
	r->emit(r->ctx, buf, nlh->nlmsg_len);
	return 0;
}

/* nldev_port_get_dumpit(): the ports of the one device DEV_INDEX names
 * (there is no dump across devices), typed RDMA_NLDEV_CMD_PORT_GET. */
static int port_get_dumpit(struct req *r)
{
	struct rdmasim_dev *d;
	char buf[REPLY_MAX];
	struct nlmsghdr *nlh;
	int ret = parse_attrs(r);

	if (ret)
		return dump_failed(r, ret);
	d = visible(r, r->tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	if (!d)
		return dump_failed(r, -EINVAL);
	nlh = reply(r, buf, RDMA_NLDEV_CMD_PORT_GET, NLM_F_MULTI);
	put_port(r, nlh, d);
	put_done(r, buf + NLMSG_ALIGN(nlh->nlmsg_len), 0);
	r->emit(r->ctx, buf, NLMSG_ALIGN(nlh->nlmsg_len) + NLMSG_SPACE(sizeof(int)));
	return DUMPED;
}

static int netns_of_fd(uint32_t fd, unsigned long *ino)
{
	struct stat st;

	if (fd > INT32_MAX || fstat((int)fd, &st) < 0)
		return -EBADF;
	if (ioctl((int)fd, NS_GET_NSTYPE) != CLONE_NEWNET)
		return -EINVAL;
	*ino = st.st_ino;
	return 0;
}

/* ib_device_set_netns_put() + rdma_dev_change_netns(): no move without
 * disassociate_ucontext or in shared mode; the calling thread (not only
 * the socket) must be in the device's netns. */
static int move(struct req *r, struct rdmasim_dev *d, uint32_t fd)
{
	unsigned long to;
	int ret;

	ret = netns_of_fd(fd, &to);
	if (ret)
		return ret;
	if (r->st.shared || d->soft)
		return -EOPNOTSUPP;
	if (to == d->netns)
		return 0;
	if (rdmasim_current_netns() != d->netns)
		return -ENODEV;
	r->moved_from = d->netns;
	d->netns = to;
	rdmasim_mark(&r->st, d);
	r->dirty = true;
	snprintf(r->moved, sizeof(r->moved), "%s", d->pci);
	r->moved_to = (int)fd;
	return 0;
}

static int set_doit(struct req *r)
{
	struct rdmasim_dev *d = visible(r, r->tb[RDMA_NLDEV_ATTR_DEV_INDEX]);

	if (!d)
		return -EINVAL;
	if (r->tb[RDMA_NLDEV_ATTR_DEV_NAME]) {
		r->extack = "rdmasim: device rename is not simulated";
		return -EOPNOTSUPP;
	}
	if (!r->tb[RDMA_NLDEV_NET_NS_FD])
		return 0;
	return move(r, d, mnl_attr_get_u32(r->tb[RDMA_NLDEV_NET_NS_FD]));
}

static int sys_get_doit(struct req *r)
{
	char buf[REPLY_MAX];
	struct nlmsghdr *nlh;

	nlh = reply(r, buf, RDMA_NLDEV_CMD_SYS_GET, 0);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, r->st.shared);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE, 0);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_SYS_ATTR_MONITOR_MODE, 1);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, 1);
	r->emit(r->ctx, buf, nlh->nlmsg_len);
	return 0;
}

/* nldev_set_sys_set_doit() + rdma_compatdev_set(): a change is refused
 * (EBUSY, no extack) while rdma_nets is not empty, and every netns but
 * init_net is in it from its creation (rdma_dev_init_net()) to its cleanup,
 * RDMA devices or not. The socket's netns and a device's (until netns-gone
 * says it died) exist by themselves; the others are looked for. */
static int sys_set_doit(struct req *r)
{
	const struct nlattr *a = r->tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE];
	unsigned long host = rdmasim_host_netns();
	uint8_t shared;

	if (!a)
		return -EINVAL;
	shared = mnl_attr_get_u8(a);
	if (shared > 1)
		return -EINVAL;
	if (shared == r->st.shared)
		return 0;
	if (r->sock->netns != host || rdmasim_any_moved(&r->st) || rdmasim_other_netns(host))
		return -EBUSY;
	r->st.shared = shared;
	r->dirty = true;
	return 0;
}

struct op {
	int (*doit)(struct req *r);
	int (*dumpit)(struct req *r);
	bool admin;
	bool modelled;
};

static const struct op ops[RDMA_NLDEV_NUM_OPS] = {
	[RDMA_NLDEV_CMD_GET] = { get_doit, get_dumpit, false, true },
	[RDMA_NLDEV_CMD_SET] = { set_doit, NULL, true, true },
	[RDMA_NLDEV_CMD_PORT_GET] = { port_get_doit, port_get_dumpit, false, true },
	[RDMA_NLDEV_CMD_SYS_GET] = { sys_get_doit, NULL, false, true },
	[RDMA_NLDEV_CMD_SYS_SET] = { sys_set_doit, NULL, true, true },
};

/* Commands the kernel has but the simulator does not model. */
static bool kernel_has(unsigned int op)
{
	return op != RDMA_NLDEV_CMD_UNSPEC && op != 8 && op < RDMA_NLDEV_NUM_OPS;
}

static int dispatch(struct req *r)
{
	unsigned int op = RDMA_NL_GET_OP(r->nlh->nlmsg_type);
	const struct op *o;
	int ret;

	if (RDMA_NL_GET_CLIENT(r->nlh->nlmsg_type) != RDMA_NL_NLDEV || !kernel_has(op))
		return -EINVAL;
	o = &ops[op];
	if (!o->modelled) {
		r->extack = "rdmasim: command not simulated";
		return -EOPNOTSUPP;
	}
	if (o->admin && geteuid() != 0)
		return -EPERM;
	if (r->nlh->nlmsg_flags & NLM_F_DUMP) {
		if (!o->dumpit)
			return -EINVAL;
		return o->dumpit(r);
	}
	ret = parse_attrs(r);
	return ret ? ret : o->doit(r);
}

static void ack(struct req *r, int err)
{
	bool capped = !err || r->sock->cap_ack;
	size_t copy = capped ? sizeof(struct nlmsghdr) : NLMSG_ALIGN(r->nlh->nlmsg_len);
	size_t size = NLMSG_HDRLEN + sizeof(int) + copy + 512;
	struct nlmsghdr *nlh;
	struct nlmsgerr *e;
	char *buf;

	buf = calloc(1, size);
	if (!buf)
		return;
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = capped ? NLM_F_CAPPED : 0;
	nlh->nlmsg_seq = r->nlh->nlmsg_seq;
	nlh->nlmsg_pid = r->sock->portid;
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(int) + copy);
	e->error = err;
	memcpy(&e->msg, r->nlh, capped ? sizeof(struct nlmsghdr) : r->nlh->nlmsg_len);
	if (r->sock->ext_ack && r->extack) {
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, r->extack);
		if (err && r->bad)
			mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS,
					 (const char *)r->bad - (const char *)r->nlh);
	}
	r->emit(r->ctx, buf, nlh->nlmsg_len);
	free(buf);
}

static int run(const char *path, struct req *r)
{
	int lock, ret;

	lock = rdmasim_lock(path);
	if (lock < 0)
		return lock;
	ret = rdmasim_load(path, &r->st);
	if (ret) {
		r->extack = "rdmasim: cannot load the state file";
		goto out;
	}
	ret = dispatch(r);
	if (r->dirty && ret >= 0) {
		int err = rdmasim_save(path, &r->st);

		ret = err ? err : ret;
	}
out:
	rdmasim_unlock(lock);
	rdmasim_free(&r->st);
	return ret;
}

/* The move removed and re-added every ib_core client: for an IPoIB port
 * (rdmasim-drv's VFs; it answers ENODEV for others, and nobody listens
 * without it) ipoib destroyed the netdev and made a new one before the reply.
 * The daemon may say the move failed after all (fail-move): the errno then. */
static int ipoib_recreate(const char *path, const struct req *r)
{
	char req[RDMASIM_DRV_REQ_MAX], out[32];
	int err;

	snprintf(req, sizeof(req), "rdma-moved %lu %s", r->moved_from, r->moved);
	if (rdmasim_drv_query(path, req, r->moved_to, out, sizeof(out)) == 0 &&
	    sscanf(out, "move-failed %d", &err) == 1)
		return -err;
	return 0;
}

/* rdma_nl_rcv_skb(): requests only, control messages only acked. */
static void handle_one(const char *path, struct req *r)
{
	const struct nlmsghdr *nlh = r->nlh;
	int err = 0;

	if ((nlh->nlmsg_flags & NLM_F_REQUEST) && nlh->nlmsg_type >= NLMSG_MIN_TYPE)
		err = run(path, r);
	if (err == 0 && r->moved[0])
		err = ipoib_recreate(path, r);
	if (err == DUMPED)
		return;
	if ((nlh->nlmsg_flags & NLM_F_ACK) || err)
		ack(r, err);
}

void rdmasim_handle(const char *path, const struct rdmasim_sock *sock,
		    const void *buf, size_t len, rdmasim_emit_t emit, void *ctx)
{
	const struct nlmsghdr *nlh = buf;
	int rem = (int)len;
	struct req *r;

	r = malloc(sizeof(*r));
	if (!r)
		return;
	while (mnl_nlmsg_ok(nlh, rem)) {
		memset(r, 0, sizeof(*r));
		r->sock = sock;
		r->nlh = nlh;
		r->emit = emit;
		r->ctx = ctx;
		handle_one(path, r);
		nlh = mnl_nlmsg_next(nlh, &rem);
	}
	free(r);
}
