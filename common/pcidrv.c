// SPDX-License-Identifier: Apache-2.0
/* Unbinding and binding a PCI device's driver by writing its address to sysfs. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "pcidrv.h"
#include "sysfs.h"

/* The driver's unbind or bind attribute takes the device's address; the
 * write returns what the driver core made of it. */
static int write_addr(const char *driver, const char *attr, const char *bdf)
{
	char path[PATH_MAX];
	size_t len = strlen(bdf);
	ssize_t n;
	int fd, ret = 0;

	if (!sysfs_valid_bdf(bdf) || !driver[0] || strchr(driver, '/') || !strcmp(driver, "..") ||
	    snprintf(path, sizeof(path), "%s/bus/pci/drivers/%s/%s", sysfs_root(), driver, attr) >=
	    (int)sizeof(path))
		return -EINVAL;
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	n = write(fd, bdf, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	close(fd);
	return ret;
}

int pcidrv_unbind(const char *driver, const char *bdf)
{
	return write_addr(driver, "unbind", bdf);
}

int pcidrv_bind(const char *driver, const char *bdf)
{
	return write_addr(driver, "bind", bdf);
}
