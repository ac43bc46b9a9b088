// SPDX-License-Identifier: Apache-2.0
/* RDMA netlink (NETLINK_RDMA, nldev) requests through libnl's core: netns
 * mode, device list with port 1 netdevs, and moving a device between netns. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <rdma/rdma_netlink.h>
#include "nlreq.h"
#include "rdmanl.h"

#define RDMANL_BUF 16384
#define REQ_MAX 256

/* The requests are built here, in the caller's buffer, from the uapi alone. */
static struct nlmsghdr *put_request(void *buf, size_t size, uint32_t seq, int op, uint16_t flags)
{
	struct nlmsghdr *nlh = buf;

	if (size < NLMSG_HDRLEN)
		return NULL;
	memset(buf, 0, NLMSG_HDRLEN);
	nlh->nlmsg_len = NLMSG_HDRLEN;
	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op);
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = seq;
	return nlh;
}

static bool put_u32(struct nlmsghdr *nlh, size_t size, uint16_t type, uint32_t value)
{
	struct nlattr *a = (struct nlattr *)((char *)nlh + NLMSG_ALIGN(nlh->nlmsg_len));
	size_t len = NLA_HDRLEN + sizeof(value);

	if (NLMSG_ALIGN(nlh->nlmsg_len) + NLA_ALIGN(len) > size)
		return false;
	a->nla_type = type;
	a->nla_len = (uint16_t)len;
	memcpy((char *)a + NLA_HDRLEN, &value, sizeof(value));
	nlh->nlmsg_len = NLMSG_ALIGN(nlh->nlmsg_len) + NLA_ALIGN(len);
	return true;
}

int rdmanl_encode_sys_get(void *buf, size_t size, uint32_t seq)
{
	struct nlmsghdr *nlh = put_request(buf, size, seq, RDMA_NLDEV_CMD_SYS_GET, 0);

	return nlh ? (int)nlh->nlmsg_len : -ENOSPC;
}

int rdmanl_encode_dev_get(void *buf, size_t size, uint32_t seq, bool dump, uint32_t index)
{
	struct nlmsghdr *nlh;

	nlh = put_request(buf, size, seq, RDMA_NLDEV_CMD_GET, dump ? NLM_F_DUMP : 0);
	if (!nlh)
		return -ENOSPC;
	if (!dump && !put_u32(nlh, size, RDMA_NLDEV_ATTR_DEV_INDEX, index))
		return -ENOSPC;
	return (int)nlh->nlmsg_len;
}

int rdmanl_encode_port_get(void *buf, size_t size, uint32_t seq, uint32_t index, uint32_t port)
{
	struct nlmsghdr *nlh = put_request(buf, size, seq, RDMA_NLDEV_CMD_PORT_GET, 0);

	if (!nlh || !put_u32(nlh, size, RDMA_NLDEV_ATTR_DEV_INDEX, index) ||
	    !put_u32(nlh, size, RDMA_NLDEV_ATTR_PORT_INDEX, port))
		return -ENOSPC;
	return (int)nlh->nlmsg_len;
}

int rdmanl_encode_dev_set_netns(void *buf, size_t size, uint32_t seq, uint32_t index, int netns_fd)
{
	struct nlmsghdr *nlh;

	if (netns_fd < 0)
		return -EBADF;
	nlh = put_request(buf, size, seq, RDMA_NLDEV_CMD_SET, 0);
	if (!nlh || !put_u32(nlh, size, RDMA_NLDEV_ATTR_DEV_INDEX, index) ||
	    !put_u32(nlh, size, RDMA_NLDEV_NET_NS_FD, (uint32_t)netns_fd))
		return -ENOSPC;
	return (int)nlh->nlmsg_len;
}

/* Attributes we read, type-checked with exact sizes; the rest are ignored. */
static struct nla_policy policy[RDMA_NLDEV_ATTR_MAX + 1] = {
	[RDMA_NLDEV_ATTR_DEV_INDEX] = { .type = NLA_U32, .maxlen = sizeof(uint32_t) },
	[RDMA_NLDEV_ATTR_DEV_NAME] = { .type = NLA_STRING },
	[RDMA_NLDEV_ATTR_NDEV_INDEX] = { .type = NLA_U32, .maxlen = sizeof(uint32_t) },
	[RDMA_NLDEV_ATTR_NDEV_NAME] = { .type = NLA_STRING },
	[RDMA_NLDEV_SYS_ATTR_NETNS_MODE] = { .type = NLA_U8, .maxlen = sizeof(uint8_t) },
};

/* libnl's parser takes no const message; it does not write to it. */
static int parse_attrs(const struct nlmsghdr *nlh, struct nlattr **tb)
{
	return nlmsg_parse((struct nlmsghdr *)nlh, 0, tb, RDMA_NLDEV_ATTR_MAX, policy) < 0 ?
		-EINVAL : 0;
}

static bool copy_str(char *dst, size_t size, const struct nlattr *attr)
{
	const char *s = nla_data(attr);

	if (strlen(s) >= size)
		return false;
	strcpy(dst, s);
	return true;
}

/* GET and PORT_GET doit replies both carry the RDMA_NLDEV_CMD_GET type; a
 * PORT_GET dump would carry PORT_GET. */
int rdmanl_parse_dev(const void *buf, struct rdmanl_dev *out)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX + 1];
	const struct nlmsghdr *nlh = buf;

	memset(out, 0, sizeof(*out));
	if (nlh->nlmsg_type != RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET) &&
	    nlh->nlmsg_type != RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_PORT_GET))
		return -EINVAL;
	if (parse_attrs(nlh, tb) || !tb[RDMA_NLDEV_ATTR_DEV_INDEX] ||
	    !tb[RDMA_NLDEV_ATTR_DEV_NAME] ||
	    !copy_str(out->name, sizeof(out->name), tb[RDMA_NLDEV_ATTR_DEV_NAME]))
		return -EINVAL;
	out->index = nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	if (!tb[RDMA_NLDEV_ATTR_NDEV_INDEX] || !tb[RDMA_NLDEV_ATTR_NDEV_NAME])
		return 0;
	if (!copy_str(out->ndev_name, sizeof(out->ndev_name), tb[RDMA_NLDEV_ATTR_NDEV_NAME]))
		return -EINVAL;
	out->ndev_index = (int)nla_get_u32(tb[RDMA_NLDEV_ATTR_NDEV_INDEX]);
	return 0;
}

/* The kernel reports ib_devices_shared_netns: 1 = shared, 0 = exclusive. */
int rdmanl_parse_mode(const void *buf, enum rdmanl_mode *mode)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX + 1];
	const struct nlmsghdr *nlh = buf;
	uint8_t shared;

	if (nlh->nlmsg_type != RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SYS_GET) ||
	    parse_attrs(nlh, tb) || !tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE])
		return -EINVAL;
	shared = nla_get_u8(tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE]);
	if (shared > 1)
		return -EINVAL;
	*mode = shared ? RDMANL_MODE_SHARED : RDMANL_MODE_EXCLUSIVE;
	return 0;
}

static int no_rdma(struct cni_err *err)
{
	cni_err_set(err, CNI_ERR_RDMA_NETLINK, "kernel has no RDMA netlink (ib_core not loaded?)");
	return -EPROTONOSUPPORT;
}

/* A NETLINK_RDMA socket made in a netns, the thread kept there for every
 * request on it, because a move is checked against the caller's netns too
 * (rdma_dev_change_netns). One session serves every request of a lookup,
 * so its cost is one socket and two setns, not that per request. */
struct session {
	int self;		/* the thread's netns to go back to, -1 none */
	struct nl_sock *sk;
};

static int connect_rdma(struct session *s, struct cni_err *err)
{
	/* old kernels lack NETLINK_EXT_ACK and NETLINK_CAP_ACK; the request
	 * still works without */
	int ret = nlreq_socket(NETLINK_RDMA, true, &s->sk);

	if (ret == -EPROTONOSUPPORT)
		return no_rdma(err);
	if (ret < 0)
		return ret;
	nl_socket_set_msg_buf_size(s->sk, RDMANL_BUF);
	return 0;
}

/* Leaves the thread in its own netns whatever happens; ret or a failure to
 * go back. */
static int session_end(struct session *s, int ret, struct cni_err *err)
{
	nl_socket_free(s->sk);
	s->sk = NULL;
	if (s->self < 0)
		return ret;
	if (setns(s->self, CLONE_NEWNET) < 0) {
		ret = -errno;
		cni_err_set(err, CNI_ERR_RDMA_NETLINK,
			    "failed to return to the original netns: %s", strerror(-ret));
	}
	close(s->self);
	s->self = -1;
	return ret;
}

static int session_start(int netns_fd, struct session *s, struct cni_err *err)
{
	int ret;

	*s = (struct session){ .self = -1 };
	if (netns_fd >= 0) {
		s->self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
		if (s->self < 0 || setns(netns_fd, CLONE_NEWNET) < 0) {
			ret = -errno;
			cni_err_set(err, CNI_ERR_RDMA_NETLINK,
				    "failed to enter netns for RDMA netlink: %s", strerror(-ret));
			if (s->self >= 0)
				close(s->self);
			s->self = -1;
			return ret;
		}
	}
	ret = connect_rdma(s, err);
	return ret ? session_end(s, ret, err) : 0;
}

/* Every request asks for an ack, so its replies end with the ack, an error
 * or (a dump) NLMSG_DONE. */
static int ask(struct session *s, struct nlmsghdr *req, nlreq_parse_fn *parse, void *data,
	       struct cni_err *err)
{
	char text[NLREQ_TEXT_MAX];
	int ret = nlreq_exchange(s->sk, req, parse, data, text);

	if (ret && text[0])
		cni_err_details(err, "%s", text);
	return ret;
}

/* One request in a session of its own. */
static int request(int netns_fd, struct nlmsghdr *req, nlreq_parse_fn *cb, void *data,
		   struct cni_err *err)
{
	struct session s;
	int ret;

	ret = session_start(netns_fd, &s, err);
	if (ret)
		return ret;
	return session_end(&s, ask(&s, req, cb, data, err), err);
}

static uint32_t next_seq(void)
{
	static uint32_t seq;

	return seq ? ++seq : (seq = (uint32_t)time(NULL));
}

struct mode_reply {
	bool seen;
	enum rdmanl_mode mode;
};

static int mode_cb(const struct nlmsghdr *nlh, void *data)
{
	struct mode_reply *r = data;

	if (rdmanl_parse_mode(nlh, &r->mode))
		return -EBADMSG;
	r->seen = true;
	return 0;
}

int rdmanl_get_mode(int netns_fd, enum rdmanl_mode *mode, struct cni_err *err)
{
	struct mode_reply r = { 0 };
	char buf[REQ_MAX];
	int ret;

	rdmanl_encode_sys_get(buf, sizeof(buf), next_seq());
	ret = request(netns_fd, (struct nlmsghdr *)buf, mode_cb, &r, err);
	if (!ret && !r.seen)
		ret = -EBADMSG;
	if (ret) {
		cni_err_set(err, CNI_ERR_RDMA_NETLINK, "failed to read the RDMA netns mode: %s",
			    strerror(-ret));
		return ret;
	}
	*mode = r.mode;
	return 0;
}

/* A dump collects every device into a growing array. */
struct dev_list {
	struct rdmanl_dev *devs;
	int n, cap;
};

static int list_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dev_list *l = data;

	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 8;
		struct rdmanl_dev *devs = realloc(l->devs, (size_t)cap * sizeof(*devs));

		if (!devs)
			return -ENOMEM;
		l->devs = devs;
		l->cap = cap;
	}
	if (rdmanl_parse_dev(nlh, &l->devs[l->n]))
		return -EBADMSG;
	l->n++;
	return 0;
}

/* A lookup by name keeps only the match: a host's thousand devices cost
 * their messages, not an array. */
struct dev_match {
	const char *name;
	struct rdmanl_dev *dev;
	bool found;
};

/* Another device's message is only looked at for its name: at a thousand
 * devices a full parse of each was most of the lookup. */
static bool named(const struct nlmsghdr *nlh, const char *name)
{
	const struct nlattr *a = nlmsg_find_attr((struct nlmsghdr *)nlh, 0, RDMA_NLDEV_ATTR_DEV_NAME);
	size_t len = strlen(name) + 1;

	return a && (size_t)nla_len(a) >= len && !memcmp(nla_data(a), name, len);
}

static int match_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dev_match *m = data;
	struct rdmanl_dev dev;

	if (m->found || !named(nlh, m->name))
		return 0;
	if (rdmanl_parse_dev(nlh, &dev) || strcmp(dev.name, m->name))
		return -EBADMSG;
	*m->dev = dev;
	m->found = true;
	return 0;
}

static int port_cb(const struct nlmsghdr *nlh, void *data)
{
	struct rdmanl_dev *dev = data, port;

	if (rdmanl_parse_dev(nlh, &port) || port.index != dev->index)
		return -EBADMSG;
	dev->ndev_index = port.ndev_index;
	memcpy(dev->ndev_name, port.ndev_name, sizeof(dev->ndev_name));
	return 0;
}

static int port_netdev(struct session *s, struct rdmanl_dev *dev, struct cni_err *err)
{
	char buf[REQ_MAX];
	int ret;

	rdmanl_encode_port_get(buf, sizeof(buf), next_seq(), dev->index, 1);
	ret = ask(s, (struct nlmsghdr *)buf, port_cb, dev, err);
	if (ret)
		cni_err_set(err, CNI_ERR_RDMA_NETLINK, "failed to read port 1 of RDMA device %s: %s",
			    dev->name, strerror(-ret));
	return ret;
}

static int dump(struct session *s, nlreq_parse_fn *cb, void *data, struct cni_err *err)
{
	char buf[REQ_MAX];
	int ret;

	rdmanl_encode_dev_get(buf, sizeof(buf), next_seq(), true, 0);
	ret = ask(s, (struct nlmsghdr *)buf, cb, data, err);
	if (ret)
		cni_err_set(err, CNI_ERR_RDMA_NETLINK, "failed to list RDMA devices: %s",
			    strerror(-ret));
	return ret;
}

static int list_in(struct session *s, struct dev_list *l, struct cni_err *err)
{
	int ret = dump(s, list_cb, l, err);

	for (int i = 0; i < l->n && !ret; i++)
		ret = port_netdev(s, &l->devs[i], err);
	return ret;
}

int rdmanl_dev_list(int netns_fd, struct rdmanl_dev **out, int *n, struct cni_err *err)
{
	struct dev_list l = { 0 };
	struct session s;
	int ret;

	*out = NULL;
	*n = 0;
	ret = session_start(netns_fd, &s, err);
	if (ret)
		return ret;
	ret = session_end(&s, list_in(&s, &l, err), err);
	if (ret) {
		free(l.devs);
		return ret;
	}
	*out = l.devs;
	*n = l.n;
	return 0;
}

static int by_name_in(struct session *s, struct dev_match *m, struct cni_err *err)
{
	int ret = dump(s, match_cb, m, err);

	if (ret)
		return ret;
	return m->found ? port_netdev(s, m->dev, err) : -ENODEV;
}

int rdmanl_dev_by_name(int netns_fd, const char *name, struct rdmanl_dev *out, struct cni_err *err)
{
	struct dev_match m = { .name = name, .dev = out };
	struct session s;
	int ret;

	ret = session_start(netns_fd, &s, err);
	if (ret)
		return ret;
	return session_end(&s, by_name_in(&s, &m, err), err);
}

int rdmanl_dev_by_netdev(int netns_fd, int ifindex, struct rdmanl_dev *out, struct cni_err *err)
{
	struct rdmanl_dev *devs;
	int i, n, ret;

	ret = rdmanl_dev_list(netns_fd, &devs, &n, err);
	if (ret)
		return ret;
	ret = -ENODEV;
	for (i = 0; i < n && ret; i++) {
		if (devs[i].ndev_index == ifindex) {
			*out = devs[i];
			ret = 0;
		}
	}
	free(devs);
	return ret;
}

int rdmanl_dev_move(int from_fd, uint32_t index, int to_fd, struct cni_err *err)
{
	char buf[REQ_MAX];
	int ret;

	ret = rdmanl_encode_dev_set_netns(buf, sizeof(buf), next_seq(), index, to_fd);
	if (ret < 0) {
		cni_err_set(err, CNI_ERR_RDMA_NETLINK, "invalid target netns fd %d", to_fd);
		return ret;
	}
	ret = request(from_fd, (struct nlmsghdr *)buf, NULL, NULL, err);
	if (ret)
		cni_err_set(err, CNI_ERR_RDMA_NETLINK, "failed to move RDMA device %u: %s", index,
			    strerror(-ret));
	return ret;
}
