// SPDX-License-Identifier: Apache-2.0
/* The etcd backend of the ippool store: optimistic transactions, no lock. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include "confpath.h"
#include "safeopen.h"
#include "etcd_client.h"
#include "etcd_layout.h"
#include "env.h"
#include "log.h"
#include "range.h"
#include "slice_layout.h"
#include "slice_store.h"
#include "store.h"

/*
 * Keys and values: etcd_layout.h. The cursor in a pool's info marks the
 * lowest address that may be free: everything below it in span is held or
 * skipped, so the lowest free address is a range read from it. Every release
 * touches the info of each pool whose span holds the address, so a reserve
 * that moves the cursor past an address fails its compare if that address
 * was freed meanwhile.
 */
#define KEY_MAX LAYOUT_KEY_MAX
#define PAGE 64
#define LIST_PAGE 500

struct estore {
	struct pool_store base;
	struct etcd_conf conf;
	struct etcd *e;
	long hold_seconds;
	unsigned int seed;
	char node[LAYOUT_NODE_MAX];	/* this node's hostname: GC judges its leases only */
	int tls_fd[3];			/* cacert, cert, key as opened, or -1 */
	struct slicer sl;		/* node slices (slice_store.h) */
};

static int oom(struct cni_err *err)
{
	cni_err_set(err, CNI_ERR_STORE, "etcd store: out of memory");
	return -ENOMEM;
}

static int corrupt(const struct estore *s, const char *key, struct cni_err *err)
{
	cni_err_set(err, CNI_ERR_STORE, "etcd %s: corrupt value at key %.*s",
		    etcd_endpoint(s->e), KEY_MAX, key);
	return -EIO;
}

/* The attachment becomes part of a key: the id rules of docs/internals.md
 * (Contracts) keep it one. */
static int check_key(const struct pool_key *k, struct cni_err *err)
{
	if (env_valid_id(k->containerid) && env_valid_ifname(k->ifname))
		return 0;
	cni_err_set(err, CNI_ERR_ENV, "invalid attachment (%s, %s)", k->containerid, k->ifname);
	return -EINVAL;
}

/* The lease at kv, which must be about the attachment its key names. */
static int read_lease(const struct estore *s, const struct etcd_kv *kv, struct pool_lease *l,
		      char keys[][KEY_MAX], char node[LAYOUT_NODE_MAX], struct cni_err *err)
{
	char key[KEY_MAX];

	if (layout_parse_lease(s->conf.prefix, kv->value, l, keys, node))
		return corrupt(s, kv->key, err);
	layout_owner_key(s->conf.prefix, &l->owner.key, key);
	return strcmp(key, kv->key) ? corrupt(s, kv->key, err) : 0;
}

/* A transaction being built: compares, ops, and the strings they point to. */
#define TB_MAX 160

struct tb {
	struct etcd_cmp cmp[TB_MAX];
	size_t n_cmp;
	struct etcd_op ops[TB_MAX];
	size_t n_ops;
	char *owned[3 * TB_MAX];
	size_t n_owned;
};

static const char *keep(struct tb *t, char *s)
{
	if (s && t->n_owned < sizeof(t->owned) / sizeof(t->owned[0])) {
		t->owned[t->n_owned++] = s;
		return s;
	}
	free(s);
	return NULL;
}

static void tb_release(struct tb *t)
{
	while (t->n_owned)
		free(t->owned[--t->n_owned]);
	t->n_cmp = 0;
	t->n_ops = 0;
}

/* Adds "key's mod_revision is mod" (0: absent); false when full or OOM. */
static bool tb_cmp_mod(struct tb *t, const char *key, int64_t mod)
{
	const char *k = keep(t, strdup(key));

	if (!k || t->n_cmp == TB_MAX)
		return false;
	t->cmp[t->n_cmp++] = (struct etcd_cmp){ .key = k, .target = ETCD_MOD, .rev = mod };
	return true;
}

/* Adds "no key in the directory dir" (a compare over its range). */
static bool tb_cmp_empty(struct tb *t, const char *dir)
{
	const char *k = keep(t, strdup(dir));
	char *end = NULL;

	if (!k || etcd_prefix_end(dir, &end) || !keep(t, end) || t->n_cmp == TB_MAX)
		return false;
	t->cmp[t->n_cmp++] = (struct etcd_cmp){ .key = k, .range_end = end,
						.target = ETCD_CREATE, .rev = 0 };
	return true;
}

static bool tb_cmp_value(struct tb *t, const char *key, const char *value)
{
	const char *k = keep(t, strdup(key)), *v = keep(t, strdup(value));

	if (!k || !v || t->n_cmp == TB_MAX)
		return false;
	t->cmp[t->n_cmp++] = (struct etcd_cmp){ .key = k, .target = ETCD_VALUE, .value = v };
	return true;
}

/* Takes value (NULL = delete). */
static bool tb_write(struct tb *t, const char *key, char *value, bool del)
{
	const char *k = keep(t, strdup(key)), *v = del ? "" : keep(t, value);

	if (!k || !v || t->n_ops == TB_MAX)
		return false;
	t->ops[t->n_ops++] = (struct etcd_op){ .type = del ? ETCD_DELETE : ETCD_PUT,
					       .key = k, .value = v };
	return true;
}

static void backoff(struct estore *s, unsigned int attempt)
{
	long ms = etcd_backoff_ms(attempt, (unsigned int)rand_r(&s->seed));
	long left = etcd_remaining_ms(s->e);

	usleep((useconds_t)(ms < left ? ms : left) * 1000);
}

static int contention(struct estore *s, const char *what, struct cni_err *err)
{
	cni_err_set(err, CNI_ERR_TRY_AGAIN,
		    "etcd %s: contention on %s outlasted %d ms, try again", etcd_endpoint(s->e),
		    what, s->conf.timeout_ms);
	return -EAGAIN;
}

static int get_one(struct estore *s, const char *key, struct etcd_kvs *out, struct cni_err *err)
{
	return etcd_range(s->e, key, NULL, 0, out, err);
}

static int64_t now_s(void)
{
	return (int64_t)time(NULL);
}

/* ---- release ---- */

/* The info of a pool whose span holds an address being released. */
struct touch {
	char key[KEY_MAX];
	int64_t mod;
	struct pool_info pi;
	ipaddr_u128 cursor;
	bool hit;
};

static void dir_of(const char *key, char *dir)
{
	const char *slash = strrchr(key, '/');

	snprintf(dir, KEY_MAX, "%.*s", (int)(slash ? slash - key + 1 : 0), key);
}

static void info_dir(const struct estore *s, const struct pool_info *pi, char *out)
{
	struct pool_range r = { .family = pi->family, .shared = pi->shared };

	snprintf(r.network, sizeof(r.network), "%s", pi->network);
	snprintf(r.pool, sizeof(r.pool), "%s", pi->pool);
	layout_scope_dir(s->conf.prefix, &r, out);
}

/* Lowers the cursor of every pool of the address's scope whose span holds it,
 * and touches those infos so that concurrent reserves re-read. */
static void mark_touches(const struct estore *s, struct touch *t, size_t n, const char *akey,
			 const struct pool_addr *a)
{
	char adir[KEY_MAX], idir[KEY_MAX];
	size_t i;

	dir_of(akey, adir);
	for (i = 0; i < n; i++) {
		info_dir(s, &t[i].pi, idir);
		if (strcmp(idir, adir) || a->addr < t[i].pi.span.first ||
		    a->addr > t[i].pi.span.last)
			continue;
		t[i].hit = true;
		if (a->addr < t[i].cursor)
			t[i].cursor = a->addr;
	}
}

/* Reads the infos of a network into t[*n...]. */
static int read_infos(struct estore *s, const char *network, struct touch *t, size_t max,
		      size_t *n, struct cni_err *err)
{
	char key[KEY_MAX], *end = NULL;
	struct etcd_kvs kvs;
	size_t i;
	int ret;

	layout_info_key(s->conf.prefix, network, "", key);
	key[strlen(key) - 1] = '\0';	/* ".../i/<net>/_" -> ".../i/<net>/" */
	ret = etcd_prefix_end(key, &end);
	if (ret)
		return oom(err);
	ret = etcd_range(s->e, key, end, 0, &kvs, err);
	free(end);
	if (ret)
		return ret;
	for (i = 0; i < kvs.n && *n < max; i++) {
		struct touch *x = &t[(*n)++];

		memset(x, 0, sizeof(*x));
		snprintf(x->key, sizeof(x->key), "%s", kvs.kv[i].key);
		x->mod = kvs.kv[i].mod_rev;
		if (layout_parse_info(kvs.kv[i].value, &x->pi, &x->cursor)) {
			ret = corrupt(s, kvs.kv[i].key, err);
			break;
		}
	}
	etcd_kvs_release(&kvs);
	return ret;
}

#define MAX_TOUCH 64

/* One attempt at removing the lease kv and its GC index key: 1 = lost a
 * compare, retry. */
static int release_once(struct estore *s, const struct etcd_kv *kv, struct cni_err *err)
{
	struct touch *t = calloc(MAX_TOUCH, sizeof(*t));
	char keys[POOL_MAX_RANGES][KEY_MAX], node[LAYOUT_NODE_MAX], gc_key[KEY_MAX];
	struct pool_lease l;
	struct etcd_kvs cur = { 0 };
	struct tb tb = { 0 };
	size_t n = 0, i;
	bool ok, done = false;
	int ret, j;

	ret = t ? read_lease(s, kv, &l, keys, node, err) : oom(err);
	for (j = 0; !ret && j < l.n_addrs; j++) {
		/* Each network once: its infos are all read at the first address. */
		for (i = 0; i < (size_t)j && strcmp(l.addrs[i].network, l.addrs[j].network); i++)
			;
		if (i == (size_t)j)
			ret = read_infos(s, l.addrs[j].network, t, MAX_TOUCH, &n, err);
	}
	ok = !ret && tb_cmp_mod(&tb, kv->key, kv->mod_rev) && tb_write(&tb, kv->key, NULL, true);
	/* Leases of older versions have no index key. */
	if (ok && l.owner.cni_network[0] && node[0]) {
		layout_gc_key(s->conf.prefix, node, &l.owner, gc_key);
		ok = tb_write(&tb, gc_key, NULL, true);
	}
	for (j = 0; ok && j < l.n_addrs; j++) {
		ret = get_one(s, keys[j], &cur, err);
		if (ret)
			break;
		/* Only what this owner still holds goes; anything else is not ours. */
		if (cur.n && layout_value_held_by(cur.kv[0].value, &l.owner.key)) {
			ok = tb_cmp_value(&tb, keys[j], cur.kv[0].value) &&
			     tb_write(&tb, keys[j], s->hold_seconds ?
				      layout_addr_value(NULL, l.addrs[j].pool, l.addrs[j].family,
						 l.addrs[j].addr, now_s() + s->hold_seconds) : NULL,
				      !s->hold_seconds);
			mark_touches(s, t, n, keys[j], &l.addrs[j]);
		}
		etcd_kvs_release(&cur);
	}
	for (i = 0; ok && !ret && i < n; i++)
		if (t[i].hit)
			ok = tb_cmp_mod(&tb, t[i].key, t[i].mod) &&
			     tb_write(&tb, t[i].key, layout_info_value(&t[i].pi, t[i].cursor), false);
	if (!ret && !ok)
		ret = oom(err);
	if (!ret) {
		struct etcd_txn txn = { tb.cmp, tb.n_cmp, tb.ops, tb.n_ops, NULL, 0 };

		ret = etcd_txn(s->e, &txn, &done, NULL, 0, err);
	}
	tb_release(&tb);
	free(t);
	return ret ? ret : !done;
}

static int release_key(struct estore *s, const struct pool_key *k, struct cni_err *err)
{
	char key[KEY_MAX];
	struct etcd_kvs kvs;
	unsigned int attempt;
	int ret;

	layout_owner_key(s->conf.prefix, k, key);
	for (attempt = 0; etcd_remaining_ms(s->e) > 0; attempt++) {
		ret = get_one(s, key, &kvs, err);
		if (ret)
			return ret;
		ret = kvs.n ? release_once(s, &kvs.kv[0], err) : 0;
		etcd_kvs_release(&kvs);
		if (ret <= 0)
			return ret;
		log_debug("etcd store: release of %s/%s lost a race, retrying", k->containerid,
			  k->ifname);
		backoff(s, attempt);
	}
	return contention(s, key, err);
}

/* With node_slice_size the lease is in this node's slices, found without
 * etcd; without it, a lease made through slices is released there too. */
static int etcd_release(struct pool_store *ps, const struct pool_key *key, struct cni_err *err)
{
	struct estore *s = (struct estore *)ps;
	int ret = check_key(key, err) ? -EINVAL : s->sl.len ? 0 : release_key(s, key, err);

	return ret ? ret : slice_release(&s->sl, key, err);
}

/* ---- reserve ---- */

/* What reserve decided for one range. */
struct pick {
	char dir[KEY_MAX];	/* scope directory */
	char key[KEY_MAX];	/* address key */
	ipaddr_u128 addr;
	int64_t mod;		/* of the address key, 0 when absent */
	ipaddr_u128 cursor;	/* the info's cursor after this reserve */
	ipaddr_u128 was;		/* the cursor the info held */
	bool info_ok;		/* the info is there and describes this range */
	ipaddr_u128 from;		/* where the scan started */
	char start[KEY_MAX];	/* its first page: [start, end) */
	char end[KEY_MAX];
};

static bool lease_fits(const struct pool_lease *l, const struct pool_range *r, int n)
{
	int i;

	if (l->n_addrs != n)
		return false;
	for (i = 0; i < n; i++) {
		const struct pool_addr *a = &l->addrs[i];

		if (strcmp(a->network, r[i].network) || strcmp(a->pool, r[i].pool) ||
		    a->family != r[i].family || !range_contains(&r[i], a->addr) ||
		    (r[i].has_want && a->addr != r[i].want))
			return false;
	}
	return true;
}

static void range_info(const struct pool_range *r, struct pool_info *pi)
{
	memset(pi, 0, sizeof(*pi));
	snprintf(pi->network, sizeof(pi->network), "%s", r->network);
	snprintf(pi->pool, sizeof(pi->pool), "%s", r->pool);
	pi->family = r->family;
	pi->shared = r->shared;
	pi->span = r->span;
	pi->usable = r->usable;
}

/* The cursor an info holds for r, or the start of the span when the info is
 * absent or describes another span or scope (config changed). */
static void info_cursor(const struct etcd_kvs *kvs, const struct pool_range *r, struct pick *p)
{
	struct pool_info pi;
	ipaddr_u128 c;

	p->info_ok = kvs->n && !layout_parse_info(kvs->kv[0].value, &pi, &c) &&
		     pi.family == r->family && pi.shared == r->shared &&
		     pi.span.first == r->span.first && pi.span.last == r->span.last &&
		     c >= r->span.first && c <= r->span.last + 1;
	p->was = p->info_ok ? c : r->span.first;
	p->cursor = p->was;
}

/* Addresses other ranges of this reserve already picked in the same scope. */
static bool picked(const struct pick *p, int n, const char *dir, ipaddr_u128 a)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(p[i].dir, dir) && p[i].addr == a)
			return true;
	return false;
}

static int want_pick(struct estore *s, const struct pool_range *r, struct pick *p,
		     const struct pick *prev, int n_prev, struct cni_err *err)
{
	struct etcd_kvs kvs;
	char text[64];
	int ret;

	layout_addr_key(p->dir, r->family, r->want, p->key);
	ret = get_one(s, p->key, &kvs, err);
	if (ret)
		return ret;
	p->addr = r->want;
	p->mod = kvs.n ? kvs.kv[0].mod_rev : 0;
	if ((kvs.n && layout_value_blocks(kvs.kv[0].value, now_s())) ||
	    picked(prev, n_prev, p->dir, r->want)) {
		ipaddr_format_u128(r->family, r->want, text);
		cni_err_set(err, CNI_ERR_ADDR_TAKEN, "requested address %s in %s is already reserved",
			    text, r->pool);
		ret = -EADDRINUSE;
	}
	etcd_kvs_release(&kvs);
	return ret;
}

/* Moves c past a skip interval it falls in; false when past the span. */
static bool skip_to_usable(const struct pool_range *r, ipaddr_u128 *c, size_t *j)
{
	for (;;) {
		while (*j < r->n_skip && r->skip[*j].last < *c)
			(*j)++;
		if (*j == r->n_skip || r->skip[*j].first > *c)
			break;
		*c = r->skip[(*j)++].last + 1;
	}
	return *c <= r->span.last && *c >= r->span.first;
}

/* The address an address key of dir holds; false for any other key. */
static bool key_addr(const char *key, const char *dir, int family, ipaddr_u128 *a)
{
	size_t n = strlen(dir);

	return !strncmp(key, dir, n) && !layout_hex_parse(key + n, family, a);
}

static void insert_sorted(ipaddr_u128 *t, size_t *n, ipaddr_u128 v)
{
	size_t i;

	for (i = *n; i > 0 && t[i - 1] > v; i--)
		t[i] = t[i - 1];
	t[i] = v;
	(*n)++;
}

/* After a lost race an attempt takes the nth lowest free address (nth below
 * MAX_SPREAD) so that racing allocators stop colliding on the same one. */
#define MAX_SPREAD 32

/* The lowest free address from c on (*lowest) and the nth one (*a), given
 * one page of held keys. Returns 0, 1 when the page ended before a free
 * address was seen, or -ENOSPC. */
static int page_pick(const struct pool_range *r, ipaddr_u128 c, size_t j,
		     const struct etcd_kvs *kvs, const struct pick *prev, int n_prev,
		     const char *dir, unsigned int nth, ipaddr_u128 *a, ipaddr_u128 *lowest,
		     ipaddr_u128 *page_end)
{
	ipaddr_u128 taken[PAGE + POOL_MAX_RANGES + MAX_SPREAD], v, next;
	struct pool_range rc = *r;
	int64_t now = now_s();
	size_t n = 0, i;
	int k, ret;

	/* etcd_range and etcd_txn refuse a page of more than PAGE keys. */
	for (i = 0; i < kvs->n && n < PAGE; i++) {
		if (!key_addr(kvs->kv[i].key, dir, r->family, &v))
			continue;
		*page_end = v;
		if (layout_value_blocks(kvs->kv[i].value, now))
			taken[n++] = v;
	}
	for (k = 0; k < n_prev; k++)
		if (!strcmp(prev[k].dir, dir))
			insert_sorted(taken, &n, prev[k].addr);
	rc.span.first = c;
	rc.skip = r->skip + j;
	rc.n_skip = r->n_skip - j;
	ret = pool_first_free(&rc, taken, n, lowest);
	if (kvs->more && (ret == -ENOSPC || *lowest > *page_end))
		return 1;
	for (*a = *lowest; !ret && nth--; *a = next) {
		insert_sorted(taken, &n, *a);
		if (pool_first_free(&rc, taken, n, &next) || (kvs->more && next > *page_end))
			break;
	}
	return ret;
}

/* From a page below the pick (all of it when none yet): the mod_revision of
 * the picked key (a hold that ran out), and where the cursor must stop: it
 * may pass only held keys, since a hold runs out without a write. */
static void note_page(const struct etcd_kvs *kvs, const struct pool_range *r, bool found,
		      struct pick *p, bool *stuck)
{
	ipaddr_u128 v;
	size_t i;

	for (i = 0; i < kvs->n; i++) {
		if (!key_addr(kvs->kv[i].key, p->dir, r->family, &v))
			continue;
		if (found && v == p->addr)
			p->mod = kvs->kv[i].mod_rev;
		if ((found && v >= p->addr) || *stuck || layout_value_has_holder(kvs->kv[i].value))
			continue;
		*stuck = true;
		p->cursor = v;
	}
}

/* Lowest free address of r from its cursor on, reading a page at a time;
 * pre is the first page when the last attempt's failure branch read it from
 * at most the cursor. */
static int scan_pick(struct estore *s, const struct pool_range *r, ipaddr_u128 cursor,
		     struct pick *p, const struct pick *prev, int n_prev,
		     const struct etcd_kvs *pre, ipaddr_u128 pre_from, unsigned int nth,
		     struct cni_err *err)
{
	struct etcd_kvs kvs = { 0 };
	ipaddr_u128 c = cursor, page_end = 0, lowest = 0;
	bool stuck = false, own;
	size_t j = 0;
	int ret;

	p->mod = 0;
	layout_addr_key(p->dir, r->family, r->span.last, p->end);
	strcat(p->end, "~");	/* just past the last key of the span */
	skip_to_usable(r, &c, &j);
	p->from = c;
	layout_addr_key(p->dir, r->family, c, p->start);
	if (pre_from > c)
		pre = NULL;
	for (;;) {
		if (!skip_to_usable(r, &c, &j)) {
			ret = -ENOSPC;
			break;
		}
		own = !pre;
		if (own) {
			char start[KEY_MAX];

			layout_addr_key(p->dir, r->family, c, start);
			ret = etcd_range(s->e, start, p->end, PAGE, &kvs, err);
			if (ret)
				return ret;
		}
		ret = page_pick(r, c, j, own ? &kvs : pre, prev, n_prev, p->dir, nth, &p->addr,
				&lowest, &page_end);
		note_page(own ? &kvs : pre, r, ret == 0, p, &stuck);
		etcd_kvs_release(&kvs);
		pre = NULL;
		if (ret != 1)
			break;
		c = page_end + 1;
	}
	if (ret == -ENOSPC)
		return pool_err_exhausted(err, r);
	if (ret)
		return ret;
	layout_addr_key(p->dir, r->family, p->addr, p->key);
	if (!stuck)
		p->cursor = p->addr + 1;
	/* A free address below the pick keeps the cursor where it is. */
	if (lowest < p->addr && lowest < p->cursor)
		p->cursor = lowest < cursor ? cursor : lowest;
	return 0;
}

/* What a reserve attempt starts from: the owner's lease, each range's info
 * and, after a lost race, the first page of each range's scan. */
#define SNAP_MAX (1 + 2 * POOL_MAX_RANGES)

struct snap {
	struct etcd_kvs kvs[SNAP_MAX];
	struct etcd_op reads[SNAP_MAX];
	char keys[1 + POOL_MAX_RANGES][KEY_MAX];
	char gc_key[KEY_MAX];	/* the lease's GC index key, "" without a CNI network */
	size_t n;		/* 1 + ranges, or 1 + 2 * ranges with pages */
	ipaddr_u128 from[POOL_MAX_RANGES];
};

static void snap_release(struct snap *sn)
{
	size_t i;

	for (i = 0; i < sn->n; i++)
		etcd_kvs_release(&sn->kvs[i]);
}

/* The txn that makes the lease: every compare on what the picks were based
 * on, the failure branch re-reads the snapshot for the next attempt. */
static int commit(struct estore *s, const struct pool_owner *owner,
		  const struct pool_range *r, int n, const struct pick *p, struct snap *sn,
		  struct pool_lease *out, bool *done, struct cni_err *err)
{
	char keys[POOL_MAX_RANGES][KEY_MAX];
	struct pool_info pi;
	struct tb tb = { 0 };
	bool ok;
	int i, k, ret;

	memset(out, 0, sizeof(*out));
	out->owner = *owner;
	for (i = 0; i < n; i++) {
		struct pool_addr *a = &out->addrs[out->n_addrs++];

		snprintf(a->network, sizeof(a->network), "%s", r[i].network);
		snprintf(a->pool, sizeof(a->pool), "%s", r[i].pool);
		a->family = r[i].family;
		a->prefix_len = r[i].prefix_len;
		a->addr = p[i].addr;
		strcpy(keys[i], p[i].key);
	}
	ok = tb_cmp_mod(&tb, sn->keys[0], 0) &&
	     tb_write(&tb, sn->keys[0], layout_lease_value(out, keys, s->node), false) &&
	     (!sn->gc_key[0] || tb_write(&tb, sn->gc_key, strdup("{}"), false));
	for (i = 0; ok && i < n; i++) {
		char sdir[KEY_MAX];

		/* An address space divided into node slices is theirs alone. */
		slice_dir(s->conf.prefix, &r[i], sdir);
		ok = tb_cmp_empty(&tb, sdir) && tb_cmp_mod(&tb, p[i].key, p[i].mod) &&
		     tb_write(&tb, p[i].key, layout_addr_value(&owner->key, r[i].pool, r[i].family,
							p[i].addr, 0), false);
		/* Two ranges of one pool: its info is written once, by the last. An
		 * info that stays as it is stays out of the txn: picks that leave the
		 * cursor alone do not collide on it. */
		for (k = i + 1; k < n && strcmp(sn->keys[1 + k], sn->keys[1 + i]); k++)
			;
		if (!ok || k < n || (p[i].info_ok && p[i].cursor == p[i].was))
			continue;
		range_info(&r[i], &pi);
		ok = tb_cmp_mod(&tb, sn->keys[1 + i], sn->kvs[1 + i].n ?
				sn->kvs[1 + i].kv[0].mod_rev : 0) &&
		     tb_write(&tb, sn->keys[1 + i], layout_info_value(&pi, p[i].cursor), false);
	}
	if (!ok) {
		tb_release(&tb);
		return oom(err);
	}
	snap_release(sn);
	sn->n = 1 + 2 * (size_t)n;
	for (i = 0; i < n; i++) {
		sn->from[i] = p[i].from;
		sn->reads[1 + n + i] = r[i].has_want ?
			(struct etcd_op){ .type = ETCD_RANGE, .key = p[i].key } :
			(struct etcd_op){ .type = ETCD_RANGE, .key = p[i].start,
					  .range_end = p[i].end, .limit = PAGE };
	}
	{
		struct etcd_txn txn = { tb.cmp, tb.n_cmp, tb.ops, tb.n_ops, sn->reads, sn->n };

		ret = etcd_txn(s->e, &txn, done, sn->kvs, sn->n, err);
	}
	tb_release(&tb);
	return ret;
}

static int snap_read(struct estore *s, struct snap *sn, struct cni_err *err)
{
	struct etcd_txn txn = { NULL, 0, sn->reads, sn->n, NULL, 0 };
	bool done;

	return etcd_txn(s->e, &txn, &done, sn->kvs, sn->n, err);
}

/* What one reserve attempt leads to, besides 0 (done) and -errno. */
enum { LOST = 1, AGAIN = 2 };

/* One attempt from a snapshot: 0 done, LOST a race (the snapshot is fresh),
 * AGAIN after releasing a lease that did not fit, or an error. lost: races
 * lost so far. */
static int reserve_once(struct estore *s, const struct pool_owner *owner,
			const struct pool_range *r, int n, struct snap *sn, unsigned int lost,
			struct pool_lease *out, struct cni_err *err)
{
	char keys[POOL_MAX_RANGES][KEY_MAX], node[LAYOUT_NODE_MAX];
	struct pick p[POOL_MAX_RANGES] = { 0 };
	bool done = false;
	int i, ret;

	if (sn->kvs[0].n) {
		ret = read_lease(s, &sn->kvs[0].kv[0], out, keys, node, err);
		if (ret || lease_fits(out, r, n))
			return ret;
		ret = release_key(s, &owner->key, err);
		snap_release(sn);
		sn->n = 1 + (size_t)n;
		if (!ret)
			ret = snap_read(s, sn, err);
		return ret ? ret : AGAIN;
	}
	for (i = 0, ret = 0; !ret && i < n; i++) {
		layout_scope_dir(s->conf.prefix, &r[i], p[i].dir);
		info_cursor(&sn->kvs[1 + i], &r[i], &p[i]);
		if (r[i].has_want)
			ret = want_pick(s, &r[i], &p[i], p, i, err);
		else
			ret = scan_pick(s, &r[i], p[i].cursor, &p[i], p, i,
					sn->n > 1 + (size_t)n ? &sn->kvs[1 + n + i] : NULL,
					sn->from[i], lost ? (unsigned int)rand_r(&s->seed) %
					(lost < 4 ? 4u << lost : MAX_SPREAD) : 0, err);
	}
	if (!ret)
		ret = commit(s, owner, r, n, p, sn, out, &done, err);
	return ret ? ret : done ? 0 : LOST;
}

/* After a lost race: -EINVAL when a range's address space is divided into
 * node slices (a config of it with node_slice_size), which no retry mends;
 * or the store's error. */
static int refuse_sliced(struct estore *s, const struct pool_range *r, int n,
			 struct cni_err *err)
{
	char dir[KEY_MAX], *end = NULL;
	struct etcd_kvs kvs = { 0 };
	int i, ret = 0;

	for (i = 0; !ret && i < n; i++) {
		slice_dir(s->conf.prefix, &r[i], dir);
		ret = etcd_prefix_end(dir, &end) ? oom(err) : etcd_range(s->e, dir, end, 1, &kvs, err);
		if (!ret && kvs.n) {
			cni_err_set(err, CNI_ERR_CONFIG, "%s: network %s's address space is divided "
				    "into node slices (%s) and this config has no node_slice_size: give "
				    "it the node_slice_size of the others", r[i].desc, r[i].network,
				    kvs.kv[0].key);
			ret = -EINVAL;
		}
		etcd_kvs_release(&kvs);
		free(end);
		end = NULL;
	}
	return ret;
}

/* The per-address path: one transaction per ADD. */
static int txn_reserve(struct estore *s, const struct pool_owner *owner,
		       const struct pool_range *r, int n, struct pool_lease *out,
		       struct cni_err *err)
{
	struct snap sn = { .n = 1 + (size_t)n };
	unsigned int lost = 0;
	int i, ret = 0;

	layout_owner_key(s->conf.prefix, &owner->key, sn.keys[0]);
	if (owner->cni_network[0])
		layout_gc_key(s->conf.prefix, s->node, owner, sn.gc_key);
	for (i = 0; i < n; i++)
		layout_info_key(s->conf.prefix, r[i].network, r[i].pool, sn.keys[1 + i]);
	for (i = 0; i <= n; i++)
		sn.reads[i] = (struct etcd_op){ .type = ETCD_RANGE, .key = sn.keys[i] };
	/* Each attempt leaves a fresh snapshot for the next (the failure branch
	 * of its txn re-reads it). */
	ret = snap_read(s, &sn, err);
	if (!ret)
		ret = AGAIN;
	while (ret > 0 && etcd_remaining_ms(s->e) > 0) {
		ret = reserve_once(s, owner, r, n, &sn, lost, out, err);
		if (ret == LOST) {
			int sliced = refuse_sliced(s, r, n, err);

			if (sliced) {
				ret = sliced;
				break;
			}
			log_debug("etcd store: reserve for %s/%s lost a race, retrying",
				  owner->key.containerid, owner->key.ifname);
			backoff(s, lost++);
		}
	}
	snap_release(&sn);
	if (ret > 0)
		return contention(s, r[0].desc, err);
	return ret;
}

static int etcd_reserve(struct pool_store *ps, const struct pool_owner *owner,
			const struct pool_range *r, int n, struct pool_lease *out,
			struct cni_err *err)
{
	struct estore *s = (struct estore *)ps;

	if (check_key(&owner->key, err))
		return -EINVAL;
	if (n < 1 || n > POOL_MAX_RANGES) {
		cni_err_set(err, CNI_ERR_CONFIG, "%d ranges: want 1..%d", n, POOL_MAX_RANGES);
		return -EINVAL;
	}
	return s->sl.len ? slice_reserve(&s->sl, owner, r, n, out, err) :
			   txn_reserve(s, owner, r, n, out, err);
}

/* ---- lookup, gc, list, status ---- */

static int etcd_lookup(struct pool_store *ps, const struct pool_key *k, struct pool_lease *out,
		     struct cni_err *err)
{
	struct estore *s = (struct estore *)ps;
	char key[KEY_MAX], keys[POOL_MAX_RANGES][KEY_MAX], node[LAYOUT_NODE_MAX];
	struct etcd_kvs kvs;
	int ret;

	if (check_key(k, err))
		return -EINVAL;
	if (s->sl.len)
		return slice_lookup(&s->sl, k, out, err);
	layout_owner_key(s->conf.prefix, k, key);
	ret = get_one(s, key, &kvs, err);
	if (!ret)
		ret = kvs.n ? read_lease(s, &kvs.kv[0], out, keys, node, err) : -ENOENT;
	etcd_kvs_release(&kvs);
	return ret == -ENOENT ? slice_lookup(&s->sl, k, out, err) : ret;
}

static void store_dir(const struct estore *s, const char *what, char *out)
{
	snprintf(out, KEY_MAX, "%s/%s/", s->conf.prefix, what);
}

struct gc_arg {
	struct estore *s;
	const char *cni_network;
	const struct cni_attachment *valid;
	int n_valid;
	char dir[KEY_MAX];	/* of this node's index entries in cni_network */
};

static bool is_valid(const struct gc_arg *g, const struct pool_key *k)
{
	for (int i = 0; i < g->n_valid; i++)
		if (!strcmp(g->valid[i].containerid, k->containerid) &&
		    !strcmp(g->valid[i].ifname, k->ifname))
			return true;
	return false;
}

/* Deletes an index entry whose lease is gone or another's, if the lease key
 * is still as read (mod 0: absent). 1 = lost a compare. */
static int drop_entry(struct estore *s, const char *entry, const char *lease_key, int64_t mod,
		      struct cni_err *err)
{
	struct etcd_cmp cmp = { .key = lease_key, .target = ETCD_MOD, .rev = mod };
	struct etcd_op del = { .type = ETCD_DELETE, .key = entry };
	struct etcd_txn txn = { &cmp, 1, &del, 1, NULL, 0 };
	bool done = false;
	int ret;

	log_info("etcd store: gc drops the stale index entry %s", entry);
	ret = etcd_txn(s->e, &txn, &done, NULL, 0, err);
	return ret ? ret : !done;
}

/* One attempt at one index entry: its lease is released, as DEL does, when
 * it is still this network's lease made on this node; else the entry is
 * stale (a version without the index released the lease, or made another
 * one for the attachment) and goes. 1 = lost a race. */
static int gc_once(struct estore *s, const struct gc_arg *g, const char *entry,
		   const char *lease_key, const struct etcd_kvs *lease, struct cni_err *err)
{
	char keys[POOL_MAX_RANGES][KEY_MAX], node[LAYOUT_NODE_MAX];
	struct pool_lease l;
	int ret;

	if (!lease->n)
		return drop_entry(s, entry, lease_key, 0, err);
	ret = read_lease(s, &lease->kv[0], &l, keys, node, err);
	if (ret)
		return ret;
	if (strcmp(l.owner.cni_network, g->cni_network) || strcmp(node, s->node))
		return drop_entry(s, entry, lease_key, lease->kv[0].mod_rev, err);
	log_info("etcd store: gc releases %s/%s", l.owner.key.containerid, l.owner.key.ifname);
	return release_once(s, &lease->kv[0], err);
}

static int gc_entry(const struct etcd_kv *kv, void *arg, struct cni_err *err)
{
	const struct gc_arg *g = arg;
	struct estore *s = g->s;
	char key[KEY_MAX];
	struct etcd_kvs lease;
	struct pool_key k;
	unsigned int attempt;
	int ret;

	if (layout_gc_parse(g->dir, kv->key, &k)) {
		cni_err_set(err, CNI_ERR_STORE, "etcd %s: malformed GC index key %.*s",
			    etcd_endpoint(s->e), KEY_MAX, kv->key);
		return -EIO;
	}
	if (is_valid(g, &k))
		return 0;
	layout_owner_key(s->conf.prefix, &k, key);
	for (attempt = 0; etcd_remaining_ms(s->e) > 0; attempt++) {
		ret = get_one(s, key, &lease, err);
		if (ret)
			return ret;
		ret = gc_once(s, g, kv->key, key, &lease, err);
		etcd_kvs_release(&lease);
		if (ret <= 0)
			return ret;
		backoff(s, attempt);
	}
	return contention(s, key, err);
}

/* Reads only this node's index entries of the network, not every lease of
 * the cluster (README, "How a change is made": measured). */
static int etcd_gc(struct pool_store *ps, const char *cni_network, const struct cni_attachment *valid,
		 int n_valid, struct cni_err *err)
{
	struct estore *s = (struct estore *)ps;
	struct gc_arg g = { s, cni_network, valid, n_valid, "" };
	int ret = slice_gc(&s->sl, cni_network, valid, n_valid, err);

	layout_gc_dir(s->conf.prefix, s->node, cni_network, g.dir);
	/* with node slices every lease is on the node: GC needs no etcd */
	return ret || s->sl.len ? ret : etcd_each(s->e, g.dir, LIST_PAGE, gc_entry, &g, err);
}

struct list_arg {
	struct estore *s;
	pool_info_fn info_fn;
	pool_lease_fn lease_fn;
	void *arg;
};

static int list_info(const struct etcd_kv *kv, void *arg, struct cni_err *err)
{
	const struct list_arg *la = arg;
	struct estore *s = la->s;
	struct pool_info pi;
	ipaddr_u128 cursor;

	if (layout_parse_info(kv->value, &pi, &cursor))
		return corrupt(s, kv->key, err);
	return la->info_fn(&pi, la->arg);
}

static int list_lease(const struct etcd_kv *kv, void *arg, struct cni_err *err)
{
	char keys[POOL_MAX_RANGES][KEY_MAX], node[LAYOUT_NODE_MAX];
	const struct list_arg *la = arg;
	struct estore *s = la->s;
	struct pool_lease l;
	int ret;

	ret = read_lease(s, kv, &l, keys, node, err);
	return ret ? ret : la->lease_fn(&l, la->arg);
}

static int etcd_list(struct pool_store *ps, pool_info_fn info_fn, pool_lease_fn lease_fn,
		   void *arg, struct cni_err *err)
{
	struct estore *s = (struct estore *)ps;
	struct list_arg la = { s, info_fn, lease_fn, arg };
	char dir[KEY_MAX];
	int ret = 0;

	store_dir(s, "i", dir);
	if (info_fn)
		ret = etcd_each(s->e, dir, LIST_PAGE, list_info, &la, err);
	store_dir(s, "o", dir);
	if (!ret && lease_fn)
		ret = etcd_each(s->e, dir, LIST_PAGE, list_lease, &la, err);
	return ret ? ret : slice_list(&s->sl, info_fn, lease_fn, arg, err);
}

/* Reads the prefix, then sends a txn whose compare cannot hold (version -1)
 * so etcd checks write permission on it without writing anything. */
static int etcd_status(struct pool_store *ps, struct cni_err *err)
{
	struct estore *s = (struct estore *)ps;
	char key[KEY_MAX];
	struct etcd_kvs kvs;
	struct etcd_cmp never;
	struct etcd_op put;
	bool done;
	int ret;

	snprintf(key, sizeof(key), "%s/status", s->conf.prefix);
	never = (struct etcd_cmp){ .key = key, .target = ETCD_VERSION, .rev = -1 };
	put = (struct etcd_op){ .type = ETCD_PUT, .key = key, .value = "" };
	ret = get_one(s, key, &kvs, err);
	etcd_kvs_release(&kvs);
	if (!ret) {
		struct etcd_txn txn = { &never, 1, &put, 1, NULL, 0 };

		ret = etcd_txn(s->e, &txn, &done, NULL, 0, err);
	}
	/* ADD needs no etcd while this node's slices have room */
	if (ret && s->sl.len && err->code == CNI_ERR_TRY_AGAIN && !slice_room(&s->sl, NULL)) {
		log_info("etcd store: %s; this node's slices still have room", err->msg);
		memset(err, 0, sizeof(*err));
		ret = 0;
	}
	return ret;
}

static void etcd_close(struct pool_store *ps)
{
	struct estore *s = (struct estore *)ps;

	if (!s)
		return;
	if (getenv("IPPOOL_ETCD_STATS") && s->e)
		fprintf(stderr, "ippool etcd stats: conflicts=%lu elapsed_ms=%ld\n",
			etcd_conflicts(s->e), etcd_elapsed_ms(s->e));
	slicer_fini(&s->sl);
	etcd_disconnect(s->e);
	for (int i = 0; i < 3; i++)
		if (s->tls_fd[i] >= 0)
			close(s->tls_fd[i]);
	free(s);
}

/* cacert, cert and key are paths a config names: confined, opened here
 * without following a symlink, and handed to libcurl as the file opened
 * (/proc/self/fd/N), so that none can be swapped after the check. */
static int open_tls_files(struct estore *s, struct cni_err *err)
{
	static const char *const keys[] = { "store.cacert", "store.cert", "store.key" };
	char *paths[] = { s->conf.cacert, s->conf.cert, s->conf.key };

	for (int i = 0; i < 3; i++) {
		if (!*paths[i])
			continue;
		if (confpath_check(keys[i], paths[i], ETCD_STR_MAX, CONFPATH_READ_FILE, err))
			return -EINVAL;
		s->tls_fd[i] = safeopen_file(paths[i], O_RDONLY, 0);
		if (s->tls_fd[i] < 0) {
			cni_err_set(err, CNI_ERR_STORE, "etcd store: cannot open %s %s: %s", keys[i],
				    paths[i], strerror(-s->tls_fd[i]));
			return s->tls_fd[i];
		}
		snprintf(paths[i], ETCD_STR_MAX, "/proc/self/fd/%d", s->tls_fd[i]);
	}
	return 0;
}

static int etcd_open(const struct pool_store_cfg *cfg, struct pool_store **out, struct cni_err *err)
{
	struct estore *s = calloc(1, sizeof(*s));
	int ret;

	*out = NULL;
	if (!s)
		return oom(err);
	s->base.ops = &etcd_store_ops;
	s->tls_fd[0] = s->tls_fd[1] = s->tls_fd[2] = -1;
	s->sl.fd = -1;
	s->hold_seconds = cfg->hold_seconds;
	s->seed = (unsigned int)getpid() ^ (unsigned int)time(NULL);
	ret = gethostname(s->node, sizeof(s->node) - 1) ? -errno : 0;
	if (ret) {
		cni_err_set(err, CNI_ERR_STORE, "etcd store: cannot read the hostname: %s",
			    strerror(-ret));
	} else if (!cfg->store) {
		cni_err_set(err, CNI_ERR_CONFIG,
			    "store \"etcd\" needs the object form with \"endpoints\"");
		ret = -EINVAL;
	} else {
		ret = etcd_conf_parse(cfg->store, &s->conf, err);
	}
	if (!ret)
		ret = open_tls_files(s, err);
	if (!ret)
		ret = etcd_connect(&s->conf, &s->e, err);
	if (!ret)
		slicer_init(&s->sl, s->e, s->conf.prefix, s->node, s->conf.timeout_ms, cfg);
	if (ret) {
		etcd_close(&s->base);
		return ret;
	}
	*out = &s->base;
	return 0;
}

/* ---- node slices and release-node ---- */

struct node_arg {
	struct estore *s;
	const char *node;
	pool_lease_fn fn;
	void *arg;
};

/* One entry of node's GC index: its lease goes (fn first) when it is
 * still the node's; an entry whose lease is gone goes with it. */
static int free_entry(const struct etcd_kv *kv, void *arg, struct cni_err *err)
{
	char dir[KEY_MAX], key[KEY_MAX], keys[POOL_MAX_RANGES][KEY_MAX], node[LAYOUT_NODE_MAX];
	const struct node_arg *na = arg;
	const char *id = strrchr(kv->key, '/');
	struct etcd_kvs lease = { 0 };
	struct pool_lease l;
	struct pool_key k;
	int ret;

	/* the directory ends before the containerID: P/g/<node>/<cni>/ */
	while (id && id > kv->key && id[-1] != '/')
		id--;
	if (id)
		snprintf(dir, sizeof(dir), "%.*s", (int)(id - kv->key), kv->key);
	if (!id || layout_gc_parse(dir, kv->key, &k))
		return corrupt(na->s, kv->key, err);
	layout_owner_key(na->s->conf.prefix, &k, key);
	ret = get_one(na->s, key, &lease, err);
	if (!ret && !lease.n)
		ret = drop_entry(na->s, kv->key, key, 0, err) < 0 ? -EIO : 0;
	else if (!ret)
		ret = read_lease(na->s, &lease.kv[0], &l, keys, node, err);
	if (!ret && lease.n && !strcmp(node, na->node)) {
		ret = na->fn ? na->fn(&l, na->arg) : 0;
		if (!ret)
			ret = release_key(na->s, &k, err);
	}
	etcd_kvs_release(&lease);
	return ret;
}

static int etcd_release_node(struct pool_store *ps, const char *node, bool force,
			     pool_slice_fn slice_fn, pool_lease_fn lease_fn, void *arg,
			     struct cni_err *err)
{
	struct estore *s = (struct estore *)ps;
	struct node_arg na = { s, node, lease_fn, arg };
	char dir[KEY_MAX];
	int ret = slice_release_node(&s->sl, node, force, slice_fn, arg, err);

	snprintf(dir, sizeof(dir), "%s/g/%s/", s->conf.prefix, node);
	return ret ? ret : etcd_each(s->e, dir, LIST_PAGE, free_entry, &na, err);
}

static int etcd_slices(struct pool_store *ps, pool_slice_fn fn, void *arg, struct cni_err *err)
{
	return slice_each(&((struct estore *)ps)->sl, fn, arg, err);
}

static int etcd_heartbeat(struct pool_store *ps, struct cni_err *err)
{
	return slice_heartbeat(&((struct estore *)ps)->sl, err);
}

static int etcd_tidy(struct pool_store *ps, bool dry_run, pool_slice_fn fn, void *arg,
		     struct cni_err *err)
{
	return slice_tidy(&((struct estore *)ps)->sl, dry_run, fn, arg, err);
}

const struct pool_store_ops etcd_store_ops = {
	.name = "etcd",
	.open = etcd_open,
	.close = etcd_close,
	.status = etcd_status,
	.reserve = etcd_reserve,
	.release = etcd_release,
	.lookup = etcd_lookup,
	.gc = etcd_gc,
	.list = etcd_list,
	.slices = etcd_slices,
	.heartbeat = etcd_heartbeat,
	.tidy = etcd_tidy,
	.release_node = etcd_release_node,
};
