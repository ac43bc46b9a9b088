// SPDX-License-Identifier: Apache-2.0
/* A node's own records of the slices it holds: <dataDir>/etcd-slices/<hash of the prefix>/owned/, one file per slice. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include "fileio.h"
#include "local_layout.h"
#include "lockfile.h"
#include "log.h"
#include "slice_owned.h"

#define RECORD_MAX 4096

static int fail(struct cni_err *err, const char *root, const char *what, const char *name, int ret)
{
	cni_err_set(err, CNI_ERR_STORE, "slice records %s/owned: %s %s: %s", root, what, name,
		    strerror(-ret));
	return ret;
}

/* "<net>_v4@<hex>", "<net>_v6@<hex>" or "<net>_p_<pool>@<hex>" ('/' as '_'). */
static void name_of(const struct slice_rec *rec, char name[NAME_MAX + 1])
{
	char key[LAYOUT_KEY_MAX], *p;
	struct pool_range r;

	slice_scope(rec, &r);
	slice_key("", &r, rec->s.span.first, key);
	/* "/s/<net>/v4/<hex>" */
	p = strrchr(key, '/');
	*p = '@';
	snprintf(name, NAME_MAX + 1, "%.*s", NAME_MAX, key + 3);
	for (p = name; *p; p++)
		if (*p == '/')
			*p = '_';
}

int owned_open(int rootfd, const char *root, bool create, int *fd, struct cni_err *err)
{
	*fd = create ? local_subdir(rootfd, "owned") :
	      openat(rootfd, "owned", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (*fd < 0 && errno == ENOENT && !create)
		return -ENOENT;
	return *fd < 0 ? fail(err, root, "cannot open", "", -errno) : 0;
}

int owned_lock(int fd, const char *root, int timeout_ms, struct cni_err *err)
{
	int ret = lockfile_lock_fd(fd, timeout_ms);

	if (ret == -ETIMEDOUT) {
		cni_err_set(err, CNI_ERR_TRY_AGAIN, "slice records %s/owned: waited %d ms for their "
			    "lock, try again", root, timeout_ms);
		return -EAGAIN;
	}
	return ret ? fail(err, root, "cannot lock", "", ret) : 0;
}

void owned_unlock(int fd)
{
	flock(fd, LOCK_UN);
}

static int by_block(const void *a, const void *b)
{
	const struct slice_rec *x = a, *y = b;

	return x->s.span.first < y->s.span.first ? -1 : x->s.span.first > y->s.span.first;
}

/* One record; 1 when gone or damaged (logged). */
static int read_one(int fd, const char *root, const char *name, struct slice_rec *rec,
		    struct cni_err *err)
{
	char want[NAME_MAX + 1], *buf = NULL;
	size_t len;
	bool damaged;
	int ret = fileio_read_at(fd, name, RECORD_MAX, &buf, &len);

	if (ret == -ENOENT)
		return 1;
	if (ret && ret != -EFBIG)
		return fail(err, root, "cannot read", name, ret);
	damaged = ret || strlen(buf) != len || slice_parse(buf, true, rec);
	if (!damaged) {
		name_of(rec, want);
		damaged = strcmp(want, name);
	}
	free(buf);
	if (!damaged)
		return 0;
	log_error("slice records %s/owned: %s is damaged: no address is taken from it "
		  "until etcd confirms the slice", root, name);
	memset(rec, 0, sizeof(*rec));
	return 1;
}

int owned_read(int fd, const char *root, struct slice_rec **out, size_t *n, struct cni_err *err)
{
	char **names = NULL;
	size_t count = 0, i;
	int ret = fileio_list_at(fd, "", &names, &count);

	*out = NULL;
	*n = 0;
	if (ret)
		return fail(err, root, "cannot list", "", ret);
	*out = calloc(count + 1, sizeof(**out));
	ret = *out ? 0 : fail(err, root, "cannot list", "", -ENOMEM);
	for (i = 0; !ret && i < count; i++) {
		ret = read_one(fd, root, names[i], &(*out)[*n], err);
		if (!ret)
			(*n)++;
		else if (ret == 1)
			ret = 0;
	}
	for (i = 0; i < count; i++)
		free(names[i]);
	free(names);
	if (ret) {
		free(*out);
		*out = NULL;
		*n = 0;
		return ret;
	}
	qsort(*out, *n, sizeof(**out), by_block);
	return 0;
}

int owned_write(int fd, const char *root, const struct slice_rec *rec, struct cni_err *err)
{
	char name[NAME_MAX + 1], *v = slice_value(rec, true);
	int ret;

	name_of(rec, name);
	ret = v ? fileio_write_durable_at(fd, name, v, strlen(v), 0600) : -ENOMEM;
	free(v);
	return ret ? fail(err, root, "cannot write", name, ret) : 0;
}

int owned_remove(int fd, const char *root, const struct slice_rec *rec, struct cni_err *err)
{
	char name[NAME_MAX + 1];

	name_of(rec, name);
	if (unlinkat(fd, name, 0) < 0 && errno != ENOENT)
		return fail(err, root, "cannot remove", name, -errno);
	return fsync(fd) < 0 ? fail(err, root, "cannot sync", "", -errno) : 0;
}
