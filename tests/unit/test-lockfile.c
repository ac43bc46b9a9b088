// SPDX-License-Identifier: Apache-2.0
/* Unit tests for lockfile.c: the lock file's mode, exclusion, the timeout, names and symlinks refused. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include "lockfile.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static char root[64];

static void setup(void)
{
	strcpy(root, "/tmp/test-lockfile.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

static void sub(char *buf, size_t size, const char *rel)
{
	snprintf(buf, size, "%s/%s", root, rel);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	ck_assert_int_eq(lstat(path, &st), 0);
	return st.st_mode & 07777;
}

static const char *const bad_names[] = { "", ".", "..", "a/b", "../x", "/etc", NULL };

START_TEST(test_bad_names)
{
	ck_assert_int_eq(lockfile_lock(root, bad_names[_i], 0), -EINVAL);
}
END_TEST

START_TEST(test_symlink_refused)
{
	char link[128], target[128];

	sub(target, sizeof(target), "target");
	sub(link, sizeof(link), "link");
	ck_assert_int_eq(close(open(target, O_WRONLY | O_CREAT, 0600)), 0);
	ck_assert_int_eq(symlink(target, link), 0);
	ck_assert_int_eq(lockfile_lock(root, "link", 0), -ELOOP);
}
END_TEST

/* A lock dir with a symlink on its way: no lock file is made where it points. */
START_TEST(test_dir_symlink_refused)
{
	char real[128], link[128], via[128], kept[128];
	struct stat st;

	sub(real, sizeof(real), "real");
	sub(link, sizeof(link), "link");
	sub(via, sizeof(via), "link/state");
	sub(kept, sizeof(kept), "real/state/x.lock");
	ck_assert_int_eq(mkdir(real, 0700), 0);
	sub(real, sizeof(real), "real/state");
	ck_assert_int_eq(mkdir(real, 0700), 0);
	sub(real, sizeof(real), "real");
	ck_assert_int_eq(symlink(real, link), 0);
	ck_assert_int_lt(lockfile_lock(via, "x.lock", 0), 0);
	ck_assert_int_ne(lstat(kept, &st), 0);
}
END_TEST

START_TEST(test_lock_timeout)
{
	char path[128];
	int a, b;

	a = lockfile_lock(root, "vf.lock", 0);
	ck_assert_int_ge(a, 0);
	sub(path, sizeof(path), "vf.lock");
	ck_assert_int_eq(mode_of(path), 0600);
	/* a second open file description conflicts even in the same process */
	ck_assert_int_eq(lockfile_lock(root, "vf.lock", 30), -ETIMEDOUT);
	lockfile_unlock(a);
	b = lockfile_lock(root, "vf.lock", 30);
	ck_assert_int_ge(b, 0);
	lockfile_unlock(b);
	lockfile_unlock(-1);
}
END_TEST

START_TEST(test_lock_is_exclusive)
{
	char path[128];
	int a, fd;

	a = lockfile_lock(root, "x.lock", 1000);
	ck_assert_int_ge(a, 0);
	sub(path, sizeof(path), "x.lock");
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(flock(fd, LOCK_SH | LOCK_NB), -1);
	ck_assert_int_eq(errno, EWOULDBLOCK);
	lockfile_unlock(a);
	ck_assert_int_eq(flock(fd, LOCK_SH | LOCK_NB), 0);
	close(fd);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_bad_names, 0, N(bad_names));
	tcase_add_test(tc, test_symlink_refused);
	tcase_add_test(tc, test_dir_symlink_refused);
	tcase_add_test(tc, test_lock_timeout);
	tcase_add_test(tc, test_lock_is_exclusive);
}

int main(void)
{
	return unit_run("lockfile", add_tests);
}
