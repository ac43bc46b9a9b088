// SPDX-License-Identifier: Apache-2.0
/* linkip: with root, addresses and routes on a veth in a private netns,
 * listed back, and the kernel's refusals as the errors name them. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include "link.h"
#include "linkip.h"
#include "veth.h"

static struct ipprefix prefix(const char *addr, int len)
{
	struct ipprefix p = { .len = len };

	p.addr.family = strchr(addr, ':') ? AF_INET6 : AF_INET;
	ck_assert_int_eq(inet_pton(p.addr.family, addr, p.addr.bytes), 1);
	return p;
}

static bool has_prefix(const struct ipprefix *list, int n, const struct ipprefix *p)
{
	int i;

	for (i = 0; i < n; i++) {
		if (list[i].addr.family == p->addr.family && list[i].len == p->len &&
		    !memcmp(list[i].addr.bytes, p->addr.bytes, 16))
			return true;
	}
	return false;
}

START_TEST(test_addr)
{
	struct link_sock *s = veth_sock(-1);
	struct ipprefix v4 = prefix("192.0.2.10", 24), v6 = prefix("2001:db8::10", 64);
	struct ipprefix list[8];
	struct cni_err err = { 0 };
	char want[CNI_ERR_MSG_MAX];
	int idx = veth_ifindex(s, "vA"), n;

	ck_assert_int_eq(link_addr_add(s, idx, &v4, &err), 0);
	ck_assert_int_eq(link_addr_add(s, idx, &v6, &err), 0);
	ck_assert_int_eq(link_addr_list(s, idx, list, 8, &n), 0);
	ck_assert_int_eq(n, 2);
	ck_assert(has_prefix(list, n, &v4));
	ck_assert(has_prefix(list, n, &v6));
	ck_assert_int_eq(link_addr_list(s, idx, list, 1, &n), -ENOSPC);
	ck_assert_int_eq(link_addr_add(s, idx, &v4, &err), -EEXIST);
	snprintf(want, sizeof(want), "failed to add address 192.0.2.10/24 to link %d: File exists", idx);
	ck_assert_str_eq(err.msg, want);
	/* the list reads every reply: the socket still works */
	ck_assert_int_eq(link_addr_list(s, veth_ifindex(s, "vB"), list, 8, &n), 0);
	ck_assert_int_eq(n, 0);
	link_sock_close(s);
}
END_TEST

static bool has_route(const struct link_route *list, int n, const struct ipprefix *dst,
		      const char *gw)
{
	struct ipaddr via = { 0 };
	int i;

	if (gw) {
		via.family = dst->addr.family;
		ck_assert_int_eq(inet_pton(via.family, gw, via.bytes), 1);
	}
	for (i = 0; i < n; i++) {
		if (has_prefix(&list[i].dst, 1, dst) && list[i].gw.family == via.family &&
		    !memcmp(list[i].gw.bytes, via.bytes, 16))
			return true;
	}
	return false;
}

START_TEST(test_route)
{
	static const struct {
		const char *dst;
		int len;
		const char *gw;
	} routes[] = {
		{ "198.51.100.0", 24, "192.0.2.1" },
		{ "0.0.0.0", 0, "192.0.2.1" },
		{ "203.0.113.0", 24, NULL },
		{ "2001:db8:1::", 64, "2001:db8::1" },
		{ "::", 0, "2001:db8::1" },
	};
	struct link_sock *s = veth_sock(-1);
	struct ipprefix v4 = prefix("192.0.2.10", 24), v6 = prefix("2001:db8::10", 64), dst;
	struct link_route list[16];
	struct cni_err err = { 0 };
	char want[CNI_ERR_MSG_MAX];
	struct ipaddr gw;
	int idx = veth_ifindex(s, "vA"), n;
	size_t i;

	ck_assert_int_eq(link_set_up(s, idx, true, &err), 0);
	ck_assert_int_eq(link_addr_add(s, idx, &v4, &err), 0);
	ck_assert_int_eq(link_addr_add(s, idx, &v6, &err), 0);
	for (i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		dst = prefix(routes[i].dst, routes[i].len);
		gw = (struct ipaddr){ 0 };
		if (routes[i].gw)
			gw = prefix(routes[i].gw, 0).addr;
		ck_assert_msg(link_route_add(s, idx, &dst, &gw, &err) == 0, "%s", err.msg);
	}
	ck_assert_int_eq(link_route_list(s, idx, list, 16, &n), 0);
	for (i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		dst = prefix(routes[i].dst, routes[i].len);
		ck_assert_msg(has_route(list, n, &dst, routes[i].gw), "no route %s/%d",
			      routes[i].dst, routes[i].len);
	}
	/* the connected route of the address is there too, through no gateway */
	dst = prefix("192.0.2.0", 24);
	ck_assert(has_route(list, n, &dst, NULL));
	dst = prefix("198.51.100.0", 24);
	gw = prefix("192.0.2.1", 0).addr;
	ck_assert_int_eq(link_route_add(s, idx, &dst, &gw, &err), -EEXIST);
	snprintf(want, sizeof(want),
		 "failed to add route 198.51.100.0/24 via 192.0.2.1 on link %d: File exists", idx);
	ck_assert_str_eq(err.msg, want);
	/* a gateway behind another gateway: the kernel explains in its extack */
	memset(&err, 0, sizeof(err));
	dst = prefix("198.51.100.128", 25);
	gw = prefix("198.51.100.1", 0).addr;
	ck_assert_int_lt(link_route_add(s, idx, &dst, &gw, &err), 0);
	ck_assert_msg(strstr(err.details, "gateway"), "details: \"%s\"", err.details);
	link_sock_close(s);
}
END_TEST

static void add_root_tests(TCase *tc)
{
	tcase_add_test(tc, test_addr);
	tcase_add_test(tc, test_route);
}

int main(void)
{
	return veth_run("linkip", NULL, add_root_tests);
}
