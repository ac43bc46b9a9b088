// SPDX-License-Identifier: Apache-2.0
/* Fuzz target: the RDMA netlink reply parsers (rdmanl_parse_dev for GET and
 * PORT_GET replies, rdmanl_parse_mode for SYS_GET) on a datagram walked as
 * libnl walks one: what a parse takes is within bounds and comes back the
 * same from a kernel-layout message built from it. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>
#include <netlink/msg.h>
#include <rdma/rdma_netlink.h>
#include "rdmanl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MSG_MAX 512

static void put_attr(struct nlmsghdr *nlh, uint16_t type, const void *payload, size_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)nlh + NLMSG_ALIGN(nlh->nlmsg_len));

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, payload, len);
	nlh->nlmsg_len = NLMSG_ALIGN(nlh->nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static struct nlmsghdr *header(void *buf, int op)
{
	struct nlmsghdr *nlh = buf;

	memset(buf, 0, MSG_MAX);
	nlh->nlmsg_len = NLMSG_HDRLEN;
	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op);
	return nlh;
}

/* What the kernel's fill_port_info() would send for dev. */
static void round_trip_dev(const struct rdmanl_dev *dev)
{
	uint32_t port = 1, ndev = (uint32_t)dev->ndev_index;
	uint64_t buf[MSG_MAX / 8];
	struct nlmsghdr *nlh = header(buf, RDMA_NLDEV_CMD_GET);
	struct rdmanl_dev back;

	put_attr(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, &dev->index, sizeof(dev->index));
	put_attr(nlh, RDMA_NLDEV_ATTR_DEV_NAME, dev->name, strlen(dev->name) + 1);
	put_attr(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, &port, sizeof(port));
	if (dev->ndev_name[0] || dev->ndev_index) {
		put_attr(nlh, RDMA_NLDEV_ATTR_NDEV_INDEX, &ndev, sizeof(ndev));
		put_attr(nlh, RDMA_NLDEV_ATTR_NDEV_NAME, dev->ndev_name, strlen(dev->ndev_name) + 1);
	}
	if (rdmanl_parse_dev(nlh, &back) || back.index != dev->index ||
	    strcmp(back.name, dev->name) || back.ndev_index != dev->ndev_index ||
	    strcmp(back.ndev_name, dev->ndev_name))
		abort();
}

static void judge_dev(const struct nlmsghdr *nlh)
{
	struct rdmanl_dev dev;
	int ret = rdmanl_parse_dev(nlh, &dev);

	if (ret == -EINVAL)
		return;
	if (ret || memchr(dev.name, '\0', sizeof(dev.name)) == NULL ||
	    memchr(dev.ndev_name, '\0', sizeof(dev.ndev_name)) == NULL)
		abort();
	round_trip_dev(&dev);
}

static void judge_mode(const struct nlmsghdr *nlh)
{
	enum rdmanl_mode mode = 99, back = 99;
	uint64_t buf[MSG_MAX / 8];
	struct nlmsghdr *m;
	uint8_t shared;
	int ret = rdmanl_parse_mode(nlh, &mode);

	if (ret == -EINVAL)
		return;
	if (ret || (mode != RDMANL_MODE_SHARED && mode != RDMANL_MODE_EXCLUSIVE))
		abort();
	m = header(buf, RDMA_NLDEV_CMD_SYS_GET);
	shared = mode == RDMANL_MODE_SHARED;
	put_attr(m, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, &shared, sizeof(shared));
	if (rdmanl_parse_mode(m, &back) || back != mode)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly size bytes: a read past it is the sanitizer's */
	void *buf = malloc(size ? size : 1);
	struct nlmsghdr *nlh = buf;
	int rem = (int)(size > INT32_MAX ? INT32_MAX : size);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	/* libnl's own walk of a datagram, as nl_recvmsgs() hands messages on */
	for (; nlmsg_ok(nlh, rem); nlh = nlmsg_next(nlh, &rem)) {
		judge_dev(nlh);
		judge_mode(nlh);
	}
	free(buf);
	return 0;
}
