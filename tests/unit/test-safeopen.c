// SPDX-License-Identifier: Apache-2.0
/* Unit tests for safeopen.c: walks that create, refuse symlinks and FIFOs, and trust only root's directories. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "safeopen.h"
#include "scratch.h"
#include "unit.h"

static void setup(void)
{
	scratch_make("test-safeopen", true);
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

START_TEST(test_open_dir_creates)
{
	struct stat st;
	int fd = safeopen_dir(scratch_at("a/b/c"), true);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(st.st_mode & 0777, 0700);
	close(fd);
	ck_assert_int_eq(safeopen_dir(scratch_at("x/y"), false), -ENOENT);
	ck_assert(!exists(scratch_at("x")));
	ck_assert_int_eq(safeopen_dir("relative", true), -EINVAL);
}
END_TEST

/* A symlink anywhere on the way is refused, and nothing is made beyond it. */
START_TEST(test_open_dir_symlink)
{
	int ret;

	ck_assert_int_eq(mkdir(scratch_at("real"), 0700), 0);
	ck_assert_int_eq(symlink(scratch_at("real"), scratch_at("link")), 0);
	ret = safeopen_dir(scratch_at("link/sub"), true);
	ck_assert_msg(ret == -ENOTDIR || ret == -ELOOP, "%d", ret);
	ck_assert(!exists(scratch_at("real/sub")));
	ret = safeopen_dir(scratch_at("link"), false);
	ck_assert_msg(ret == -ENOTDIR || ret == -ELOOP, "%d", ret);
}
END_TEST

START_TEST(test_open_file)
{
	char buf[8] = "";
	int fd;

	fd = safeopen_file(scratch_at("log"), O_WRONLY | O_CREAT | O_APPEND, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "abc", 3), 3);
	close(fd);
	fd = safeopen_file(scratch_at("log"), O_RDONLY, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, buf, sizeof(buf)), 3);
	close(fd);
	ck_assert_int_eq(symlink(scratch_at("log"), scratch_at("ln")), 0);
	ck_assert_int_eq(safeopen_file(scratch_at("ln"), O_RDONLY, 0), -ELOOP);
	ck_assert_int_eq(mkfifo(scratch_at("fifo"), 0600), 0);
	/* neither blocks nor is taken for a file */
	ck_assert_int_eq(safeopen_file(scratch_at("fifo"), O_WRONLY | O_APPEND, 0), -ENXIO);
	ck_assert_int_eq(safeopen_file(scratch_at("fifo"), O_RDONLY, 0), -EINVAL);
	ck_assert_int_eq(safeopen_file(scratch_at("nodir/log"), O_WRONLY | O_CREAT, 0600), -ENOENT);
	ck_assert_int_eq(safeopen_file(scratch_at(".."), O_RDONLY, 0), -EINVAL);
}
END_TEST

START_TEST(test_open_file_dir_symlink)
{
	ck_assert_int_eq(mkdir(scratch_at("real"), 0700), 0);
	ck_assert_int_eq(symlink(scratch_at("real"), scratch_at("link")), 0);
	ck_assert_int_lt(safeopen_file(scratch_at("link/new.log"), O_WRONLY | O_CREAT, 0600), 0);
	ck_assert(!exists(scratch_at("real/new.log")));
}
END_TEST

/* Only root's directories (uid 0, not writable by group or other) lead to a
 * trusted file; a missing part is missing, whoever owns the rest. As non-root
 * the test's own directories are not root's. */
START_TEST(test_open_file_trusted)
{
	int fd;

	ck_assert_int_eq(mkdir(scratch_at("d"), 0755), 0);
	fd = open(scratch_at("d/f"), O_WRONLY | O_CREAT, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	if (geteuid() != 0) {
		ck_assert_int_eq(safeopen_file_trusted(scratch_at("d/f"), O_RDONLY, 0), -EPERM);
		return;
	}
	fd = safeopen_file_trusted(scratch_at("d/f"), O_RDONLY, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert(safeopen_trusted(fd));
	close(fd);
	ck_assert_int_eq(safeopen_file_trusted(scratch_at("d/none"), O_RDONLY, 0), -ENOENT);
	ck_assert_int_eq(safeopen_file_trusted(scratch_at("none/f"), O_RDONLY, 0), -ENOENT);
	ck_assert_int_eq(chmod(scratch_at("d"), 0775), 0);
	ck_assert_int_eq(safeopen_file_trusted(scratch_at("d/f"), O_RDONLY, 0), -EPERM);
	fd = safeopen_file(scratch_at("d/f"), O_RDONLY, 0);
	ck_assert_int_ge(fd, 0);
	close(fd);
}
END_TEST

START_TEST(test_find_symlink)
{
	char prefix[PATH_MAX];

	ck_assert_int_eq(mkdir(scratch_at("real"), 0700), 0);
	ck_assert_int_eq(symlink(scratch_at("real"), scratch_at("link")), 0);
	safeopen_find_symlink(scratch_at("link/a/b"), prefix);
	ck_assert_str_eq(prefix, scratch_at("link"));
	safeopen_find_symlink(scratch_at("real/a/b"), prefix);
	ck_assert_str_eq(prefix, "");
	safeopen_find_symlink(scratch_at("real"), prefix);
	ck_assert_str_eq(prefix, "");
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_checked_fixture(tc, setup, scratch_remove);
	tcase_add_test(tc, test_open_dir_creates);
	tcase_add_test(tc, test_open_dir_symlink);
	tcase_add_test(tc, test_open_file);
	tcase_add_test(tc, test_open_file_dir_symlink);
	tcase_add_test(tc, test_open_file_trusted);
	tcase_add_test(tc, test_find_symlink);
}

int main(void)
{
	return unit_run("safeopen", add_tests);
}
