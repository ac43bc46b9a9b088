// SPDX-License-Identifier: Apache-2.0
/* The local store's operations: each a change of files under dataDir's lock, lease files the truth, indexes its cache. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>
#include "clock.h"
#include "lindex.h"
#include "local_index.h"
#include "local_layout.h"
#include "local_store.h"
#include "lockfile.h"
#include "range.h"
#include "store.h"

/*
 * Where everything is: local_layout.h. Mutations run under the lock: mark
 * the state dirty, change files (a lease file appears or disappears by
 * rename/unlink: the commit point), update the indexes, mark it clean. A
 * process killed in between leaves it dirty, and the next op rebuilds
 * index/ from leases/ and holds/; so does the first op after a reboot (the
 * boot id differs), which covers index pages lost to a power cut.
 */

struct local {
	struct pool_store base;
	struct local_disk disk;
	struct local_index index;
	long hold_seconds;
	int timeout_ms;		/* the longest wait for the lock */
};

static struct local *to_local(struct pool_store *s)
{
	return (struct local *)s;
}

/* The state file's flock, waited for at most timeout_ms. */
static int lock(struct local *l, struct cni_err *err)
{
	long t0 = clock_ms();
	int ret = lockfile_lock_fd(l->disk.state, l->timeout_ms);

	if (ret == -ETIMEDOUT) {
		cni_err_set(err, CNI_ERR_TRY_AGAIN,
			    "local store %s: waited %ld ms for its lock, try again",
			    l->disk.root, clock_ms() - t0);
		return -EAGAIN;
	}
	return ret ? local_fail(err, &l->disk, "cannot lock", "state", ret) : 0;
}

/* Takes the lock and makes index/ trustworthy. */
static int begin(struct local *l, struct cni_err *err)
{
	int ret = lock(l, err);

	if (ret)
		return ret;
	if (local_state_clean(&l->disk))
		return 0;
	ret = local_index_rebuild(&l->index, true, err);
	if (ret)
		flock(l->disk.state, LOCK_UN);
	return ret;
}

static void end(struct local *l)
{
	local_index_close(&l->index);
	flock(l->disk.state, LOCK_UN);
}

/* Expired holds leave their index (the lock is held, index dirty). */
struct expiry {
	struct local_index *index;
	int64_t now;
};

static int expire_hold(const struct local_disk *d, const struct local_hold_file *h, void *arg,
		       struct cni_err *err)
{
	const struct expiry *e = arg;
	struct lidx *x;
	int ret;

	if (h->h.until > e->now)
		return 0;
	ret = local_index_get(e->index, h->h.scope, &x, err);
	if (!ret)
		lidx_remove(x, h->h.addr);
	if (!ret && unlinkat(d->dir[LOCAL_HOLDS], h->name, 0) < 0 && errno != ENOENT)
		ret = local_fail(err, d, "cannot remove hold", h->name, -errno);
	return ret;
}

/* Removes a lease (lock held, index dirty): holds first, then the lease file
 * (the commit point), then its index entries. */
static int release_locked(struct local *l, const char *name, const struct lrec_lease *s,
			  struct cni_err *err)
{
	char scope[LOCAL_SCOPE_MAX];
	int64_t until = (int64_t)time(NULL) + l->hold_seconds;
	struct lidx *x;
	int ret = 0;

	for (int i = 0; i < s->l.n_addrs && l->hold_seconds && !ret; i++) {
		const struct pool_addr *p = &s->l.addrs[i];
		struct lrec_hold h = { .family = p->family, .addr = p->addr, .until = until };

		local_scope_name(p->network, p->pool, p->family, s->shared[i], h.scope,
				 sizeof(h.scope));
		ret = local_hold_write(&l->disk, &h, err);
	}
	if (!ret)
		ret = local_lease_remove(&l->disk, name, err);
	if (ret)
		return ret;
	for (int i = 0; i < s->l.n_addrs && !l->hold_seconds && !ret; i++) {
		const struct pool_addr *p = &s->l.addrs[i];

		local_scope_name(p->network, p->pool, p->family, s->shared[i], scope, sizeof(scope));
		ret = local_index_get(&l->index, scope, &x, err);
		if (!ret)
			lidx_remove(x, p->addr);
	}
	return ret;
}

/* Index of the lease's address serving range r, or -1. */
static int find_fit(const struct lrec_lease *s, const struct pool_range *r)
{
	for (int i = 0; i < s->l.n_addrs; i++) {
		const struct pool_addr *p = &s->l.addrs[i];

		if (p->family == r->family && !strcmp(p->network, r->network) &&
		    !strcmp(p->pool, r->pool) && range_contains(r, p->addr) &&
		    (!r->has_want || p->addr == r->want))
			return i;
	}
	return -1;
}

/* The existing lease, in range order, when it serves every range. */
static bool fits(const struct lrec_lease *s, const struct pool_range *ranges, int n, struct pool_lease *out)
{
	if (s->l.n_addrs != n)
		return false;
	*out = s->l;
	for (int i = 0; i < n; i++) {
		int j = find_fit(s, &ranges[i]);

		if (j < 0)
			return false;
		out->addrs[i] = s->l.addrs[j];
	}
	return true;
}

static int pick(const struct pool_range *r, struct lidx *x, ipaddr_u128 *a, struct cni_err *err)
{
	char text[IPADDR_STR_MAX];

	if (!r->has_want)
		return pool_first_free(r, x->a, lidx_len(x), a) ? pool_err_exhausted(err, r) : 0;
	if (lidx_has(x, r->want)) {
		ipaddr_format_u128(r->family, r->want, text);
		cni_err_set(err, CNI_ERR_ADDR_TAKEN, "requested address %s in %s is already reserved",
			    text, r->pool);
		return -EADDRINUSE;
	}
	*a = r->want;
	return 0;
}

/* One address from each range into s, all or nothing: on failure what this
 * call took goes back to the indexes. */
static int take(struct local *l, const struct pool_range *ranges, int n, struct lrec_lease *s,
		struct cni_err *err)
{
	char scope[LOCAL_SCOPE_MAX];
	struct lidx *x[POOL_MAX_RANGES];
	int i, ret = 0;

	/* Open every scope first (a rebuild may happen, closing what is open),
	 * then take the pointers: at most n scopes, so they stay valid. */
	local_index_close(&l->index);
	for (i = 0; i < n && !ret; i++) {
		local_scope_name(ranges[i].network, ranges[i].pool, ranges[i].family,
				 ranges[i].shared, scope, sizeof(scope));
		ret = local_index_get(&l->index, scope, &x[i], err);
	}
	for (i = 0; i < n && !ret; i++) {
		const struct pool_range *r = &ranges[i];
		struct pool_addr *p = &s->l.addrs[i];

		local_scope_name(r->network, r->pool, r->family, r->shared, scope, sizeof(scope));
		ret = local_index_get(&l->index, scope, &x[i], err);
		if (!ret)
			ret = pick(r, x[i], &p->addr, err);
		if (!ret && lidx_insert(x[i], p->addr))
			ret = local_fail(err, &l->disk, "cannot update index", scope, -EIO);
		if (ret)
			break;
		snprintf(p->network, sizeof(p->network), "%s", r->network);
		snprintf(p->pool, sizeof(p->pool), "%s", r->pool);
		p->family = r->family;
		p->prefix_len = r->prefix_len;
		s->shared[i] = r->shared;
		s->l.n_addrs++;
	}
	for (int j = 0; ret && j < s->l.n_addrs; j++)
		lidx_remove(x[j], s->l.addrs[j].addr);
	return ret;
}

static int local_reserve(struct pool_store *st, const struct pool_owner *owner,
			 const struct pool_range *ranges, int n, struct pool_lease *out,
			 struct cni_err *err)
{
	struct local *l = to_local(st);
	char name[LOCAL_LEASE_NAME_MAX];
	struct cni_err ignored = { 0 };
	struct lrec_lease old, s;
	int i, had, ret = local_lease_name(&owner->key, name, err);

	if (ret)
		return ret;
	if (n < 1 || n > POOL_MAX_RANGES) {
		cni_err_set(err, CNI_ERR_CONFIG, "%d ranges: want 1..%d", n, POOL_MAX_RANGES);
		return -EINVAL;
	}
	ret = begin(l, err);
	if (ret)
		return ret;
	had = local_lease_read(&l->disk, name, &old, err);
	if (had && had != -ENOENT) {
		ret = had;
		goto out;
	}
	if (!had && fits(&old, ranges, n, out))
		goto out;
	ret = local_state_write(&l->disk, false, err);
	if (!ret)
		ret = local_each_hold(&l->disk, expire_hold,
				      &(struct expiry){ &l->index, time(NULL) }, err);
	if (!ret && !had)
		ret = release_locked(l, name, &old, err);
	if (ret)
		goto out;
	memset(&s, 0, sizeof(s));
	s.l.owner = *owner;
	ret = take(l, ranges, n, &s, err);
	if (ret) {
		if (ret == -ENOSPC || ret == -EADDRINUSE)
			local_state_write(&l->disk, true, &ignored);
		goto out;
	}
	ret = local_lease_write(&l->disk, name, &s, err);
	if (ret)
		goto out;
	for (i = 0; i < n && !ret; i++)
		ret = local_pool_write(&l->disk, &ranges[i], err);
	if (!ret)
		ret = local_state_write(&l->disk, true, err);
	*out = s.l;
out:
	end(l);
	return ret;
}

static int local_release(struct pool_store *st, const struct pool_key *key, struct cni_err *err)
{
	struct local *l = to_local(st);
	char name[LOCAL_LEASE_NAME_MAX];
	struct lrec_lease s;
	int ret = local_lease_name(key, name, err);

	if (ret)
		return ret;
	ret = begin(l, err);
	if (ret)
		return ret;
	ret = local_lease_read(&l->disk, name, &s, err);
	if (ret == -ENOENT) {
		ret = 0;
		goto out;
	}
	if (!ret)
		ret = local_state_write(&l->disk, false, err);
	if (!ret)
		ret = release_locked(l, name, &s, err);
	if (!ret)
		ret = local_state_write(&l->disk, true, err);
out:
	end(l);
	return ret;
}

static int local_lookup(struct pool_store *st, const struct pool_key *key, struct pool_lease *out,
			struct cni_err *err)
{
	struct local *l = to_local(st);
	char name[LOCAL_LEASE_NAME_MAX];
	struct lrec_lease s;
	int ret = local_lease_name(key, name, err);

	if (!ret)
		ret = local_lease_read(&l->disk, name, &s, err);
	if (!ret)
		*out = s.l;
	return ret;
}

/* GC's scope: a lease with no network recorded belongs to none. */
static bool of_network(const struct lrec_lease *s, const char *cni_network)
{
	return s->l.owner.cni_network[0] && !strcmp(s->l.owner.cni_network, cni_network);
}

/* strcmp order, as directory lists come. */
static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The valid attachments as sorted lease names, for bsearch. */
static int valid_names(const struct cni_attachment *valid, int n, char ***out)
{
	char **names = calloc((size_t)n + 1, sizeof(*names));

	*out = NULL;
	if (!names)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		if (asprintf(&names[i], "%s:%s", valid[i].containerid, valid[i].ifname) < 0) {
			names[i] = NULL;
			local_names_free(names, (size_t)i);
			return -ENOMEM;
		}
	}
	qsort(names, (size_t)n, sizeof(*names), name_cmp);
	*out = names;
	return 0;
}

static int local_gc(struct pool_store *st, const char *cni_network, const struct cni_attachment *valid,
		    int n_valid, struct cni_err *err)
{
	struct local *l = to_local(st);
	char **names = NULL, **keep = NULL;
	struct lrec_lease s;
	size_t n = 0;
	int ret = valid_names(valid, n_valid, &keep);

	if (ret) {
		cni_err_set(err, CNI_ERR_STORE, "out of memory");
		return ret;
	}
	ret = begin(l, err);
	if (ret)
		goto out_free;
	ret = local_dir_list(&l->disk, LOCAL_LEASES, true, &names, &n, err);
	if (!ret)
		ret = local_state_write(&l->disk, false, err);
	for (size_t i = 0; i < n && !ret; i++) {
		if (bsearch(&names[i], keep, (size_t)n_valid, sizeof(*keep), name_cmp))
			continue;
		ret = local_lease_read(&l->disk, names[i], &s, err);
		if (!ret && of_network(&s, cni_network))
			ret = release_locked(l, names[i], &s, err);
	}
	if (!ret)
		ret = local_state_write(&l->disk, true, err);
	end(l);
out_free:
	local_names_free(names, n);
	local_names_free(keep, (size_t)n_valid);
	return ret;
}

static int list_leases(struct local *l, pool_lease_fn fn, void *arg, struct cni_err *err)
{
	char **names;
	struct lrec_lease s;
	size_t n;
	int ret = local_dir_list(&l->disk, LOCAL_LEASES, false, &names, &n, err);

	if (ret)
		return ret;
	for (size_t i = 0; i < n && !ret; i++) {
		ret = local_lease_read(&l->disk, names[i], &s, err);
		if (ret == -ENOENT)
			ret = 0;
		else if (!ret)
			ret = fn(&s.l, arg);
	}
	local_names_free(names, n);
	return ret;
}

static int local_list(struct pool_store *st, pool_info_fn info_fn, pool_lease_fn lease_fn, void *arg,
		      struct cni_err *err)
{
	struct local *l = to_local(st);
	int ret = 0;

	if (info_fn)
		ret = local_each_pool(&l->disk, info_fn, arg, err);
	if (!ret && lease_fn)
		ret = list_leases(l, lease_fn, arg, err);
	return ret;
}

static int local_status(struct pool_store *st, struct cni_err *err)
{
	struct local *l = to_local(st);
	int ret = begin(l, err);

	if (ret)
		return ret;
	ret = local_disk_probe(&l->disk, err);
	end(l);
	return ret;
}

int local_span_held(struct pool_store *st, const struct pool_range *r, const struct pool_span *span,
		    size_t *held, struct cni_err *err)
{
	struct local *l = to_local(st);
	char scope[LOCAL_SCOPE_MAX];
	struct lidx *x;
	int ret = begin(l, err);

	*held = 0;
	if (ret)
		return ret;
	ret = local_state_write(&l->disk, false, err);
	if (!ret)
		ret = local_each_hold(&l->disk, expire_hold,
				      &(struct expiry){ &l->index, time(NULL) }, err);
	local_scope_name(r->network, r->pool, r->family, r->shared, scope, sizeof(scope));
	if (!ret)
		ret = local_index_get(&l->index, scope, &x, err);
	if (!ret) {
		*held = lidx_count(x, span);
		ret = local_state_write(&l->disk, true, err);
	}
	end(l);
	return ret;
}

static void local_close(struct pool_store *st)
{
	struct local *l = to_local(st);

	if (!l)
		return;
	local_index_close(&l->index);
	local_disk_close(&l->disk);
	free(l);
}

/* The store in root, open (rootfd >= 0) or to be walked to. */
static int open_store(int rootfd, const struct pool_store_cfg *cfg, struct pool_store **out,
		      struct cni_err *err)
{
	struct local *l = calloc(1, sizeof(*l));
	int ret;

	*out = NULL;
	if (!l) {
		cni_err_set(err, CNI_ERR_STORE, "out of memory");
		return -ENOMEM;
	}
	l->base.ops = &local_store_ops;
	l->hold_seconds = cfg->hold_seconds;
	ret = pool_store_timeout(cfg->store, &l->timeout_ms, err);
	if (!ret)
		ret = rootfd < 0 ? local_disk_open(&l->disk, cfg->data_dir, cfg->nosync, err) :
		      local_disk_open_at(&l->disk, rootfd, cfg->data_dir, cfg->nosync, err);
	if (ret) {
		free(l);
		return ret;
	}
	local_index_init(&l->index, &l->disk);
	*out = &l->base;
	return 0;
}

static int local_open(const struct pool_store_cfg *cfg, struct pool_store **out, struct cni_err *err)
{
	return open_store(-1, cfg, out, err);
}

int local_store_open_at(int rootfd, const struct pool_store_cfg *cfg, struct pool_store **out,
			struct cni_err *err)
{
	return open_store(rootfd, cfg, out, err);
}

const struct pool_store_ops local_store_ops = {
	.name = "local",
	.open = local_open,
	.close = local_close,
	.status = local_status,
	.reserve = local_reserve,
	.release = local_release,
	.lookup = local_lookup,
	.gc = local_gc,
	.list = local_list,
};
