// SPDX-License-Identifier: Apache-2.0
/* Unit tests for rdmanl: request encoders read back with libmnl, reply
 * parsers on hand-built kernel replies, and the no-RDMA-kernel error. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <libmnl/libmnl.h>
#include <rdma/rdma_netlink.h>
#include "rdmanl.h"
#include "unit.h"

#define NLDEV(op) RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op)
#define MAX_ATTRS 4
#define BUF_SIZE 8192

struct attr {
	uint16_t type;
	uint32_t value;
};

struct enc_case {
	const char *name;
	int (*encode)(void *buf, size_t size, uint32_t seq);
	uint16_t type;
	uint16_t flags;
	struct attr attrs[MAX_ATTRS];
	int nattrs;
};

static int enc_sys_get(void *buf, size_t size, uint32_t seq)
{
	return rdmanl_encode_sys_get(buf, size, seq);
}

static int enc_dev_dump(void *buf, size_t size, uint32_t seq)
{
	return rdmanl_encode_dev_get(buf, size, seq, true, 7);
}

static int enc_dev_get(void *buf, size_t size, uint32_t seq)
{
	return rdmanl_encode_dev_get(buf, size, seq, false, 7);
}

static int enc_port_get(void *buf, size_t size, uint32_t seq)
{
	return rdmanl_encode_port_get(buf, size, seq, 3, 1);
}

static int enc_set_netns(void *buf, size_t size, uint32_t seq)
{
	return rdmanl_encode_dev_set_netns(buf, size, seq, 3, 42);
}

static const struct enc_case enc_cases[] = {
	{ "sys_get", enc_sys_get, NLDEV(RDMA_NLDEV_CMD_SYS_GET),
	  NLM_F_REQUEST | NLM_F_ACK, {}, 0 },
	{ "dev_get dump", enc_dev_dump, NLDEV(RDMA_NLDEV_CMD_GET),
	  NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP, {}, 0 },
	{ "dev_get", enc_dev_get, NLDEV(RDMA_NLDEV_CMD_GET),
	  NLM_F_REQUEST | NLM_F_ACK, { { RDMA_NLDEV_ATTR_DEV_INDEX, 7 } }, 1 },
	{ "port_get", enc_port_get, NLDEV(RDMA_NLDEV_CMD_PORT_GET),
	  NLM_F_REQUEST | NLM_F_ACK,
	  { { RDMA_NLDEV_ATTR_DEV_INDEX, 3 }, { RDMA_NLDEV_ATTR_PORT_INDEX, 1 } }, 2 },
	{ "dev_set_netns", enc_set_netns, NLDEV(RDMA_NLDEV_CMD_SET),
	  NLM_F_REQUEST | NLM_F_ACK,
	  { { RDMA_NLDEV_ATTR_DEV_INDEX, 3 }, { RDMA_NLDEV_NET_NS_FD, 42 } }, 2 },
};

START_TEST(test_encode)
{
	const struct enc_case *c = &enc_cases[_i];
	char buf[BUF_SIZE];
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
	const struct nlattr *a;
	int len, n = 0;

	memset(buf, 0xa5, sizeof(buf));
	len = c->encode(buf, sizeof(buf), 1234);
	ck_assert_msg(len > 0, "%s: %d", c->name, len);
	ck_assert_int_eq(len, nlh->nlmsg_len);
	ck_assert(mnl_nlmsg_ok(nlh, len));
	ck_assert_uint_eq(nlh->nlmsg_type, c->type);
	ck_assert_uint_eq(nlh->nlmsg_flags, c->flags);
	ck_assert_uint_eq(nlh->nlmsg_seq, 1234);
	ck_assert_uint_eq(nlh->nlmsg_pid, 0);
	mnl_attr_for_each(a, nlh, 0) {
		ck_assert_int_lt(n, c->nattrs);
		ck_assert_uint_eq(mnl_attr_get_type(a), c->attrs[n].type);
		ck_assert_int_eq(mnl_attr_validate(a, MNL_TYPE_U32), 0);
		ck_assert_uint_eq(mnl_attr_get_u32(a), c->attrs[n].value);
		n++;
	}
	ck_assert_int_eq(n, c->nattrs);
}
END_TEST

/* Every buffer shorter than the message is refused, never overrun. */
START_TEST(test_encode_too_small)
{
	const struct enc_case *c = &enc_cases[_i];
	char buf[BUF_SIZE];
	int full, size;

	full = c->encode(buf, sizeof(buf), 1);
	for (size = 0; size < full; size++) {
		memset(buf, 0x5a, sizeof(buf));
		ck_assert_int_eq(c->encode(buf, size, 1), -ENOSPC);
		ck_assert_uint_eq((unsigned char)buf[size], 0x5a);
	}
}
END_TEST

START_TEST(test_encode_bad_fd)
{
	char buf[BUF_SIZE];

	ck_assert_int_eq(rdmanl_encode_dev_set_netns(buf, sizeof(buf), 1, 3, -1), -EBADF);
}
END_TEST

/* Hand-built kernel replies. */
enum kind { U32, U8, STR, RAW2 };

struct rattr {
	uint16_t type;
	enum kind kind;
	uint32_t num;
	const char *str;
};

#define LONG_NAME "a123456789012345678901234567890123456789012345678901234567890123"

struct dev_case {
	const char *name;
	uint16_t type;
	struct rattr attrs[6];
	int ret;
	uint32_t index;
	const char *dev;
	int ndev_index;
	const char *ndev;
};

static const struct dev_case dev_cases[] = {
	{ "port reply with netdev", NLDEV(RDMA_NLDEV_CMD_GET),
	  { { RDMA_NLDEV_ATTR_DEV_INDEX, U32, 3, NULL },
	    { RDMA_NLDEV_ATTR_DEV_NAME, STR, 0, "mlx5_2" },
	    { RDMA_NLDEV_ATTR_PORT_INDEX, U32, 1, NULL },
	    { RDMA_NLDEV_ATTR_NDEV_INDEX, U32, 17, NULL },
	    { RDMA_NLDEV_ATTR_NDEV_NAME, STR, 0, "ens8f0v2" } },
	  0, 3, "mlx5_2", 17, "ens8f0v2" },
	{ "netdev in another netns", NLDEV(RDMA_NLDEV_CMD_GET),
	  { { RDMA_NLDEV_ATTR_DEV_INDEX, U32, 4, NULL },
	    { RDMA_NLDEV_ATTR_DEV_NAME, STR, 0, "mlx5_3" },
	    { RDMA_NLDEV_ATTR_PORT_INDEX, U32, 1, NULL } },
	  0, 4, "mlx5_3", 0, "" },
	{ "port dump type", NLDEV(RDMA_NLDEV_CMD_PORT_GET),
	  { { RDMA_NLDEV_ATTR_DEV_INDEX, U32, 5, NULL },
	    { RDMA_NLDEV_ATTR_DEV_NAME, STR, 0, "mlx5_4" } },
	  0, 5, "mlx5_4", 0, "" },
	{ "no index", NLDEV(RDMA_NLDEV_CMD_GET),
	  { { RDMA_NLDEV_ATTR_DEV_NAME, STR, 0, "mlx5_2" } }, -EINVAL, 0, "", 0, "" },
	{ "no name", NLDEV(RDMA_NLDEV_CMD_GET),
	  { { RDMA_NLDEV_ATTR_DEV_INDEX, U32, 3, NULL } }, -EINVAL, 0, "", 0, "" },
	{ "short index", NLDEV(RDMA_NLDEV_CMD_GET),
	  { { RDMA_NLDEV_ATTR_DEV_INDEX, RAW2, 3, NULL },
	    { RDMA_NLDEV_ATTR_DEV_NAME, STR, 0, "mlx5_2" } }, -EINVAL, 0, "", 0, "" },
	{ "name too long", NLDEV(RDMA_NLDEV_CMD_GET),
	  { { RDMA_NLDEV_ATTR_DEV_INDEX, U32, 3, NULL },
	    { RDMA_NLDEV_ATTR_DEV_NAME, STR, 0, LONG_NAME } }, -EINVAL, 0, "", 0, "" },
	{ "netdev name too long", NLDEV(RDMA_NLDEV_CMD_GET),
	  { { RDMA_NLDEV_ATTR_DEV_INDEX, U32, 3, NULL },
	    { RDMA_NLDEV_ATTR_DEV_NAME, STR, 0, "mlx5_2" },
	    { RDMA_NLDEV_ATTR_NDEV_INDEX, U32, 17, NULL },
	    { RDMA_NLDEV_ATTR_NDEV_NAME, STR, 0, "sixteen-chars-xx" } }, -EINVAL, 0, "", 0, "" },
	{ "wrong message type", NLDEV(RDMA_NLDEV_CMD_SYS_GET),
	  { { RDMA_NLDEV_ATTR_DEV_INDEX, U32, 3, NULL },
	    { RDMA_NLDEV_ATTR_DEV_NAME, STR, 0, "mlx5_2" } }, -EINVAL, 0, "", 0, "" },
};

static const struct nlmsghdr *build(char *buf, uint16_t type, const struct rattr *attrs, int max)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	uint16_t two = 3;
	int i;

	nlh->nlmsg_type = type;
	for (i = 0; i < max && attrs[i].type; i++) {
		const struct rattr *a = &attrs[i];

		if (a->kind == U32)
			mnl_attr_put_u32(nlh, a->type, a->num);
		else if (a->kind == U8)
			mnl_attr_put_u8(nlh, a->type, (uint8_t)a->num);
		else if (a->kind == STR)
			mnl_attr_put_strz(nlh, a->type, a->str);
		else
			mnl_attr_put(nlh, a->type, sizeof(two), &two);
	}
	return nlh;
}

START_TEST(test_parse_dev)
{
	const struct dev_case *c = &dev_cases[_i];
	char buf[BUF_SIZE] = { 0 };
	struct rdmanl_dev dev;

	build(buf, c->type, c->attrs, 6);
	ck_assert_msg(rdmanl_parse_dev(buf, &dev) == c->ret, "%s", c->name);
	if (c->ret)
		return;
	ck_assert_uint_eq(dev.index, c->index);
	ck_assert_str_eq(dev.name, c->dev);
	ck_assert_int_eq(dev.ndev_index, c->ndev_index);
	ck_assert_str_eq(dev.ndev_name, c->ndev);
}
END_TEST

struct mode_case {
	const char *name;
	uint16_t type;
	struct rattr attrs[3];
	int ret;
	enum rdmanl_mode mode;
};

static const struct mode_case mode_cases[] = {
	{ "shared", NLDEV(RDMA_NLDEV_CMD_SYS_GET),
	  { { RDMA_NLDEV_SYS_ATTR_NETNS_MODE, U8, 1, NULL },
	    { RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, U8, 1, NULL } }, 0, RDMANL_MODE_SHARED },
	{ "exclusive", NLDEV(RDMA_NLDEV_CMD_SYS_GET),
	  { { RDMA_NLDEV_SYS_ATTR_NETNS_MODE, U8, 0, NULL } }, 0, RDMANL_MODE_EXCLUSIVE },
	{ "unknown value", NLDEV(RDMA_NLDEV_CMD_SYS_GET),
	  { { RDMA_NLDEV_SYS_ATTR_NETNS_MODE, U8, 2, NULL } }, -EINVAL, 0 },
	{ "no mode", NLDEV(RDMA_NLDEV_CMD_SYS_GET),
	  { { RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, U8, 1, NULL } }, -EINVAL, 0 },
	{ "wrong message type", NLDEV(RDMA_NLDEV_CMD_GET),
	  { { RDMA_NLDEV_SYS_ATTR_NETNS_MODE, U8, 0, NULL } }, -EINVAL, 0 },
};

START_TEST(test_parse_mode)
{
	const struct mode_case *c = &mode_cases[_i];
	char buf[BUF_SIZE] = { 0 };
	enum rdmanl_mode mode = 99;

	build(buf, c->type, c->attrs, 3);
	ck_assert_msg(rdmanl_parse_mode(buf, &mode) == c->ret, "%s", c->name);
	if (!c->ret)
		ck_assert_int_eq(mode, c->mode);
}
END_TEST

/* On a kernel without ib_core the user learns that, not a bare errno. */
START_TEST(test_no_rdma_kernel)
{
	struct cni_err err = { 0 };
	enum rdmanl_mode mode;
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	if (fd >= 0 || errno != EPROTONOSUPPORT) {
		if (fd >= 0)
			close(fd);
		return;
	}
	ck_assert_int_eq(rdmanl_get_mode(-1, &mode, &err), -EPROTONOSUPPORT);
	ck_assert_int_eq(err.code, CNI_ERR_RDMA_NETLINK);
	ck_assert_str_eq(err.msg, "kernel has no RDMA netlink (ib_core not loaded?)");
}
END_TEST

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_encode, 0, N(enc_cases));
	tcase_add_loop_test(tc, test_encode_too_small, 0, N(enc_cases));
	tcase_add_test(tc, test_encode_bad_fd);
	tcase_add_loop_test(tc, test_parse_dev, 0, N(dev_cases));
	tcase_add_loop_test(tc, test_parse_mode, 0, N(mode_cases));
	tcase_add_test(tc, test_no_rdma_kernel);
}

int main(void)
{
	return unit_run("rdmanl", add_tests);
}
