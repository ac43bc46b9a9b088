// SPDX-License-Identifier: Apache-2.0
/* The local store's index cache: the scopes' index files an op opens, rebuilt from the leases and holds. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "local_index.h"
#include "log.h"

void local_index_init(struct local_index *x, const struct local_disk *d)
{
	memset(x, 0, sizeof(*x));
	x->disk = d;
}

void local_index_close(struct local_index *x)
{
	for (int i = 0; i < x->n_scopes; i++)
		lidx_close(&x->scopes[i].x);
	x->n_scopes = 0;
}

/* Rebuild: every address of every lease and live hold, per scope. */
struct entry {
	ipaddr_u128 addr;
	size_t scope;
};

struct collect {
	struct entry *e;
	size_t n, cap;
	char (*scopes)[LOCAL_SCOPE_MAX];
	size_t n_scopes, cap_scopes;
	int64_t now;
};

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->scope != y->scope)
		return x->scope < y->scope ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int grow_array(void **p, size_t *cap, size_t elem)
{
	size_t ncap = *cap ? 2 * *cap : 64;
	void *q = realloc(*p, ncap * elem);

	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = ncap;
	return 0;
}

static int collect_add(struct collect *c, const char *scope, ipaddr_u128 addr)
{
	size_t i;

	for (i = 0; i < c->n_scopes && strcmp(c->scopes[i], scope); i++)
		;
	if (i == c->n_scopes) {
		if (c->n_scopes == c->cap_scopes &&
		    grow_array((void **)&c->scopes, &c->cap_scopes, sizeof(*c->scopes)))
			return -ENOMEM;
		snprintf(c->scopes[c->n_scopes++], LOCAL_SCOPE_MAX, "%s", scope);
	}
	if (c->n == c->cap && grow_array((void **)&c->e, &c->cap, sizeof(*c->e)))
		return -ENOMEM;
	c->e[c->n].addr = addr;
	c->e[c->n++].scope = i;
	return 0;
}

static int collect_leases(const struct local_disk *d, struct collect *c, struct cni_err *err)
{
	char **names, scope[LOCAL_SCOPE_MAX];
	struct lrec_lease s;
	size_t n;
	int ret = local_dir_list(d, LOCAL_LEASES, true, &names, &n, err);

	if (ret)
		return ret;
	for (size_t i = 0; i < n && !ret; i++) {
		ret = local_lease_read(d, names[i], &s, err);
		if (ret == -ENOENT) {
			ret = 0;
			continue;
		}
		for (int j = 0; j < s.l.n_addrs && !ret; j++) {
			const struct pool_addr *p = &s.l.addrs[j];

			local_scope_name(p->network, p->pool, p->family, s.shared[j], scope,
					 sizeof(scope));
			ret = collect_add(c, scope, p->addr);
		}
	}
	local_names_free(names, n);
	if (ret == -ENOMEM)
		cni_err_set(err, CNI_ERR_STORE, "out of memory");
	return ret;
}

/* Live holds are collected, expired ones removed. */
static int collect_hold(const struct local_disk *d, const struct local_hold_file *h, void *arg,
			struct cni_err *err)
{
	struct collect *c = arg;

	if (h->h.until <= c->now) {
		unlinkat(d->dir[LOCAL_HOLDS], h->name, 0);
		return 0;
	}
	if (collect_add(c, h->h.scope, h->h.addr)) {
		cni_err_set(err, CNI_ERR_STORE, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static int write_indexes(const struct local_disk *d, struct collect *c, struct cni_err *err)
{
	char file[LOCAL_SCOPE_MAX + 8];
	size_t i = 0, j, m;
	ipaddr_u128 *a = malloc((c->n ? c->n : 1) * sizeof(*a));
	int ret = 0;

	if (!a) {
		cni_err_set(err, CNI_ERR_STORE, "out of memory");
		return -ENOMEM;
	}
	if (c->n)
		qsort(c->e, c->n, sizeof(*c->e), entry_cmp);
	while (i < c->n && !ret) {
		for (j = i, m = 0; j < c->n && c->e[j].scope == c->e[i].scope; j++)
			if (!m || a[m - 1] != c->e[j].addr)
				a[m++] = c->e[j].addr;
		local_index_name(c->scopes[c->e[i].scope], file, sizeof(file));
		ret = lidx_write(d->dir[LOCAL_INDEX], file, a, m);
		if (ret)
			local_fail(err, d, "cannot write index", file, ret);
		i = j;
	}
	free(a);
	return ret;
}

static int clear_indexes(const struct local_disk *d, struct cni_err *err)
{
	char **names;
	size_t n;
	int ret = local_dir_list(d, LOCAL_INDEX, true, &names, &n, err);

	if (ret)
		return ret;
	for (size_t i = 0; i < n && !ret; i++)
		if (unlinkat(d->dir[LOCAL_INDEX], names[i], 0) < 0 && errno != ENOENT)
			ret = local_fail(err, d, "cannot remove index", names[i], -errno);
	local_names_free(names, n);
	return ret;
}

int local_index_rebuild(struct local_index *x, bool clean, struct cni_err *err)
{
	const struct local_disk *d = x->disk;
	struct collect c = { 0 };
	int ret;

	local_index_close(x);
	ret = clear_indexes(d, err);
	if (!ret)
		ret = collect_leases(d, &c, err);
	c.now = time(NULL);
	if (!ret)
		ret = local_each_hold(d, collect_hold, &c, err);
	if (!ret)
		ret = write_indexes(d, &c, err);
	if (!ret && clean)
		ret = local_state_write(d, true, err);
	if (!ret)
		log_info("local store %s: index rebuilt from %zu held addresses", d->root, c.n);
	free(c.e);
	free(c.scopes);
	return ret;
}

int local_index_get(struct local_index *x, const char *name, struct lidx **out,
		    struct cni_err *err)
{
	const struct local_disk *d = x->disk;
	struct local_scope *s;
	char file[LOCAL_SCOPE_MAX + 8];
	int ret;

	for (int i = 0; i < x->n_scopes; i++) {
		if (!strcmp(x->scopes[i].name, name)) {
			*out = &x->scopes[i].x;
			return 0;
		}
	}
	if (x->n_scopes == LOCAL_MAX_SCOPES)
		local_index_close(x);
	local_index_name(name, file, sizeof(file));
	s = &x->scopes[x->n_scopes];
	ret = lidx_open(d->dir[LOCAL_INDEX], file, &s->x);
	if (ret == -EBADMSG || ret == -ENOENT) {
		ret = local_index_rebuild(x, false, err);
		s = &x->scopes[x->n_scopes];
		if (!ret)
			ret = lidx_open(d->dir[LOCAL_INDEX], file, &s->x);
		if (ret == -ENOENT)
			ret = lidx_create(d->dir[LOCAL_INDEX], file, &s->x);
	}
	if (ret)
		return local_fail(err, d, "cannot open index", file, ret);
	snprintf(s->name, sizeof(s->name), "%s", name);
	x->n_scopes++;
	*out = &s->x;
	return 0;
}
