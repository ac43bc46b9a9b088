// SPDX-License-Identifier: Apache-2.0
/* Fuzz target: an index file of the local store as damage may leave it. It
 * is refused, or opens with its count within its size and takes inserts and
 * removals without reading or writing outside the file. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "lindex.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char work_dir[] = "/tmp/fuzz-lindex.XXXXXX";

/* libFuzzer and the replay runner both end through exit(). */
static void remove_work_dir(void)
{
	char path[sizeof(work_dir) + 8];

	snprintf(path, sizeof(path), "%s/f.idx", work_dir);
	unlink(path);
	rmdir(work_dir);
}

static int dirfd_once(void)
{
	static int dfd = -1;

	if (dfd < 0 && mkdtemp(work_dir)) {
		atexit(remove_work_dir);
		dfd = open(work_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	return dfd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int dfd = dirfd_once(), fd, ret;
	ipaddr_u128 v;
	struct lidx x;

	if (dfd < 0)
		return 0;
	unlinkat(dfd, "f.idx", 0);
	fd = openat(dfd, "f.idx", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	close(fd);
	ret = lidx_open(dfd, "f.idx", &x);
	if (ret) {
		if (ret != -EBADMSG)
			abort();
		return 0;
	}
	if (lidx_len(&x) > x.cap || x.map_len != size)
		abort();
	/* an address from the input's tail, in and out again */
	v = size >= 4 ? (ipaddr_u128)data[size - 1] << 24 | data[size - 2] << 16 | data[size - 3] << 8 : 7;
	if (!lidx_has(&x, v)) {
		ret = lidx_insert(&x, v);
		if (ret && ret != -EEXIST && ret != -EFBIG && ret != -ENOSPC)
			abort();
		if (!ret && (!lidx_has(&x, v) || lidx_remove(&x, v)))
			abort();
	}
	lidx_close(&x);
	return 0;
}
