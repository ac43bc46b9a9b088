// SPDX-License-Identifier: Apache-2.0
/* Unit tests for lockfile.c: the lock file's mode, exclusion, the timeout, names and symlinks refused, the wait on an open file. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include "lockfile.h"
#include "scratch.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void setup(void)
{
	scratch_make("test-lockfile", false);
}

static const char *const bad_names[] = { "", ".", "..", "a/b", "../x", "/etc", NULL };

START_TEST(test_bad_names)
{
	ck_assert_int_eq(lockfile_lock(scratch_dir, bad_names[_i], 0), -EINVAL);
}
END_TEST

START_TEST(test_symlink_refused)
{
	ck_assert_int_eq(close(open(scratch_at("target"), O_WRONLY | O_CREAT, 0600)), 0);
	ck_assert_int_eq(symlink(scratch_at("target"), scratch_at("link")), 0);
	ck_assert_int_eq(lockfile_lock(scratch_dir, "link", 0), -ELOOP);
}
END_TEST

/* A lock dir with a symlink on its way: no lock file is made where it points. */
START_TEST(test_dir_symlink_refused)
{
	struct stat st;

	ck_assert_int_eq(mkdir(scratch_at("real"), 0700), 0);
	ck_assert_int_eq(mkdir(scratch_at("real/state"), 0700), 0);
	ck_assert_int_eq(symlink(scratch_at("real"), scratch_at("link")), 0);
	ck_assert_int_lt(lockfile_lock(scratch_at("link/state"), "x.lock", 0), 0);
	ck_assert_int_ne(lstat(scratch_at("real/state/x.lock"), &st), 0);
}
END_TEST

START_TEST(test_lock_timeout)
{
	char path[128];
	int a, b;

	a = lockfile_lock(scratch_dir, "vf.lock", 0);
	ck_assert_int_ge(a, 0);
	scratch_path(path, sizeof(path), "vf.lock");
	ck_assert_int_eq(scratch_mode(path), 0600);
	/* a second open file description conflicts even in the same process */
	ck_assert_int_eq(lockfile_lock(scratch_dir, "vf.lock", 30), -ETIMEDOUT);
	lockfile_unlock(a);
	b = lockfile_lock(scratch_dir, "vf.lock", 30);
	ck_assert_int_ge(b, 0);
	lockfile_unlock(b);
	lockfile_unlock(-1);
}
END_TEST

START_TEST(test_lock_is_exclusive)
{
	char path[128];
	int a, fd;

	a = lockfile_lock(scratch_dir, "x.lock", 1000);
	ck_assert_int_ge(a, 0);
	scratch_path(path, sizeof(path), "x.lock");
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(flock(fd, LOCK_SH | LOCK_NB), -1);
	ck_assert_int_eq(errno, EWOULDBLOCK);
	lockfile_unlock(a);
	ck_assert_int_eq(flock(fd, LOCK_SH | LOCK_NB), 0);
	close(fd);
}
END_TEST

/* lockfile_lock_fd: the wait of lockfile_lock on a file that stays open. */
START_TEST(test_lock_fd)
{
	int a, fd;

	a = lockfile_lock(scratch_dir, "s", 0);
	ck_assert_int_ge(a, 0);
	fd = open(scratch_at("s"), O_RDWR);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(lockfile_lock_fd(fd, 30), -ETIMEDOUT);
	lockfile_unlock(a);
	ck_assert_int_eq(lockfile_lock_fd(fd, 30), 0);
	ck_assert_int_eq(flock(fd, LOCK_UN), 0);
	ck_assert_int_eq(lockfile_lock_fd(fd, 0), 0);
	close(fd);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_checked_fixture(tc, setup, scratch_remove);
	tcase_add_loop_test(tc, test_bad_names, 0, N(bad_names));
	tcase_add_test(tc, test_symlink_refused);
	tcase_add_test(tc, test_dir_symlink_refused);
	tcase_add_test(tc, test_lock_timeout);
	tcase_add_test(tc, test_lock_is_exclusive);
	tcase_add_test(tc, test_lock_fd);
}

int main(void)
{
	return unit_run("lockfile", add_tests);
}
