// SPDX-License-Identifier: Apache-2.0
/* Whole files in one directory, written atomically so that no reader or killed writer sees half of one. */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "fileio.h"
#include "pathcomp.h"
#include "safeopen.h"

static int join(const char *dir, const char *name, char path[PATH_MAX])
{
	if (!pathcomp_is_name(name))
		return -EINVAL;
	if (snprintf(path, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX)
		return -ENAMETOOLONG;
	return 0;
}

int fileio_mkdir(const char *dir)
{
	int fd = safeopen_dir(dir, true);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The temp file of name: one per name, so a writer killed half-way leaves
 * only this, which the next write of name truncates and fileio_remove removes. */
static int temp_name(const char *name, char tmp[NAME_MAX + 1])
{
	return snprintf(tmp, NAME_MAX + 1, ".%s.tmp", name) > NAME_MAX ? -ENAMETOOLONG : 0;
}

/* dir, for a change to name and its temp file: an fd, or -errno. */
static int open_for(const char *dir, const char *name, char tmp[NAME_MAX + 1])
{
	int ret;

	if (!pathcomp_is_name(name))
		return -EINVAL;
	ret = temp_name(name, tmp);
	return ret ? ret : safeopen_dir(dir, false);
}

/* The temp file tmp in dirfd, written and renamed to name; with sync,
 * fsync'd before the rename and the directory after it. */
static int write_in(int dirfd, const char *name, const char *tmp, const char *data, size_t len,
		    mode_t mode, bool sync)
{
	int fd, ret;

	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	/* the umask must not decide, nor the mode of a temp file left earlier */
	ret = fchmod(fd, mode) ? -errno : 0;
	if (!ret)
		ret = write_all(fd, data, len);
	if (!ret && sync && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && renameat(dirfd, tmp, dirfd, name))
		ret = -errno;
	if (ret)
		unlinkat(dirfd, tmp, 0);
	else if (sync && fsync(dirfd))
		ret = -errno;
	return ret;
}

static int write_atomic(const char *dir, const char *name, const char *data, size_t len,
			mode_t mode, bool sync)
{
	char tmp[NAME_MAX + 1];
	int dirfd = open_for(dir, name, tmp), ret;

	if (dirfd < 0)
		return dirfd;
	ret = write_in(dirfd, name, tmp, data, len, mode, sync);
	close(dirfd);
	return ret;
}

static int write_at(int dirfd, const char *name, const char *data, size_t len, mode_t mode,
		    bool sync)
{
	char tmp[NAME_MAX + 1];
	int ret;

	if (!pathcomp_is_name(name))
		return -EINVAL;
	ret = temp_name(name, tmp);
	return ret ? ret : write_in(dirfd, name, tmp, data, len, mode, sync);
}

int fileio_write(const char *dir, const char *name, const char *data, size_t len)
{
	return write_atomic(dir, name, data, len, 0600, false);
}

int fileio_write_durable(const char *dir, const char *name, const char *data, size_t len,
			 mode_t mode)
{
	return write_atomic(dir, name, data, len, mode, true);
}

int fileio_write_at(int dirfd, const char *name, const char *data, size_t len)
{
	return write_at(dirfd, name, data, len, 0600, false);
}

int fileio_write_durable_at(int dirfd, const char *name, const char *data, size_t len,
			    mode_t mode)
{
	return write_at(dirfd, name, data, len, mode, true);
}

static int read_fd(int fd, size_t max, char **out, size_t *len)
{
	char *buf = NULL, *grown;
	size_t cap = 0, used = 0;
	struct stat st;
	int ret;

	*out = NULL;
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((uintmax_t)st.st_size > max)
		return -EFBIG;
	for (;;) {
		ssize_t n;

		if (used + 1 >= cap) {
			cap = cap ? cap * 2 : (size_t)st.st_size + 64;
			grown = realloc(buf, cap);
			if (!grown) {
				ret = -ENOMEM;
				goto out;
			}
			buf = grown;
		}
		n = read(fd, buf + used, cap - used - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			goto out;
		}
		if (n == 0)
			break;
		used += (size_t)n;
		if (used > max) {
			ret = -EFBIG;
			goto out;
		}
	}
	buf[used] = '\0';
	*out = buf;
	buf = NULL;
	if (len)
		*len = used;
	ret = 0;
out:
	free(buf);
	return ret;
}

int fileio_read(const char *dir, const char *name, char **out, size_t *len)
{
	return fileio_read_max(dir, name, SIZE_MAX, out, len);
}

int fileio_read_max(const char *dir, const char *name, size_t max, char **out, size_t *len)
{
	char path[PATH_MAX];
	int fd, ret;

	*out = NULL;
	ret = join(dir, name, path);
	if (ret)
		return ret;
	/* O_NONBLOCK: a FIFO in the file's place must not hang the reader */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	ret = read_fd(fd, max, out, len);
	close(fd);
	return ret;
}

int fileio_read_at(int dirfd, const char *name, size_t max, char **out, size_t *len)
{
	int fd, ret;

	*out = NULL;
	if (!pathcomp_is_name(name))
		return -EINVAL;
	/* O_NONBLOCK: a FIFO in the file's place must not hang the reader */
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	ret = read_fd(fd, max, out, len);
	close(fd);
	return ret;
}

int fileio_read_fd(int fd, size_t max, char **out, size_t *len)
{
	return read_fd(fd, max, out, len);
}

int fileio_remove(const char *dir, const char *name)
{
	char tmp[NAME_MAX + 1];
	int dirfd = open_for(dir, name, tmp), ret = 0;

	if (dirfd < 0)
		return dirfd == -ENOENT ? 0 : dirfd;
	if (unlinkat(dirfd, name, 0) && errno != ENOENT)
		ret = -errno;
	else if (unlinkat(dirfd, tmp, 0) && errno != ENOENT)
		ret = -errno;
	close(dirfd);
	return ret;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && !strcmp(s + ls - lx, suffix);
}

/* The names of d (closed here) ending in suffix, sorted, dot files skipped. */
static int list_names(DIR *d, const char *suffix, char ***names, size_t *n)
{
	char **list = NULL, **grown;
	size_t cap = 0, count = 0;
	struct dirent *de;
	int ret = 0;

	while ((de = readdir(d))) {
		/* dot files are ".", ".." and the temp files of unfinished writes */
		if (de->d_name[0] == '.' || !has_suffix(de->d_name, suffix))
			continue;
		if (count == cap) {
			cap = cap ? cap * 2 : 16;
			grown = realloc(list, cap * sizeof(*list));
			if (!grown) {
				ret = -ENOMEM;
				goto out;
			}
			list = grown;
		}
		list[count] = strdup(de->d_name);
		if (!list[count]) {
			ret = -ENOMEM;
			goto out;
		}
		count++;
	}
	if (count)
		qsort(list, count, sizeof(*list), cmp_names);
	*names = list;
	*n = count;
	list = NULL;
out:
	while (list && count)
		free(list[--count]);
	free(list);
	closedir(d);
	return ret;
}

int fileio_list(const char *dir, const char *suffix, char ***names, size_t *n)
{
	DIR *d;

	*names = NULL;
	*n = 0;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	return list_names(d, suffix, names, n);
}

/* dirfd read from its start, as a stream of its own. */
static DIR *open_stream(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);

	if (!d && fd >= 0) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return d;
}

int fileio_list_at(int dirfd, const char *suffix, char ***names, size_t *n)
{
	DIR *d;

	*names = NULL;
	*n = 0;
	d = open_stream(dirfd);
	return d ? list_names(d, suffix, names, n) : -errno;
}

/* What temp_name makes: "." + a name + ".tmp". */
static bool is_temp(const char *s)
{
	return s[0] == '.' && strlen(s) > 5 && has_suffix(s, ".tmp");
}

int fileio_reap_at(int dirfd)
{
	DIR *d = open_stream(dirfd);
	struct dirent *de;

	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (is_temp(de->d_name))
			unlinkat(dirfd, de->d_name, 0);
	closedir(d);
	return 0;
}
