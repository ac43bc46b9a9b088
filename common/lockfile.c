// SPDX-License-Identifier: Apache-2.0
/* Per-resource locks: an exclusive flock on a file, waited for in the kernel until a deadline. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/time.h>
#include "clock.h"
#include "lockfile.h"
#include "pathcomp.h"
#include "safeopen.h"

#define LOCK_TICK_MS 10

/* SIGALRM is there only to interrupt flock. */
static void on_tick(int sig)
{
	(void)sig;
}

/* flock has no timeout. While it waits, a SIGALRM every LOCK_TICK_MS (no
 * SA_RESTART) interrupts it so that the deadline is checked: a periodic
 * timer, because one alarm firing just before flock sleeps would be lost.
 * A waiter blocks in the kernel, which hands it the lock the moment it is
 * let go (a poll would leave it idle until the next try: a store lock that
 * every ADD of a node takes must not). The uncontended path is one
 * non-blocking flock and no timer. Callers use no ITIMER_REAL of their own. */
static int lock_until(int fd, int timeout_ms)
{
	struct sigaction tick = { .sa_handler = on_tick }, old;
	const struct itimerval every = { { 0, LOCK_TICK_MS * 1000 }, { 0, LOCK_TICK_MS * 1000 } };
	const struct itimerval off = { { 0, 0 }, { 0, 0 } };
	long deadline;
	int ret;

	if (!flock(fd, LOCK_EX | LOCK_NB))
		return 0;
	if (errno != EWOULDBLOCK && errno != EINTR)
		return -errno;
	deadline = clock_ms() + timeout_ms;
	/* Neither call fails with these arguments. */
	sigemptyset(&tick.sa_mask);
	sigaction(SIGALRM, &tick, &old);
	setitimer(ITIMER_REAL, &every, NULL);
	while ((ret = flock(fd, LOCK_EX)) < 0 && errno == EINTR && clock_ms() < deadline)
		;
	ret = ret < 0 ? -errno : 0;
	/* Disarmed before the old action is back: no tick arrives after. */
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	return ret == -EINTR ? -ETIMEDOUT : ret;
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
	ret = lockfile_lock_fd(fd, timeout_ms);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

int lockfile_lock_fd(int fd, int timeout_ms)
{
	int ret;

	if (timeout_ms > 0)
		return lock_until(fd, timeout_ms);
	if (timeout_ms == LOCKFILE_TRY)
		return flock(fd, LOCK_EX | LOCK_NB) ? (errno == EWOULDBLOCK ? -ETIMEDOUT : -errno) : 0;
	while ((ret = flock(fd, LOCK_EX)) && errno == EINTR)
		;
	return ret ? -errno : 0;
}

void lockfile_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}
