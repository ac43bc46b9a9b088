// SPDX-License-Identifier: Apache-2.0
/* Node slices of the etcd store: claims and give-backs in etcd, allocation inside them in a local store. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "local_store.h"
#include "log.h"
#include "safeopen.h"
#include "slice_layout.h"
#include "slice_owned.h"
#include "slice_store.h"

/*
 * Who owns a slice lives in etcd (slice_layout.h); which address in it is
 * held lives in a local store under <dataDir>/etcd-slices/<hash of the
 * prefix>, given each range with everything outside this node's slices
 * added to its skip. A claim is one transaction creating the slice key,
 * then the node's record; a give-back marks the record releasing, deletes
 * the key if it still names this node, then drops the record. A crash
 * between a claim's two steps is mended by adoption: every claim first
 * reads the node's index P/t/<node>/ and records what it lacks.
 *
 * The owned/ directory's lock orders the node's allocations (records read,
 * local reserve) against a give-back's mark; no etcd request is made with
 * it held, so ADDs from slices with room never wait for etcd. Finding a
 * free slice reads the claimed ones a page at a time from where the node's
 * hash falls: work in the number of slices, only when a node needs one.
 */
#define PAGE 64
#define KEY_MAX LAYOUT_KEY_MAX
/* Slices one ADD may claim before it gives up (each range at most a few). */
#define MAX_CLAIMS (2 * POOL_MAX_RANGES)

static int64_t now_s(void)
{
	return (int64_t)time(NULL);
}

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

void slicer_init(struct slicer *sl, struct etcd *e, const char *prefix, const char *node,
		 int timeout_ms, const struct pool_store_cfg *cfg)
{
	memset(sl, 0, sizeof(*sl));
	sl->e = e;
	sl->prefix = prefix;
	sl->node = node;
	sl->len = cfg->slice_len;
	sl->timeout_ms = timeout_ms;
	sl->hold_seconds = cfg->hold_seconds;
	sl->nosync = cfg->nosync;
	sl->seed = (unsigned int)getpid();
	sl->fd = -1;
	/* One directory per etcd prefix: two stores sharing a dataDir never
	 * share slice records. dataDir is confined and far shorter (confpath). */
	snprintf(sl->root, sizeof(sl->root), "%.*s/etcd-slices/%016llx", PATH_MAX - 40,
		 cfg->data_dir, (unsigned long long)fnv1a(prefix));
}

void slicer_fini(struct slicer *sl)
{
	pool_store_close(sl->local);
	if (sl->fd >= 0)
		close(sl->fd);
	sl->local = NULL;
	sl->fd = -1;
}

/* Opens the records and the local store, walking to root once; -ENOENT
 * (err untouched) when there is none and create is false. */
static int ready(struct slicer *sl, bool create, struct cni_err *err)
{
	struct pool_store_cfg cfg = { .hold_seconds = sl->hold_seconds, .nosync = sl->nosync };
	int rootfd, ret;

	if (sl->local)
		return 0;
	rootfd = safeopen_dir(sl->root, create);
	if (rootfd == -ENOENT && !create)
		return -ENOENT;
	if (rootfd < 0) {
		cni_err_set(err, CNI_ERR_STORE, "cannot open slice records %s: %s", sl->root,
			    strerror(-rootfd));
		return rootfd;
	}
	ret = owned_open(rootfd, sl->root, create, &sl->fd, err);
	snprintf(cfg.data_dir, sizeof(cfg.data_dir), "%s", sl->root);
	if (!ret)
		ret = local_store_open_at(rootfd, &cfg, &sl->local, err);
	if (ret && sl->fd >= 0) {
		close(sl->fd);
		sl->fd = -1;
	}
	close(rootfd);
	return ret;
}

/* The record's block belongs to r's scope. */
static bool in_scope(const struct slice_rec *rec, const struct pool_range *r)
{
	return rec->s.family == r->family && rec->shared == r->shared &&
	       !strcmp(rec->s.network, r->network) && (r->shared || !strcmp(rec->s.pool, r->pool));
}

/* This node's usable blocks of r's scope and slice length, in order (a
 * record of another hostname, after a rename, is not this node's). */
static size_t own_blocks(const struct slice_rec *recs, size_t n, const struct pool_range *r,
			 const char *node, int len, struct pool_span *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!recs[i].releasing && recs[i].len == len && in_scope(&recs[i], r) &&
		    !strcmp(recs[i].s.node, node))
			out[k++] = recs[i].s.span;
	return k;
}

static bool covers(const struct pool_span *own, size_t n, ipaddr_u128 a)
{
	for (size_t i = 0; i < n; i++)
		if (a >= own[i].first && a <= own[i].last)
			return true;
	return false;
}

/* What an ADD needs before it can succeed: a slice for range need (holding
 * want when has_want). */
struct need {
	int range;
	bool want;
};

/* The range whose exhaustion the local store reported. */
static int exhausted_range(const struct pool_range *rr, int n, const struct cni_err *err)
{
	struct cni_err e;

	for (int i = 0; i < n; i++) {
		memset(&e, 0, sizeof(e));
		pool_err_exhausted(&e, &rr[i]);
		if (!strcmp(e.msg, err->msg))
			return i;
	}
	return 0;
}

/* The local reserve with each range restricted to this node's slices, the
 * records' lock held; 1 with *need when a slice is missing. */
static int reserve_locked(struct slicer *sl, const struct pool_owner *owner,
			  const struct pool_range *r, int n, struct pool_lease *out,
			  struct need *need, struct cni_err *err)
{
	struct pool_range rr[POOL_MAX_RANGES];
	struct pool_span *skip[POOL_MAX_RANGES] = { 0 }, *own = NULL;
	struct slice_rec *recs = NULL;
	size_t n_recs = 0, k;
	int i, ret = owned_read(sl->fd, sl->root, &recs, &n_recs, err);

	own = ret ? NULL : malloc((n_recs + 1) * sizeof(*own));
	if (!ret && !own)
		ret = -ENOMEM;
	for (i = 0; !ret && i < n; i++) {
		k = own_blocks(recs, n_recs, &r[i], sl->node, sl->len, own);
		if (r[i].has_want && !covers(own, k, r[i].want)) {
			*need = (struct need){ i, true };
			ret = 1;
		} else if (slice_restrict(&r[i], own, k, &rr[i], &skip[i])) {
			ret = -ENOMEM;
		}
	}
	if (ret == -ENOMEM)
		cni_err_set(err, CNI_ERR_STORE, "etcd store: out of memory");
	if (!ret)
		ret = sl->local->ops->reserve(sl->local, owner, rr, n, out, err);
	if (ret == -ENOSPC)
		*need = (struct need){ exhausted_range(rr, n, err), false };
	for (i = 0; i < n; i++)
		free(skip[i]);
	free(own);
	free(recs);
	return ret == -ENOSPC ? 1 : ret;
}

/* ---- claims ---- */

static bool find_rec(const struct slice_rec *recs, size_t n, const struct slice_rec *x)
{
	for (size_t i = 0; i < n; i++)
		if (recs[i].s.span.first == x->s.span.first && recs[i].len == x->len &&
		    recs[i].s.family == x->s.family && recs[i].shared == x->shared &&
		    !strcmp(recs[i].s.network, x->s.network) &&
		    (x->shared || !strcmp(recs[i].s.pool, x->s.pool)))
			return true;
	return false;
}

struct adopt {
	struct slicer *sl;
	struct slice_rec *recs;	/* the node's records */
	size_t n;
	struct slice_rec *want;	/* index entries they lack */
	size_t n_want;
};

/* One entry of the node's index: kept for adoption when no record has it. */
static int adopt_one(const struct etcd_kv *kv, void *arg, struct cni_err *err)
{
	struct adopt *a = arg;
	struct slicer *sl = a->sl;
	char skey[KEY_MAX], tkey[KEY_MAX];
	struct slice_rec rec, *w;
	struct pool_range scope;

	if (slice_parse(kv->value, false, &rec) || strcmp(rec.s.node, sl->node)) {
		log_error("etcd %s: damaged slice index entry %.*s: left alone",
			  etcd_endpoint(sl->e), KEY_MAX, kv->key);
		return 0;
	}
	slice_scope(&rec, &scope);
	slice_key(sl->prefix, &scope, rec.s.span.first, skey);
	slice_node_key(sl->prefix, sl->node, skey, tkey);
	if (strcmp(tkey, kv->key) || find_rec(a->recs, a->n, &rec))
		return 0;
	w = realloc(a->want, (a->n_want + 1) * sizeof(*w));
	if (!w) {
		cni_err_set(err, CNI_ERR_STORE, "etcd store: out of memory");
		return -ENOMEM;
	}
	a->want = w;
	a->want[a->n_want++] = rec;
	return 0;
}

/* Records rec if the slice key still says it is this node's and no record
 * has appeared meanwhile; the lock held, so no give-back runs between the
 * look and the write. */
static int adopt_locked(struct slicer *sl, const struct slice_rec *rec, struct cni_err *err)
{
	char skey[KEY_MAX], *v = slice_value(rec, false);
	struct slice_rec *recs = NULL;
	struct pool_range scope;
	struct etcd_kvs cur = { 0 };
	size_t n = 0;
	int ret = v ? owned_read(sl->fd, sl->root, &recs, &n, err) : -ENOMEM;

	slice_scope(rec, &scope);
	slice_key(sl->prefix, &scope, rec->s.span.first, skey);
	if (!ret && !find_rec(recs, n, rec))
		ret = etcd_range(sl->e, skey, NULL, 0, &cur, err);
	if (!ret && cur.n && !strcmp(cur.kv[0].value, v)) {
		log_info("etcd store: adopting slice %s, claimed by %s but not recorded", skey,
			 sl->node);
		ret = owned_write(sl->fd, sl->root, rec, err);
	}
	if (ret == -ENOMEM)
		cni_err_set(err, CNI_ERR_STORE, "etcd store: out of memory");
	etcd_kvs_release(&cur);
	free(recs);
	free(v);
	return ret;
}

/* Adoption: what etcd says this node owns and its records lack (a claim
 * killed between its transaction and its record). The index is read
 * without the lock: ADDs from slices with room never wait for etcd. */
static int sync_owned(struct slicer *sl, struct cni_err *err)
{
	struct adopt a = { sl, NULL, 0, NULL, 0 };
	char dir[KEY_MAX];
	int ret = owned_read(sl->fd, sl->root, &a.recs, &a.n, err);

	slice_node_dir(sl->prefix, sl->node, dir);
	if (!ret)
		ret = etcd_each(sl->e, dir, 500, adopt_one, &a, err);
	for (size_t i = 0; !ret && i < a.n_want; i++) {
		ret = owned_lock(sl->fd, sl->root, sl->timeout_ms, err);
		if (ret)
			break;
		ret = adopt_locked(sl, &a.want[i], err);
		owned_unlock(sl->fd);
	}
	free(a.want);
	free(a.recs);
	return ret;
}

static void fill_rec(const struct slicer *sl, const struct pool_range *r, struct pool_span b,
		     struct slice_rec *rec)
{
	memset(rec, 0, sizeof(*rec));
	snprintf(rec->s.network, sizeof(rec->s.network), "%s", r->network);
	snprintf(rec->s.pool, sizeof(rec->s.pool), "%s", r->pool);
	snprintf(rec->s.node, sizeof(rec->s.node), "%s", sl->node);
	rec->s.family = r->family;
	rec->s.span = b;
	rec->shared = r->shared;
	rec->len = sl->len;
	rec->claimed = now_s();
}

/* One transaction: the slice key created for this node, its index entry
 * and the node's heartbeat, when no other node has the slice and the
 * per-address path holds nothing in it (a config of the same address space
 * without node_slice_size). 1 when another node has it; -EEXIST when
 * per-address keys are there. */
static int claim_txn(struct slicer *sl, const struct slice_rec *rec, struct cni_err *err)
{
	char skey[KEY_MAX], tkey[KEY_MAX], hkey[KEY_MAX], dir[KEY_MAX], a0[KEY_MAX], a1[KEY_MAX + 1];
	char *v = slice_value(rec, false), *hb = slice_heartbeat_value(sl->node, rec->claimed);
	struct pool_range scope;
	struct etcd_cmp cmp[2] = { { .key = skey, .target = ETCD_CREATE, .rev = 0 },
				   { .key = a0, .range_end = a1, .target = ETCD_CREATE, .rev = 0 } };
	struct etcd_op ops[3], check = { .type = ETCD_RANGE, .key = skey };
	struct etcd_txn txn = { cmp, 2, ops, 3, &check, 1 };
	struct etcd_kvs theirs = { 0 };
	bool done = false;
	int ret = 0;

	slice_scope(rec, &scope);
	slice_key(sl->prefix, &scope, rec->s.span.first, skey);
	slice_node_key(sl->prefix, sl->node, skey, tkey);
	slice_heartbeat_key(sl->prefix, sl->node, hkey);
	layout_scope_dir(sl->prefix, &scope, dir);
	layout_addr_key(dir, rec->s.family, rec->s.span.first, a0);
	layout_addr_key(dir, rec->s.family, rec->s.span.last, a1);
	strcat(a1, "\x01");
	ops[0] = (struct etcd_op){ .type = ETCD_PUT, .key = skey, .value = v };
	ops[1] = (struct etcd_op){ .type = ETCD_PUT, .key = tkey, .value = v };
	ops[2] = (struct etcd_op){ .type = ETCD_PUT, .key = hkey, .value = hb };
	if (!v || !hb) {
		cni_err_set(err, CNI_ERR_STORE, "etcd store: out of memory");
		ret = -ENOMEM;
	}
	if (!ret)
		ret = etcd_txn(sl->e, &txn, &done, &theirs, 1, err);
	if (!ret && !done && !theirs.n) {
		cni_err_set(err, CNI_ERR_CONFIG, "node slice %s of %s holds addresses of the "
			    "per-address path: a config of network %s's address space has no "
			    "node_slice_size (one address space is sliced throughout, or not at all)",
			    skey, scope.pool, scope.network);
		ret = -EEXIST;
	}
	etcd_kvs_release(&theirs);
	free(v);
	free(hb);
	return ret ? ret : !done;
}

/* The scope's slices are of one length: the first slice key says which. */
static int same_length(struct slicer *sl, const struct pool_range *r, struct cni_err *err)
{
	char dir[KEY_MAX], *end = NULL;
	struct etcd_kvs kvs = { 0 };
	struct slice_rec rec;
	int ret;

	slice_dir(sl->prefix, r, dir);
	if (etcd_prefix_end(dir, &end)) {
		cni_err_set(err, CNI_ERR_STORE, "etcd store: out of memory");
		return -ENOMEM;
	}
	ret = etcd_range(sl->e, dir, end, 1, &kvs, err);
	if (!ret && kvs.n && !slice_parse(kvs.kv[0].value, false, &rec) && rec.len != sl->len) {
		cni_err_set(err, CNI_ERR_CONFIG, "node_slice_size /%d for %s: network %s's address "
			    "space is already divided into /%d slices (%s)", sl->len, r->pool,
			    r->network, rec.len, kvs.kv[0].key);
		ret = -EINVAL;
	}
	etcd_kvs_release(&kvs);
	free(end);
	return ret;
}

/* The first useful block (r hands out an address in it) from *i to last. */
static bool first_useful(const struct pool_range *r, int len, ipaddr_u128 *i, ipaddr_u128 last)
{
	for (; *i <= last; (*i)++) {
		struct pool_span b = slice_nth(r, len, *i);

		if (slice_usable(r, &b))
			return true;
		if (*i == last)
			break;
	}
	return false;
}

/* The first free useful block in [i, to], a page of claimed keys at a
 * time: 0 with *out, 1 when there is none. */
static int scan(struct slicer *sl, const struct pool_range *r, ipaddr_u128 i, ipaddr_u128 to,
		ipaddr_u128 *out, struct cni_err *err)
{
	char start[KEY_MAX], end[KEY_MAX + 1], dir[KEY_MAX];
	struct etcd_kvs kvs = { 0 };
	ipaddr_u128 a, idx;
	bool found = false, more = true;
	int ret = 0;

	slice_dir(sl->prefix, r, dir);
	slice_key(sl->prefix, r, slice_nth(r, sl->len, to).first, end);
	strcat(end, "\x01");
	while (!ret && !found && more && i <= to) {
		slice_key(sl->prefix, r, slice_nth(r, sl->len, i).first, start);
		ret = etcd_range(sl->e, start, end, PAGE, &kvs, err);
		more = !ret && kvs.more;
		for (size_t j = 0; !ret && !found && j < kvs.n; j++) {
			if (layout_hex_parse(kvs.kv[j].key + strlen(dir), r->family, &a))
				continue;
			idx = slice_index(r, sl->len, a);
			found = idx > i && first_useful(r, sl->len, &i, idx - 1);
			if (!found && idx >= i)
				i = idx + 1;
			if (idx == to)
				more = false;
		}
		if (!ret && !found && !more && i <= to)
			found = first_useful(r, sl->len, &i, to);
		etcd_kvs_release(&kvs);
	}
	*out = i;
	return ret ? ret : !found;
}

/* Slices per node, for the exhaustion message. */
#define TALLY_MAX 8

struct tally {
	char node[TALLY_MAX][64];
	unsigned int n[TALLY_MAX];
	unsigned int others;
	int used;
};

static int count_one(const struct etcd_kv *kv, void *arg, struct cni_err *err)
{
	struct tally *t = arg;
	struct slice_rec rec;
	int i;

	(void)err;
	if (slice_parse(kv->value, false, &rec))
		snprintf(rec.s.node, sizeof(rec.s.node), "(damaged)");
	for (i = 0; i < t->used && strcmp(t->node[i], rec.s.node); i++)
		;
	if (i == TALLY_MAX) {
		t->others++;
		return 0;
	}
	if (i == t->used)
		snprintf(t->node[t->used++], sizeof(t->node[0]), "%.63s", rec.s.node);
	t->n[i]++;
	return 0;
}

/* CNI_ERR_EXHAUSTED naming the range, the slice size and who holds what. */
static int exhausted(struct slicer *sl, const struct pool_range *r, struct cni_err *err)
{
	struct tally t = { 0 };
	char dir[KEY_MAX], who[CNI_ERR_MSG_MAX] = "", *p = who;
	int ret;

	slice_dir(sl->prefix, r, dir);
	ret = etcd_each(sl->e, dir, 500, count_one, &t, err);
	if (ret)
		return ret;
	for (int i = 0; i < t.used; i++)
		p += snprintf(p, sizeof(who) - (size_t)(p - who), "%s%s %u", i ? ", " : "", t.node[i],
			      t.n[i]);
	if (t.others)
		snprintf(p, sizeof(who) - (size_t)(p - who), ", %u more on other nodes", t.others);
	cni_err_set(err, CNI_ERR_EXHAUSTED, "no free address in %s: every /%d node slice of it is "
		    "taken (slices per node: %s)", r->desc, sl->len, who);
	return -ENOSPC;
}

/* The block a claim goes for: the one holding want, or a free one, looked
 * for from where this node's hash falls, then from the start. */
static int pick_block(struct slicer *sl, const struct pool_range *r, const struct need *nd,
		      ipaddr_u128 *i, struct cni_err *err)
{
	ipaddr_u128 lo, hi, count, start;
	int ret;

	if (nd->want) {
		*i = slice_index(r, sl->len, r->want);
		return 0;
	}
	slice_index_range(r, sl->len, &lo, &hi);
	count = hi - lo + 1;
	/* where the node's search starts: nodes starting together do not all
	 * race for the first slice */
	start = lo + (count ? fnv1a(sl->node) % count : fnv1a(sl->node));
	ret = scan(sl, r, start, hi, i, err);
	if (ret == 1 && start > lo)
		ret = scan(sl, r, lo, start - 1, i, err);
	return ret == 1 ? exhausted(sl, r, err) : ret;
}

/* The requested address lies in another node's slice. */
static int want_taken(const struct pool_range *r, struct cni_err *err)
{
	char text[IPADDR_STR_MAX];

	ipaddr_format_u128(r->family, r->want, text);
	cni_err_set(err, CNI_ERR_ADDR_TAKEN, "requested address %s in %s is in another node's slice",
		    text, r->pool);
	return -EADDRINUSE;
}

static int claim(struct slicer *sl, const struct pool_range *r, const struct need *nd,
		 struct cni_err *err)
{
	struct slice_rec rec;
	ipaddr_u128 i;
	unsigned int attempt;
	int ret = sync_owned(sl, err);

	if (!ret)
		ret = same_length(sl, r, err);
	for (attempt = 0; !ret && etcd_remaining_ms(sl->e) > 0; attempt++) {
		ret = pick_block(sl, r, nd, &i, err);
		if (ret)
			break;
		fill_rec(sl, r, slice_nth(r, sl->len, i), &rec);
		ret = claim_txn(sl, &rec, err);
		if (ret == 1 && nd->want)
			return want_taken(r, err);
		if (ret == 1) {
			ret = 0;
			usleep((useconds_t)etcd_backoff_ms(attempt, (unsigned int)rand_r(&sl->seed)) * 1000);
			continue;
		}
		if (!ret)
			log_info("etcd store: node %s claimed a /%d slice of %s", sl->node, sl->len,
				 r->pool);
		ret = ret ? ret : owned_lock(sl->fd, sl->root, sl->timeout_ms, err);
		if (!ret) {
			ret = owned_write(sl->fd, sl->root, &rec, err);
			owned_unlock(sl->fd);
		}
		return ret;
	}
	if (ret == 0)
		cni_err_set(err, CNI_ERR_TRY_AGAIN, "etcd %s: claiming a slice of %s outlasted %d ms",
			    etcd_endpoint(sl->e), r->pool, sl->timeout_ms);
	if (err->code == CNI_ERR_TRY_AGAIN)
		cni_err_wrap(err, "node %s's slices of %s have 0 free addresses left and a new /%d "
			     "slice needs etcd", sl->node, r->pool, sl->len);
	return ret ? ret : -EAGAIN;
}

int slice_reserve(struct slicer *sl, const struct pool_owner *owner, const struct pool_range *r,
		  int n, struct pool_lease *out, struct cni_err *err)
{
	struct need nd = { 0 };
	int ret = ready(sl, true, err);

	for (int claims = 0; !ret; claims++) {
		ret = owned_lock(sl->fd, sl->root, sl->timeout_ms, err);
		if (ret)
			break;
		ret = reserve_locked(sl, owner, r, n, out, &nd, err);
		owned_unlock(sl->fd);
		if (ret != 1)
			break;
		if (claims == MAX_CLAIMS) {
			ret = pool_err_exhausted(err, &r[nd.range]);
			break;
		}
		/* The local store's exhaustion is not the answer: a claim is. */
		memset(err, 0, sizeof(*err));
		ret = claim(sl, &r[nd.range], &nd, err);
	}
	return ret;
}

/* ---- the other ops, on the local store ---- */

int slice_lookup(struct slicer *sl, const struct pool_key *key, struct pool_lease *out,
		 struct cni_err *err)
{
	int ret = ready(sl, sl->len > 0, err);

	return ret ? ret : sl->local->ops->lookup(sl->local, key, out, err);
}

int slice_gc(struct slicer *sl, const char *cni_network, const struct cni_attachment *valid,
	     int n_valid, struct cni_err *err)
{
	int ret = ready(sl, false, err);

	if (ret == -ENOENT)
		return 0;
	return ret ? ret : sl->local->ops->gc(sl->local, cni_network, valid, n_valid, err);
}

int slice_list(struct slicer *sl, pool_info_fn info_fn, pool_lease_fn lease_fn, void *arg,
	       struct cni_err *err)
{
	int ret = ready(sl, false, err);

	if (ret == -ENOENT)
		return 0;
	return ret ? ret : sl->local->ops->list(sl->local, info_fn, lease_fn, arg, err);
}

/* How many addresses the record's block holds on this node now. */
static int held_in(struct slicer *sl, const struct slice_rec *rec, size_t *held,
		   struct cni_err *err)
{
	struct pool_range scope;

	slice_scope(rec, &scope);
	return local_span_held(sl->local, &scope, &rec->s.span, held, err);
}

int slice_room(struct slicer *sl, struct cni_err *err)
{
	struct slice_rec *recs = NULL;
	size_t n = 0, held, i;
	int ret = ready(sl, false, err);

	if (ret)
		return ret == -ENOENT ? -ENOSPC : ret;
	ret = owned_read(sl->fd, sl->root, &recs, &n, err);
	for (i = 0; !ret && i < n; i++) {
		if (recs[i].releasing)
			continue;
		ret = held_in(sl, &recs[i], &held, err);
		/* without the ranges (STATUS has no ADD's), room is a block
		 * not full: its edges or a gateway may make it full sooner */
		if (!ret && held <= (size_t)(recs[i].s.span.last - recs[i].s.span.first))
			break;
	}
	free(recs);
	return ret ? ret : i < n ? 0 : -ENOSPC;
}

/* ---- give-backs ---- */

/* Whether etcd's slice key of rec still names this node: *value gets its
 * value (malloc'd) when it does, NULL when not. */
static int still_ours(struct slicer *sl, const struct slice_rec *rec, char *skey, char **value,
		      struct cni_err *err)
{
	struct pool_range scope;
	struct etcd_kvs cur = { 0 };
	struct slice_rec theirs;
	int ret;

	*value = NULL;
	slice_scope(rec, &scope);
	slice_key(sl->prefix, &scope, rec->s.span.first, skey);
	ret = etcd_range(sl->e, skey, NULL, 0, &cur, err);
	if (!ret && cur.n && !slice_parse(cur.kv[0].value, false, &theirs) &&
	    !strcmp(theirs.s.node, sl->node) && !(*value = strdup(cur.kv[0].value))) {
		cni_err_set(err, CNI_ERR_STORE, "etcd store: out of memory");
		ret = -ENOMEM;
	}
	etcd_kvs_release(&cur);
	return ret;
}

/* Marks rec releasing if it still holds nothing, the lock held (no ADD
 * allocates from it meanwhile, none after); *marked says whether. */
static int mark_releasing(struct slicer *sl, struct slice_rec *rec, bool *marked,
			  struct cni_err *err)
{
	size_t held;
	int ret = owned_lock(sl->fd, sl->root, sl->timeout_ms, err);

	*marked = false;
	if (ret)
		return ret;
	ret = held_in(sl, rec, &held, err);
	if (!ret && !held) {
		rec->releasing = true;
		ret = owned_write(sl->fd, sl->root, rec, err);
		*marked = !ret;
	}
	owned_unlock(sl->fd);
	return ret;
}

/* The slice key and the node's index entry go, comparing the value read. */
static int delete_slice(struct slicer *sl, const char *skey, const char *value,
			struct cni_err *err)
{
	char tkey[KEY_MAX];
	struct etcd_cmp cmp = { .key = skey, .target = ETCD_VALUE, .value = value };
	struct etcd_op ops[2] = { { .type = ETCD_DELETE, .key = skey },
				  { .type = ETCD_DELETE, .key = tkey } };
	struct etcd_txn txn = { &cmp, 1, ops, 2, NULL, 0 };
	bool done = false;
	int ret;

	slice_node_key(sl->prefix, sl->node, skey, tkey);
	ret = etcd_txn(sl->e, &txn, &done, NULL, 0, err);
	if (!ret && !done) {
		cni_err_set(err, CNI_ERR_TRY_AGAIN, "etcd %s: slice %s changed while given back",
			    etcd_endpoint(sl->e), skey);
		return -EAGAIN;
	}
	return ret;
}

/* A give-back of an empty slice, each step crash-safe: etcd is asked
 * whether the slice key still names this node (a node cut off from etcd
 * keeps its empty slices usable), the record is marked releasing (from
 * then on nothing is allocated from it), the slice key goes if it named
 * this node, then the record. *done says whether it went. No lock is held
 * while etcd is asked. */
static int give_back(struct slicer *sl, struct slice_rec *rec, bool *done, struct cni_err *err)
{
	char skey[KEY_MAX], *value = NULL;
	bool marked = rec->releasing;
	int ret = still_ours(sl, rec, skey, &value, err);

	if (!ret && !marked)
		ret = mark_releasing(sl, rec, &marked, err);
	if (!ret && marked && value)
		ret = delete_slice(sl, skey, value, err);
	free(value);
	*done = !ret && marked;
	if (!*done)
		return ret;
	log_info("etcd store: node %s gave back slice %s", sl->node, skey);
	ret = owned_lock(sl->fd, sl->root, sl->timeout_ms, err);
	if (!ret) {
		ret = owned_remove(sl->fd, sl->root, rec, err);
		owned_unlock(sl->fd);
	}
	return ret;
}

/* Every empty slice of this node goes back (releasing ones are finished);
 * fn for each. */
static int tidy_all(struct slicer *sl, bool dry_run, pool_slice_fn fn, void *arg,
		    struct cni_err *err)
{
	struct slice_rec *recs = NULL;
	struct pool_slice ps;
	size_t n = 0, held = 0;
	bool done;
	int ret = owned_read(sl->fd, sl->root, &recs, &n, err);

	for (size_t i = 0; !ret && i < n; i++) {
		if (!recs[i].releasing)
			ret = held_in(sl, &recs[i], &held, err);
		if (ret || (!recs[i].releasing && held))
			continue;
		done = dry_run;
		if (!dry_run)
			ret = give_back(sl, &recs[i], &done, err);
		ps = recs[i].s;
		if (!ret && done && fn)
			ret = fn(&ps, arg);
	}
	free(recs);
	return ret;
}

int slice_tidy(struct slicer *sl, bool dry_run, pool_slice_fn fn, void *arg, struct cni_err *err)
{
	int ret = ready(sl, false, err);

	if (ret == -ENOENT)
		return 0;
	if (!ret && !dry_run)
		ret = sync_owned(sl, err);
	return ret ? ret : tidy_all(sl, dry_run, fn, arg, err);
}

/* DEL: locally, then the slices it left empty go back when etcd answers;
 * when it does not, they stay (the next DEL or tidy gives them back). */
int slice_release(struct slicer *sl, const struct pool_key *key, struct cni_err *err)
{
	struct cni_err later = { 0 };
	int ret = ready(sl, sl->len > 0, err);

	if (ret == -ENOENT)
		return 0;
	if (!ret)
		ret = sl->local->ops->release(sl->local, key, err);
	if (ret || !sl->len)
		return ret;
	if (tidy_all(sl, false, NULL, NULL, &later))
		log_info("DEL %s %s: an empty slice stays for now: %s", key->containerid,
			 key->ifname, later.msg);
	return 0;
}

/* ---- slices, heartbeat, release-node ---- */

struct each {
	struct slicer *sl;
	pool_slice_fn fn;
	void *arg;
	const char *only;	/* a node, or NULL for all */
};

/* A slice key's value, which must be about the block its key names. */
static int read_slice(struct slicer *sl, const struct etcd_kv *kv, bool index,
		      struct slice_rec *rec, struct cni_err *err)
{
	char key[KEY_MAX], tkey[KEY_MAX];
	struct pool_range scope;

	if (!slice_parse(kv->value, false, rec)) {
		slice_scope(rec, &scope);
		slice_key(sl->prefix, &scope, rec->s.span.first, key);
		slice_node_key(sl->prefix, rec->s.node, key, tkey);
		if (!strcmp(index ? tkey : key, kv->key))
			return 0;
	}
	cni_err_set(err, CNI_ERR_STORE, "etcd %s: damaged node slice at key %.*s",
		    etcd_endpoint(sl->e), KEY_MAX, kv->key);
	return -EIO;
}

static int each_one(const struct etcd_kv *kv, void *arg, struct cni_err *err)
{
	struct each *x = arg;
	struct slice_rec rec;
	int ret = read_slice(x->sl, kv, false, &rec, err);

	return ret ? ret : x->fn(&rec.s, x->arg);
}

int slice_each(struct slicer *sl, pool_slice_fn fn, void *arg, struct cni_err *err)
{
	struct each x = { sl, fn, arg, NULL };
	char dir[KEY_MAX];

	snprintf(dir, sizeof(dir), "%s/s/", sl->prefix);
	return etcd_each(sl->e, dir, 500, each_one, &x, err);
}

int slice_heartbeat(struct slicer *sl, struct cni_err *err)
{
	char key[KEY_MAX], *v = slice_heartbeat_value(sl->node, now_s());
	struct etcd_op put = { .type = ETCD_PUT, .key = key, .value = v };
	struct etcd_txn txn = { NULL, 0, &put, 1, NULL, 0 };
	bool done;
	int ret;

	slice_heartbeat_key(sl->prefix, sl->node, key);
	if (!v) {
		cni_err_set(err, CNI_ERR_STORE, "etcd store: out of memory");
		return -ENOMEM;
	}
	ret = etcd_txn(sl->e, &txn, &done, NULL, 0, err);
	free(v);
	return ret;
}

/* -EBUSY while node's heartbeat is younger than SLICE_FRESH_SECONDS. */
static int judge_heartbeat(struct slicer *sl, const char *node, bool force, struct cni_err *err)
{
	char key[KEY_MAX], who[LAYOUT_NODE_MAX];
	struct etcd_kvs kvs = { 0 };
	int64_t t, age;
	int ret;

	slice_heartbeat_key(sl->prefix, node, key);
	ret = etcd_range(sl->e, key, NULL, 0, &kvs, err);
	if (!ret && kvs.n && (slice_parse_heartbeat(kvs.kv[0].value, who, &t) || strcmp(who, node))) {
		cni_err_set(err, CNI_ERR_STORE, "etcd %s: damaged heartbeat at key %s",
			    etcd_endpoint(sl->e), key);
		ret = -EIO;
	}
	age = !ret && kvs.n ? now_s() - t : -1;
	etcd_kvs_release(&kvs);
	if (!ret && !force && age >= 0 && age < SLICE_FRESH_SECONDS) {
		cni_err_set(err, CNI_ERR_STORE, "node %s is alive: its heartbeat is %lld s old "
			    "(fresh below %d s); --force releases it anyway", node, (long long)age,
			    SLICE_FRESH_SECONDS);
		ret = -EBUSY;
	}
	return ret;
}

/* One of node's slices, from its index: both keys go if the slice key
 * still says node. */
static int drop_one(const struct etcd_kv *kv, void *arg, struct cni_err *err)
{
	struct each *x = arg;
	char skey[KEY_MAX];
	struct pool_range scope;
	struct slice_rec rec;
	struct etcd_cmp cmp;
	struct etcd_op ops[2];
	struct etcd_txn txn = { &cmp, 1, ops, 2, NULL, 0 };
	bool done = false;
	int ret = read_slice(x->sl, kv, true, &rec, err);

	if (ret)
		return ret;
	slice_scope(&rec, &scope);
	slice_key(x->sl->prefix, &scope, rec.s.span.first, skey);
	cmp = (struct etcd_cmp){ .key = skey, .target = ETCD_VALUE, .value = kv->value };
	ops[0] = (struct etcd_op){ .type = ETCD_DELETE, .key = skey };
	ops[1] = (struct etcd_op){ .type = ETCD_DELETE, .key = kv->key };
	ret = etcd_txn(x->sl->e, &txn, &done, NULL, 0, err);
	if (!ret && !done) {
		/* the slice is another's now: only the stale index entry goes */
		txn = (struct etcd_txn){ NULL, 0, &ops[1], 1, NULL, 0 };
		return etcd_txn(x->sl->e, &txn, &done, NULL, 0, err);
	}
	return ret ? ret : x->fn ? x->fn(&rec.s, x->arg) : 0;
}

int slice_release_node(struct slicer *sl, const char *node, bool force, pool_slice_fn fn,
		       void *arg, struct cni_err *err)
{
	struct each x = { sl, fn, arg, node };
	char dir[KEY_MAX], key[KEY_MAX];
	struct etcd_op del = { .type = ETCD_DELETE, .key = key };
	struct etcd_txn txn = { NULL, 0, &del, 1, NULL, 0 };
	bool done;
	int ret;

	if (!slice_valid_node(node)) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid node name \"%s\"", node);
		return -EINVAL;
	}
	ret = judge_heartbeat(sl, node, force, err);
	slice_node_dir(sl->prefix, node, dir);
	if (!ret)
		ret = etcd_each(sl->e, dir, 500, drop_one, &x, err);
	slice_heartbeat_key(sl->prefix, node, key);
	if (!ret)
		ret = etcd_txn(sl->e, &txn, &done, NULL, 0, err);
	return ret;
}
