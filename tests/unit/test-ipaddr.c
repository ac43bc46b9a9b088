// SPDX-License-Identifier: Apache-2.0
/* Unit tests for ipaddr.c: parsing, strict prefix lengths, formatting, equality, numbers. */
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include "ipaddr.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *in;
	int family;		/* 0 = must fail */
	const char *out;
} addrs[] = {
	{ "192.0.2.1", AF_INET, "192.0.2.1" },
	{ "2001:db8::1", AF_INET6, "2001:db8::1" },
	{ "2001:DB8:0:0::1", AF_INET6, "2001:db8::1" },
	{ "::ffff:192.0.2.1", AF_INET6, "::ffff:192.0.2.1" },
	{ "192.0.2.256", 0, NULL },
	{ "192.0.2", 0, NULL },
	{ "192.0.2.1/24", 0, NULL },
	{ "", 0, NULL },
	{ " 192.0.2.1", 0, NULL },
	{ "2001:db8:::1", 0, NULL },
	{ NULL, 0, NULL },
};

START_TEST(test_addr)
{
	struct ipaddr a = { 0 };
	char buf[IPADDR_STR_MAX];
	int ret = ipaddr_parse(addrs[_i].in, &a);

	if (!addrs[_i].family) {
		ck_assert_int_eq(ret, -EINVAL);
		ck_assert_int_eq(a.family, 0);
		return;
	}
	ck_assert_int_eq(ret, 0);
	ck_assert_int_eq(a.family, addrs[_i].family);
	ipaddr_format(&a, buf);
	ck_assert_str_eq(buf, addrs[_i].out);
}
END_TEST

static const struct {
	const char *in;
	int ok;
	const char *out;
} prefixes[] = {
	{ "192.0.2.7/24", 1, "192.0.2.7/24" },	/* host bits kept */
	{ "0.0.0.0/0", 1, "0.0.0.0/0" },
	{ "192.0.2.1/32", 1, "192.0.2.1/32" },
	{ "2001:db8::5/64", 1, "2001:db8::5/64" },
	{ "::/0", 1, "::/0" },
	{ "2001:db8::1/128", 1, "2001:db8::1/128" },
	{ "192.0.2.1/33", 0, NULL },
	{ "2001:db8::/129", 0, NULL },
	{ "192.0.2.1/", 0, NULL },
	{ "192.0.2.1", 0, NULL },
	{ "192.0.2.1/+8", 0, NULL },
	{ "192.0.2.1/ 8", 0, NULL },
	{ "192.0.2.1/0x8", 0, NULL },
	{ "192.0.2.1/-1", 0, NULL },
	{ "192.0.2.1/99999999999999999999", 0, NULL },
	{ "/24", 0, NULL },
	{ "bogus/24", 0, NULL },
	{ "2001:0db8:0000:0000:0000:0000:0000:0000:0000:0001/64", 0, NULL },
	{ NULL, 0, NULL },
};

START_TEST(test_prefix)
{
	struct ipprefix p = { 0 };
	char buf[IPADDR_STR_MAX];
	int ret = ipprefix_parse(prefixes[_i].in, &p);

	if (!prefixes[_i].ok) {
		ck_assert_int_eq(ret, -EINVAL);
		return;
	}
	ck_assert_int_eq(ret, 0);
	ipprefix_format(&p, buf);
	ck_assert_str_eq(buf, prefixes[_i].out);
}
END_TEST

static const struct {
	const char *a, *b;
	int equal;
} equals[] = {
	{ "192.0.2.1/24", "192.0.2.1/24", 1 },
	{ "192.0.2.1/24", "192.0.2.1/25", 0 },
	{ "192.0.2.1/24", "192.0.2.2/24", 0 },
	{ "2001:db8::1/64", "2001:db8:0::1/64", 1 },
	{ "::/0", "0.0.0.0/0", 0 },
};

START_TEST(test_equal)
{
	struct ipprefix a, b;

	ck_assert_int_eq(ipprefix_parse(equals[_i].a, &a), 0);
	ck_assert_int_eq(ipprefix_parse(equals[_i].b, &b), 0);
	ck_assert_int_eq(ipprefix_equal(&a, &b), equals[_i].equal);
	ck_assert_int_eq(ipaddr_equal(&a.addr, &b.addr),
			 equals[_i].equal || (a.len != b.len && ipaddr_equal(&a.addr, &b.addr)));
}
END_TEST

START_TEST(test_unset)
{
	struct ipaddr a = { 0 }, b = { 0 };
	struct ipprefix p = { 0 };
	char buf[IPADDR_STR_MAX] = "junk";

	ck_assert(ipaddr_equal(&a, &b));
	ipaddr_format(&a, buf);
	ck_assert_str_eq(buf, "");
	ipprefix_format(&p, buf);
	ck_assert_str_eq(buf, "");
}
END_TEST

/* The number of an address, and back: IPv4 in the low 32 bits, network order high first. */
static const struct {
	const char *text;
	int family;
	uint64_t hi, lo;
} numbers[] = {
	{ "0.0.0.0", AF_INET, 0, 0 },
	{ "192.0.2.1", AF_INET, 0, 0xc0000201 },
	{ "255.255.255.255", AF_INET, 0, 0xffffffff },
	{ "::", AF_INET6, 0, 0 },
	{ "2001:db8::1", AF_INET6, 0x20010db800000000ull, 1 },
	{ "::ffff:192.0.2.1", AF_INET6, 0, 0xffffc0000201ull },
	{ "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", AF_INET6, ~0ull, ~0ull },
};

START_TEST(test_u128)
{
	ipaddr_u128 want = (ipaddr_u128)numbers[_i].hi << 64 | numbers[_i].lo, v = 0;
	struct ipaddr a;
	char buf[IPADDR_STR_MAX];
	int family = 0;

	ck_assert_int_eq(ipaddr_parse_u128(numbers[_i].text, &family, &v), 0);
	ck_assert_int_eq(family, numbers[_i].family);
	ck_assert(v == want);
	ck_assert_int_eq(ipaddr_parse(numbers[_i].text, &a), 0);
	ck_assert(ipaddr_to_u128(&a) == want);
	ipaddr_from_u128(family, v, &a);
	ipaddr_format(&a, buf);
	ck_assert_str_eq(buf, numbers[_i].text);
	ipaddr_format_u128(family, v, buf);
	ck_assert_str_eq(buf, numbers[_i].text);
}
END_TEST

START_TEST(test_u128_refused)
{
	ipaddr_u128 v = 7;
	int family = 7;

	ck_assert_int_eq(ipaddr_parse_u128("192.0.2.256", &family, &v), -EINVAL);
	ck_assert_int_eq(ipaddr_parse_u128(" 192.0.2.1", &family, &v), -EINVAL);
	ck_assert_int_eq(ipaddr_parse_u128("192.0.2.1/24", &family, &v), -EINVAL);
	ck_assert(v == 7 && family == 7);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_addr, 0, N(addrs));
	tcase_add_loop_test(tc, test_prefix, 0, N(prefixes));
	tcase_add_loop_test(tc, test_equal, 0, N(equals));
	tcase_add_test(tc, test_unset);
	tcase_add_loop_test(tc, test_u128, 0, N(numbers));
	tcase_add_test(tc, test_u128_refused);
}

int main(void)
{
	return unit_run("ipaddr", add_tests);
}
