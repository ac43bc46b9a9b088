// SPDX-License-Identifier: Apache-2.0
/* Network namespaces: open a path checked to be one, enter it, and come back. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include <linux/nsfs.h>
#include "netns.h"

/* nsfs, and of type CLONE_NEWNET where the kernel can tell (NS_GET_NSTYPE, 4.11+). */
static bool is_netns(int fd)
{
	struct statfs sfs;
	int type;

	if (fstatfs(fd, &sfs) < 0 || sfs.f_type != NSFS_MAGIC)
		return false;
	type = ioctl(fd, NS_GET_NSTYPE);
	return type < 0 ? errno == ENOTTY : type == CLONE_NEWNET;
}

int netns_open(const char *path, int *fd, struct cni_err *err)
{
	int ret, nsfd;

	*fd = -1;
	nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0) {
		ret = -errno;
		if (ret != -ENOENT)
			cni_err_set(err, CNI_ERR_ENV, "failed to open netns \"%s\": %s",
				    path, strerror(-ret));
		return ret;
	}
	if (!is_netns(nsfd)) {
		close(nsfd);
		cni_err_set(err, CNI_ERR_ENV, "netns \"%s\" is not a network namespace", path);
		return -EINVAL;
	}
	*fd = nsfd;
	return 0;
}

int netns_current(void)
{
	int fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int netns_enter(int fd)
{
	return setns(fd, CLONE_NEWNET) < 0 ? -errno : 0;
}

void netns_close(int fd)
{
	if (fd >= 0)
		close(fd);
}
