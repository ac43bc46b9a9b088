// SPDX-License-Identifier: Apache-2.0
/* Unit tests for fileio.c: modes, atomic replace, names confined to the dir, symlinks, the dirfd forms. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "fileio.h"
#include "scratch.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void setup(void)
{
	scratch_make("test-fileio", false);
}

START_TEST(test_mkdir_parents)
{
	char dir[128], mid[128];

	scratch_path(dir, sizeof(dir), "a/b/c");
	scratch_path(mid, sizeof(mid), "a/b");
	ck_assert_int_eq(fileio_mkdir(dir), 0);
	ck_assert_int_eq(scratch_mode(dir), 0700);
	ck_assert_int_eq(scratch_mode(mid), 0700);
	ck_assert_int_eq(fileio_mkdir(dir), 0);
	scratch_path(dir, sizeof(dir), "a/b/c/");
	ck_assert_int_eq(fileio_mkdir(dir), 0);
}
END_TEST

START_TEST(test_mkdir_over_file)
{
	char file[128], dir[128];

	scratch_path(file, sizeof(file), "f");
	ck_assert_int_eq(fileio_write(scratch_dir, "f", "x", 1), 0);
	ck_assert_int_eq(fileio_mkdir(file), -ENOTDIR);
	scratch_path(dir, sizeof(dir), "f/g");
	ck_assert_int_eq(fileio_mkdir(dir), -ENOTDIR);
	ck_assert_int_eq(fileio_mkdir(""), -EINVAL);
}
END_TEST

START_TEST(test_write_read)
{
	char path[128], *data;
	size_t len;

	ck_assert_int_eq(fileio_write(scratch_dir, "c1-net1.json", "{\"a\":1}", 7), 0);
	scratch_path(path, sizeof(path), "c1-net1.json");
	ck_assert_int_eq(scratch_mode(path), 0600);
	ck_assert_int_eq(fileio_read(scratch_dir, "c1-net1.json", &data, &len), 0);
	ck_assert_uint_eq(len, 7);
	ck_assert_str_eq(data, "{\"a\":1}");
	free(data);
}
END_TEST

START_TEST(test_replace_is_atomic)
{
	char path[128], *data = NULL, **names;
	struct stat before, after;
	size_t n, i;
	int fd;

	ck_assert_int_eq(fileio_write(scratch_dir, "state", "old", 3), 0);
	scratch_path(path, sizeof(path), "state");
	/* a reader holding the old file keeps the old content: a new inode replaces it */
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &before), 0);
	ck_assert_int_eq(fileio_write(scratch_dir, "state", "new-content", 11), 0);
	ck_assert_int_eq(stat(path, &after), 0);
	ck_assert_uint_ne(before.st_ino, after.st_ino);
	close(fd);
	ck_assert_int_eq(fileio_read(scratch_dir, "state", &data, NULL), 0);
	ck_assert_str_eq(data, "new-content");
	free(data);
	/* no temp file left behind (fileio_list skips dot files: look for it) */
	scratch_path(path, sizeof(path), ".state.tmp");
	ck_assert_int_eq(access(path, F_OK), -1);
	ck_assert_int_eq(fileio_list(scratch_dir, "", &names, &n), 0);
	ck_assert_uint_eq(n, 1);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
END_TEST

/* A writer killed between creating its temp file and the rename. */
static void leave_temp(const char *name, const char *junk)
{
	char tmp[64], path[128];
	int fd;

	snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
	scratch_path(path, sizeof(path), tmp);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, junk, strlen(junk)), (ssize_t)strlen(junk));
	close(fd);
}

START_TEST(test_killed_writer)
{
	char path[128], *data;

	/* the next write truncates what the killed one left and commits its own */
	leave_temp("s", "half-written junk that is longer");
	ck_assert_int_eq(fileio_write(scratch_dir, "s", "new", 3), 0);
	ck_assert_int_eq(fileio_read(scratch_dir, "s", &data, NULL), 0);
	ck_assert_str_eq(data, "new");
	free(data);
	scratch_path(path, sizeof(path), ".s.tmp");
	ck_assert_int_eq(access(path, F_OK), -1);
	/* remove clears a leftover temp file with the file, and without it */
	leave_temp("s", "junk");
	ck_assert_int_eq(fileio_remove(scratch_dir, "s"), 0);
	ck_assert_int_eq(access(path, F_OK), -1);
	ck_assert_int_eq(fileio_read(scratch_dir, "s", &data, NULL), -ENOENT);
	leave_temp("gone", "junk");
	ck_assert_int_eq(fileio_remove(scratch_dir, "gone"), 0);
	scratch_path(path, sizeof(path), ".gone.tmp");
	ck_assert_int_eq(access(path, F_OK), -1);
}
END_TEST

START_TEST(test_write_empty_and_large)
{
	size_t size = 3 << 20, len;
	char *big = malloc(size), *data;

	memset(big, 'z', size);
	ck_assert_int_eq(fileio_write(scratch_dir, "empty", "", 0), 0);
	ck_assert_int_eq(fileio_read(scratch_dir, "empty", &data, &len), 0);
	ck_assert_uint_eq(len, 0);
	free(data);
	ck_assert_int_eq(fileio_write(scratch_dir, "big", big, size), 0);
	ck_assert_int_eq(fileio_read(scratch_dir, "big", &data, &len), 0);
	ck_assert_uint_eq(len, size);
	ck_assert(!memcmp(data, big, size));
	free(data);
	free(big);
}
END_TEST

static const char *const bad_names[] = { "", ".", "..", "a/b", "../x", "/etc", NULL };

START_TEST(test_bad_names)
{
	char *data = (char *)1;

	ck_assert_int_eq(fileio_write(scratch_dir, bad_names[_i], "x", 1), -EINVAL);
	ck_assert_int_eq(fileio_read(scratch_dir, bad_names[_i], &data, NULL), -EINVAL);
	ck_assert_ptr_null(data);
	ck_assert_int_eq(fileio_remove(scratch_dir, bad_names[_i]), -EINVAL);
}
END_TEST

START_TEST(test_read_missing)
{
	char *data = (char *)1, dir[128];

	ck_assert_int_eq(fileio_read(scratch_dir, "absent", &data, NULL), -ENOENT);
	ck_assert_ptr_null(data);
	scratch_path(dir, sizeof(dir), "nodir");
	ck_assert_int_eq(fileio_write(dir, "x", "x", 1), -ENOENT);
}
END_TEST

START_TEST(test_symlink_refused)
{
	char link[128], target[128], *data = NULL;

	scratch_path(target, sizeof(target), "target");
	scratch_path(link, sizeof(link), "link");
	ck_assert_int_eq(fileio_write(scratch_dir, "target", "secret", 6), 0);
	ck_assert_int_eq(symlink(target, link), 0);
	ck_assert_int_eq(fileio_read(scratch_dir, "link", &data, NULL), -ELOOP);
	ck_assert_ptr_null(data);
	/* writing over a symlink replaces the link, never the file it points to */
	ck_assert_int_eq(fileio_write(scratch_dir, "link", "mine", 4), 0);
	ck_assert_int_eq(scratch_mode(link) & 0777, 0600);
	ck_assert_int_eq(fileio_read(scratch_dir, "target", &data, NULL), 0);
	ck_assert_str_eq(data, "secret");
	free(data);
}
END_TEST

/* A dataDir with a symlink on its way: nothing is made, written or removed
 * where it points (the state file there survives). */
START_TEST(test_dir_symlink_refused)
{
	char real[128], link[128], via[128], kept[128];
	struct stat st;

	scratch_path(real, sizeof(real), "real");
	scratch_path(link, sizeof(link), "link");
	scratch_path(via, sizeof(via), "link/state");
	scratch_path(kept, sizeof(kept), "real/state");
	ck_assert_int_eq(fileio_mkdir(real), 0);
	ck_assert_int_eq(symlink(real, link), 0);
	ck_assert_int_lt(fileio_mkdir(via), 0);
	ck_assert_int_ne(lstat(kept, &st), 0);
	scratch_path(kept, sizeof(kept), "real/state/x.json");
	scratch_path(via, sizeof(via), "real/state");
	ck_assert_int_eq(fileio_mkdir(via), 0);
	ck_assert_int_eq(fileio_write(via, "x.json", "{}", 2), 0);
	scratch_path(via, sizeof(via), "link/state");
	ck_assert_int_lt(fileio_write(via, "y.json", "{}", 2), 0);
	ck_assert_int_lt(fileio_remove(via, "x.json"), 0);
	ck_assert_int_eq(lstat(kept, &st), 0);
	scratch_path(kept, sizeof(kept), "real/state/y.json");
	ck_assert_int_ne(lstat(kept, &st), 0);
}
END_TEST

START_TEST(test_read_not_regular)
{
	char dir[128], *data = NULL;

	scratch_path(dir, sizeof(dir), "d");
	ck_assert_int_eq(fileio_mkdir(dir), 0);
	ck_assert_int_eq(fileio_read(scratch_dir, "d", &data, NULL), -EINVAL);
	ck_assert_ptr_null(data);
}
END_TEST

/* A FIFO in a file's place is refused, not waited on for a writer. */
START_TEST(test_read_fifo)
{
	char path[128], *data = NULL;

	scratch_path(path, sizeof(path), "fifo");
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(fileio_read(scratch_dir, "fifo", &data, NULL), -EINVAL);
	ck_assert_ptr_null(data);
}
END_TEST

START_TEST(test_read_max)
{
	char *data = NULL;
	size_t len = 0;

	ck_assert_int_eq(fileio_write(scratch_dir, "f", "0123456789", 10), 0);
	ck_assert_int_eq(fileio_read_max(scratch_dir, "f", 9, &data, &len), -EFBIG);
	ck_assert_ptr_null(data);
	ck_assert_int_eq(fileio_read_max(scratch_dir, "f", 10, &data, &len), 0);
	ck_assert_str_eq(data, "0123456789");
	ck_assert_uint_eq(len, 10);
	free(data);
}
END_TEST

START_TEST(test_remove)
{
	char *data;

	ck_assert_int_eq(fileio_write(scratch_dir, "x", "1", 1), 0);
	ck_assert_int_eq(fileio_remove(scratch_dir, "x"), 0);
	ck_assert_int_eq(fileio_read(scratch_dir, "x", &data, NULL), -ENOENT);
	ck_assert_int_eq(fileio_remove(scratch_dir, "x"), 0);
}
END_TEST

START_TEST(test_list)
{
	const char *files[] = { "c2-net1.json", "c1-net1.json", "c1.lock", ".c3-net1.json.tmp" };
	char dir[128], **names;
	size_t n, i;

	for (i = 0; i < N(files); i++)
		ck_assert_int_eq(fileio_write(scratch_dir, files[i], "x", 1), 0);
	ck_assert_int_eq(fileio_list(scratch_dir, ".json", &names, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(names[0], "c1-net1.json");
	ck_assert_str_eq(names[1], "c2-net1.json");
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	scratch_path(dir, sizeof(dir), "absent");
	ck_assert_int_eq(fileio_list(dir, ".json", &names, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(names);
	scratch_path(dir, sizeof(dir), "c1.lock");
	ck_assert_int_eq(fileio_list(dir, ".json", &names, &n), -ENOTDIR);
}
END_TEST

/* The dirfd forms do what the path forms do, in the directory given. */
START_TEST(test_at)
{
	char *data, **names;
	size_t len, n;
	int dirfd = open(scratch_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	ck_assert_int_ge(dirfd, 0);
	ck_assert_int_eq(fileio_write_at(dirfd, "a", "one", 3), 0);
	ck_assert_int_eq(fileio_write_durable_at(dirfd, "b", "two!", 4, 0600), 0);
	ck_assert_int_eq(scratch_mode(scratch_at("a")), 0600);
	ck_assert_int_eq(fileio_read_at(dirfd, "b", 4, &data, &len), 0);
	ck_assert_str_eq(data, "two!");
	ck_assert_uint_eq(len, 4);
	free(data);
	ck_assert_int_eq(fileio_read_at(dirfd, "b", 3, &data, &len), -EFBIG);
	ck_assert_int_eq(fileio_read_at(dirfd, "absent", 3, &data, &len), -ENOENT);
	ck_assert_int_eq(fileio_read_at(dirfd, "../a", 3, &data, &len), -EINVAL);
	ck_assert_int_eq(fileio_write_at(dirfd, "x/y", "z", 1), -EINVAL);
	ck_assert_int_eq(symlink("a", scratch_at("l")), 0);
	ck_assert_int_eq(fileio_read_at(dirfd, "l", 8, &data, &len), -ELOOP);
	/* a killed writer's temp file: dot files are not listed, and reaped */
	leave_temp("c", "junk");
	ck_assert_int_eq(fileio_list_at(dirfd, "", &names, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(names[0], "a");
	ck_assert_str_eq(names[1], "b");
	ck_assert_str_eq(names[2], "l");
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	ck_assert_int_eq(fileio_reap_at(dirfd), 0);
	ck_assert_int_eq(access(scratch_at(".c.tmp"), F_OK), -1);
	ck_assert_int_eq(access(scratch_at("a"), F_OK), 0);
	close(dirfd);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_checked_fixture(tc, setup, scratch_remove);
	tcase_add_test(tc, test_mkdir_parents);
	tcase_add_test(tc, test_mkdir_over_file);
	tcase_add_test(tc, test_write_read);
	tcase_add_test(tc, test_replace_is_atomic);
	tcase_add_test(tc, test_write_empty_and_large);
	tcase_add_loop_test(tc, test_bad_names, 0, N(bad_names));
	tcase_add_test(tc, test_read_missing);
	tcase_add_test(tc, test_symlink_refused);
	tcase_add_test(tc, test_dir_symlink_refused);
	tcase_add_test(tc, test_read_not_regular);
	tcase_add_test(tc, test_read_fifo);
	tcase_add_test(tc, test_read_max);
	tcase_add_test(tc, test_remove);
	tcase_add_test(tc, test_killed_writer);
	tcase_add_test(tc, test_list);
	tcase_add_test(tc, test_at);
}

int main(void)
{
	return unit_run("fileio", add_tests);
}
