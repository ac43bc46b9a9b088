// SPDX-License-Identifier: Apache-2.0
/* The device-info file Multus names (runtimeConfig.CNIDeviceInfoFile): completed on ADD, removed on DEL. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "confpath.h"
#include "devfile.h"
#include "devinfo.h"
#include "fileio.h"
#include "log.h"
#include "safeopen.h"

/* conf.c keeps the path under CONF_DEVINFO_DIR; attach_new has passed it
 * through confpath_check (/var/run/ taken as the /run/ it links to, no
 * symlink on the way), and every open here (safeopen_file, cache_*) walks
 * it again from "/" without following one. */

/* A symlink on the way or at the name, a file where a directory should be,
 * a FIFO or device at the name: the config named something else than a
 * device-info file. */
static int refused(int ret, const char *path, const char *what, struct cni_err *err)
{
	if (ret == -ELOOP || ret == -ENOTDIR || ret == -EINVAL || ret == -EFBIG)
		cni_err_set(err, CNI_ERR_CONFIG, "runtimeConfig.CNIDeviceInfoFile \"%s\" is not a "
			    "device-info file: %s", path, ret == -EFBIG ? "larger than one can be" :
			    "a symlink, FIFO or device, or below a symlink or a file");
	else
		cni_err_set(err, CNI_ERR_IO, "cannot %s device-info file %s: %s", what, path,
			    strerror(-ret));
	return ret;
}

/* What is at the path now (the device plugin's copy Multus made), NULL
 * when nothing. */
static int read_old(const char *path, char **old, size_t *len, struct cni_err *err)
{
	int fd, ret;

	*old = NULL;
	*len = 0;
	fd = safeopen_file(path, O_RDONLY, 0);
	if (fd == -ENOENT)
		return 0;
	ret = fd < 0 ? fd : fileio_read_fd(fd, DEVINFO_MAX, old, len);
	if (fd >= 0)
		close(fd);
	if (ret) {
		free(*old);
		*old = NULL;
		refused(ret, path, "read", err);
	}
	return ret;
}

int devfile_prepare(struct attach *a, struct cni_err *err)
{
	const char *path = a->conf.devinfo_file;
	const struct devinfo d = {
		.pci = a->vf.bdf,
		.pf_pci = a->vf.pf_bdf,
		.rdma = a->conf.rdma ? a->state.rdma_name : "",
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
	int ret;

	if (!a->devinfo_doc)
		return 0;
	split(path, dir, &name);
	ret = fileio_mkdir(dir);
	if (!ret)
		ret = fileio_write(dir, name, a->devinfo_doc, strlen(a->devinfo_doc));
	return ret ? refused(ret, path, "write", err) : 0;
}

int devfile_remove(struct attach *a, struct cni_err *err)
{
	const char *path = a->conf.devinfo_file, *name;
	char dir[PATH_MAX];
	int ret;

	if (!path[0])
		return 0;
	split(path, dir, &name);
	ret = fileio_remove(dir, name);
	if (ret)
		return refused(ret, path, "remove", err);
	log_debug("device-info file %s removed", path);
	return 0;
}
