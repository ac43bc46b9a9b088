// SPDX-License-Identifier: Apache-2.0
/* Opens paths from "/" one component at a time with O_NOFOLLOW, so no symlink on the way can redirect them. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "pathcomp.h"
#include "safeopen.h"

/* openat of one directory entry, not followed if a symlink; made 0700 first
 * when create and missing. An O_PATH fd, or -errno. */
static int step(int dirfd, const char *name, bool create)
{
	int fd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(dirfd, name, 0700) && errno != EEXIST)
			return -errno;
		fd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	return fd < 0 ? -errno : fd;
}

bool safeopen_trusted(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && st.st_uid == 0 && !(st.st_mode & (S_IWGRP | S_IWOTH));
}

/* Walks the first n components of path from "/": an O_PATH fd of the
 * directory reached or -errno; *done counts the components opened, prefix
 * ends at the one that failed. With must_trust, every directory must be
 * trusted (-EPERM otherwise, unless a part is missing: -ENOENT). */
static int walk(const char *path, int n, bool create, bool must_trust, int *done,
		char prefix[PATH_MAX])
{
	char name[NAME_MAX + 1];
	const char *p = path, *s;
	size_t len, plen = 0;
	int fd, next;

	*done = 0;
	prefix[0] = '\0';
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (; *done < n; (*done)++) {
		len = pathcomp_next(&p, &s);
		if (len > NAME_MAX || plen + len + 2 > PATH_MAX) {
			close(fd);
			return -ENAMETOOLONG;
		}
		memcpy(name, s, len);
		name[len] = '\0';
		plen += (size_t)sprintf(prefix + plen, "/%s", name);
		next = step(fd, name, create);
		/* a missing part says more than the trust of the one above it */
		if (next >= 0 && must_trust && !safeopen_trusted(fd)) {
			close(next);
			next = -EPERM;
		}
		close(fd);
		if (next < 0)
			return next;
		fd = next;
	}
	if (must_trust && !safeopen_trusted(fd)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

int safeopen_dir(const char *path, bool create)
{
	char prefix[PATH_MAX];
	int done, fd, ret;

	if (path[0] != '/')
		return -EINVAL;
	fd = walk(path, pathcomp_count(path), create, false, &done, prefix);
	if (fd < 0)
		return fd;
	ret = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (ret < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* The file's last component opened in an O_PATH dirfd: a regular file, blocking. */
static int open_leaf(int dirfd, const char *path, int flags, mode_t mode)
{
	const char *p = path, *s = path, *leaf = NULL;
	char name[NAME_MAX + 1];
	size_t len = 0, n;
	struct stat st;
	int fd;

	while ((n = pathcomp_next(&p, &s))) {
		leaf = s;
		len = n;
	}
	if (!leaf || len > NAME_MAX || (len == 2 && !memcmp(leaf, "..", 2)))
		return -EINVAL;
	memcpy(name, leaf, len);
	name[len] = '\0';
	fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, mode);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

static int open_file(const char *path, int flags, mode_t mode, bool must_trust)
{
	char prefix[PATH_MAX];
	int n, done, dirfd, fd;

	if (path[0] != '/')
		return -EINVAL;
	n = pathcomp_count(path);
	if (n == 0)
		return -EINVAL;
	dirfd = walk(path, n - 1, false, must_trust, &done, prefix);
	if (dirfd < 0)
		return dirfd;
	fd = open_leaf(dirfd, path, flags, mode);
	close(dirfd);
	return fd;
}

int safeopen_file(const char *path, int flags, mode_t mode)
{
	return open_file(path, flags, mode, false);
}

int safeopen_file_trusted(const char *path, int flags, mode_t mode)
{
	return open_file(path, flags, mode, true);
}

/* A file's walk ends at the file: ENOTDIR unless it is a symlink. */
void safeopen_find_symlink(const char *path, char prefix[PATH_MAX])
{
	struct stat st;
	int done, fd;

	fd = walk(path, pathcomp_count(path), false, false, &done, prefix);
	if (fd >= 0)
		close(fd);
	if (fd >= 0 || lstat(prefix, &st) || !S_ISLNK(st.st_mode))
		prefix[0] = '\0';
}
