// SPDX-License-Identifier: Apache-2.0
/* The device-info file Multus names (runtimeConfig.CNIDeviceInfoFile): completed on ADD, removed on DEL. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cache.h"
#include "devinfo.h"
#include "log.h"
#include "steps.h"

/* conf.c has checked that the path is CONF_DEVINFO_DIR followed by plain
 * names. This walk refuses a symlink (or a file) in place of a directory
 * below /var/run, which itself is a symlink to /run on most nodes. Only
 * root can write under /run, so a check by name now and a write by name
 * later see the same directories: the walk guards against what a config
 * names, not against a race with the node's own root.
 * (A narrow check of this one directory: the general confinement of the
 * paths a config names lives in common/ once it lands there.) */
#define WALK_FROM "/var/run"

/* The file's directory as an open fd; -ENOENT when a directory on the way
 * is missing and !create (create makes it, 0700). */
static int open_dir(const char *path, bool create, struct cni_err *err)
{
	const char *p = path + strlen(WALK_FROM "/"), *slash;
	char comp[NAME_MAX + 1];
	int fd, next, ret;
	size_t len;

	fd = open(WALK_FROM, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ret = fd < 0 ? -errno : 0;
	while (!ret && (slash = strchr(p, '/'))) {
		len = (size_t)(slash - p);
		if (len >= sizeof(comp)) {
			ret = -ENAMETOOLONG;
			break;
		}
		memcpy(comp, p, len);
		comp[len] = '\0';
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && create &&
		    (mkdirat(fd, comp, 0700) == 0 || errno == EEXIST))
			next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		ret = next < 0 ? -errno : 0;
		close(fd);
		fd = next;
		if (!ret)
			p = slash + 1;
	}
	if (!ret)
		return fd;
	if (fd >= 0)
		close(fd);
	/* p is at the component that failed */
	len = (size_t)(p - path) + strcspn(p, "/");
	if (ret == -ELOOP || ret == -ENOTDIR || ret == -ENAMETOOLONG)
		cni_err_set(err, CNI_ERR_CONFIG, "runtimeConfig.CNIDeviceInfoFile \"%s\": \"%.*s\" "
			    "is not a directory (a symlink, a file, or too long a name)", path,
			    (int)len, path);
	else if (ret != -ENOENT)
		cni_err_set(err, CNI_ERR_IO, "device-info file %s: cannot open \"%.*s\": %s", path,
			    (int)len, path, strerror(-ret));
	return ret;
}

/* What is at the path now (the device plugin's copy Multus made), NULL
 * when nothing; never through a symlink, never a FIFO or device. */
static int read_old(const char *path, char **old, size_t *len, struct cni_err *err)
{
	int dirfd, fd, ret;

	*old = NULL;
	*len = 0;
	dirfd = open_dir(path, false, err);
	if (dirfd == -ENOENT)
		return 0;
	if (dirfd < 0)
		return dirfd;
	fd = openat(dirfd, strrchr(path, '/') + 1, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	ret = fd < 0 ? -errno : cache_read_fd(fd, old, len);
	if (fd >= 0)
		close(fd);
	close(dirfd);
	if (ret == -ENOENT)
		return 0;
	if (!ret && *len > DEVINFO_MAX)
		ret = -EFBIG;
	if (ret == -ELOOP || ret == -EINVAL || ret == -EFBIG)
		cni_err_set(err, CNI_ERR_CONFIG, "device-info file %s is %s", path,
			    ret == -EFBIG ? "larger than a device-info document can be" :
			    "not a regular file");
	else if (ret)
		cni_err_set(err, CNI_ERR_IO, "cannot read device-info file %s: %s", path,
			    strerror(-ret));
	if (ret) {
		free(*old);
		*old = NULL;
	}
	return ret;
}

int devfile_prepare(struct attach *a, struct cni_err *err)
{
	const char *path = a->conf.devinfo_file;
	const struct devinfo d = {
		.pci = a->vf.bdf,
		.pf_pci = a->vf.pf_bdf,
		.rdma = a->has_rdma ? a->rdma_name : "",
	};
	char *old = NULL;
	size_t len;
	int ret;

	if (!path[0])
		return 0;
	ret = read_old(path, &old, &len, err);
	if (!ret)
		ret = devinfo_merge(old, len, &d, path, &a->devinfo_doc, err);
	free(old);
	return ret;
}

/* dir gets the path's directory, name points into path. */
static void split(const char *path, char dir[PATH_MAX], const char **name)
{
	const char *slash = strrchr(path, '/');

	snprintf(dir, PATH_MAX, "%.*s", (int)(slash - path), path);
	*name = slash + 1;
}

int devfile_write(struct attach *a, struct cni_err *err)
{
	const char *path = a->conf.devinfo_file, *name;
	char dir[PATH_MAX];
	int fd, ret;

	if (!a->devinfo_doc)
		return 0;
	fd = open_dir(path, true, err);
	if (fd < 0)
		return fd;
	close(fd);
	split(path, dir, &name);
	ret = cache_write(dir, name, a->devinfo_doc, strlen(a->devinfo_doc));
	if (ret)
		cni_err_set(err, CNI_ERR_IO, "cannot write device-info file %s: %s", path,
			    strerror(-ret));
	return ret;
}

int devfile_remove(struct attach *a, struct cni_err *err)
{
	const char *path = a->conf.devinfo_file, *name;
	char dir[PATH_MAX];
	int fd, ret;

	if (!path[0])
		return 0;
	fd = open_dir(path, false, err);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	close(fd);
	split(path, dir, &name);
	ret = cache_remove(dir, name);
	if (ret)
		cni_err_set(err, CNI_ERR_IO, "cannot remove device-info file %s: %s", path,
			    strerror(-ret));
	else
		log_debug("device-info file %s removed", path);
	return ret;
}
