// SPDX-License-Identifier: Apache-2.0
/* netns: only network namespaces open; entering one is seen by the kernel. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "netns.h"
#include "unit.h"

static char dir[PATH_MAX], file[PATH_MAX];

static void setup(void)
{
	int fd;

	snprintf(dir, sizeof(dir), "/tmp/test-netns-%d-XXXXXX", getpid());
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert(snprintf(file, sizeof(file), "%s/file", dir) < (int)sizeof(file));
	fd = open(file, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
}

static void teardown(void)
{
	unlink(file);
	rmdir(dir);
}

static const struct {
	const char *path;	/* "@file", "@dir": the fixture's */
	int ret;
	int code;
	bool named;		/* the message names the path */
} cases[] = {
	{ "/proc/self/ns/net", 0, CNI_OK, false },
	{ "/proc/thread-self/ns/net", 0, CNI_OK, false },
	{ "/proc/self/ns/uts", -EINVAL, CNI_ERR_ENV, true },
	{ "@file", -EINVAL, CNI_ERR_ENV, true },
	{ "@dir", -EINVAL, CNI_ERR_ENV, true },
	{ "/var/run/netns/test-netns-does-not-exist", -ENOENT, CNI_OK, false },
};

START_TEST(test_open)
{
	const char *path = cases[_i].path;
	struct cni_err err = { 0 };
	char want[CNI_ERR_MSG_MAX];
	int fd = 42;

	if (!strcmp(path, "@file"))
		path = file;
	else if (!strcmp(path, "@dir"))
		path = dir;
	ck_assert_int_eq(netns_open(path, &fd, &err), cases[_i].ret);
	ck_assert_int_eq(err.code, cases[_i].code);
	if (cases[_i].named) {
		ck_assert(snprintf(want, sizeof(want), "netns \"%s\" is not a network namespace",
				   path) < (int)sizeof(want));
		ck_assert_str_eq(err.msg, want);
	}
	if (cases[_i].ret < 0)
		ck_assert_int_eq(fd, -1);
	else
		ck_assert_int_ge(fd, 0);
	netns_close(fd);
}
END_TEST

/* The inode of the netns behind fd (what `ip netns identify` compares). */
static unsigned long inode_of(int fd)
{
	struct stat st;

	ck_assert_int_eq(fstat(fd, &st), 0);
	return st.st_ino;
}

START_TEST(test_current_inode)
{
	struct stat st;
	int fd = netns_current();

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(stat("/proc/self/ns/net", &st), 0);
	ck_assert_uint_eq(inode_of(fd), st.st_ino);
	netns_close(fd);
	netns_close(-1);
}
END_TEST

/* Root: two fresh netns in this forked child; entering one is what
 * /proc/self/ns/net (what `ip netns identify` compares) then shows. */
START_TEST(test_enter)
{
	struct cni_err err = { 0 };
	unsigned long a_ino, b_ino;
	int a, b;
	struct stat st;

	ck_assert_int_eq(unshare(CLONE_NEWNET), 0);
	ck_assert_int_eq(netns_open("/proc/self/ns/net", &a, &err), 0);
	ck_assert_int_eq(unshare(CLONE_NEWNET), 0);
	b = netns_current();
	ck_assert_int_ge(b, 0);
	a_ino = inode_of(a);
	b_ino = inode_of(b);
	ck_assert_uint_ne(a_ino, b_ino);
	ck_assert_int_eq(netns_enter(a), 0);
	ck_assert_int_eq(stat("/proc/self/ns/net", &st), 0);
	ck_assert_uint_eq(st.st_ino, a_ino);
	ck_assert_int_eq(netns_enter(b), 0);
	ck_assert_int_eq(stat("/proc/self/ns/net", &st), 0);
	ck_assert_uint_eq(st.st_ino, b_ino);
	ck_assert_int_eq(netns_enter(-1), -EBADF);
	netns_close(b);
	netns_close(a);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_open, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, test_current_inode);
	if (geteuid() == 0)
		tcase_add_test(tc, test_enter);
	else
		printf("note: not root, netns enter case not registered\n");
}

int main(void)
{
	return unit_run("netns", add_tests);
}
