// SPDX-License-Identifier: Apache-2.0
/* The local store: one lease file per attachment is the truth, mmap'd per-scope indexes are its cache. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "clock.h"
#include "env.h"
#include "safeopen.h"
#include "lindex.h"
#include "lrecord.h"
#include "log.h"
#include "range.h"
#include "store.h"

/*
 * Layout under dataDir (directories 0700, files 0600):
 *   state                       flock held by every op that touches index/
 *                               (waited for at most timeout_ms);
 *                               "<boot id> clean" while index/ matches leases/
 *                               and holds/ exactly, "... dirty" during a change
 *   leases/<containerID>:<ifname>  one text file per attachment: who, when, its
 *                               CNI network (GC's scope; absent in leases of
 *                               older versions), and each address with its
 *                               address space (network_name) and pool
 *   holds/<scope>@<hex address> an address released less than
 *                               release_hold_seconds ago: scope, address, until
 *   pools/<network>:<pool>      the last configuration seen of each pool (list)
 *   index/<scope>.idx           sorted u128 array of every address held in a
 *                               uniqueness scope (leases + holds); a cache
 * A scope is "<network>:v4", "<network>:v6" (shared) or "<network>:<pool>".
 * Mutations run under the lock: mark the state dirty, change files (a lease
 * file appears or disappears by rename/unlink: the commit point), update the
 * indexes, mark it clean. A process killed in between leaves it dirty, and
 * the next op rebuilds index/ from leases/ and holds/; so
 * does the first op after a reboot (the boot id differs), which covers
 * index pages lost to a power cut. ":" and "@" never occur in network
 * names, containerIDs or ifnames, so names cannot collide.
 */

#define SCOPE_MAX LREC_SCOPE_MAX
#define MAX_SCOPES 16
#define FILE_MAX 8192

struct scope {
	char name[SCOPE_MAX];
	struct lidx x;
};

struct local {
	struct pool_store base;
	char root[PATH_MAX];
	int dir[4];		/* enum subdir */
	int lockfd;		/* dataDir/state */
	char boot_id[64];
	long hold_seconds;
	int timeout_ms;		/* the longest wait for the lock */
	bool nosync;
	struct scope scopes[MAX_SCOPES];
	int n_scopes;
};

enum subdir { LEASES, HOLDS, POOLS, INDEX };
static const char *const subdirs[] = { "leases", "holds", "pools", "index" };


static struct local *to_local(struct pool_store *s)
{
	return (struct local *)s;
}

static int fail(struct cni_err *err, struct local *l, const char *what, const char *name, int ret)
{
	cni_err_set(err, CNI_ERR_STORE, "local store %s: %s %s: %s", l->root, what, name, strerror(-ret));
	return ret;
}

static void scope_name(const char *network, const char *pool, int family, bool shared,
		       char *buf, size_t size)
{
	char *p;

	if (shared)
		snprintf(buf, size, "%s:v%d", network, family == AF_INET ? 4 : 6);
	else
		snprintf(buf, size, "%s:%s", network, pool);
	for (p = buf; *p; p++)
		if (*p == '/')
			*p = '_';
}

static void close_scopes(struct local *l)
{
	for (int i = 0; i < l->n_scopes; i++)
		lidx_close(&l->scopes[i].x);
	l->n_scopes = 0;
}

/* A record file whole into buf (NUL-terminated), its length in *len: -EFBIG
 * past size - 1 bytes; -EBADMSG when it is not a regular file (O_NONBLOCK:
 * a FIFO in its place must not hang us) or is a symlink. */
static int read_file(int dirfd, const char *name, char *buf, size_t size, size_t *len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;
	ssize_t n;
	int ret = 0;

	if (fd < 0)
		return errno == ELOOP ? -EBADMSG : -errno;
	if (fstat(fd, &st) < 0)
		ret = -errno;
	else if (!S_ISREG(st.st_mode))
		ret = -EBADMSG;
	n = ret ? 0 : read(fd, buf, size - 1);
	close(fd);
	if (ret)
		return ret;
	if (n < 0)
		return -errno;
	if ((size_t)n == size - 1)
		return -EFBIG;
	buf[n] = '\0';
	*len = (size_t)n;
	return 0;
}

/* Temp file, write, fsync, rename, fsync the directory. */
static int write_atomic(int dirfd, const char *name, const char *data, size_t len, bool sync)
{
	char tmp[NAME_MAX + 1];
	int fd, ret = 0;

	if (snprintf(tmp, sizeof(tmp), ".tmp.%s", name) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, data, len) != (ssize_t)len || (sync && fsync(fd) < 0))
		ret = errno ? -errno : -EIO;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	if (!ret && renameat(dirfd, tmp, dirfd, name) < 0)
		ret = -errno;
	if (ret)
		unlinkat(dirfd, tmp, 0);
	else if (sync && fsync(dirfd) < 0)
		ret = -errno;
	return ret;
}

static void read_boot_id(char buf[64])
{
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, 63);

	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (fd >= 0)
		close(fd);
}

/* The state file's one line: "<boot id> clean" or "<boot id> dirty",
 * rewritten in place (no new inode per op: ext4 inode allocation is the
 * costliest part of a file create). */
static int write_state(struct local *l, bool clean, struct cni_err *err)
{
	char line[128];
	int len = lrec_state_format(l->boot_id, clean, line, sizeof(line));

	if (len < 0 || pwrite(l->lockfd, line, (size_t)len, 0) != len ||
	    ftruncate(l->lockfd, len) < 0)
		return fail(err, l, "cannot write", "state", errno ? -errno : -EIO);
	return 0;
}

/* Whatever else the state file holds (cut, garbage, grown) is not clean. */
static bool index_clean(struct local *l)
{
	char have[128];
	ssize_t n = pread(l->lockfd, have, sizeof(have), 0);

	return n > 0 && lrec_state_clean(have, (size_t)n, l->boot_id);
}

static int mark_dirty(struct local *l, struct cni_err *err)
{
	return write_state(l, false, err);
}

static int mark_clean(struct local *l, struct cni_err *err)
{
	return write_state(l, true, err);
}

/* 0, -ENOENT (err untouched), or a store error. The file must be about the
 * attachment its name says. */
static int lease_read(struct local *l, const char *name, struct lrec_lease *s, struct cni_err *err)
{
	char buf[FILE_MAX], want[NAME_MAX + 1];
	size_t len;
	int ret = read_file(l->dir[LEASES], name, buf, sizeof(buf), &len);

	if (ret == -ENOENT)
		return ret;
	if (!ret)
		ret = lrec_lease_parse(buf, len, s);
	if (!ret && (snprintf(want, sizeof(want), "%s:%s", s->l.owner.key.containerid,
			      s->l.owner.key.ifname) >= (int)sizeof(want) || strcmp(want, name)))
		ret = -EBADMSG;
	return ret ? fail(err, l, "cannot read lease", name, ret) : 0;
}

/* The attachment names a file: the CNI rules for both parts, and no '@'
 * in the ifname (hold names use it). */
static int lease_name(const struct pool_key *k, char *buf, size_t size, struct cni_err *err)
{
	if (!env_valid_id(k->containerid) || !env_valid_ifname(k->ifname) || strchr(k->ifname, '@') ||
	    snprintf(buf, size, "%s:%s", k->containerid, k->ifname) >= (int)size) {
		cni_err_set(err, CNI_ERR_ENV, "invalid attachment (%s, %s)", k->containerid, k->ifname);
		return -EINVAL;
	}
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Lists dir's entries not starting with '.', sorted. With reap (lock held),
 * temp files are removed: only a killed writer leaves one behind. */
static int list_dir(int dirfd, bool reap, char ***out, size_t *n)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	char **names = NULL, **grown;
	size_t cap = 0;
	struct dirent *e;
	int ret = 0;

	*out = NULL;
	*n = 0;
	if (!d) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		return ret;
	}
	while ((e = readdir(d))) {
		if (reap && !strncmp(e->d_name, ".tmp.", 5))
			unlinkat(dirfd, e->d_name, 0);
		if (e->d_name[0] == '.')
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			grown = realloc(names, cap * sizeof(*names));
			if (!grown) {
				ret = -ENOMEM;
				break;
			}
			names = grown;
		}
		names[*n] = strdup(e->d_name);
		if (!names[*n]) {
			ret = -ENOMEM;
			break;
		}
		(*n)++;
	}
	closedir(d);
	if (ret) {
		while (*n)
			free(names[--*n]);
		free(names);
		return ret;
	}
	if (*n)
		qsort(names, *n, sizeof(*names), name_cmp);
	*out = names;
	return 0;
}

/* The name of a hold's file: "<scope>@<32 hex digits>"; -ENAMETOOLONG. */
static int hold_name(const struct lrec_hold *h, char name[NAME_MAX + 1])
{
	int n = snprintf(name, NAME_MAX + 1, "%.*s@%016" PRIx64 "%016" PRIx64, NAME_MAX,
			 h->scope, (uint64_t)(h->addr >> 64), (uint64_t)h->addr);

	return n > NAME_MAX ? -ENAMETOOLONG : 0;
}

/* A hold file, also -EBADMSG when it is not the hold its name says. */
static int hold_read(struct local *l, const char *name, struct lrec_hold *h)
{
	char buf[FILE_MAX], want[NAME_MAX + 1];
	size_t len;
	int ret = read_file(l->dir[HOLDS], name, buf, sizeof(buf), &len);

	if (!ret)
		ret = lrec_hold_parse(buf, len, h);
	if (!ret)
		ret = hold_name(h, want) || strcmp(want, name) ? -EBADMSG : 0;
	return ret;
}

/* Rebuild: every address of every lease and live hold, per scope. */
struct entry {
	ipaddr_u128 addr;
	size_t scope;
};

struct collect {
	struct entry *e;
	size_t n, cap;
	char (*scopes)[SCOPE_MAX];
	size_t n_scopes, cap_scopes;
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
		snprintf(c->scopes[c->n_scopes++], SCOPE_MAX, "%s", scope);
	}
	if (c->n == c->cap && grow_array((void **)&c->e, &c->cap, sizeof(*c->e)))
		return -ENOMEM;
	c->e[c->n].addr = addr;
	c->e[c->n++].scope = i;
	return 0;
}

static int collect_leases(struct local *l, struct collect *c, struct cni_err *err)
{
	char **names, scope[SCOPE_MAX];
	struct lrec_lease s;
	size_t n;
	int ret = list_dir(l->dir[LEASES], true, &names, &n);

	if (ret)
		return fail(err, l, "cannot list", "leases", ret);
	for (size_t i = 0; i < n && !ret; i++) {
		ret = lease_read(l, names[i], &s, err);
		if (ret == -ENOENT) {
			ret = 0;
			continue;
		}
		for (int j = 0; j < s.l.n_addrs && !ret; j++) {
			const struct pool_addr *p = &s.l.addrs[j];

			scope_name(p->network, p->pool, p->family, s.shared[j], scope, sizeof(scope));
			ret = collect_add(c, scope, p->addr);
		}
	}
	free_names(names, n);
	if (ret == -ENOMEM)
		cni_err_set(err, CNI_ERR_STORE, "out of memory");
	return ret;
}

/* One hold file, parsed; each_hold calls it for every file still there. */
struct hold_file {
	const char *name;
	struct lrec_hold h;
};

static int each_hold(struct local *l, int (*fn)(struct local *l, const struct hold_file *h,
						void *arg, struct cni_err *err),
		     void *arg, struct cni_err *err)
{
	char **names;
	struct hold_file h;
	size_t n;
	int ret = list_dir(l->dir[HOLDS], true, &names, &n);

	if (ret)
		return fail(err, l, "cannot list", "holds", ret);
	for (size_t i = 0; i < n && !ret; i++) {
		h.name = names[i];
		ret = hold_read(l, names[i], &h.h);
		if (ret == -ENOENT) {	/* a rebuild already dropped it */
			ret = 0;
			continue;
		}
		if (ret)
			fail(err, l, "cannot read hold", names[i], ret);
		else
			ret = fn(l, &h, arg, err);
	}
	free_names(names, n);
	return ret;
}

struct rebuild {
	struct collect *c;
	int64_t now;
};

/* Live holds are collected, expired ones removed. */
static int collect_hold(struct local *l, const struct hold_file *h, void *arg,
			struct cni_err *err)
{
	struct rebuild *r = arg;

	if (h->h.until <= r->now) {
		unlinkat(l->dir[HOLDS], h->name, 0);
		return 0;
	}
	if (collect_add(r->c, h->h.scope, h->h.addr)) {
		cni_err_set(err, CNI_ERR_STORE, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static int write_indexes(struct local *l, struct collect *c, struct cni_err *err)
{
	char file[SCOPE_MAX + 8];
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
		snprintf(file, sizeof(file), "%s.idx", c->scopes[c->e[i].scope]);
		ret = lidx_write(l->dir[INDEX], file, a, m);
		if (ret)
			fail(err, l, "cannot write index", file, ret);
		i = j;
	}
	free(a);
	return ret;
}

static int clear_indexes(struct local *l, struct cni_err *err)
{
	char **names;
	size_t n;
	int ret = list_dir(l->dir[INDEX], true, &names, &n);

	if (ret)
		return fail(err, l, "cannot list", "index", ret);
	for (size_t i = 0; i < n && !ret; i++)
		if (unlinkat(l->dir[INDEX], names[i], 0) < 0 && errno != ENOENT)
			ret = fail(err, l, "cannot remove index", names[i], -errno);
	free_names(names, n);
	return ret;
}

/* Rewrites index/ from leases/ and holds/; clean says whether the op is
 * over (begin) or still running (its own marker comes at its end). */
static int rebuild(struct local *l, bool clean, struct cni_err *err)
{
	struct collect c = { 0 };
	int ret;

	close_scopes(l);
	ret = clear_indexes(l, err);
	if (!ret)
		ret = collect_leases(l, &c, err);
	if (!ret)
		ret = each_hold(l, collect_hold, &(struct rebuild){ &c, time(NULL) }, err);
	if (!ret)
		ret = write_indexes(l, &c, err);
	if (!ret && clean)
		ret = mark_clean(l, err);
	if (!ret)
		log_info("local store %s: index rebuilt from %zu held addresses", l->root, c.n);
	free(c.e);
	free(c.scopes);
	return ret;
}

/* The index of a scope, opened once per op. An index file found missing or
 * malformed is rebuilt from the lease files on the spot (index/ stays
 * dirty): a scope's file is there from its first address on, so a missing
 * one was lost, or the scope is new (a rebuild of what the node holds, once). */
static int get_scope(struct local *l, const char *name, struct lidx **out, struct cni_err *err)
{
	struct scope *s;
	char file[SCOPE_MAX + 8];
	int ret;

	for (int i = 0; i < l->n_scopes; i++) {
		if (!strcmp(l->scopes[i].name, name)) {
			*out = &l->scopes[i].x;
			return 0;
		}
	}
	if (l->n_scopes == MAX_SCOPES)
		close_scopes(l);
	snprintf(file, sizeof(file), "%s.idx", name);
	s = &l->scopes[l->n_scopes];
	ret = lidx_open(l->dir[INDEX], file, &s->x);
	if (ret == -EBADMSG || ret == -ENOENT) {
		ret = rebuild(l, false, err);
		s = &l->scopes[l->n_scopes];
		if (!ret)
			ret = lidx_open(l->dir[INDEX], file, &s->x);
		if (ret == -ENOENT)
			ret = lidx_create(l->dir[INDEX], file, &s->x);
	}
	if (ret)
		return fail(err, l, "cannot open index", file, ret);
	snprintf(s->name, sizeof(s->name), "%s", name);
	l->n_scopes++;
	*out = &s->x;
	return 0;
}

/* SIGALRM is there only to interrupt flock. */
static void on_tick(int sig)
{
	(void)sig;
}

/* flock has no timeout. While it waits, a SIGALRM every LOCK_TICK_MS (no
 * SA_RESTART) interrupts it so that the deadline is checked: a periodic
 * timer, because one alarm firing just before flock sleeps would be lost.
 * The uncontended path is one non-blocking flock and no timer. */
#define LOCK_TICK_MS 10

static int lock_wait(struct local *l, struct cni_err *err)
{
	struct sigaction tick = { .sa_handler = on_tick }, old;
	const struct itimerval every = { { 0, LOCK_TICK_MS * 1000 }, { 0, LOCK_TICK_MS * 1000 } };
	const struct itimerval off = { { 0, 0 }, { 0, 0 } };
	long t0, waited = 0;
	int ret;

	if (!flock(l->lockfd, LOCK_EX | LOCK_NB))
		return 0;
	if (errno != EWOULDBLOCK)
		return fail(err, l, "cannot lock", "state", -errno);
	t0 = clock_ms();
	/* Neither call fails with these arguments. */
	sigemptyset(&tick.sa_mask);
	sigaction(SIGALRM, &tick, &old);
	setitimer(ITIMER_REAL, &every, NULL);
	while ((ret = flock(l->lockfd, LOCK_EX)) < 0 && errno == EINTR &&
	       (waited = clock_ms() - t0) < l->timeout_ms)
		;
	ret = ret < 0 ? -errno : 0;
	/* Disarmed before the old action is back: no tick arrives after. */
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	if (ret == -EINTR) {
		cni_err_set(err, CNI_ERR_TRY_AGAIN,
			    "local store %s: waited %ld ms for its lock, try again",
			    l->root, waited);
		return -EAGAIN;
	}
	return ret ? fail(err, l, "cannot lock", "state", ret) : 0;
}

/* Takes the lock and makes index/ trustworthy. */
static int begin(struct local *l, struct cni_err *err)
{
	int ret = lock_wait(l, err);

	if (ret)
		return ret;
	if (index_clean(l))
		return 0;
	ret = rebuild(l, true, err);
	if (ret)
		flock(l->lockfd, LOCK_UN);
	return ret;
}

static void end(struct local *l)
{
	close_scopes(l);
	flock(l->lockfd, LOCK_UN);
}

/* Expired holds leave their index (the lock is held, index dirty). */
static int expire_hold(struct local *l, const struct hold_file *h, void *arg,
		       struct cni_err *err)
{
	struct lidx *x;
	int ret;

	if (h->h.until > *(const int64_t *)arg)
		return 0;
	ret = get_scope(l, h->h.scope, &x, err);
	if (!ret)
		lidx_remove(x, h->h.addr);
	if (!ret && unlinkat(l->dir[HOLDS], h->name, 0) < 0 && errno != ENOENT)
		ret = fail(err, l, "cannot remove hold", h->name, -errno);
	return ret;
}

static int hold(struct local *l, const char *scope, const struct pool_addr *p, int64_t until,
		struct cni_err *err)
{
	struct lrec_hold h = { .family = p->family, .addr = p->addr, .until = until };
	char name[NAME_MAX + 1], buf[FILE_MAX];
	int len, ret;

	snprintf(h.scope, sizeof(h.scope), "%s", scope);
	ret = hold_name(&h, name);
	len = ret ? ret : lrec_hold_format(&h, buf, sizeof(buf));
	ret = len < 0 ? len : write_atomic(l->dir[HOLDS], name, buf, (size_t)len, !l->nosync);
	return ret ? fail(err, l, "cannot write hold", name, ret) : 0;
}

/* Removes a lease (lock held, index dirty): holds first, then the lease file
 * (the commit point), then its index entries. */
static int release_locked(struct local *l, const char *name, const struct lrec_lease *s,
			  struct cni_err *err)
{
	char scope[SCOPE_MAX];
	int64_t until = (int64_t)time(NULL) + l->hold_seconds;
	struct lidx *x;
	int ret = 0;

	for (int i = 0; i < s->l.n_addrs && l->hold_seconds && !ret; i++) {
		const struct pool_addr *p = &s->l.addrs[i];

		scope_name(p->network, p->pool, p->family, s->shared[i], scope, sizeof(scope));
		ret = hold(l, scope, p, until, err);
	}
	if (ret)
		return ret;
	if (unlinkat(l->dir[LEASES], name, 0) < 0 && errno != ENOENT)
		return fail(err, l, "cannot remove lease", name, -errno);
	if (!l->nosync && fsync(l->dir[LEASES]) < 0)
		return fail(err, l, "cannot sync", "leases", -errno);
	for (int i = 0; i < s->l.n_addrs && !l->hold_seconds && !ret; i++) {
		const struct pool_addr *p = &s->l.addrs[i];

		scope_name(p->network, p->pool, p->family, s->shared[i], scope, sizeof(scope));
		ret = get_scope(l, scope, &x, err);
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
	char text[64];

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

static void pool_file_name(const char *network, const char *pool, char *buf, size_t size)
{
	scope_name(network, pool, 0, false, buf, size);
}

/* Rewritten only when the configuration changed (a damaged one is too):
 * list reads it. */
static int pool_info_write(struct local *l, const struct pool_range *r, struct cni_err *err)
{
	struct pool_info pi = { .family = r->family, .shared = r->shared, .span = r->span,
				.usable = r->usable };
	char name[SCOPE_MAX], want[FILE_MAX], have[FILE_MAX];
	size_t hlen;
	int len, ret;

	snprintf(pi.network, sizeof(pi.network), "%s", r->network);
	snprintf(pi.pool, sizeof(pi.pool), "%s", r->pool);
	len = lrec_pool_format(&pi, want, sizeof(want));
	pool_file_name(r->network, r->pool, name, sizeof(name));
	if (len < 0)
		return fail(err, l, "cannot write pool", name, len);
	if (!read_file(l->dir[POOLS], name, have, sizeof(have), &hlen) && hlen == (size_t)len &&
	    !memcmp(have, want, hlen))
		return 0;
	ret = write_atomic(l->dir[POOLS], name, want, (size_t)len, false);
	return ret ? fail(err, l, "cannot write pool", name, ret) : 0;
}

/* One address from each range into s, all or nothing: on failure what this
 * call took goes back to the indexes. */
static int take(struct local *l, const struct pool_range *ranges, int n, struct lrec_lease *s,
		struct cni_err *err)
{
	char scope[SCOPE_MAX];
	struct lidx *x[POOL_MAX_RANGES];
	int i, ret = 0;

	/* Open every scope first (a rebuild may happen, closing what is open),
	 * then take the pointers: at most n scopes, so they stay valid. */
	close_scopes(l);
	for (i = 0; i < n && !ret; i++) {
		scope_name(ranges[i].network, ranges[i].pool, ranges[i].family, ranges[i].shared,
			   scope, sizeof(scope));
		ret = get_scope(l, scope, &x[i], err);
	}
	for (i = 0; i < n && !ret; i++) {
		const struct pool_range *r = &ranges[i];
		struct pool_addr *p = &s->l.addrs[i];

		scope_name(r->network, r->pool, r->family, r->shared, scope, sizeof(scope));
		ret = get_scope(l, scope, &x[i], err);
		if (!ret)
			ret = pick(r, x[i], &p->addr, err);
		if (!ret && lidx_insert(x[i], p->addr))
			ret = fail(err, l, "cannot update index", scope, -EIO);
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
	char name[NAME_MAX + 1 - 5], buf[FILE_MAX];
	struct cni_err ignored = { 0 };
	struct lrec_lease old, s;
	int i, len, had, ret = lease_name(&owner->key, name, sizeof(name), err);

	if (ret)
		return ret;
	if (n < 1 || n > POOL_MAX_RANGES) {
		cni_err_set(err, CNI_ERR_CONFIG, "%d ranges: want 1..%d", n, POOL_MAX_RANGES);
		return -EINVAL;
	}
	ret = begin(l, err);
	if (ret)
		return ret;
	had = lease_read(l, name, &old, err);
	if (had && had != -ENOENT) {
		ret = had;
		goto out;
	}
	if (!had && fits(&old, ranges, n, out))
		goto out;
	ret = mark_dirty(l, err);
	if (!ret)
		ret = each_hold(l, expire_hold, &(int64_t){ time(NULL) }, err);
	if (!ret && !had)
		ret = release_locked(l, name, &old, err);
	if (ret)
		goto out;
	memset(&s, 0, sizeof(s));
	s.l.owner = *owner;
	ret = take(l, ranges, n, &s, err);
	if (ret) {
		if (ret == -ENOSPC || ret == -EADDRINUSE)
			mark_clean(l, &ignored);
		goto out;
	}
	len = lrec_lease_format(&s, buf, sizeof(buf));
	ret = len < 0 ? len : write_atomic(l->dir[LEASES], name, buf, (size_t)len, !l->nosync);
	if (ret) {
		fail(err, l, "cannot write lease", name, ret);
		goto out;
	}
	for (i = 0; i < n && !ret; i++)
		ret = pool_info_write(l, &ranges[i], err);
	if (!ret)
		ret = mark_clean(l, err);
	*out = s.l;
out:
	end(l);
	return ret;
}

static int local_release(struct pool_store *st, const struct pool_key *key, struct cni_err *err)
{
	struct local *l = to_local(st);
	char name[NAME_MAX + 1 - 5];
	struct lrec_lease s;
	int ret = lease_name(key, name, sizeof(name), err);

	if (ret)
		return ret;
	ret = begin(l, err);
	if (ret)
		return ret;
	ret = lease_read(l, name, &s, err);
	if (ret == -ENOENT) {
		ret = 0;
		goto out;
	}
	if (!ret)
		ret = mark_dirty(l, err);
	if (!ret)
		ret = release_locked(l, name, &s, err);
	if (!ret)
		ret = mark_clean(l, err);
out:
	end(l);
	return ret;
}

static int local_lookup(struct pool_store *st, const struct pool_key *key, struct pool_lease *out,
			struct cni_err *err)
{
	struct local *l = to_local(st);
	char name[NAME_MAX + 1 - 5];
	struct lrec_lease s;
	int ret = lease_name(key, name, sizeof(name), err);

	if (!ret)
		ret = lease_read(l, name, &s, err);
	if (!ret)
		*out = s.l;
	return ret;
}

/* GC's scope: a lease with no network recorded belongs to none. */
static bool of_network(const struct lrec_lease *s, const char *cni_network)
{
	return s->l.owner.cni_network[0] && !strcmp(s->l.owner.cni_network, cni_network);
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
			free_names(names, (size_t)i);
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
	ret = list_dir(l->dir[LEASES], true, &names, &n);
	if (ret)
		fail(err, l, "cannot list", "leases", ret);
	if (!ret)
		ret = mark_dirty(l, err);
	for (size_t i = 0; i < n && !ret; i++) {
		if (bsearch(&names[i], keep, (size_t)n_valid, sizeof(*keep), name_cmp))
			continue;
		ret = lease_read(l, names[i], &s, err);
		if (!ret && of_network(&s, cni_network))
			ret = release_locked(l, names[i], &s, err);
	}
	if (!ret)
		ret = mark_clean(l, err);
	end(l);
out_free:
	free_names(names, n);
	free_names(keep, (size_t)n_valid);
	return ret;
}

static int list_pools(struct local *l, pool_info_fn fn, void *arg, struct cni_err *err)
{
	char **names, buf[FILE_MAX];
	struct pool_info pi;
	size_t n, len;
	int ret = list_dir(l->dir[POOLS], false, &names, &n);

	if (ret)
		return fail(err, l, "cannot list", "pools", ret);
	for (size_t i = 0; i < n && !ret; i++) {
		ret = read_file(l->dir[POOLS], names[i], buf, sizeof(buf), &len);
		if (!ret)
			ret = lrec_pool_parse(buf, len, &pi);
		if (ret)
			fail(err, l, "cannot read pool", names[i], ret);
		else
			ret = fn(&pi, arg);
	}
	free_names(names, n);
	return ret;
}

static int list_leases(struct local *l, pool_lease_fn fn, void *arg, struct cni_err *err)
{
	char **names;
	struct lrec_lease s;
	size_t n;
	int ret = list_dir(l->dir[LEASES], false, &names, &n);

	if (ret)
		return fail(err, l, "cannot list", "leases", ret);
	for (size_t i = 0; i < n && !ret; i++) {
		ret = lease_read(l, names[i], &s, err);
		if (ret == -ENOENT)
			ret = 0;
		else if (!ret)
			ret = fn(&s.l, arg);
	}
	free_names(names, n);
	return ret;
}

static int local_list(struct pool_store *st, pool_info_fn info_fn, pool_lease_fn lease_fn, void *arg,
		      struct cni_err *err)
{
	struct local *l = to_local(st);
	int ret = 0;

	if (info_fn)
		ret = list_pools(l, info_fn, arg, err);
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
	ret = write_atomic(l->dir[INDEX], "status", "ok\n", 3, false);
	if (!ret && unlinkat(l->dir[INDEX], "status", 0) < 0)
		ret = -errno;
	if (ret)
		fail(err, l, "cannot write", "index/status", ret);
	end(l);
	return ret;
}

static void local_close(struct pool_store *st)
{
	struct local *l = to_local(st);

	if (!l)
		return;
	close_scopes(l);
	for (int i = 0; i < 4; i++)
		if (l->dir[i] >= 0)
			close(l->dir[i]);
	if (l->lockfd >= 0)
		close(l->lockfd);
	free(l);
}

/* The common case first: it exists. */
static int open_subdir(int root, const char *name)
{
	int fd = openat(root, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);

	if (fd >= 0 || errno != ENOENT)
		return fd;
	if (mkdirat(root, name, 0700) < 0 && errno != EEXIST)
		return -1;
	return openat(root, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
}

static int local_open(const struct pool_store_cfg *cfg, struct pool_store **out, struct cni_err *err)
{
	struct local *l = calloc(1, sizeof(*l));
	int root = -1, ret;

	*out = NULL;
	if (!l) {
		cni_err_set(err, CNI_ERR_STORE, "out of memory");
		return -ENOMEM;
	}
	l->base.ops = &local_store_ops;
	l->lockfd = -1;
	for (int i = 0; i < 4; i++)
		l->dir[i] = -1;
	l->hold_seconds = cfg->hold_seconds;
	l->nosync = cfg->nosync;
	snprintf(l->root, sizeof(l->root), "%s", cfg->data_dir);
	ret = pool_store_timeout(cfg->store, &l->timeout_ms, err);
	if (ret) {
		local_close(&l->base);
		return ret;
	}
	read_boot_id(l->boot_id);
	/* dataDir is a config's: no symlink on the way, made as it is walked */
	root = safeopen_dir(l->root, true);
	if (root < 0) {
		ret = root;
		goto fail;
	}
	for (int i = 0; i < 4; i++) {
		l->dir[i] = open_subdir(root, subdirs[i]);
		if (l->dir[i] < 0)
			goto fail_errno;
	}
	l->lockfd = openat(root, "state", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
	if (l->lockfd < 0) {
		ret = -errno;
		cni_err_set(err, CNI_ERR_STORE, "local store %s: cannot open state: %s", l->root,
			    strerror(-ret));
		goto fail_set;
	}
	close(root);
	*out = &l->base;
	return 0;
fail_errno:
	ret = -errno;
fail:
	cni_err_set(err, CNI_ERR_STORE, "cannot open local store %s: %s", l->root, strerror(-ret));
fail_set:
	if (root >= 0)
		close(root);
	local_close(&l->base);
	return ret;
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
