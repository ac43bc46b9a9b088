// SPDX-License-Identifier: Apache-2.0
/* Copies files into a host directory atomically, only when they differ. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include "fileio.h"
#include "install.h"

int install_lock(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

static int read_at(const char *dir, const char *name, int flags, char **out, size_t *len,
		   mode_t *mode)
{
	char path[PATH_MAX];
	struct stat st;
	int fd, ret;

	*out = NULL;
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC | flags);
	if (fd < 0)
		return -errno;
	ret = fstat(fd, &st) ? -errno : fileio_read_fd(fd, SIZE_MAX, out, len);
	if (!ret)
		*mode = st.st_mode & 07777;
	close(fd);
	return ret;
}

int install_file(const char *from, const char *to, const char *name, mode_t mode,
		 enum install_outcome *out)
{
	char *data = NULL, *old = NULL;
	size_t len, old_len;
	mode_t src_mode, old_mode;
	int ret;

	ret = read_at(from, name, 0, &data, &len, &src_mode);
	if (ret)
		goto out;
	/* what is there is never followed: a symlink (ELOOP) or a directory
	 * (EINVAL) in its place is replaced like a file that differs */
	ret = read_at(to, name, O_NOFOLLOW, &old, &old_len, &old_mode);
	if (ret && ret != -ENOENT && ret != -ELOOP && ret != -EINVAL)
		goto out;
	*out = ret == -ENOENT ? INSTALL_NEW : INSTALL_REPLACED;
	if (!ret && old_mode == mode && old_len == len && !memcmp(old, data, len)) {
		*out = INSTALL_UNCHANGED;
		goto out;
	}
	ret = fileio_write_durable(to, name, data, len, mode);
out:
	free(old);
	free(data);
	return ret;
}
