// SPDX-License-Identifier: Apache-2.0
/* Unit tests for ipam/ippool/range.c: parsing, usable bounds, exclusions, clipping, lowest free. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include "range.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Fills a range_conf from texts; excludes comma-separated. */
static void make_conf(struct range_conf *rc, const char *range, const char *start, const char *end,
		      const char *exclude, const char *gateway)
{
	char buf[1024], *tok, *save = NULL;

	memset(rc, 0, sizeof(*rc));
	snprintf(rc->range, sizeof(rc->range), "%s", range);
	snprintf(rc->start, sizeof(rc->start), "%s", start ? start : "");
	snprintf(rc->end, sizeof(rc->end), "%s", end ? end : "");
	snprintf(rc->gateway, sizeof(rc->gateway), "%s", gateway ? gateway : "");
	snprintf(buf, sizeof(buf), "%s", exclude ? exclude : "");
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		snprintf(rc->exclude[rc->n_exclude++], RANGE_TEXT_MAX, "%s", tok);
}

static void fmt(const struct pool_range *r, ipaddr_u128 a, char *buf)
{
	ipaddr_format_u128(r->family, a, buf);
}

/* range_build: the candidate interval, what is skipped, and config errors. */
static const struct {
	const char *range, *start, *end, *exclude, *gateway;
	const char *first, *last;	/* NULL: error expected */
	const char *usable;		/* decimal */
	const char *error;		/* substring of the message */
} builds[] = {
	/* both forms, v4 and v6 */
	{ "192.0.2.0/24", NULL, NULL, NULL, NULL, "192.0.2.1", "192.0.2.254", "254", NULL },
	{ "192.0.2.77/24", NULL, NULL, NULL, NULL, "192.0.2.1", "192.0.2.254", "254", NULL },
	{ "192.0.2.10-192.0.2.20/24", NULL, NULL, NULL, NULL, "192.0.2.10", "192.0.2.20", "11", NULL },
	{ "2001:db8::/64", NULL, NULL, NULL, NULL, "2001:db8::1", "2001:db8::ffff:ffff:ffff:fffe",
	  "18446744073709551614", NULL },
	{ "2001:db8::5-2001:db8::9/64", NULL, NULL, NULL, NULL, "2001:db8::5", "2001:db8::9", "5", NULL },
	{ "::/0", NULL, NULL, NULL, NULL, "::1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe",
	  "340282366920938463463374607431768211454", NULL },
	{ "0.0.0.0/0", NULL, NULL, NULL, NULL, "0.0.0.1", "255.255.255.254", "4294967294", NULL },
	/* smallest usable and none usable */
	{ "192.0.2.0/30", NULL, NULL, NULL, NULL, "192.0.2.1", "192.0.2.2", "2", NULL },
	{ "192.0.2.0/31", NULL, NULL, NULL, NULL, NULL, NULL, NULL, "has no usable address" },
	{ "192.0.2.1/32", NULL, NULL, NULL, NULL, NULL, NULL, NULL, "has no usable address" },
	{ "2001:db8::/127", NULL, NULL, NULL, NULL, NULL, NULL, NULL, "has no usable address" },
	{ "2001:db8::1/128", NULL, NULL, NULL, NULL, NULL, NULL, NULL, "has no usable address" },
	/* malformed */
	{ "192.0.2.0/33", NULL, NULL, NULL, NULL, NULL, NULL, NULL, "invalid range \"192.0.2.0/33\"" },
	{ "192.0.2.0", NULL, NULL, NULL, NULL, NULL, NULL, NULL, "invalid range" },
	{ "192.0.2.0/", NULL, NULL, NULL, NULL, NULL, NULL, NULL, "invalid range" },
	{ "192.0.2.0/-1", NULL, NULL, NULL, NULL, NULL, NULL, NULL, "invalid range" },
	{ "192.0.2.300/24", NULL, NULL, NULL, NULL, NULL, NULL, NULL, "invalid range" },
	{ "2001:db8::/129", NULL, NULL, NULL, NULL, NULL, NULL, NULL, "invalid range" },
	{ "192.0.2.1-2001:db8::1/24", NULL, NULL, NULL, NULL, NULL, NULL, NULL, "invalid range" },
	{ "192.0.2.1-/24", NULL, NULL, NULL, NULL, NULL, NULL, NULL, "invalid range" },
	/* first-last/nn: both ends in the one /nn network, or a config error naming both */
	{ "192.0.2.10-192.0.3.20/24", NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	  "invalid range \"192.0.2.10-192.0.3.20/24\": 192.0.2.10 and 192.0.3.20 are not in the same /24 network" },
	{ "192.0.1.250-192.0.2.20/24", NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	  "192.0.1.250 and 192.0.2.20 are not in the same /24 network" },
	{ "2001:db8::5-2001:db8:0:1::9/64", NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	  "2001:db8::5 and 2001:db8:0:1::9 are not in the same /64 network" },
	{ "192.0.2.0-192.0.2.255/24", NULL, NULL, NULL, NULL, "192.0.2.1", "192.0.2.254", "254", NULL },
	{ "192.0.2.20-192.0.2.10/24", NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	  "range_end 192.0.2.10 is before range_start 192.0.2.20" },
	{ "", NULL, NULL, NULL, NULL, NULL, NULL, NULL, "invalid range" },
	/* range_start / range_end, clipping */
	{ "192.0.2.0/24", "192.0.2.100", "192.0.2.110", NULL, NULL, "192.0.2.100", "192.0.2.110", "11", NULL },
	{ "192.0.2.0/24", "192.0.2.0", "192.0.2.255", NULL, NULL, "192.0.2.1", "192.0.2.254", "254", NULL },
	{ "192.0.2.0/24", "192.0.1.0", NULL, NULL, NULL, "192.0.2.1", "192.0.2.254", "254", NULL },
	{ "192.0.2.0/24", NULL, "192.0.3.9", NULL, NULL, "192.0.2.1", "192.0.2.254", "254", NULL },
	{ "192.0.2.0/24", "192.0.2.9", "192.0.2.9", NULL, NULL, "192.0.2.9", "192.0.2.9", "1", NULL },
	{ "192.0.2.0/24", "192.0.2.9", "192.0.2.5", NULL, NULL, NULL, NULL, NULL,
	  "empty interval in range 192.0.2.0/24: range_end 192.0.2.5 is before range_start 192.0.2.9" },
	{ "192.0.2.0/24", "192.0.2.255", NULL, NULL, NULL, NULL, NULL, NULL, "range_start 192.0.2.255 is past the range" },
	{ "192.0.2.0/24", "192.0.3.1", NULL, NULL, NULL, NULL, NULL, NULL, "range_start 192.0.3.1 is past the range" },
	{ "192.0.2.0/24", NULL, "192.0.1.200", NULL, NULL, NULL, NULL, NULL, "range_end 192.0.1.200 is before the range" },
	{ "192.0.2.0/24", "2001:db8::1", NULL, NULL, NULL, NULL, NULL, NULL, "invalid range_start \"2001:db8::1\"" },
	{ "192.0.2.0/24", NULL, "x", NULL, NULL, NULL, NULL, NULL, "invalid range_end \"x\"" },
	{ "2001:db8::/64", "2001:db8::ffff:ffff:ffff:ff00", NULL, NULL, NULL, "2001:db8::ffff:ffff:ffff:ff00",
	  "2001:db8::ffff:ffff:ffff:fffe", "255", NULL },
	/* exclusions: CIDR, bare IP, overlapping, outside, covering everything */
	{ "192.0.2.0/24", NULL, NULL, "192.0.2.0/28", NULL, "192.0.2.1", "192.0.2.254", "239", NULL },
	{ "192.0.2.0/24", NULL, NULL, "192.0.2.5,192.0.2.6", NULL, "192.0.2.1", "192.0.2.254", "252", NULL },
	{ "192.0.2.0/24", NULL, NULL, "192.0.2.0/28,192.0.2.8/29,192.0.2.15", NULL, "192.0.2.1",
	  "192.0.2.254", "239", NULL },
	{ "192.0.2.0/24", NULL, NULL, "198.51.100.0/24", NULL, "192.0.2.1", "192.0.2.254", "254", NULL },
	{ "192.0.2.0/24", NULL, NULL, "192.0.2.0/24", NULL, "192.0.2.1", "192.0.2.254", "0", NULL },
	{ "192.0.2.0/24", NULL, NULL, "192.0.0.0/16", NULL, "192.0.2.1", "192.0.2.254", "0", NULL },
	{ "192.0.2.0/24", NULL, NULL, "192.0.2.0/33", NULL, NULL, NULL, NULL, "invalid exclude \"192.0.2.0/33\"" },
	{ "192.0.2.0/24", NULL, NULL, "2001:db8::/64", NULL, NULL, NULL, NULL, "invalid exclude \"2001:db8::/64\"" },
	{ "192.0.2.0/24", NULL, NULL, "bogus", NULL, NULL, NULL, NULL, "invalid exclude \"bogus\"" },
	{ "2001:db8::/64", NULL, NULL, "2001:db8::/120,2001:db8::1:0/112", NULL, "2001:db8::1",
	  "2001:db8::ffff:ffff:ffff:fffe", "18446744073709485823", NULL },
	/* the gateway is never handed out */
	{ "192.0.2.0/24", NULL, NULL, NULL, "192.0.2.1", "192.0.2.1", "192.0.2.254", "253", NULL },
	{ "192.0.2.0/24", NULL, NULL, "192.0.2.1", "192.0.2.1", "192.0.2.1", "192.0.2.254", "253", NULL },
	{ "192.0.2.0/24", NULL, NULL, NULL, "192.0.3.1", "192.0.2.1", "192.0.2.254", "254", NULL },
	{ "192.0.2.0/24", NULL, NULL, NULL, "2001:db8::1", NULL, NULL, NULL, "invalid gateway" },
};

START_TEST(test_build)
{
	struct range_conf rc;
	struct pool_range r;
	struct pool_span skip[RANGE_MAX_SKIP];
	struct cni_err err = { 0 };
	char a[64], b[64], u[48];
	int ret;

	make_conf(&rc, builds[_i].range, builds[_i].start, builds[_i].end, builds[_i].exclude,
		  builds[_i].gateway);
	ret = range_build(&rc, "net", true, &r, skip, &err);
	if (!builds[_i].first) {
		ck_assert_int_eq(ret, -EINVAL);
		ck_assert_int_eq(err.code, CNI_ERR_CONFIG);
		ck_assert_msg(strstr(err.msg, builds[_i].error), "%s: got \"%s\"", builds[_i].range, err.msg);
		return;
	}
	ck_assert_msg(ret == 0, "%s: %s", builds[_i].range, err.msg);
	fmt(&r, r.span.first, a);
	fmt(&r, r.span.last, b);
	range_u128_format(r.usable, u, sizeof(u));
	ck_assert_str_eq(a, builds[_i].first);
	ck_assert_str_eq(b, builds[_i].last);
	ck_assert_str_eq(u, builds[_i].usable);
	for (size_t k = 0; k + 1 < r.n_skip; k++)
		ck_assert(r.skip[k].last + 1 < r.skip[k + 1].first);
}
END_TEST

/* The pool id is the masked CIDR, whatever form the range takes. */
static const struct {
	const char *range, *pool, *desc;
} ids[] = {
	{ "192.0.2.77/24", "192.0.2.0/24", "192.0.2.0/24 (192.0.2.1..192.0.2.254, 0 excluded)" },
	{ "192.0.2.10-192.0.2.20/24", "192.0.2.0/24", "192.0.2.0/24 (192.0.2.10..192.0.2.20, 0 excluded)" },
	{ "2001:db8::1:2/48", "2001:db8::/48", NULL },
};

START_TEST(test_pool_id)
{
	struct range_conf rc;
	struct pool_range r;
	struct pool_span skip[RANGE_MAX_SKIP];
	struct cni_err err = { 0 };

	make_conf(&rc, ids[_i].range, NULL, NULL, NULL, NULL);
	ck_assert_int_eq(range_build(&rc, "net", false, &r, skip, &err), 0);
	ck_assert_str_eq(r.pool, ids[_i].pool);
	if (ids[_i].desc)
		ck_assert_str_eq(r.desc, ids[_i].desc);
	ck_assert_str_eq(r.network, "net");
	ck_assert(!r.shared);
}
END_TEST

/* pool_first_free: lowest free with holes, skips, near the top, carries. */
static const struct {
	const char *range, *start, *exclude, *gateway;
	const char *taken;	/* comma-separated, ascending */
	const char *want;	/* NULL: exhausted */
} frees[] = {
	{ "192.0.2.0/24", NULL, NULL, NULL, "", "192.0.2.1" },
	{ "192.0.2.0/24", NULL, NULL, NULL, "192.0.2.1,192.0.2.2,192.0.2.4", "192.0.2.3" },
	{ "192.0.2.0/24", NULL, NULL, NULL, "192.0.2.1,192.0.2.2,192.0.2.3", "192.0.2.4" },
	{ "192.0.2.0/24", NULL, NULL, NULL, "192.0.1.9,192.0.2.1,192.0.2.2,192.0.3.1", "192.0.2.3" },
	{ "192.0.2.0/24", NULL, "192.0.2.1", NULL, "192.0.2.2", "192.0.2.3" },
	{ "192.0.2.0/24", NULL, "192.0.2.0/29", "192.0.2.8", "192.0.2.9,192.0.2.10", "192.0.2.11" },
	{ "192.0.2.0/24", NULL, "192.0.2.0/29,192.0.2.12/30", NULL,
	  "192.0.2.8,192.0.2.9,192.0.2.10,192.0.2.11,192.0.2.16", "192.0.2.17" },
	{ "192.0.2.0/30", NULL, NULL, NULL, "192.0.2.1", "192.0.2.2" },
	{ "192.0.2.0/30", NULL, NULL, NULL, "192.0.2.1,192.0.2.2", NULL },
	{ "192.0.2.0/30", NULL, NULL, "192.0.2.2", "192.0.2.1", NULL },
	{ "192.0.2.0/24", NULL, "192.0.2.0/24", NULL, "", NULL },
	{ "192.0.2.0/28", NULL, "192.0.2.1,192.0.2.3", NULL, "192.0.2.2,192.0.2.4,192.0.2.5", "192.0.2.6" },
	{ "192.0.2.0/28", NULL, "192.0.2.8/29", NULL, "192.0.2.1,192.0.2.2,192.0.2.3,192.0.2.4,192.0.2.5,192.0.2.6,192.0.2.7", NULL },
	/* IPv6 /64 and /48 near the top; all-ones never handed out */
	{ "2001:db8::/64", "2001:db8::ffff:ffff:ffff:fffd", NULL, NULL, "2001:db8::ffff:ffff:ffff:fffd",
	  "2001:db8::ffff:ffff:ffff:fffe" },
	{ "2001:db8::/64", "2001:db8::ffff:ffff:ffff:fffd", NULL, NULL,
	  "2001:db8::ffff:ffff:ffff:fffd,2001:db8::ffff:ffff:ffff:fffe", NULL },
	{ "2001:db8:1::/48", "2001:db8:1:ffff:ffff:ffff:ffff:fffc", NULL, NULL,
	  "2001:db8:1:ffff:ffff:ffff:ffff:fffc,2001:db8:1:ffff:ffff:ffff:ffff:fffd",
	  "2001:db8:1:ffff:ffff:ffff:ffff:fffe" },
	{ "2001:db8:1::/48", "2001:db8:1:ffff:ffff:ffff:ffff:fffe", NULL, NULL,
	  "2001:db8:1:ffff:ffff:ffff:ffff:fffe,2001:db8:1:ffff:ffff:ffff:ffff:ffff", NULL },
	/* 128-bit carries: across the 64-bit half and up through the /48 */
	{ "2001:db8::/63", "2001:db8::ffff:ffff:ffff:fffe", NULL, NULL,
	  "2001:db8::ffff:ffff:ffff:fffe,2001:db8::ffff:ffff:ffff:ffff", "2001:db8:0:1::" },
	{ "2001:db8::/47", "2001:db8:0:ffff:ffff:ffff:ffff:ffff", NULL, NULL,
	  "2001:db8:0:ffff:ffff:ffff:ffff:ffff", "2001:db8:1::" },
	{ "2001:db8::/47", "2001:db8:0:ffff:ffff:ffff:ffff:fff0", "2001:db8:0:ffff:ffff:ffff:ffff:fff0/124", NULL,
	  "", "2001:db8:1::" },
	{ "::/0", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe", NULL, NULL, "", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe" },
	{ "::/0", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe", NULL, NULL,
	  "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe", NULL },
	{ "2001:db8::/64", NULL, "2001:db8::/65", NULL, "2001:db8::8000:0:0:0", "2001:db8::8000:0:0:1" },
};

START_TEST(test_first_free)
{
	struct range_conf rc;
	struct pool_range r;
	struct pool_span skip[RANGE_MAX_SKIP];
	struct cni_err err = { 0 };
	ipaddr_u128 taken[16], got;
	char buf[512], *tok, *save = NULL, text[64];
	size_t n = 0;
	int fam, ret;

	make_conf(&rc, frees[_i].range, frees[_i].start, NULL, frees[_i].exclude, frees[_i].gateway);
	ck_assert_msg(range_build(&rc, "net", true, &r, skip, &err) == 0, "%s", err.msg);
	snprintf(buf, sizeof(buf), "%s", frees[_i].taken);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		ck_assert_int_eq(ipaddr_parse_u128(tok, &fam, &taken[n++]), 0);
	ret = pool_first_free(&r, taken, n, &got);
	if (!frees[_i].want) {
		ck_assert_int_eq(ret, -ENOSPC);
		ck_assert_int_eq(pool_err_exhausted(&err, &r), -ENOSPC);
		ck_assert_int_eq(err.code, CNI_ERR_EXHAUSTED);
		ck_assert(strstr(err.msg, "no free address in "));
		return;
	}
	ck_assert_int_eq(ret, 0);
	fmt(&r, got, text);
	ck_assert_str_eq(text, frees[_i].want);
}
END_TEST

/* A long run of taken addresses is crossed in one step, not walked. */
START_TEST(test_first_free_long_run)
{
	static ipaddr_u128 taken[100000];
	struct range_conf rc;
	struct pool_range r;
	struct pool_span skip[RANGE_MAX_SKIP];
	struct cni_err err = { 0 };
	ipaddr_u128 got;
	char text[64];

	make_conf(&rc, "2001:db8::/64", NULL, NULL, NULL, NULL);
	ck_assert_int_eq(range_build(&rc, "net", true, &r, skip, &err), 0);
	for (size_t i = 0; i < N(taken); i++)
		taken[i] = r.span.first + i + (i >= 77777);	/* one hole after 77777 */
	ck_assert_int_eq(pool_first_free(&r, taken, N(taken), &got), 0);
	fmt(&r, got, text);
	ck_assert_str_eq(text, "2001:db8::1:2fd2");
}
END_TEST

static const struct {
	const char *s;
	int ret, family, len;
} prefixes[] = {
	{ "192.0.2.1/24", 0, AF_INET, 24 },
	{ "2001:db8::/64", 0, AF_INET6, 64 },
	{ "192.0.2.1/0", 0, AF_INET, 0 },
	{ "192.0.2.1/32", 0, AF_INET, 32 },
	{ "2001:db8::/128", 0, AF_INET6, 128 },
	{ "192.0.2.1/24x", -EINVAL, 0, 0 },
	{ "192.0.2.1/+24", -EINVAL, 0, 0 },
	{ "192.0.2.1", -EINVAL, 0, 0 },
	{ "/24", -EINVAL, 0, 0 },
	{ "2001:db8::/-0", -EINVAL, 0, 0 },
	/* ippool's own prefix parser (strtol) took blanks before the length;
	 * the one parser both binaries share does not, nor does whereabouts */
	{ "192.0.2.1/ 24", -EINVAL, 0, 0 },
	{ "192.0.2.1/24 ", -EINVAL, 0, 0 },
};

START_TEST(test_prefix_parse)
{
	struct ipprefix p = { 0 };

	ck_assert_int_eq(ipprefix_parse(prefixes[_i].s, &p), prefixes[_i].ret);
	if (!prefixes[_i].ret) {
		ck_assert_int_eq(p.addr.family, prefixes[_i].family);
		ck_assert_int_eq(p.len, prefixes[_i].len);
	}
}
END_TEST

static const struct {
	const char *range, *want;
	bool ok;
} contains[] = {
	{ "192.0.2.1", "192.0.2.1", false },	/* excluded below */
	{ "192.0.2.2", "192.0.2.2", true },
	{ "192.0.2.0", "192.0.2.0", false },	/* network */
	{ "192.0.2.255", "192.0.2.255", false },	/* all-ones */
	{ "192.0.2.254", "192.0.2.254", false },	/* gateway */
};

START_TEST(test_contains)
{
	struct range_conf rc;
	struct pool_range r;
	struct pool_span skip[RANGE_MAX_SKIP];
	struct cni_err err = { 0 };
	ipaddr_u128 a;
	int fam;

	make_conf(&rc, "192.0.2.0/24", NULL, NULL, "192.0.2.1", "192.0.2.254");
	ck_assert_int_eq(range_build(&rc, "net", true, &r, skip, &err), 0);
	ck_assert_int_eq(ipaddr_parse_u128(contains[_i].want, &fam, &a), 0);
	ck_assert_int_eq(range_contains(&r, a), contains[_i].ok);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_build, 0, N(builds));
	tcase_add_loop_test(tc, test_pool_id, 0, N(ids));
	tcase_add_loop_test(tc, test_first_free, 0, N(frees));
	tcase_add_test(tc, test_first_free_long_run);
	tcase_add_loop_test(tc, test_prefix_parse, 0, N(prefixes));
	tcase_add_loop_test(tc, test_contains, 0, N(contains));
}

int main(void)
{
	return unit_run("range", add_tests);
}
