// SPDX-License-Identifier: Apache-2.0
/* RDMA netlink (NETLINK_RDMA, nldev) requests through libmnl: netns mode,
 * device list with port 1 netdevs, and moving a device between netns. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <libmnl/libmnl.h>
#include <rdma/rdma_netlink.h>
#include "rdmanl.h"

#define RDMANL_BUF 16384
#define REQ_MAX 256

/* One exchange: the caller's callback and what the kernel said on error. */
struct exchange {
	mnl_cb_t cb;
	void *data;
	char extack[256];
};

static struct nlmsghdr *put_request(void *buf, size_t size, uint32_t seq, int op, uint16_t flags)
{
	struct nlmsghdr *nlh;

	if (size < MNL_NLMSG_HDRLEN)
		return NULL;
	memset(buf, 0, MNL_NLMSG_HDRLEN);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op);
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = seq;
	return nlh;
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
	if (!dump && !mnl_attr_put_u32_check(nlh, size, RDMA_NLDEV_ATTR_DEV_INDEX, index))
		return -ENOSPC;
	return (int)nlh->nlmsg_len;
}

int rdmanl_encode_port_get(void *buf, size_t size, uint32_t seq, uint32_t index, uint32_t port)
{
	struct nlmsghdr *nlh = put_request(buf, size, seq, RDMA_NLDEV_CMD_PORT_GET, 0);

	if (!nlh || !mnl_attr_put_u32_check(nlh, size, RDMA_NLDEV_ATTR_DEV_INDEX, index) ||
	    !mnl_attr_put_u32_check(nlh, size, RDMA_NLDEV_ATTR_PORT_INDEX, port))
		return -ENOSPC;
	return (int)nlh->nlmsg_len;
}

int rdmanl_encode_dev_set_netns(void *buf, size_t size, uint32_t seq, uint32_t index, int netns_fd)
{
	struct nlmsghdr *nlh;

	if (netns_fd < 0)
		return -EBADF;
	nlh = put_request(buf, size, seq, RDMA_NLDEV_CMD_SET, 0);
	if (!nlh || !mnl_attr_put_u32_check(nlh, size, RDMA_NLDEV_ATTR_DEV_INDEX, index) ||
	    !mnl_attr_put_u32_check(nlh, size, RDMA_NLDEV_NET_NS_FD, (uint32_t)netns_fd))
		return -ENOSPC;
	return (int)nlh->nlmsg_len;
}

struct attr_want {
	uint16_t type;
	enum mnl_attr_data_type kind;
};

static const struct attr_want wanted[] = {
	{ RDMA_NLDEV_ATTR_DEV_INDEX, MNL_TYPE_U32 },
	{ RDMA_NLDEV_ATTR_DEV_NAME, MNL_TYPE_NUL_STRING },
	{ RDMA_NLDEV_ATTR_NDEV_INDEX, MNL_TYPE_U32 },
	{ RDMA_NLDEV_ATTR_NDEV_NAME, MNL_TYPE_NUL_STRING },
	{ RDMA_NLDEV_SYS_ATTR_NETNS_MODE, MNL_TYPE_U8 },
};

/* Keeps the attributes we read, type-checked; ignores the rest. */
static int attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	uint16_t type = mnl_attr_get_type(attr);
	size_t i;

	for (i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		if (wanted[i].type != type)
			continue;
		if (mnl_attr_validate(attr, wanted[i].kind) < 0)
			return MNL_CB_ERROR;
		tb[type] = attr;
	}
	return MNL_CB_OK;
}

static int parse_attrs(const struct nlmsghdr *nlh, const struct nlattr **tb)
{
	memset(tb, 0, sizeof(*tb) * RDMA_NLDEV_ATTR_MAX);
	return mnl_attr_parse(nlh, 0, attr_cb, tb) == MNL_CB_ERROR ? -EINVAL : 0;
}

static bool copy_str(char *dst, size_t size, const struct nlattr *attr)
{
	const char *s = mnl_attr_get_str(attr);

	if (strlen(s) >= size)
		return false;
	strcpy(dst, s);
	return true;
}

/* GET and PORT_GET doit replies both carry the RDMA_NLDEV_CMD_GET type; a
 * PORT_GET dump would carry PORT_GET. */
int rdmanl_parse_dev(const void *buf, struct rdmanl_dev *out)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	const struct nlmsghdr *nlh = buf;

	memset(out, 0, sizeof(*out));
	if (nlh->nlmsg_type != RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET) &&
	    nlh->nlmsg_type != RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_PORT_GET))
		return -EINVAL;
	if (parse_attrs(nlh, tb) || !tb[RDMA_NLDEV_ATTR_DEV_INDEX] ||
	    !tb[RDMA_NLDEV_ATTR_DEV_NAME] ||
	    !copy_str(out->name, sizeof(out->name), tb[RDMA_NLDEV_ATTR_DEV_NAME]))
		return -EINVAL;
	out->index = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	if (!tb[RDMA_NLDEV_ATTR_NDEV_INDEX] || !tb[RDMA_NLDEV_ATTR_NDEV_NAME])
		return 0;
	if (!copy_str(out->ndev_name, sizeof(out->ndev_name), tb[RDMA_NLDEV_ATTR_NDEV_NAME]))
		return -EINVAL;
	out->ndev_index = (int)mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_NDEV_INDEX]);
	return 0;
}

/* The kernel reports ib_devices_shared_netns: 1 = shared, 0 = exclusive. */
int rdmanl_parse_mode(const void *buf, enum rdmanl_mode *mode)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	const struct nlmsghdr *nlh = buf;
	uint8_t shared;

	if (nlh->nlmsg_type != RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SYS_GET) ||
	    parse_attrs(nlh, tb) || !tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE])
		return -EINVAL;
	shared = mnl_attr_get_u8(tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE]);
	if (shared > 1)
		return -EINVAL;
	*mode = shared ? RDMANL_MODE_SHARED : RDMANL_MODE_EXCLUSIVE;
	return 0;
}

static int extack_cb(const struct nlattr *attr, void *data)
{
	struct exchange *ex = data;

	if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
		snprintf(ex->extack, sizeof(ex->extack), "%s", mnl_attr_get_str(attr));
	return MNL_CB_OK;
}

/* NLMSG_ERROR: 0 ends a request, anything else fails it with the extack
 * text (after the request copy unless the kernel capped it). */
static int error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	struct exchange *ex = data;
	size_t off = sizeof(*e);

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e))) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) && mnl_nlmsg_size(off) <= nlh->nlmsg_len)
		mnl_attr_parse(nlh, off, extack_cb, ex);
	if (!e->error)
		return MNL_CB_STOP;
	errno = -e->error;
	return MNL_CB_ERROR;
}

static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	(void)data;
	return MNL_CB_STOP;
}

static int data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct exchange *ex = data;

	return ex->cb ? ex->cb(nlh, ex->data) : MNL_CB_OK;
}

static int no_rdma(struct cni_err *err)
{
	cni_err_set(err, CNI_ERR_RDMA_NETLINK, "kernel has no RDMA netlink (ib_core not loaded?)");
	return -EPROTONOSUPPORT;
}

static int talk(struct mnl_socket *nl, struct nlmsghdr *req, struct exchange *ex)
{
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = { [NLMSG_ERROR] = error_cb, [NLMSG_DONE] = done_cb };
	char buf[RDMANL_BUF];
	uint32_t portid = mnl_socket_get_portid(nl);
	ssize_t n;
	int ret;

	if (mnl_socket_sendto(nl, req, req->nlmsg_len) < 0)
		return -errno;
	do {
		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n < 0)
			return -errno;
		ret = mnl_cb_run2(buf, n, req->nlmsg_seq, portid, data_cb, ex, ctl, NLMSG_MIN_TYPE);
	} while (ret > MNL_CB_STOP);
	return ret < 0 ? -errno : 0;
}

/* The socket belongs to the netns it is created in; the thread stays there
 * for the whole exchange because a move is checked against the caller's
 * netns too (rdma_dev_change_netns). */
static int exchange_in(struct nlmsghdr *req, struct exchange *ex, struct cni_err *err)
{
	struct mnl_socket *nl;
	int one = 1, ret;

	nl = mnl_socket_open(NETLINK_RDMA);
	if (!nl)
		return errno == EPROTONOSUPPORT ? no_rdma(err) : -errno;
	/* Old kernels lack these options; the request still works without. */
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &one, sizeof(one));
	ret = mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0 ? -errno : 0;
	if (!ret)
		ret = talk(nl, req, ex);
	if (ret && ex->extack[0])
		cni_err_details(err, "%s", ex->extack);
	mnl_socket_close(nl);
	return ret;
}

static int request(int netns_fd, struct nlmsghdr *req, mnl_cb_t cb, void *data,
		   struct cni_err *err)
{
	struct exchange ex = { .cb = cb, .data = data };
	int self = -1, ret;

	if (netns_fd >= 0) {
		self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
		if (self < 0 || setns(netns_fd, CLONE_NEWNET) < 0) {
			ret = -errno;
			cni_err_set(err, CNI_ERR_RDMA_NETLINK,
				    "failed to enter netns for RDMA netlink: %s", strerror(-ret));
			goto out;
		}
	}
	ret = exchange_in(req, &ex, err);
	if (self >= 0 && setns(self, CLONE_NEWNET) < 0) {
		ret = -errno;
		cni_err_set(err, CNI_ERR_RDMA_NETLINK,
			    "failed to return to the original netns: %s", strerror(-ret));
	}
out:
	if (self >= 0)
		close(self);
	return ret;
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

	if (rdmanl_parse_mode(nlh, &r->mode)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	r->seen = true;
	return MNL_CB_OK;
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

struct dev_list {
	struct rdmanl_dev *devs;
	int max;
	int n;
};

static int list_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dev_list *l = data;

	if (l->n == l->max) {
		errno = ENOBUFS;
		return MNL_CB_ERROR;
	}
	if (rdmanl_parse_dev(nlh, &l->devs[l->n])) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	l->n++;
	return MNL_CB_OK;
}

static int port_cb(const struct nlmsghdr *nlh, void *data)
{
	struct rdmanl_dev *dev = data, port;

	if (rdmanl_parse_dev(nlh, &port) || port.index != dev->index) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	dev->ndev_index = port.ndev_index;
	memcpy(dev->ndev_name, port.ndev_name, sizeof(dev->ndev_name));
	return MNL_CB_OK;
}

static int port_netdev(int netns_fd, struct rdmanl_dev *dev, struct cni_err *err)
{
	char buf[REQ_MAX];
	int ret;

	rdmanl_encode_port_get(buf, sizeof(buf), next_seq(), dev->index, 1);
	ret = request(netns_fd, (struct nlmsghdr *)buf, port_cb, dev, err);
	if (ret)
		cni_err_set(err, CNI_ERR_RDMA_NETLINK, "failed to read port 1 of RDMA device %s: %s",
			    dev->name, strerror(-ret));
	return ret;
}

int rdmanl_dev_list(int netns_fd, struct rdmanl_dev *out, int max, int *n, struct cni_err *err)
{
	struct dev_list l = { .devs = out, .max = max };
	char buf[REQ_MAX];
	int i, ret;

	*n = 0;
	rdmanl_encode_dev_get(buf, sizeof(buf), next_seq(), true, 0);
	ret = request(netns_fd, (struct nlmsghdr *)buf, list_cb, &l, err);
	if (ret) {
		cni_err_set(err, CNI_ERR_RDMA_NETLINK, "failed to list RDMA devices: %s",
			    strerror(-ret));
		return ret;
	}
	for (i = 0; i < l.n; i++) {
		ret = port_netdev(netns_fd, &out[i], err);
		if (ret)
			return ret;
	}
	*n = l.n;
	return 0;
}

int rdmanl_dev_by_name(int netns_fd, const char *name, struct rdmanl_dev *out, struct cni_err *err)
{
	struct rdmanl_dev devs[RDMANL_MAX_DEVS];
	int i, n, ret;

	ret = rdmanl_dev_list(netns_fd, devs, RDMANL_MAX_DEVS, &n, err);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		if (!strcmp(devs[i].name, name)) {
			*out = devs[i];
			return 0;
		}
	}
	return -ENODEV;
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
