// SPDX-License-Identifier: Apache-2.0
/* The local store's dataDir: where each record lives, and reading and writing it there. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "env.h"
#include "fileio.h"
#include "local_layout.h"
#include "safeopen.h"

static const char *const subdirs[] = {
	[LOCAL_LEASES] = "leases",
	[LOCAL_HOLDS] = "holds",
	[LOCAL_POOLS] = "pools",
	[LOCAL_INDEX] = "index",
};

int local_fail(struct cni_err *err, const struct local_disk *d, const char *what, const char *name,
	       int ret)
{
	cni_err_set(err, CNI_ERR_STORE, "local store %s: %s %s: %s", d->root, what, name,
		    strerror(-ret));
	return ret;
}

void local_scope_name(const char *network, const char *pool, int family, bool shared,
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

/* The attachment names a file: the CNI rules for both parts, and no '@'
 * in the ifname (hold names use it). */
int local_lease_name(const struct pool_key *k, char buf[LOCAL_LEASE_NAME_MAX], struct cni_err *err)
{
	if (!env_valid_id(k->containerid) || !env_valid_ifname(k->ifname) || strchr(k->ifname, '@') ||
	    snprintf(buf, LOCAL_LEASE_NAME_MAX, "%s:%s", k->containerid, k->ifname) >=
		    LOCAL_LEASE_NAME_MAX) {
		cni_err_set(err, CNI_ERR_ENV, "invalid attachment (%s, %s)", k->containerid, k->ifname);
		return -EINVAL;
	}
	return 0;
}

/* "<scope>@<32 hex digits>"; -ENAMETOOLONG. */
static int hold_name(const struct lrec_hold *h, char name[NAME_MAX + 1])
{
	int n = snprintf(name, NAME_MAX + 1, "%.*s@%016" PRIx64 "%016" PRIx64, NAME_MAX,
			 h->scope, (uint64_t)(h->addr >> 64), (uint64_t)h->addr);

	return n > NAME_MAX ? -ENAMETOOLONG : 0;
}

void local_index_name(const char *scope, char *buf, size_t size)
{
	snprintf(buf, size, "%s.idx", scope);
}

/* The pool file of a (network, pool) is named as its own scope would be. */
static void pool_name(const char *network, const char *pool, char *buf, size_t size)
{
	local_scope_name(network, pool, 0, false, buf, size);
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

/* The common case first: it exists. */
int local_subdir(int root, const char *name)
{
	int fd = openat(root, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);

	if (fd >= 0 || errno != ENOENT)
		return fd;
	if (mkdirat(root, name, 0700) < 0 && errno != EEXIST)
		return -1;
	return openat(root, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
}

/* Nothing open yet: what local_disk_close takes. */
static void disk_init(struct local_disk *d, const char *root, bool nosync)
{
	d->state = -1;
	for (int i = 0; i < LOCAL_N_DIRS; i++)
		d->dir[i] = -1;
	d->nosync = nosync;
	snprintf(d->root, sizeof(d->root), "%s", root);
}

int local_disk_open(struct local_disk *d, const char *root, bool nosync, struct cni_err *err)
{
	/* dataDir is a config's: no symlink on the way, made as it is walked */
	int rootfd = safeopen_dir(root, true), ret;

	if (rootfd < 0) {
		disk_init(d, root, nosync);
		cni_err_set(err, CNI_ERR_STORE, "cannot open local store %s: %s", root,
			    strerror(-rootfd));
		return rootfd;
	}
	ret = local_disk_open_at(d, rootfd, root, nosync, err);
	close(rootfd);
	return ret;
}

int local_disk_open_at(struct local_disk *d, int rootfd, const char *root, bool nosync,
		       struct cni_err *err)
{
	int ret;

	disk_init(d, root, nosync);
	read_boot_id(d->boot_id);
	for (int i = 0; i < LOCAL_N_DIRS; i++) {
		d->dir[i] = local_subdir(rootfd, subdirs[i]);
		if (d->dir[i] < 0)
			goto fail_errno;
	}
	/* O_NONBLOCK: a FIFO put in its place must not hang the open */
	d->state = openat(rootfd, "state", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
	if (d->state < 0) {
		ret = -errno;
		cni_err_set(err, CNI_ERR_STORE, "local store %s: cannot open state: %s", d->root,
			    strerror(-ret));
		goto fail_set;
	}
	return 0;
fail_errno:
	ret = -errno;
	cni_err_set(err, CNI_ERR_STORE, "cannot open local store %s: %s", d->root, strerror(-ret));
fail_set:
	local_disk_close(d);
	return ret;
}

void local_disk_close(struct local_disk *d)
{
	for (int i = 0; i < LOCAL_N_DIRS; i++) {
		if (d->dir[i] >= 0)
			close(d->dir[i]);
		d->dir[i] = -1;
	}
	if (d->state >= 0)
		close(d->state);
	d->state = -1;
}


/* A record file whole (NUL-terminated, malloc'd): -EFBIG when it would not
 * fit the record buffers; -EBADMSG when it is not a regular file (a FIFO in
 * its place does not hang the read) or is a symlink. */
static int read_record(const struct local_disk *d, enum local_dir dir, const char *name,
		       char **buf, size_t *len)
{
	int ret = fileio_read_at(d->dir[dir], name, LOCAL_FILE_MAX - 2, buf, len);

	return ret == -EINVAL || ret == -ELOOP ? -EBADMSG : ret;
}

/* Leases and holds outlive a power cut (unless nosync); pool files and
 * probes are rewritten by the next reserve. */
static int write_record(const struct local_disk *d, enum local_dir dir, const char *name,
			const char *data, size_t len, bool durable)
{
	if (durable && !d->nosync)
		return fileio_write_durable_at(d->dir[dir], name, data, len, 0600);
	return fileio_write_at(d->dir[dir], name, data, len);
}

int local_disk_probe(const struct local_disk *d, struct cni_err *err)
{
	int ret = write_record(d, LOCAL_INDEX, "status", "ok\n", 3, false);

	if (!ret && unlinkat(d->dir[LOCAL_INDEX], "status", 0) < 0)
		ret = -errno;
	return ret ? local_fail(err, d, "cannot write", "index/status", ret) : 0;
}

int local_dir_list(const struct local_disk *d, enum local_dir dir, bool reap, char ***names, size_t *n,
	       struct cni_err *err)
{
	int ret;

	if (reap)
		fileio_reap_at(d->dir[dir]);
	ret = fileio_list_at(d->dir[dir], "", names, n);
	return ret ? local_fail(err, d, "cannot list", subdirs[dir], ret) : 0;
}

void local_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int local_lease_read(const struct local_disk *d, const char *name, struct lrec_lease *s,
		     struct cni_err *err)
{
	char want[NAME_MAX + 1], *buf = NULL;
	size_t len;
	int ret = read_record(d, LOCAL_LEASES, name, &buf, &len);

	if (ret == -ENOENT)
		return ret;
	if (!ret)
		ret = lrec_lease_parse(buf, len, s);
	if (!ret && (snprintf(want, sizeof(want), "%s:%s", s->l.owner.key.containerid,
			      s->l.owner.key.ifname) >= (int)sizeof(want) || strcmp(want, name)))
		ret = -EBADMSG;
	free(buf);
	return ret ? local_fail(err, d, "cannot read lease", name, ret) : 0;
}

int local_lease_write(const struct local_disk *d, const char *name, const struct lrec_lease *s,
		      struct cni_err *err)
{
	char buf[LOCAL_FILE_MAX];
	int len = lrec_lease_format(s, buf, sizeof(buf)), ret;

	ret = len < 0 ? len : write_record(d, LOCAL_LEASES, name, buf, (size_t)len, true);
	return ret ? local_fail(err, d, "cannot write lease", name, ret) : 0;
}

int local_lease_remove(const struct local_disk *d, const char *name, struct cni_err *err)
{
	if (unlinkat(d->dir[LOCAL_LEASES], name, 0) < 0 && errno != ENOENT)
		return local_fail(err, d, "cannot remove lease", name, -errno);
	if (!d->nosync && fsync(d->dir[LOCAL_LEASES]) < 0)
		return local_fail(err, d, "cannot sync", "leases", -errno);
	return 0;
}

/* A hold file: -EBADMSG also when it is not the hold its name says; err untouched. */
static int hold_read(const struct local_disk *d, const char *name, struct lrec_hold *h)
{
	char want[NAME_MAX + 1], *buf = NULL;
	size_t len;
	int ret = read_record(d, LOCAL_HOLDS, name, &buf, &len);

	if (!ret)
		ret = lrec_hold_parse(buf, len, h);
	if (!ret)
		ret = hold_name(h, want) || strcmp(want, name) ? -EBADMSG : 0;
	free(buf);
	return ret;
}

int local_hold_write(const struct local_disk *d, const struct lrec_hold *h, struct cni_err *err)
{
	char name[NAME_MAX + 1], buf[LOCAL_FILE_MAX];
	int len, ret;

	ret = hold_name(h, name);
	len = ret ? ret : lrec_hold_format(h, buf, sizeof(buf));
	ret = len < 0 ? len : write_record(d, LOCAL_HOLDS, name, buf, (size_t)len, true);
	return ret ? local_fail(err, d, "cannot write hold", name, ret) : 0;
}

int local_each_hold(const struct local_disk *d, local_hold_fn fn, void *arg, struct cni_err *err)
{
	struct local_hold_file h;
	char **names;
	size_t n;
	int ret = local_dir_list(d, LOCAL_HOLDS, true, &names, &n, err);

	if (ret)
		return ret;
	for (size_t i = 0; i < n && !ret; i++) {
		h.name = names[i];
		ret = hold_read(d, names[i], &h.h);
		if (ret == -ENOENT) {	/* a rebuild already dropped it */
			ret = 0;
			continue;
		}
		if (ret)
			local_fail(err, d, "cannot read hold", names[i], ret);
		else
			ret = fn(d, &h, arg, err);
	}
	local_names_free(names, n);
	return ret;
}

int local_pool_write(const struct local_disk *d, const struct pool_range *r, struct cni_err *err)
{
	struct pool_info pi = { .family = r->family, .shared = r->shared, .span = r->span,
				.usable = r->usable };
	char name[LOCAL_SCOPE_MAX], want[LOCAL_FILE_MAX], *have = NULL;
	size_t hlen;
	int len, ret;

	snprintf(pi.network, sizeof(pi.network), "%s", r->network);
	snprintf(pi.pool, sizeof(pi.pool), "%s", r->pool);
	len = lrec_pool_format(&pi, want, sizeof(want));
	pool_name(r->network, r->pool, name, sizeof(name));
	if (len < 0)
		return local_fail(err, d, "cannot write pool", name, len);
	ret = read_record(d, LOCAL_POOLS, name, &have, &hlen);
	if (!ret && hlen == (size_t)len && !memcmp(have, want, hlen))
		ret = 0;
	else
		ret = write_record(d, LOCAL_POOLS, name, want, (size_t)len, false);
	free(have);
	return ret ? local_fail(err, d, "cannot write pool", name, ret) : 0;
}

int local_each_pool(const struct local_disk *d, pool_info_fn fn, void *arg, struct cni_err *err)
{
	struct pool_info pi;
	char **names, *buf;
	size_t n, len;
	int ret = local_dir_list(d, LOCAL_POOLS, false, &names, &n, err);

	if (ret)
		return ret;
	for (size_t i = 0; i < n && !ret; i++) {
		buf = NULL;
		ret = read_record(d, LOCAL_POOLS, names[i], &buf, &len);
		if (!ret)
			ret = lrec_pool_parse(buf, len, &pi);
		free(buf);
		if (ret)
			local_fail(err, d, "cannot read pool", names[i], ret);
		else
			ret = fn(&pi, arg);
	}
	local_names_free(names, n);
	return ret;
}

/* Rewritten in place (no new inode per op: ext4 inode allocation is the
 * costliest part of a file create). */
int local_state_write(const struct local_disk *d, bool clean, struct cni_err *err)
{
	char line[128];
	int len = lrec_state_format(d->boot_id, clean, line, sizeof(line));

	if (len < 0 || pwrite(d->state, line, (size_t)len, 0) != len || ftruncate(d->state, len) < 0)
		return local_fail(err, d, "cannot write", "state", errno ? -errno : -EIO);
	return 0;
}

/* Whatever else the state file holds (cut, garbage, grown) is not clean. */
bool local_state_clean(const struct local_disk *d)
{
	char have[128];
	ssize_t n = pread(d->state, have, sizeof(have), 0);

	return n > 0 && lrec_state_clean(have, (size_t)n, d->boot_id);
}
