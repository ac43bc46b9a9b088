// SPDX-License-Identifier: Apache-2.0
/* The store contract of ipam/ippool/store.h, checked on each backend that can run here (local). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "range.h"
#include "store.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static char dir[64];
static struct pool_store *st;
static struct pool_span skips[4][RANGE_MAX_SKIP];

static struct pool_store *open_store(long hold)
{
	struct pool_store_cfg cfg = { .hold_seconds = hold };
	struct pool_store *s = NULL;
	struct cni_err err = { 0 };

	snprintf(cfg.data_dir, sizeof(cfg.data_dir), "%s/store", dir);
	ck_assert_msg(pool_store_open("local", &cfg, &s, &err) == 0, "%s", err.msg);
	return s;
}

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test-store.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	st = open_store(0);
}

static void teardown(void)
{
	char cmd[128];

	pool_store_close(st);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static struct pool_range range(int slot, const char *network, const char *cidr, bool shared)
{
	struct range_conf rc = { 0 };
	struct pool_range r;
	struct cni_err err = { 0 };

	snprintf(rc.range, sizeof(rc.range), "%s", cidr);
	ck_assert_int_eq(range_build(&rc, network, shared, &r, skips[slot], &err), 0);
	return r;
}

static struct pool_owner owner(const char *cid)
{
	struct pool_owner o = { .key.ifname = "net1", .created = 1 };

	snprintf(o.key.containerid, sizeof(o.key.containerid), "%s", cid);
	snprintf(o.pod_name, sizeof(o.pod_name), "pod-%s", cid);
	return o;
}

/* Reserves for cid and returns the first address as text ("" on failure, err kept). */
static int reserve(const char *cid, const struct pool_range *r, int n, char *text, struct cni_err *err)
{
	struct pool_owner o = owner(cid);
	struct pool_lease l;
	int ret = st->ops->reserve(st, &o, r, n, &l, err);

	text[0] = '\0';
	if (!ret)
		pool_addr_format(l.addrs[0].family, l.addrs[0].addr, text, 64);
	return ret;
}

static const char *addr_of(const char *cid, const struct pool_range *r, int n)
{
	static char text[64];
	struct cni_err err = { 0 };

	ck_assert_msg(reserve(cid, r, n, text, &err) == 0, "%s", err.msg);
	return text;
}

START_TEST(test_lowest_and_idempotent)
{
	struct pool_range r = range(0, "n", "192.0.2.0/29", true);
	struct pool_key k = owner("a").key;
	struct pool_lease l;
	struct cni_err err = { 0 };

	ck_assert_str_eq(addr_of("a", &r, 1), "192.0.2.1");
	ck_assert_str_eq(addr_of("b", &r, 1), "192.0.2.2");
	ck_assert_str_eq(addr_of("a", &r, 1), "192.0.2.1");
	ck_assert_int_eq(st->ops->lookup(st, &k, &l, &err), 0);
	ck_assert_str_eq(l.owner.pod_name, "pod-a");
	ck_assert_int_eq(l.n_addrs, 1);
	ck_assert_int_eq(st->ops->release(st, &k, &err), 0);
	ck_assert_int_eq(st->ops->release(st, &k, &err), 0);
	ck_assert_int_eq(st->ops->lookup(st, &k, &l, &err), -ENOENT);
	ck_assert_int_eq(err.code, 0);
	ck_assert_str_eq(addr_of("c", &r, 1), "192.0.2.1");
}
END_TEST

/* A failing range undoes the ranges before it. */
START_TEST(test_all_or_nothing)
{
	struct pool_range two[2] = { range(0, "n", "2001:db8::/64", true), range(1, "n", "192.0.2.0/30", true) };
	char text[64];
	struct cni_err err = { 0 };

	ck_assert_str_eq(addr_of("a", two, 2), "2001:db8::1");
	ck_assert_str_eq(addr_of("b", two, 2), "2001:db8::2");
	ck_assert_int_eq(reserve("c", two, 2, text, &err), -ENOSPC);
	ck_assert_int_eq(err.code, CNI_ERR_EXHAUSTED);
	ck_assert_str_eq(err.msg, "no free address in 192.0.2.0/30 (192.0.2.1..192.0.2.2, 0 excluded)");
	ck_assert_str_eq(addr_of("d", two, 1), "2001:db8::3");
}
END_TEST

START_TEST(test_want)
{
	struct pool_range r = range(0, "n", "192.0.2.0/24", true);
	char text[64];
	struct cni_err err = { 0 };
	int fam;

	ck_assert_int_eq(range_addr_parse("192.0.2.77", &fam, &r.want), 0);
	r.has_want = true;
	ck_assert_str_eq(addr_of("a", &r, 1), "192.0.2.77");
	ck_assert_str_eq(addr_of("a", &r, 1), "192.0.2.77");
	ck_assert_int_eq(reserve("b", &r, 1, text, &err), -EADDRINUSE);
	ck_assert_int_eq(err.code, CNI_ERR_ADDR_TAKEN);
	ck_assert(strstr(err.msg, "192.0.2.77"));
}
END_TEST

/* Uniqueness scope: the network when shared, the pool otherwise. */
static const struct {
	const char *net1, *cidr1, *net2, *cidr2;
	bool shared;
	const char *second;
} scopes[] = {
	{ "n", "192.0.2.0/24", "n", "192.0.2.0/25", true, "192.0.2.2" },
	{ "n", "192.0.2.0/24", "m", "192.0.2.0/25", true, "192.0.2.1" },
	{ "n", "192.0.2.0/24", "n", "192.0.2.0/25", false, "192.0.2.1" },
	{ "n", "192.0.2.0/24", "n", "192.0.2.0/24", false, "192.0.2.2" },
	{ "n", "192.0.2.0/24", "n", "2001:db8::/64", true, "2001:db8::1" },
};

START_TEST(test_scopes)
{
	struct pool_range a = range(0, scopes[_i].net1, scopes[_i].cidr1, scopes[_i].shared);
	struct pool_range b = range(1, scopes[_i].net2, scopes[_i].cidr2, scopes[_i].shared);

	ck_assert_str_eq(addr_of("a", &a, 1), "192.0.2.1");
	ck_assert_str_eq(addr_of("b", &b, 1), scopes[_i].second);
}
END_TEST

START_TEST(test_gc)
{
	struct pool_range n = range(0, "n", "192.0.2.0/24", true), m = range(1, "m", "198.51.100.0/24", true);
	struct cni_attachment valid[] = { { "b", "net1" } };
	struct pool_lease l;
	struct cni_err err = { 0 };
	struct pool_key k;

	addr_of("a", &n, 1);
	addr_of("b", &n, 1);
	addr_of("c", &m, 1);
	ck_assert_int_eq(st->ops->gc(st, "n", valid, 1, &err), 0);
	k = owner("a").key;
	ck_assert_int_eq(st->ops->lookup(st, &k, &l, &err), -ENOENT);
	k = owner("b").key;
	ck_assert_int_eq(st->ops->lookup(st, &k, &l, &err), 0);
	k = owner("c").key;
	ck_assert_int_eq(st->ops->lookup(st, &k, &l, &err), 0);
}
END_TEST

static int count_info(const struct pool_info *pi, void *arg)
{
	(void)pi;
	(*(int *)arg) += 100;
	return 0;
}

static int count_lease(const struct pool_lease *l, void *arg)
{
	(*(int *)arg) += l->n_addrs;
	return 0;
}

START_TEST(test_list)
{
	struct pool_range two[2] = { range(0, "n", "192.0.2.0/24", true), range(1, "n", "2001:db8::/64", true) };
	struct cni_err err = { 0 };
	int n = 0;

	addr_of("a", two, 2);
	addr_of("b", two, 1);
	ck_assert_int_eq(st->ops->list(st, count_info, count_lease, &n, &err), 0);
	ck_assert_int_eq(n, 2 * 100 + 3);
}
END_TEST

START_TEST(test_hold)
{
	struct pool_range r = range(0, "n", "192.0.2.0/24", true);
	struct pool_key k = owner("a").key;
	struct cni_err err = { 0 };
	char state[128];

	snprintf(state, sizeof(state), "%s/store/state", dir);
	pool_store_close(st);
	st = open_store(3600);
	ck_assert_str_eq(addr_of("a", &r, 1), "192.0.2.1");
	ck_assert_int_eq(st->ops->release(st, &k, &err), 0);
	ck_assert_str_eq(addr_of("b", &r, 1), "192.0.2.2");
	/* the hold survives an index rebuild */
	pool_store_close(st);
	ck_assert_int_eq(truncate(state, 0), 0);
	st = open_store(3600);
	ck_assert_str_eq(addr_of("c", &r, 1), "192.0.2.3");
}
END_TEST

/* A dirty or damaged index is rebuilt from the leases, not trusted. */
static const char *const damages[] = { "state", "index/n:v4.idx" };

START_TEST(test_rebuild)
{
	struct pool_range r = range(0, "n", "192.0.2.0/24", true);
	char path[128];
	int fd;

	addr_of("a", &r, 1);
	addr_of("b", &r, 1);
	snprintf(path, sizeof(path), "%s/store/%s", dir, damages[_i]);
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "junk", 4), 4);
	close(fd);
	ck_assert_str_eq(addr_of("c", &r, 1), "192.0.2.3");
	ck_assert_str_eq(addr_of("a", &r, 1), "192.0.2.1");
}
END_TEST

START_TEST(test_status_and_bad_key)
{
	struct pool_range r = range(0, "n", "192.0.2.0/24", true);
	char text[64];
	struct cni_err err = { 0 };

	ck_assert_int_eq(st->ops->status(st, &err), 0);
	ck_assert_int_eq(reserve("../x", &r, 1, text, &err), -EINVAL);
	ck_assert_int_eq(err.code, CNI_ERR_ENV);
}
END_TEST

START_TEST(test_unknown_backend)
{
	struct pool_store_cfg cfg = { .data_dir = "/nonexistent" };
	struct pool_store *s = (struct pool_store *)1;
	struct cni_err err = { 0 };

	ck_assert_int_eq(pool_store_open("zookeeper", &cfg, &s, &err), -EINVAL);
	ck_assert_ptr_null(s);
	ck_assert_int_eq(err.code, CNI_ERR_CONFIG);
	ck_assert_str_eq(err.msg, "unknown store \"zookeeper\"");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("local");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_lowest_and_idempotent);
	tcase_add_test(tc, test_all_or_nothing);
	tcase_add_test(tc, test_want);
	tcase_add_loop_test(tc, test_scopes, 0, N(scopes));
	tcase_add_test(tc, test_gc);
	tcase_add_test(tc, test_list);
	tcase_add_test(tc, test_hold);
	tcase_add_loop_test(tc, test_rebuild, 0, N(damages));
	tcase_add_test(tc, test_status_and_bad_key);
	tcase_add_test(tc, test_unknown_backend);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
