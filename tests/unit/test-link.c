// SPDX-License-Identifier: Apache-2.0
/* link: an RTM_NEWLINK parsed back (built with libmnl), and with root, real
 * links in private netns: sockets per netns, move+rename+alias, changes, walks. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include "link.h"
#include "netns.h"
#include "veth.h"

/* A link reply as rtnl_fill_ifinfo() starts one: type, name, address,
 * and optionally the parent device. */
static int link_reply(char *buf, unsigned short type, const uint8_t *addr, size_t addr_len,
		      const char *parent)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = RTM_NEWLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_index = 12;
	ifi->ifi_type = type;
	ifi->ifi_flags = IFF_UP;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, "ib0");
	mnl_attr_put_u32(nlh, IFLA_MTU, 2044);
	mnl_attr_put(nlh, IFLA_ADDRESS, addr_len, addr);
	if (parent)
		mnl_attr_put_strz(nlh, IFLA_PARENT_DEV_NAME, parent);
	return (int)nlh->nlmsg_len;
}

/* An IPoIB link: its type, its 20-byte address (no 6-byte MAC), and the
 * VF's PCI address as its parent; printed as `ip link` prints it. */
START_TEST(test_decode_ipoib_link)
{
	static const uint8_t addr[20] = { 0x00, 0x00, 0x0c, 0x79, 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
					  0xa0, 0x88, 0xc2, 0x03, 0x00, 0xd6, 0x49, 0xa2 };
	char buf[1024], text[LINK_ADDR_STR_MAX];
	struct link_info info;
	int len = link_reply(buf, 32, addr, sizeof(addr), "0000:3b:00.2");

	ck_assert_int_eq(link_decode(buf, (size_t)len, &info), 0);
	ck_assert_int_eq(info.ifindex, 12);
	ck_assert_uint_eq(info.type, 32);
	ck_assert_str_eq(info.name, "ib0");
	ck_assert_str_eq(info.parent, "0000:3b:00.2");
	ck_assert_int_eq(info.addr_len, 20);
	ck_assert_mem_eq(info.addr, addr, 20);
	ck_assert_mem_eq(info.mac, "\0\0\0\0\0\0", 6);
	ck_assert_uint_eq(info.mtu, 2044);
	ck_assert(info.up);
	link_addr_format(&info, text);
	ck_assert_str_eq(text, "00:00:0c:79:fe:80:00:00:00:00:00:00:a0:88:c2:03:00:d6:49:a2");
}
END_TEST

START_TEST(test_decode_link)
{
	static const uint8_t mac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	static const uint8_t huge[40] = { 1 };
	char buf[1024], text[LINK_ADDR_STR_MAX];
	struct link_info info;
	int len = link_reply(buf, 1, mac, sizeof(mac), NULL);

	ck_assert_int_eq(link_decode(buf, (size_t)len, &info), 0);
	ck_assert_uint_eq(info.type, 1);
	ck_assert_mem_eq(info.mac, mac, 6);
	ck_assert_int_eq(info.addr_len, 6);
	ck_assert_str_eq(info.parent, "");
	link_addr_format(&info, text);
	ck_assert_str_eq(text, "02:11:22:33:44:55");
	/* an address past MAX_ADDR_LEN is no address */
	len = link_reply(buf, 1, huge, sizeof(huge), NULL);
	ck_assert_int_eq(link_decode(buf, (size_t)len, &info), 0);
	ck_assert_int_eq(info.addr_len, 0);
	link_addr_format(&info, text);
	ck_assert_str_eq(text, "");
	/* cut, or not a link */
	ck_assert_int_eq(link_decode(buf, (size_t)len - 1, &info), -EINVAL);
	ck_assert_int_eq(link_decode(buf, 8, &info), -EINVAL);
	((struct nlmsghdr *)buf)->nlmsg_type = RTM_NEWADDR;
	ck_assert_int_eq(link_decode(buf, (size_t)len, &info), -EINVAL);
}
END_TEST

static int count_links(const struct link_info *info, void *arg)
{
	(void)info;
	(*(int *)arg)++;
	return 0;
}

static unsigned long current_inode(void)
{
	struct stat st;

	ck_assert_int_eq(stat("/proc/self/ns/net", &st), 0);
	return st.st_ino;
}

/* A socket for another netns talks to that netns; the caller stays home. */
START_TEST(test_sock_open_netns)
{
	unsigned long home = current_inode();
	struct cni_err err = { 0 };
	struct link_sock *pod;
	struct link_info info;
	int uts;

	pod = veth_sock(veth_pod_ns);
	ck_assert_uint_eq(current_inode(), home);
	ck_assert_int_eq(link_get_by_name(pod, "vA", &info), -ENODEV);
	ck_assert_int_eq(link_get_by_name(pod, "lo", &info), 0);
	link_sock_close(pod);
	uts = open("/proc/self/ns/uts", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(uts, 0);
	ck_assert_int_eq(link_sock_open(uts, &pod, &err), -EINVAL);
	ck_assert_ptr_null(pod);
	ck_assert_str_eq(err.msg, "failed to enter netns for rtnetlink socket: Invalid argument");
	ck_assert_uint_eq(current_inode(), home);
	close(uts);
}
END_TEST

START_TEST(test_move)
{
	struct link_sock *s = veth_sock(-1), *pod = veth_sock(veth_pod_ns);
	struct cni_err err = { 0 };
	struct link_info info;
	int idx = veth_ifindex(s, "vA");

	ck_assert_int_eq(link_move(s, pod, idx, "net1", "host:vA", &err), 0);
	ck_assert_int_eq(link_get_by_name(s, "vA", &info), -ENODEV);
	ck_assert_int_eq(link_get_by_name(pod, "net1", &info), 0);
	ck_assert_str_eq(info.alias, "host:vA");
	/* s still answers for the host */
	ck_assert_int_eq(link_get_by_name(s, "vB", &info), 0);
	link_sock_close(pod);
	link_sock_close(s);
}
END_TEST

START_TEST(test_move_name_taken)
{
	struct link_sock *s = veth_sock(-1), *pod = veth_sock(veth_pod_ns);
	struct cni_err err = { 0 };
	struct link_info info;
	char want[CNI_ERR_MSG_MAX];
	int idx;

	veth_sh("ip link add vC type veth peer name vD");
	ck_assert_int_eq(link_move(s, pod, veth_ifindex(s, "vD"), "net1", NULL, &err), 0);
	idx = veth_ifindex(s, "vA");
	ck_assert_int_eq(link_move(s, pod, idx, "net1", "host:vA", &err), -EEXIST);
	snprintf(want, sizeof(want), "failed to move link %d into netns as \"net1\": File exists", idx);
	ck_assert_str_eq(err.msg, want);
	ck_assert_int_eq(err.code, CNI_ERR_NETLINK);
	ck_assert_int_eq(link_get_by_index(s, idx, &info), 0);
	ck_assert_str_eq(info.name, "vA");
	ck_assert_str_eq(info.alias, "");
	link_sock_close(pod);
	link_sock_close(s);
}
END_TEST

/* The kernel refuses this name only after moving: the link must come back. */
START_TEST(test_move_bad_name)
{
	struct link_sock *s = veth_sock(-1), *pod = veth_sock(veth_pod_ns);
	struct cni_err err = { 0 };
	struct link_info info;
	int idx = veth_ifindex(s, "vA"), n = 0;

	ck_assert_int_eq(link_move(s, pod, idx, "bad/name", "host:vA", &err), -EINVAL);
	ck_assert_int_eq(err.code, CNI_ERR_NETLINK);
	ck_assert_int_eq(link_get_by_index(s, idx, &info), 0);
	ck_assert_str_eq(info.name, "vA");
	ck_assert_str_eq(info.alias, "");
	ck_assert_int_eq(link_get_by_name(pod, "vA", &info), -ENODEV);
	ck_assert_int_eq(link_for_each(pod, count_links, &n), 0);
	ck_assert_int_eq(n, 1);
	link_sock_close(pod);
	link_sock_close(s);
}
END_TEST

START_TEST(test_set)
{
	static const uint8_t mac[6] = { 0x02, 0x00, 0x5e, 0x10, 0x20, 0x30 };
	struct link_sock *s = veth_sock(-1);
	struct cni_err err = { 0 };
	struct link_info info;
	int idx = veth_ifindex(s, "vA");

	ck_assert_int_eq(link_set_mac(s, idx, mac, &err), 0);
	ck_assert_int_eq(link_set_up(s, idx, true, &err), 0);
	ck_assert_int_eq(link_set_up(s, idx, false, &err), 0);
	ck_assert_int_eq(link_set_name(s, idx, "ens8f0v2", &err), 0);
	ck_assert_int_eq(link_set_alias(s, idx, "sriov-rdma:0000:3b:00.2", &err), 0);
	ck_assert_int_eq(link_get_by_index(s, idx, &info), 0);
	ck_assert_mem_eq(info.mac, mac, 6);
	ck_assert(!info.up);
	ck_assert_str_eq(info.name, "ens8f0v2");
	ck_assert_str_eq(info.alias, "sriov-rdma:0000:3b:00.2");
	ck_assert_int_eq(link_set_up(s, idx, true, &err), 0);
	ck_assert_int_eq(link_set_alias(s, idx, "", &err), 0);
	ck_assert_int_eq(link_get_by_name(s, "ens8f0v2", &info), 0);
	ck_assert(info.up);
	ck_assert_str_eq(info.alias, "");
	ck_assert_int_eq(info.mtu, 1500);
	ck_assert_int_eq(link_set_name(s, idx, "vB", &err), -EEXIST);
	link_sock_close(s);
}
END_TEST

struct walk {
	const char *stop;
	int seen;
};

static int count_until(const struct link_info *info, void *arg)
{
	struct walk *w = arg;

	w->seen++;
	return w->stop && !strcmp(info->name, w->stop) ? 42 : 0;
}

START_TEST(test_for_each)
{
	struct link_sock *s = veth_sock(-1);
	struct walk all = { NULL, 0 }, until_lo = { "lo", 0 };

	ck_assert_int_eq(link_for_each(s, count_until, &all), 0);
	ck_assert_int_eq(all.seen, 3);
	/* lo is ifindex 1: the walk stops there with the callback's value */
	ck_assert_int_eq(link_for_each(s, count_until, &until_lo), 42);
	ck_assert_int_eq(until_lo.seen, 1);
	/* and the socket is usable after the early stop */
	ck_assert_int_gt(veth_ifindex(s, "vB"), 1);
	link_sock_close(s);
}
END_TEST

/* A veth as the kernel reports it: Ethernet, a 6-byte address, no parent
 * device (a VF's netdev has its PCI function). */
START_TEST(test_veth_facts)
{
	struct link_sock *s = veth_sock(-1);
	struct link_info info;

	ck_assert_int_eq(link_get_by_name(s, "vA", &info), 0);
	ck_assert_uint_eq(info.type, 1);	/* ARPHRD_ETHER */
	ck_assert_int_eq(info.addr_len, 6);
	ck_assert_mem_eq(info.addr, info.mac, 6);
	ck_assert_str_eq(info.parent, "");
	ck_assert_int_eq(link_get_by_parent(s, "0000:3b:00.2", &info), -ENODEV);
	link_sock_close(s);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_test(tc, test_decode_ipoib_link);
	tcase_add_test(tc, test_decode_link);
}

static void add_root_tests(TCase *tc)
{
	tcase_add_test(tc, test_sock_open_netns);
	tcase_add_test(tc, test_move);
	tcase_add_test(tc, test_move_name_taken);
	tcase_add_test(tc, test_move_bad_name);
	tcase_add_test(tc, test_set);
	tcase_add_test(tc, test_for_each);
	tcase_add_test(tc, test_veth_facts);
}

int main(void)
{
	return veth_run("link", add_tests, add_root_tests);
}
