// SPDX-License-Identifier: Apache-2.0
/* Unit tests for ipamexec.c: fake /bin/sh IPAM plugins in a temp CNI_PATH. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "ipamexec.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static char dir[64];

static const struct {
	const char *name;
	mode_t mode;
	const char *body;
} fakes[] = {
	/* keeps what it got so the test can check stdin and CNI_COMMAND */
	{ "good", 0755,
	  "cat > \"$0.stdin\"\n"
	  "echo \"$CNI_COMMAND $CNI_CONTAINERID\" > \"$0.env\"\n"
	  "echo '{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"192.0.2.5/24\",\"gateway\":\"192.0.2.1\"}],"
	  "\"routes\":[{\"dst\":\"0.0.0.0/0\"}]}'\n" },
	{ "fails", 0755,
	  "cat > /dev/null\n"
	  "echo '{\"cniVersion\":\"1.0.0\",\"code\":110,\"msg\":\"no free address in 192.0.2.0/30\",\"details\":\"range full\"}'\n"
	  "exit 1\n" },
	{ "garbage", 0755, "echo 'hello, not json'\n" },
	{ "garbagefail", 0755, "echo 'panic: runtime error'\nexit 2\n" },
	{ "silentfail", 0755, "exit 3\n" },
	{ "badresult", 0755, "echo '{\"ips\":[{\"address\":\"192.0.2.5\"}]}'\n" },
	{ "noexec", 0644, "echo '{}'\n" },
	{ "noread", 0755, "exit 0\n" },
	/* fills its stdout pipe before reading stdin */
	{ "chatty", 0755, "head -c 300000 /dev/zero\ncat > /dev/null\n" },
	{ "huge", 0755, "head -c 1100000 /dev/zero | tr '\\0' x\n" },
	{ "killed", 0755, "kill -9 $$\n" },
	{ "codezero", 0755, "echo '{\"code\":0,\"msg\":\"odd\"}'\nexit 1\n" },
	{ "stderr", 0755, "echo 'diagnostics' >&2\necho '{}'\n" },
	/* the signals it ignores, as a hex mask */
	/* outlives its caller a little (the caller was killed) */
	{ "slow", 0755, "cat > /dev/null\nsleep 0.3\necho '{}'\n" },
	{ "sigign", 0755, "cat > /dev/null\nawk '/^SigIgn/ {print $2}' /proc/$$/status > \"$0.sigign\"\n" },
};

static void setup(void)
{
	char path[128];
	size_t i;
	FILE *f;

	strcpy(dir, "/tmp/test-ipamexec.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (i = 0; i < N(fakes); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, fakes[i].name);
		f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		fprintf(f, "#!/bin/sh\n%s", fakes[i].body);
		fclose(f);
		ck_assert_int_eq(chmod(path, fakes[i].mode), 0);
	}
	snprintf(path, sizeof(path), "/nonexistent-dir::%s", dir);
	setenv("CNI_PATH", path, 1);
	setenv("CNI_COMMAND", "DEL", 1);
	setenv("CNI_CONTAINERID", "c1", 1);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static const char conf[] = "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"ipam\":{\"type\":\"good\"}}";

static const struct {
	const char *type;
	enum cni_cmd cmd;
	int code;
	const char *msg;		/* substring */
	const char *details;
} runs[] = {
	{ "good", CNI_CMD_ADD, 0, NULL, "" },
	{ "good", CNI_CMD_DEL, 0, NULL, "" },
	{ "noread", CNI_CMD_DEL, 0, NULL, "" },
	{ "garbage", CNI_CMD_DEL, 0, NULL, "" },	/* DEL does not read the output */
	{ "stderr", CNI_CMD_ADD, 0, NULL, "" },
	{ "fails", CNI_CMD_ADD, CNI_ERR_EXHAUSTED, "ipam plugin fails: no free address in 192.0.2.0/30", "range full" },
	{ "garbage", CNI_CMD_ADD, CNI_ERR_IPAM, "ipam plugin garbage printed an unparsable result: \"hello, not json", "" },
	{ "garbagefail", CNI_CMD_DEL, CNI_ERR_IPAM, "ipam plugin garbagefail failed (exit status 2) without a CNI error: \"panic: runtime error", "" },
	{ "silentfail", CNI_CMD_DEL, CNI_ERR_IPAM, "(exit status 3)", "" },
	{ "codezero", CNI_CMD_DEL, CNI_ERR_IPAM, "(exit status 1)", "" },
	{ "badresult", CNI_CMD_ADD, CNI_ERR_DECODE, "ipam plugin badresult printed an invalid result: invalid result: ips[0].address", "" },
	{ "noexec", CNI_CMD_ADD, CNI_ERR_IPAM, "ipam plugin \"noexec\" not found in CNI_PATH \"/nonexistent-dir::/tmp/test-ipamexec.", "" },
	{ "absent", CNI_CMD_ADD, CNI_ERR_IPAM, "ipam plugin \"absent\" not found in CNI_PATH", "" },
	{ "huge", CNI_CMD_ADD, CNI_ERR_IPAM, "ipam plugin huge printed more than 1048576 bytes", "" },
	{ "killed", CNI_CMD_ADD, CNI_ERR_IPAM, "ipam plugin killed killed by signal 9", "" },
	{ "../good", CNI_CMD_ADD, CNI_ERR_CONFIG, "invalid ipam type \"../good\"", "" },
	{ "a/good", CNI_CMD_ADD, CNI_ERR_CONFIG, "invalid ipam type \"a/good\"", "" },
	{ ".", CNI_CMD_ADD, CNI_ERR_CONFIG, "invalid ipam type \".\"", "" },
	{ "..", CNI_CMD_ADD, CNI_ERR_CONFIG, "invalid ipam type \"..\"", "" },
	{ "", CNI_CMD_ADD, CNI_ERR_CONFIG, "invalid ipam type \"\"", "" },
	{ NULL, CNI_CMD_ADD, CNI_ERR_CONFIG, "invalid ipam type \"\"", "" },
};

START_TEST(test_run)
{
	struct cni_result r = { .n_ips = 99 };
	struct cni_err err = { 0 };
	int fds = count_fds(), ret, status;

	ret = ipamexec_call(runs[_i].cmd, runs[_i].type, conf, strlen(conf), &r, &err);
	ck_assert_int_eq(err.code, runs[_i].code);
	ck_assert_int_eq(count_fds(), fds);
	ck_assert_int_eq(waitpid(-1, &status, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
	if (!runs[_i].code) {
		ck_assert_int_eq(ret, 0);
		if (runs[_i].cmd == CNI_CMD_ADD && !strcmp(runs[_i].type, "good"))
			ck_assert_int_eq(r.n_ips, 1);
		return;
	}
	ck_assert_int_lt(ret, 0);
	ck_assert_msg(strstr(err.msg, runs[_i].msg), "message \"%s\" lacks \"%s\"", err.msg, runs[_i].msg);
	ck_assert_str_eq(err.details, runs[_i].details);
}
END_TEST

static char *slurp(const char *name)
{
	static char buf[4096];
	char path[128];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

START_TEST(test_what_the_plugin_sees)
{
	struct cni_result r;
	struct cni_err err = { 0 };
	char buf[IPADDR_STR_MAX];

	ck_assert_int_eq(ipamexec_call(CNI_CMD_ADD, "good", conf, strlen(conf), &r, &err), 0);
	ck_assert_str_eq(slurp("good.stdin"), conf);
	/* CNI_COMMAND is replaced, everything else inherited */
	ck_assert_str_eq(slurp("good.env"), "ADD c1\n");
	ipprefix_format(&r.ips[0].address, buf);
	ck_assert_str_eq(buf, "192.0.2.5/24");
	ck_assert_int_eq(r.n_routes, 1);
	ck_assert_str_eq(getenv("CNI_COMMAND"), "DEL");
}
END_TEST

START_TEST(test_large_config_unread)
{
	size_t len = 4 << 20;
	char *big = malloc(len);
	struct cni_err err = { 0 };

	memset(big, ' ', len);
	/* the plugin exits without reading: EPIPE must not kill us or fail the call */
	ck_assert_int_eq(ipamexec_call(CNI_CMD_DEL, "noread", big, len, NULL, &err), 0);
	ck_assert_int_eq(ipamexec_call(CNI_CMD_ADD, "good", big, len, NULL, &err), 0);
	/* neither side may block the other */
	ck_assert_int_eq(ipamexec_call(CNI_CMD_DEL, "chatty", big, len, NULL, &err), 0);
	free(big);
}
END_TEST

START_TEST(test_exec_fails)
{
	struct cni_err err = { 0 };
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/badinterp", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("#!/nonexistent/sh\n", f);
	fclose(f);
	ck_assert_int_eq(chmod(path, 0755), 0);
	ck_assert_int_eq(ipamexec_call(CNI_CMD_ADD, "badinterp", conf, strlen(conf), NULL, &err), -ENOENT);
	ck_assert_int_eq(err.code, CNI_ERR_IPAM);
	ck_assert_ptr_nonnull(strstr(err.msg, "failed to run ipam plugin /tmp/test-ipamexec."));
	ck_assert_ptr_nonnull(strstr(err.msg, "/badinterp: No such file or directory"));
}
END_TEST

START_TEST(test_no_cni_path)
{
	struct cni_err err = { 0 };

	unsetenv("CNI_PATH");
	ck_assert_int_eq(ipamexec_call(CNI_CMD_ADD, "good", conf, strlen(conf), NULL, &err), -ENOENT);
	ck_assert_str_eq(err.msg, "ipam plugin \"good\" not found in CNI_PATH \"\"");
}
END_TEST

/* The plugin runs on its own between start and finish (the caller moves a
 * link meanwhile); finish then only collects. */
START_TEST(test_runs_between_start_and_finish)
{
	struct ipamexec_run run;
	struct cni_result r = { 0 };
	struct cni_err err = { 0 };
	char path[128];
	int tries = 0;

	ck_assert_int_eq(ipamexec_start(&run, CNI_CMD_ADD, "good", conf, strlen(conf), -1, &err), 0);
	snprintf(path, sizeof(path), "%s/good.env", dir);
	while (access(path, F_OK) && tries++ < 500)
		usleep(10000);
	ck_assert_msg(!access(path, F_OK), "the plugin did not run before ipamexec_finish");
	ck_assert_int_eq(ipamexec_finish(&run, &r, &err), 0);
	ck_assert_int_eq(r.n_ips, 1);
	ck_assert_int_eq(run.pid, -1);
}
END_TEST

/* We ignore SIGPIPE; the plugin must not inherit that. */
START_TEST(test_plugin_gets_default_sigpipe)
{
	struct cni_err err = { 0 };
	unsigned long long ignored;

	ck_assert_int_eq(ipamexec_call(CNI_CMD_DEL, "sigign", conf, strlen(conf), NULL, &err), 0);
	ck_assert_int_eq(sscanf(slurp("sigign.sigign"), "%llx", &ignored), 1);
	ck_assert_msg(!(ignored & (1ULL << (SIGPIPE - 1))), "SigIgn %llx has SIGPIPE", ignored);
}
END_TEST

static bool lock_free(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	bool got = flock(fd, LOCK_EX | LOCK_NB) == 0;

	close(fd);
	return got;
}

/* The caller's lock, handed to the plugin, is held until the plugin exits
 * even after the caller let go of it (here: closed it, as a killed caller does). */
START_TEST(test_plugin_holds_the_lock)
{
	struct ipamexec_run run;
	struct cni_err err = { 0 };
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/vf.lock", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_eq(flock(fd, LOCK_EX), 0);
	ck_assert_int_eq(ipamexec_start(&run, CNI_CMD_ADD, "slow", conf, strlen(conf), fd, &err), 0);
	close(fd);
	ck_assert_msg(!lock_free(path), "the lock was free while the plugin ran");
	ck_assert_int_eq(ipamexec_finish(&run, NULL, &err), 0);
	ck_assert_msg(lock_free(path), "the lock was held after the plugin exited");
	/* without lock_fd the plugin holds nothing */
	fd = open(path, O_RDWR | O_CLOEXEC);
	ck_assert_int_eq(flock(fd, LOCK_EX), 0);
	ck_assert_int_eq(ipamexec_start(&run, CNI_CMD_ADD, "slow", conf, strlen(conf), -1, &err), 0);
	close(fd);
	ck_assert(lock_free(path));
	ck_assert_int_eq(ipamexec_finish(&run, NULL, &err), 0);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_run, 0, N(runs));
	tcase_add_test(tc, test_what_the_plugin_sees);
	tcase_add_test(tc, test_large_config_unread);
	tcase_add_test(tc, test_exec_fails);
	tcase_add_test(tc, test_no_cni_path);
	tcase_add_test(tc, test_runs_between_start_and_finish);
	tcase_add_test(tc, test_plugin_gets_default_sigpipe);
	tcase_add_test(tc, test_plugin_holds_the_lock);
}

int main(void)
{
	return unit_run("ipamexec", add_tests);
}
