// SPDX-License-Identifier: Apache-2.0
/* Unit tests for ipam/ippool/etcd/slice_layout.c: blocks, a range restricted to a node's slices, keys, values. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include "range.h"
#include "slice_layout.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct pool_span skip_buf[RANGE_MAX_SKIP];

static void build(struct pool_range *r, const char *range, const char *start, const char *exclude,
		  const char *gateway, bool shared)
{
	struct range_conf rc = { 0 };
	struct cni_err err = { 0 };

	snprintf(rc.range, sizeof(rc.range), "%s", range);
	snprintf(rc.start, sizeof(rc.start), "%s", start ? start : "");
	snprintf(rc.gateway, sizeof(rc.gateway), "%s", gateway ? gateway : "");
	if (exclude)
		snprintf(rc.exclude[rc.n_exclude++], RANGE_TEXT_MAX, "%s", exclude);
	ck_assert_msg(!range_build(&rc, "net", shared, r, skip_buf, &err), "%s", err.msg);
}

static ipaddr_u128 addr(const char *s)
{
	ipaddr_u128 a;
	int fam;

	ck_assert_int_eq(ipaddr_parse_u128(s, &fam, &a), 0);
	return a;
}

static void text(int family, ipaddr_u128 a, char *out)
{
	ipaddr_format_u128(family, a, out);
}

/* The blocks of a range: how many, which is nth, how much of one it hands out. */
static const struct {
	const char *range, *start, *exclude, *gateway;
	int len;
	const char *lo, *hi;	/* index range, decimal */
	unsigned int nth;
	const char *first, *last;	/* of block nth */
	const char *usable;	/* of block nth */
} blocks[] = {
	{ "192.0.2.0/24", NULL, NULL, NULL, 26, "0", "3", 0, "192.0.2.0", "192.0.2.63", "63" },
	{ "192.0.2.0/24", NULL, NULL, NULL, 26, "0", "3", 3, "192.0.2.192", "192.0.2.255", "63" },
	{ "192.0.2.0/24", NULL, NULL, NULL, 26, "0", "3", 1, "192.0.2.64", "192.0.2.127", "64" },
	{ "192.0.2.0/24", NULL, NULL, "192.0.2.65", 26, "0", "3", 1, "192.0.2.64", "192.0.2.127", "63" },
	{ "192.0.2.0/24", NULL, "192.0.2.64/26", NULL, 26, "0", "3", 1, "192.0.2.64", "192.0.2.127", "0" },
	{ "192.0.2.0/24", "192.0.2.100", NULL, NULL, 26, "1", "3", 1, "192.0.2.64", "192.0.2.127", "28" },
	{ "192.0.2.0/28", NULL, NULL, NULL, 30, "0", "3", 0, "192.0.2.0", "192.0.2.3", "3" },
	{ "192.0.2.0/28", NULL, NULL, NULL, 30, "0", "3", 2, "192.0.2.8", "192.0.2.11", "4" },
	{ "192.0.2.0/24", NULL, NULL, NULL, 32, "1", "254", 7, "192.0.2.7", "192.0.2.7", "1" },
	{ "192.0.2.0/24", NULL, NULL, NULL, 24, "0", "0", 0, "192.0.2.0", "192.0.2.255", "254" },
	{ "2001:db8::/64", NULL, NULL, NULL, 120, "0", "72057594037927935", 1, "2001:db8::100",
	  "2001:db8::1ff", "256" },
	{ "2001:db8::/64", NULL, NULL, NULL, 64, "0", "0", 0, "2001:db8::",
	  "2001:db8::ffff:ffff:ffff:ffff", "18446744073709551614" },
};

START_TEST(test_blocks)
{
	struct pool_range r;
	struct pool_span b;
	ipaddr_u128 lo, hi;
	char a[64], z[64], n[48];

	build(&r, blocks[_i].range, blocks[_i].start, blocks[_i].exclude, blocks[_i].gateway, true);
	slice_index_range(&r, blocks[_i].len, &lo, &hi);
	range_u128_format(lo, n, sizeof(n));
	ck_assert_str_eq(n, blocks[_i].lo);
	range_u128_format(hi, n, sizeof(n));
	ck_assert_str_eq(n, blocks[_i].hi);
	b = slice_nth(&r, blocks[_i].len, blocks[_i].nth);
	text(r.family, b.first, a);
	text(r.family, b.last, z);
	ck_assert_str_eq(a, blocks[_i].first);
	ck_assert_str_eq(z, blocks[_i].last);
	ck_assert(slice_index(&r, blocks[_i].len, b.last) == blocks[_i].nth);
	range_u128_format(slice_usable(&r, &b), n, sizeof(n));
	ck_assert_str_eq(n, blocks[_i].usable);
}
END_TEST

/* A range restricted to the node's blocks: the lowest free address, and
 * how many it still hands out. */
static const struct {
	const char *range, *exclude, *gateway;
	int len;
	const char *own;	/* comma-separated block starts */
	const char *lowest;	/* NULL: none */
	const char *usable;
} restricts[] = {
	{ "192.0.2.0/24", NULL, NULL, 26, "192.0.2.64", "192.0.2.64", "64" },
	{ "192.0.2.0/24", NULL, NULL, 26, "192.0.2.0", "192.0.2.1", "63" },
	{ "192.0.2.0/24", NULL, NULL, 26, "192.0.2.192", "192.0.2.192", "63" },
	{ "192.0.2.0/24", NULL, NULL, 26, "192.0.2.64,192.0.2.192", "192.0.2.64", "127" },
	{ "192.0.2.0/24", "192.0.2.64/27", "192.0.2.96", 26, "192.0.2.64", "192.0.2.97", "31" },
	{ "192.0.2.0/24", NULL, NULL, 26, "", NULL, "0" },
	{ "192.0.2.0/24", NULL, NULL, 24, "192.0.2.0", "192.0.2.1", "254" },
	{ "2001:db8::/64", NULL, NULL, 120, "2001:db8::ff00", "2001:db8::ff00", "256" },
	{ "2001:db8::/64", NULL, NULL, 120, "2001:db8::", "2001:db8::1", "255" },
};

START_TEST(test_restrict)
{
	struct pool_span own[8], *skip;
	struct pool_range r, out;
	char list[256], *tok, *save = NULL, got[64], n[48];
	size_t k = 0;
	ipaddr_u128 a;

	build(&r, restricts[_i].range, NULL, restricts[_i].exclude, restricts[_i].gateway, true);
	snprintf(list, sizeof(list), "%s", restricts[_i].own);
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		own[k++] = slice_block(r.family, restricts[_i].len, addr(tok));
	ck_assert_int_eq(slice_restrict(&r, own, k, &out, &skip), 0);
	range_u128_format(out.usable, n, sizeof(n));
	ck_assert_str_eq(n, restricts[_i].usable);
	if (!restricts[_i].lowest) {
		ck_assert_int_eq(pool_first_free(&out, NULL, 0, &a), -ENOSPC);
	} else {
		ck_assert_int_eq(pool_first_free(&out, NULL, 0, &a), 0);
		text(r.family, a, got);
		ck_assert_str_eq(got, restricts[_i].lowest);
	}
	for (size_t i = 0; i + 1 < out.n_skip; i++)
		ck_assert(out.skip[i].last + 1 < out.skip[i + 1].first);
	free(skip);
}
END_TEST

/* Keys: the scope's directory with s for n, the node's index, the heartbeat. */
START_TEST(test_keys)
{
	struct pool_range r;
	char key[LAYOUT_KEY_MAX], tkey[LAYOUT_KEY_MAX];

	build(&r, "192.0.2.0/24", NULL, NULL, NULL, true);
	slice_key("/p", &r, addr("192.0.2.64"), key);
	ck_assert_str_eq(key, "/p/s/net/v4/c0000240");
	slice_node_key("/p", "gpu-1", key, tkey);
	ck_assert_str_eq(tkey, "/p/t/gpu-1/net/v4/c0000240");
	build(&r, "192.0.2.0/24", NULL, NULL, NULL, false);
	slice_key("/p", &r, addr("192.0.2.64"), key);
	ck_assert_str_eq(key, "/p/s/net/p/192.0.2.0_24/c0000240");
	slice_heartbeat_key("/p", "gpu-1", key);
	ck_assert_str_eq(key, "/p/h/gpu-1");
}
END_TEST

/* Values: what parses, and what does not. */
static const struct {
	const char *value;
	bool record;
	int ret;
} values[] = {
	{ "{'node':'a','network':'net','pool':'192.0.2.0/24','family':4,'shared':true,"
	  "'first':'c0000240','prefixLength':26,'claimed':5}", false, 0 },
	{ "{'node':'a','network':'net','pool':'192.0.2.0/24','family':4,'shared':true,"
	  "'first':'c0000240','prefixLength':26,'claimed':5,'state':'releasing'}", true, 0 },
	/* a record needs its state, a slice value has none */
	{ "{'node':'a','network':'net','pool':'192.0.2.0/24','family':4,'shared':true,"
	  "'first':'c0000240','prefixLength':26,'claimed':5}", true, -EINVAL },
	{ "{'node':'a','network':'net','pool':'192.0.2.0/24','family':4,'shared':true,"
	  "'first':'c0000240','prefixLength':26,'claimed':5,'state':'owned'}", false, -EINVAL },
	{ "{'node':'a','network':'net','pool':'192.0.2.0/24','family':4,'shared':true,"
	  "'first':'c0000240','prefixLength':26,'claimed':5,'state':'mine'}", true, -EINVAL },
	/* not the first address of a /26 */
	{ "{'node':'a','network':'net','pool':'192.0.2.0/24','family':4,'shared':true,"
	  "'first':'c0000241','prefixLength':26,'claimed':5}", false, -EINVAL },
	{ "{'node':'a','network':'net','pool':'192.0.2.0/24','family':4,'shared':true,"
	  "'first':'c0000240','prefixLength':33,'claimed':5}", false, -EINVAL },
	{ "{'node':'a','network':'net','pool':'192.0.2.0/24','family':6,'shared':true,"
	  "'first':'c0000240','prefixLength':26,'claimed':5}", false, -EINVAL },
	{ "{'node':'a/b','network':'net','pool':'192.0.2.0/24','family':4,'shared':true,"
	  "'first':'c0000240','prefixLength':26,'claimed':5}", false, -EINVAL },
	{ "{'node':'..','network':'net','pool':'192.0.2.0/24','family':4,'shared':true,"
	  "'first':'c0000240','prefixLength':26,'claimed':5}", false, -EINVAL },
	{ "{'node':'a','network':'../x','pool':'192.0.2.0/24','family':4,'shared':true,"
	  "'first':'c0000240','prefixLength':26,'claimed':5}", false, -EINVAL },
	{ "{'node':'a','network':'net','pool':'192.0.2.0/24','family':4,'shared':1,"
	  "'first':'c0000240','prefixLength':26,'claimed':5}", false, -EINVAL },
	{ "{'node':'a','network':'net','pool':'192.0.2.0/24','family':4,'shared':true,"
	  "'first':'c0000240','prefixLength':26,'claimed':1.5}", false, -EINVAL },
	{ "[]", false, -EINVAL },
	{ "", false, -EINVAL },
};

START_TEST(test_values)
{
	char *v = unit_dq(values[_i].value), *again;
	struct slice_rec rec, back;

	ck_assert_int_eq(slice_parse(v, values[_i].record, &rec), values[_i].ret);
	if (!values[_i].ret) {
		again = slice_value(&rec, values[_i].record);
		ck_assert_ptr_nonnull(again);
		ck_assert_int_eq(slice_parse(again, values[_i].record, &back), 0);
		ck_assert_int_eq(memcmp(&rec, &back, sizeof(rec)), 0);
		free(again);
	} else {
		ck_assert_str_eq(rec.s.node, "");
	}
	free(v);
}
END_TEST

START_TEST(test_heartbeat)
{
	char node[LAYOUT_NODE_MAX], *v = slice_heartbeat_value("gpu-1", 1796000000);
	int64_t t;

	ck_assert_int_eq(slice_parse_heartbeat(v, node, &t), 0);
	ck_assert_str_eq(node, "gpu-1");
	ck_assert(t == 1796000000);
	free(v);
	ck_assert_int_eq(slice_parse_heartbeat("{\"node\":\"a\",\"time\":\"5\"}", node, &t), -EINVAL);
	ck_assert_int_eq(slice_parse_heartbeat("{\"node\":\"\",\"time\":5}", node, &t), -EINVAL);
	/* past 15 digits cJSON does not print a number back the same (fuzz-slice) */
	ck_assert_int_eq(slice_parse_heartbeat("{\"node\":\"p\",\"time\":925950204465993045}", node, &t),
			 -EINVAL);
	ck_assert_int_eq(slice_parse_heartbeat("{\"node\":\"p\",\"time\":8090040893196091}", node, &t),
			 -EINVAL);
	ck_assert_int_eq(slice_parse_heartbeat("{\"node\":\"p\",\"time\":999999999999999}", node, &t), 0);
	ck_assert_int_eq(slice_parse_heartbeat("{\"node\":\"p\",\"time\":-1}", node, &t), -EINVAL);
	ck_assert_str_eq(node, "");
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_blocks, 0, N(blocks));
	tcase_add_loop_test(tc, test_restrict, 0, N(restricts));
	tcase_add_test(tc, test_keys);
	tcase_add_loop_test(tc, test_values, 0, N(values));
	tcase_add_test(tc, test_heartbeat);
}

int main(void)
{
	return unit_run("slice", add_tests);
}
