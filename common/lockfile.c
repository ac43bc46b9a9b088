// SPDX-License-Identifier: Apache-2.0
/* Per-resource locks: an exclusive flock on a file in a directory, waited for by polling until a deadline. */
#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include "clock.h"
#include "lockfile.h"
#include "pathcomp.h"
#include "safeopen.h"

#define LOCK_POLL_NS (5 * 1000 * 1000)

static int lock_until(int fd, int timeout_ms)
{
	const struct timespec pause = { .tv_nsec = LOCK_POLL_NS };
	long deadline = clock_ms() + timeout_ms;

	for (;;) {
		if (!flock(fd, LOCK_EX | LOCK_NB))
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		if (clock_ms() >= deadline)
			return -ETIMEDOUT;
		nanosleep(&pause, NULL);
	}
}

int lockfile_lock(const char *dir, const char *name, int timeout_ms)
{
	int dirfd, fd, ret;

	if (!pathcomp_is_name(name))
		return -EINVAL;
	dirfd = safeopen_dir(dir, false);
	if (dirfd < 0)
		return dirfd;
	fd = openat(dirfd, name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	ret = fd < 0 ? -errno : 0;
	close(dirfd);
	if (ret)
		return ret;
	if (timeout_ms > 0) {
		ret = lock_until(fd, timeout_ms);
	} else {
		while ((ret = flock(fd, LOCK_EX)) && errno == EINTR)
			;
		if (ret)
			ret = -errno;
	}
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

void lockfile_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}
