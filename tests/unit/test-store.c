// SPDX-License-Identifier: Apache-2.0
/* The store contract of ipam/ippool/store.h, checked on each backend that can run here (local). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>
#include "lrecord.h"
#include "range.h"
#include "store.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static char dir[64];
static struct pool_store *st;
static struct pool_span skips[4][RANGE_MAX_SKIP];

/* The local store under dir, with a store object (NULL: none). */
static int open_with(long hold, const char *store_json, struct pool_store **s, struct cni_err *err)
{
	struct pool_store_cfg cfg = { .hold_seconds = hold };
	cJSON *obj = store_json ? cJSON_Parse(store_json) : NULL;
	int ret;

	snprintf(cfg.data_dir, sizeof(cfg.data_dir), "%s/store", dir);
	cfg.store = obj;
	ret = pool_store_open("local", &cfg, s, err);
	cJSON_Delete(obj);
	return ret;
}

static struct pool_store *open_store(long hold)
{
	struct pool_store *s = NULL;
	struct cni_err err = { 0 };

	ck_assert_msg(open_with(hold, NULL, &s, &err) == 0, "%s", err.msg);
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

/* An attachment of CNI network "A" unless reserve_in says otherwise. */
static const char *cni_network = "A";

static struct pool_owner owner(const char *cid)
{
	struct pool_owner o = { .key.ifname = "net1", .created = 1 };

	snprintf(o.key.containerid, sizeof(o.key.containerid), "%s", cid);
	snprintf(o.cni_network, sizeof(o.cni_network), "%s", cni_network);
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
		ipaddr_format_u128(l.addrs[0].family, l.addrs[0].addr, text);
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

	ck_assert_int_eq(ipaddr_parse_u128("192.0.2.77", &fam, &r.want), 0);
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

static const char *addr_in(const char *cni, const char *cid, const struct pool_range *r)
{
	const char *a;

	cni_network = cni;
	a = addr_of(cid, r, 1);
	cni_network = "A";
	return a;
}

static bool has_lease(const char *cid)
{
	struct pool_key k = owner(cid).key;
	struct pool_lease l;
	struct cni_err err = { 0 };
	int ret = st->ops->lookup(st, &k, &l, &err);

	ck_assert_msg(ret == 0 || ret == -ENOENT, "lookup %s: %s", cid, err.msg);
	return !ret;
}

/* "a b c": which of the attachments a..f hold a lease. */
static const char *leases_held(void)
{
	static char out[32];

	out[0] = '\0';
	for (const char *c = "abcdef"; *c; c++) {
		char cid[2] = { *c, 0 };

		if (has_lease(cid))
			snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", out[0] ? " " : "", cid);
	}
	return out;
}

/* An old lease file (no CNI network recorded) for cid, holding addr in
 * network "n"; the index is marked for a rebuild as after a crash. */
static void old_lease(const char *cid, const char *addr)
{
	char path[128], text[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/store/leases/%s:net1", dir, cid);
	snprintf(text, sizeof(text), "ippool-lease 1\ncontainerid %s\nifname net1\npod_namespace \n"
		 "pod_name \npod_uid \ncreated 1\naddr n 192.0.2.0/24 24 1 %s\n", cid, addr);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/store/state", dir);
	ck_assert_int_eq(truncate(path, 0), 0);
}

/* GC's scope is the CNI network, not the address space (network_name) nor
 * the store: A and B share both here. */
START_TEST(test_gc)
{
	struct pool_range n = range(0, "n", "192.0.2.0/24", true), m = range(1, "m", "198.51.100.0/24", true);
	struct cni_attachment valid[] = { { "b", "net1" } };
	struct pool_key k = owner("e").key;
	struct cni_err err = { 0 };

	ck_assert_str_eq(addr_in("A", "a", &n), "192.0.2.1");
	ck_assert_str_eq(addr_in("A", "b", &n), "192.0.2.2");
	ck_assert_str_eq(addr_in("B", "c", &n), "192.0.2.3");
	ck_assert_str_eq(addr_in("B", "d", &m), "198.51.100.1");
	old_lease("e", "192.0.2.4");
	ck_assert_int_eq(st->ops->gc(st, "A", valid, 1, &err), 0);
	ck_assert_str_eq(leases_held(), "b c d e");
	/* the freed address goes to the next ADD, whatever its network; no held one does */
	ck_assert_str_eq(addr_in("B", "f", &n), "192.0.2.1");
	ck_assert_str_eq(addr_in("B", "a", &n), "192.0.2.5");
	ck_assert_int_eq(st->ops->gc(st, "B", valid, 1, &err), 0);
	ck_assert_str_eq(leases_held(), "b e");
	ck_assert_int_eq(st->ops->gc(st, "", NULL, 0, &err), 0);
	ck_assert_int_eq(st->ops->gc(st, "A", NULL, 0, &err), 0);
	ck_assert_str_eq(leases_held(), "e");
	/* the old lease: readable, never GC's, released by DEL */
	ck_assert_str_eq(addr_in("A", "a", &n), "192.0.2.1");
	ck_assert_int_eq(st->ops->release(st, &k, &err), 0);
	ck_assert_str_eq(leases_held(), "a");
	ck_assert_str_eq(addr_in("A", "b", &n), "192.0.2.2");
	ck_assert_str_eq(addr_in("A", "c", &n), "192.0.2.3");
	ck_assert_str_eq(addr_in("A", "d", &n), "192.0.2.4");
}
END_TEST

/* Damaged lease files are store errors naming the file, never trusted. */
static const struct {
	const char *file, *text;
} bad_leases[] = {
	{ "a:net1", "ippool-lease 1\ncontainerid a\nifname net1\ncni_network ../x\naddr n 192.0.2.0/24 24 1 192.0.2.9\n" },
	{ "a:net1", "ippool-lease 1\ncontainerid b\nifname net1\ncni_network A\naddr n 192.0.2.0/24 24 1 192.0.2.9\n" },
	{ "a:net1", "ippool-lease 1\ncontainerid a\nifname net1\nwho knows\n" },
	{ "a:net1", "ippool-lease 1\ncontainerid a\nifname net1\npod_uid "
		    "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789"
		    "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789"
		    "0123456789012345678901234567890123456789012345678901234567890123456789\n" },
};

START_TEST(test_bad_lease)
{
	struct pool_key k = owner("a").key;
	struct pool_lease l;
	struct cni_err err = { 0 };
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/store/leases/%s", dir, bad_leases[_i].file);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(bad_leases[_i].text, f);
	fclose(f);
	ck_assert_int_eq(st->ops->lookup(st, &k, &l, &err), -EBADMSG);
	ck_assert_int_eq(err.code, CNI_ERR_STORE);
	ck_assert_msg(strstr(err.msg, "cannot read lease a:net1: Bad message"), "%s", err.msg);
	err = (struct cni_err){ 0 };
	ck_assert_int_eq(st->ops->gc(st, "A", NULL, 0, &err), -EBADMSG);
	ck_assert_int_eq(err.code, CNI_ERR_STORE);
}
END_TEST

/* A whole lease but for its netns lines, each a damage pool_owner_netns_valid refuses. */
#define NS_LEASE(lines) "ippool-lease 1\ncontainerid a\nifname net1\ncni_network A\ncreated 1\n" lines \
	"addr n 192.0.2.0/24 24 1 192.0.2.9\n"
#define NS_ID(dev, ino, boot) "netns_dev " dev "\nnetns_ino " ino "\nboot_id " boot "\n"
#define BOOT "2dd41058-814b-48e8-9a29-17e48eba27f6"
static const char *const bad_netns[] = {
	NS_LEASE("netns var/run/netns/x\n"),
	NS_LEASE("netns /var/run/netns/a b\n"),
	NS_LEASE("netns /var/run/netns/\xc3\xa9\n"),
	NS_LEASE(NS_ID("4", "4026532174", BOOT)),			/* an identity without its path */
	NS_LEASE("netns /run/netns/x\n" NS_ID("4", "0", BOOT)),
	NS_LEASE("netns /run/netns/x\n" NS_ID("4", "4026532174", "2dd41058-814b-48e8-9a29-17e48eba27f")),
	NS_LEASE("netns /run/netns/x\n" NS_ID("4", "4026532174", "2DD41058-814B-48E8-9A29-17E48EBA27F6")),
	NS_LEASE("netns /run/netns/x\n" NS_ID("4", "4026532174", "2dd41058x814b-48e8-9a29-17e48eba27f6")),
	NS_LEASE("netns /run/netns/x\n" NS_ID("4", "9007199254740992", BOOT)),	/* 2^53 */
	NS_LEASE("netns /run/netns/x\n" NS_ID("9007199254740992", "1", BOOT)),
	NS_LEASE("netns /run/netns/x\n" NS_ID("4", "-1", BOOT)),
	NS_LEASE("netns /run/netns/x\n" NS_ID("4", "99999999999999999999", BOOT)),
	NS_LEASE("netns /run/netns/x\nnetns_ino 4026532174\nboot_id " BOOT "\n" "netns_ino 1\n"),
	NS_LEASE("netns /run/netns/x\nnetns_ino 4026532174\n"),	/* no boot: a part missing */
	NS_LEASE("netns /run/netns/x\nboot_id " BOOT "\n"),
	NS_LEASE("netns /run/netns/x\nnetns_ino 4026532174\nboot_id " BOOT "\n"),	/* dev 0, but no line */
};

START_TEST(test_bad_netns)
{
	struct lrec_lease s;

	ck_assert_int_eq(lrec_lease_parse(bad_netns[_i], strlen(bad_netns[_i]), &s), -EBADMSG);
	ck_assert_str_eq(s.l.owner.netns, "");
}
END_TEST

/* What ADD records of the netns comes back from the store as it went in. */
START_TEST(test_netns_round_trip)
{
	struct pool_range r = range(0, "n", "192.0.2.0/24", true);
	struct pool_owner o = owner("a");
	struct pool_lease l;
	struct lrec_lease s, back;
	struct cni_err err = { 0 };
	char buf[16384];
	int n;

	snprintf(o.netns, sizeof(o.netns), "/var/run/netns/cni-6c1d0e2f");
	o.ns = (struct nsident){ .dev = 4, .ino = 4026532174, .boot = BOOT };
	ck_assert_int_eq(st->ops->reserve(st, &o, &r, 1, &l, &err), 0);
	ck_assert_int_eq(st->ops->lookup(st, &o.key, &l, &err), 0);
	ck_assert_str_eq(l.owner.netns, "/var/run/netns/cni-6c1d0e2f");
	ck_assert(l.owner.ns.dev == 4 && l.owner.ns.ino == 4026532174);
	ck_assert_str_eq(l.owner.ns.boot, BOOT);
	ck_assert_str_eq(l.owner.node, "");
	/* a path recorded without its identity (unreadable at ADD) */
	memset(&s, 0, sizeof(s));
	s.l = l;
	memset(&s.l.owner.ns, 0, sizeof(s.l.owner.ns));
	n = lrec_lease_format(&s, buf, sizeof(buf));
	ck_assert_int_gt(n, 0);
	ck_assert_ptr_null(strstr(buf, "boot_id"));
	ck_assert_int_eq(lrec_lease_parse(buf, (size_t)n, &back), 0);
	ck_assert_str_eq(back.l.owner.netns, "/var/run/netns/cni-6c1d0e2f");
	ck_assert(back.l.owner.ns.ino == 0);
	/* the longest path fits a record with 8 addresses */
	memset(s.l.owner.netns, 'n', POOL_NETNS_MAX - 1);
	s.l.owner.netns[0] = '/';
	s.l.owner.netns[POOL_NETNS_MAX - 1] = '\0';
	s.l.owner.ns = o.ns;
	s.l.n_addrs = POOL_MAX_RANGES;
	for (int i = 0; i < POOL_MAX_RANGES; i++) {
		s.l.addrs[i] = l.addrs[0];
		memset(s.l.addrs[i].network, 'w', POOL_NAME_MAX - 1);
		memset(s.l.addrs[i].pool, 'p', POOL_ID_MAX - 1);
	}
	ck_assert_int_gt(lrec_lease_format(&s, buf, sizeof(buf)), 0);
	/* the writer refuses what the reader would */
	s.l.owner.netns[0] = 'x';
	ck_assert_int_eq(lrec_lease_format(&s, buf, sizeof(buf)), -EINVAL);
}
END_TEST

/* A lease file an ippool before netns recording wrote (a seed kept from
 * then): read with no netns, which reconcile never frees. */
START_TEST(test_old_lease_file)
{
	char *text = unit_seed("local/lease-dual-before-netns");
	struct lrec_lease s;

	ck_assert_int_eq(lrec_lease_parse(text, strlen(text), &s), 0);
	ck_assert_str_eq(s.l.owner.key.containerid, "d1");
	ck_assert_int_eq(s.l.n_addrs, 2);
	ck_assert_str_eq(s.l.owner.netns, "");
	ck_assert(!s.l.owner.ns.ino && !s.l.owner.ns.dev && !s.l.owner.ns.boot[0]);
	free(text);
}
END_TEST

static long ms_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Every op that takes the lock gives up after timeout_ms with code 11. */
static int op_reserve(struct pool_store *s, struct cni_err *err)
{
	struct pool_range r = range(0, "n", "192.0.2.0/24", true);
	struct pool_owner o = owner("a");
	struct pool_lease l;

	return s->ops->reserve(s, &o, &r, 1, &l, err);
}

static int op_release(struct pool_store *s, struct cni_err *err)
{
	struct pool_key k = owner("a").key;

	return s->ops->release(s, &k, err);
}

static int op_gc(struct pool_store *s, struct cni_err *err)
{
	return s->ops->gc(s, "A", NULL, 0, err);
}

static int op_status(struct pool_store *s, struct cni_err *err)
{
	return s->ops->status(s, err);
}

static int (*const locked_ops[])(struct pool_store *s, struct cni_err *err) = {
	op_reserve, op_release, op_gc, op_status,
};

START_TEST(test_lock_bound)
{
	struct pool_store *s = NULL;
	struct cni_err err = { 0 };
	struct timespec t0;
	char path[128], want[192];
	long took;
	int fd;

	ck_assert_int_eq(open_with(0, "{\"type\":\"local\",\"timeout_ms\":300}", &s, &err), 0);
	snprintf(path, sizeof(path), "%s/store/state", dir);
	fd = open(path, O_RDWR);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(flock(fd, LOCK_EX), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(locked_ops[_i](s, &err), -EAGAIN);
	took = ms_since(&t0);
	ck_assert_int_eq(err.code, CNI_ERR_TRY_AGAIN);
	snprintf(want, sizeof(want), "local store %s/store: waited ", dir);
	ck_assert_msg(strstr(err.msg, want) && strstr(err.msg, " ms for its lock, try again"), "%s", err.msg);
	ck_assert_msg(took >= 300 && took < 3000, "gave up after %ld ms", took);
	/* the lock free again, the same handle works */
	close(fd);
	err = (struct cni_err){ 0 };
	ck_assert_msg(locked_ops[_i](s, &err) == 0, "%s", err.msg);
	pool_store_close(s);
}
END_TEST

static const char *const bad_timeouts[] = { "0", "99", "600001", "\"5\"" };

START_TEST(test_bad_timeout)
{
	struct pool_store *s = (struct pool_store *)1;
	struct cni_err err = { 0 };
	char json[64];

	snprintf(json, sizeof(json), "{\"type\":\"local\",\"timeout_ms\":%s}", bad_timeouts[_i]);
	ck_assert_int_eq(open_with(0, json, &s, &err), -EINVAL);
	ck_assert_ptr_null(s);
	ck_assert_int_eq(err.code, CNI_ERR_CONFIG);
	ck_assert_str_eq(err.msg, "invalid store.timeout_ms: need 100 to 600000");
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

static void add_tests(TCase *tc)
{
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_lowest_and_idempotent);
	tcase_add_test(tc, test_all_or_nothing);
	tcase_add_test(tc, test_want);
	tcase_add_loop_test(tc, test_scopes, 0, N(scopes));
	tcase_add_test(tc, test_gc);
	tcase_add_loop_test(tc, test_bad_lease, 0, N(bad_leases));
	tcase_add_loop_test(tc, test_bad_netns, 0, N(bad_netns));
	tcase_add_test(tc, test_netns_round_trip);
	tcase_add_test(tc, test_old_lease_file);
	tcase_add_loop_test(tc, test_lock_bound, 0, N(locked_ops));
	tcase_add_loop_test(tc, test_bad_timeout, 0, N(bad_timeouts));
	tcase_add_test(tc, test_list);
	tcase_add_test(tc, test_hold);
	tcase_add_loop_test(tc, test_rebuild, 0, N(damages));
	tcase_add_test(tc, test_status_and_bad_key);
	tcase_add_test(tc, test_unknown_backend);
}

int main(void)
{
	return unit_run("store", add_tests);
}
