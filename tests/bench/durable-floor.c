// SPDX-License-Identifier: Apache-2.0
/* Benchmark floor of a durable IPAM store: an otherwise empty program that commits one record as ippool commits a lease. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* In $FLOOR_DIR: temp file, write, fsync, rename to $CNI_CONTAINERID, fsync
 * the directory; what a store whose records must survive a power loss pays
 * at least once per ADD. */
int main(void)
{
	const char *dir = getenv("FLOOR_DIR"), *id = getenv("CNI_CONTAINERID");
	char record[128];
	int dirfd, fd, len, ret = 1;

	if (!dir || !id)
		return 2;
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return 1;
	len = snprintf(record, sizeof(record), "lease 1\ncontainerid %s\n", id);
	fd = openat(dirfd, ".tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0 && write(fd, record, (size_t)len) == len && fsync(fd) == 0 && close(fd) == 0 &&
	    renameat(dirfd, ".tmp", dirfd, id) == 0 && fsync(dirfd) == 0)
		ret = 0;
	close(dirfd);
	return ret;
}
