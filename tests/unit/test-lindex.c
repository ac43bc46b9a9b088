// SPDX-License-Identifier: Apache-2.0
/* Unit tests for ipam/ippool/lindex.c: the sorted mmap'd address arrays of the local store. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "lindex.h"
#include "unit.h"

static char dir[64];
static int dfd = -1;

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test-lindex.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(dfd, 0);
}

static void teardown(void)
{
	char cmd[128];

	close(dfd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static const char *dir_path(const char *name)
{
	static char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void assert_sorted(const struct lidx *x)
{
	for (size_t i = 1; i < lidx_len(x); i++)
		ck_assert(x->a[i - 1] < x->a[i]);
}

/* Inserts in a scrambled order survive a reopen sorted and unique, across growth. */
START_TEST(test_insert_reopen)
{
	struct lidx x;
	const size_t n = 5000;

	ck_assert_int_eq(lidx_open(dfd, "s.idx", &x), -ENOENT);
	ck_assert_int_eq(lidx_create(dfd, "s.idx", &x), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(lidx_insert(&x, ((ipaddr_u128)1 << 100) + (i * 7919) % n), 0);
	ck_assert_int_eq(lidx_insert(&x, ((ipaddr_u128)1 << 100) + 3), -EEXIST);
	lidx_close(&x);
	ck_assert_int_eq(lidx_open(dfd, "s.idx", &x), 0);
	ck_assert_uint_eq(lidx_len(&x), n);
	assert_sorted(&x);
	ck_assert(lidx_has(&x, ((ipaddr_u128)1 << 100) + n - 1));
	ck_assert(!lidx_has(&x, ((ipaddr_u128)1 << 100) + n));
	ck_assert_int_eq(lidx_create(dfd, "s.idx", &x), -EEXIST);
	ck_assert_int_eq(lidx_remove(&x, ((ipaddr_u128)1 << 100) + 10), 0);
	ck_assert_int_eq(lidx_remove(&x, ((ipaddr_u128)1 << 100) + 10), -ENOENT);
	ck_assert_uint_eq(lidx_len(&x), n - 1);
	assert_sorted(&x);
	lidx_close(&x);
}
END_TEST

/* A valid file with no room yet still takes inserts. */
START_TEST(test_empty_file_grows)
{
	struct lidx x;
	int fd = openat(dfd, "e.idx", O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "ippoolx1\0\0\0\0\0\0\0\0", 16), 16);
	close(fd);
	ck_assert_int_eq(lidx_open(dfd, "e.idx", &x), 0);
	ck_assert_int_eq(lidx_insert(&x, 42), 0);
	ck_assert(lidx_has(&x, 42));
	lidx_close(&x);
}
END_TEST

START_TEST(test_write)
{
	ipaddr_u128 a[] = { 1, 5, 9, (ipaddr_u128)-2 };
	struct lidx x;

	ck_assert_int_eq(lidx_write(dfd, "w.idx", a, 4), 0);
	ck_assert_int_eq(lidx_open(dfd, "w.idx", &x), 0);
	ck_assert_uint_eq(lidx_len(&x), 4);
	ck_assert(lidx_has(&x, (ipaddr_u128)-2));
	lidx_close(&x);
	ck_assert_int_eq(lidx_write(dfd, "w.idx", a, 1), 0);
	ck_assert_int_eq(lidx_open(dfd, "w.idx", &x), 0);
	ck_assert_uint_eq(lidx_len(&x), 1);
	lidx_close(&x);
}
END_TEST

/* A file of the wrong shape is refused, not trusted. */
static const struct {
	const char *data;
	size_t len;
} bad[] = {
	{ "garbage", 7 },
	{ "ippoolx1\xff\xff\xff\xff\xff\xff\xff\xff", 16 },	/* count past capacity */
	{ "notmagic\0\0\0\0\0\0\0\0", 16 },
	{ "ippoolx1\0\0\0\0\0\0\0\0xyz", 19 },			/* torn entry */
	{ "", 0 },						/* cut to nothing */
	{ "ippoolx", 7 },					/* torn header */
	/* two entries out of order, and two the same: a search would miss them */
	{ "ippoolx1\x02\0\0\0\0\0\0\0" "\x09\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
	  "\x05\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 48 },
	{ "ippoolx1\x02\0\0\0\0\0\0\0" "\x05\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
	  "\x05\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 48 },
};

START_TEST(test_bad_file)
{
	struct lidx x;
	int fd = openat(dfd, "b.idx", O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, bad[_i].data, bad[_i].len), (ssize_t)bad[_i].len);
	close(fd);
	ck_assert_int_eq(lidx_open(dfd, "b.idx", &x), -EBADMSG);
}
END_TEST

/* What stands where an index should be and is none: refused, not followed or waited on. */
START_TEST(test_not_a_file)
{
	struct lidx x;

	ck_assert_int_eq(mkfifo(dir_path("fifo.idx"), 0600), 0);
	ck_assert_int_eq(lidx_open(dfd, "fifo.idx", &x), -EBADMSG);
	ck_assert_int_eq(symlinkat("/etc/passwd", dfd, "link.idx"), 0);
	ck_assert_int_eq(lidx_open(dfd, "link.idx", &x), -EBADMSG);
	ck_assert_int_eq(mkdirat(dfd, "dir.idx", 0700), 0);
	ck_assert_int_ne(lidx_open(dfd, "dir.idx", &x), 0);
}
END_TEST

/* Past 2^26 entries a file is damage, however well its header reads. */
START_TEST(test_oversized)
{
	struct lidx x;
	int fd = openat(dfd, "big.idx", O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "ippoolx1\1\0\0\0\0\0\0\0", 16), 16);
	ck_assert_int_eq(ftruncate(fd, 16 + ((off_t)1 << 26) * 16 + 16), 0);
	close(fd);
	ck_assert_int_eq(lidx_open(dfd, "big.idx", &x), -EBADMSG);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_insert_reopen);
	tcase_add_test(tc, test_empty_file_grows);
	tcase_add_test(tc, test_write);
	tcase_add_loop_test(tc, test_bad_file, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, test_not_a_file);
	tcase_add_test(tc, test_oversized);
}

int main(void)
{
	return unit_run("lindex", add_tests);
}
