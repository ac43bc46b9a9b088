// SPDX-License-Identifier: Apache-2.0
/* nsident: a recorded netns is live only while its path names the same nsfs inode in the same boot. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "nsident.h"
#include "unit.h"

START_TEST(test_boot)
{
	char boot[NSIDENT_BOOT_MAX], again[NSIDENT_BOOT_MAX];

	ck_assert_int_eq(nsident_boot(boot), 0);
	ck_assert(nsident_boot_valid(boot));
	ck_assert_int_eq(nsident_boot(again), 0);
	ck_assert_str_eq(boot, again);
}
END_TEST

static const struct {
	const char *id;
	bool valid;
} boot_ids[] = {
	{ "0f2c6a6e-3b1d-4c55-9a7e-5d0b8f1e2a3c", true },
	{ "0F2C6A6E-3B1D-4C55-9A7E-5D0B8F1E2A3C", false },	/* the kernel writes lower case */
	{ "0f2c6a6e3b1d-4c55-9a7e-5d0b8f1e2a3c-", false },	/* dashes misplaced */
	{ "0f2c6a6e-3b1d-4c55-9a7e-5d0b8f1e2a3", false },	/* 35 */
	{ "0f2c6a6e-3b1d-4c55-9a7e-5d0b8f1e2a3c0", false },	/* 37 */
	{ "", false },
};

START_TEST(test_boot_valid)
{
	ck_assert_int_eq(nsident_boot_valid(boot_ids[_i].id), boot_ids[_i].valid);
}
END_TEST

START_TEST(test_of)
{
	struct nsident a, b;
	char file[] = "/tmp/test-nsident-XXXXXX";
	int fd = mkstemp(file);

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(nsident_of("/proc/self/ns/net", &a), 0);
	ck_assert_int_eq(nsident_of("/proc/thread-self/ns/net", &b), 0);
	ck_assert(a.ino && a.ino == b.ino && a.dev == b.dev);
	ck_assert_int_eq(nsident_of(file, &b), -EINVAL);
	ck_assert_int_eq(nsident_of("/var/run/netns/test-nsident-absent", &b), -ENOENT);
	unlink(file);
}
END_TEST

/* A child in a netns of its own: /proc/<pid>/ns/net names it while it lives. */
static pid_t spawn_netns(void)
{
	int pipefd[2];
	char c;
	pid_t pid;

	ck_assert_int_eq(pipe(pipefd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		close(pipefd[0]);
		if (unshare(CLONE_NEWNET) < 0)
			_exit(1);
		(void)!write(pipefd[1], "x", 1);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	ck_assert_int_eq(read(pipefd[0], &c, 1), 1);
	close(pipefd[0]);
	return pid;
}

START_TEST(test_judge)
{
	char boot[NSIDENT_BOOT_MAX], path[PATH_MAX], self_path[] = "/proc/self/ns/net";
	struct nsident rec, self, tmp;
	pid_t pid;

	ck_assert_int_eq(nsident_boot(boot), 0);
	pid = spawn_netns();
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	ck_assert_int_eq(nsident_of(path, &rec), 0);
	memcpy(rec.boot, boot, sizeof(boot));
	ck_assert_int_eq(nsident_judge(path, &rec, boot), NSIDENT_LIVE);

	/* Another netns at the recorded path (a reused name or PID). */
	ck_assert_int_eq(nsident_of(self_path, &self), 0);
	memcpy(self.boot, boot, sizeof(boot));
	ck_assert_uint_ne(self.ino, rec.ino);
	ck_assert_int_eq(nsident_judge(self_path, &rec, boot), NSIDENT_GONE);
	/* The same inode in another boot. */
	tmp = rec;
	memcpy(tmp.boot, "00000000-0000-0000-0000-000000000000", 37);
	ck_assert_int_eq(nsident_judge(path, &tmp, boot), NSIDENT_GONE);
	/* Nothing recorded: never judged gone. */
	tmp = rec;
	tmp.ino = 0;
	ck_assert_int_eq(nsident_judge(path, &tmp, boot), NSIDENT_UNKNOWN);
	tmp = rec;
	tmp.boot[0] = '\0';
	ck_assert_int_eq(nsident_judge(path, &tmp, boot), NSIDENT_UNKNOWN);
	ck_assert_int_eq(nsident_judge("", &rec, boot), NSIDENT_UNKNOWN);
	ck_assert_int_eq(nsident_judge(path, &rec, ""), NSIDENT_UNKNOWN);

	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	ck_assert_int_eq(nsident_judge(path, &rec, boot), NSIDENT_GONE);
	ck_assert_str_eq(nsident_verdict_name(NSIDENT_GONE), "gone");
}
END_TEST

/* What a process that cannot see the netns says nothing about. */
START_TEST(test_unseen)
{
	char boot[NSIDENT_BOOT_MAX], file[] = "/tmp/test-nsident-XXXXXX";
	struct nsident rec;
	int fd = mkstemp(file);
	pid_t pid;
	int status;

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(nsident_boot(boot), 0);
	ck_assert_int_eq(nsident_of("/proc/self/ns/net", &rec), 0);
	memcpy(rec.boot, boot, sizeof(boot));
	/* A netns directory this process lacks (a container without the mount). */
	ck_assert_int_eq(nsident_judge("/tmp/test-nsident-no-such-dir/cni-1", &rec, boot),
			 NSIDENT_UNKNOWN);
	ck_assert_int_eq(nsident_judge("/tmp/test-nsident-no-such-file", &rec, boot), NSIDENT_GONE);
	/* A mount point without its mount (no propagation into a container). */
	ck_assert_int_eq(nsident_judge(file, &rec, boot), NSIDENT_UNKNOWN);
	unlink(file);
	/* Outside the node's PID namespace, a dead pid's path is no proof. */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		if (unshare(CLONE_NEWPID) < 0)
			_exit(2);
		pid_t child = fork();

		if (!child)
			_exit(nsident_judge("/proc/999999999/ns/net", &rec, boot) == NSIDENT_UNKNOWN ? 0 : 1);
		_exit(waitpid(child, &status, 0) == child && WIFEXITED(status) ? WEXITSTATUS(status) : 3);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert_int_eq(nsident_judge("/proc/999999999/ns/net", &rec, boot), NSIDENT_GONE);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_test(tc, test_boot);
	tcase_add_loop_test(tc, test_boot_valid, 0, sizeof(boot_ids) / sizeof(boot_ids[0]));
	tcase_add_test(tc, test_of);
	if (geteuid() == 0) {
		tcase_add_test(tc, test_judge);
		tcase_add_test(tc, test_unseen);
	}
	else
		printf("note: not root, netns judge case not registered\n");
}

int main(void)
{
	return unit_run("nsident", add_tests);
}
