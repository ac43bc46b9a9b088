// SPDX-License-Identifier: Apache-2.0
/* Unit tests for plugin.c: plugin_main over fake verbs, stdin from a file, stdout captured. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "plugin.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int verb_add(struct plugin_ctx *ctx)
{
	ctx->out = cJSON_Parse("{\"cniVersion\": \"1.0.0\", \"ips\": []}");
	return 0;
}

static int verb_del(struct plugin_ctx *ctx)
{
	return ctx->conf_len ? 0 : -EINVAL;
}

static int verb_check(struct plugin_ctx *ctx)
{
	cni_err_set(&ctx->err, CNI_ERR_CHECK, "link net1 is missing");
	return -ENOENT;
}

static int verb_gc(struct plugin_ctx *ctx)
{
	(void)ctx;
	return -EIO;
}

static const struct plugin_verb verbs[] = {
	{ CNI_CMD_ADD, verb_add },
	{ CNI_CMD_DEL, verb_del },
	{ CNI_CMD_CHECK, verb_check },
	{ CNI_CMD_GC, verb_gc },
};

#define ALL "'supportedVersions':['0.3.0','0.3.1','0.4.0','1.0.0','1.1.0']}\n"

/* Tables use ' for " to stay readable. */
static const struct {
	const char *cmd;
	const char *in;
	int status;
	const char *out;
} runs[] = {
	{ "VERSION", "{'cniVersion':'0.4.0'}", 0, "{'cniVersion':'0.4.0'," ALL },
	{ "VERSION", "", 0, "{'cniVersion':'1.1.0'," ALL },
	{ "ADD", "{'cniVersion':'1.0.0'}", 0, "{'cniVersion':'1.0.0','ips':[]}\n" },
	{ "DEL", "{'cniVersion':'1.0.0'}", 0, "" },
	{ "DEL", "", 1, "{'cniVersion':'1.1.0','code':5,'msg':'DEL failed: Invalid argument'}\n" },
	{ "CHECK", "{'cniVersion':'0.3.1'}", 1,
	  "{'cniVersion':'0.3.1','code':1,'msg':'CNI_COMMAND CHECK needs cniVersion 0.4.0 or later, config has 0.3.1'}\n" },
	{ "CHECK", "{'cniVersion':'1.0.0'}", 1, "{'cniVersion':'1.0.0','code':107,'msg':'link net1 is missing'}\n" },
	{ "GC", "{'cniVersion':'1.1.0'}", 1, "{'cniVersion':'1.1.0','code':5,'msg':'GC failed: Input/output error'}\n" },
	{ "STATUS", "{'cniVersion':'1.1.0'}", 1,
	  "{'cniVersion':'1.1.0','code':4,'msg':'CNI_COMMAND STATUS is not supported by this plugin'}\n" },
	{ "BOGUS", "{'cniVersion':'0.4.0'}", 1, "{'cniVersion':'1.1.0','code':4,'msg':'unknown CNI_COMMAND \\\"BOGUS\\\"'}\n" },
	{ NULL, "{'cniVersion':'0.4.0'}", 1, "{'cniVersion':'1.1.0','code':4,'msg':'environment variable CNI_COMMAND is not set'}\n" },
};

static char tmpdir[64];

static void setup(void)
{
	strcpy(tmpdir, "/tmp/test-plugin.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	setenv("CNI_CONTAINERID", "c1", 1);
	setenv("CNI_NETNS", "/run/netns/p", 1);
	setenv("CNI_IFNAME", "net1", 1);
	setenv("CNI_PATH", "/opt/cni/bin", 1);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Points fd at a new file under tmpdir holding data (stdin) or empty (stdout). */
static void redirect(int target, const char *name, const char *data, size_t len)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	ck_assert_int_ge(dup2(fd, target), 0);
	close(fd);
}

static int run(const char *cmd, const char *in, size_t len, char *out, size_t size)
{
	int status;
	ssize_t n;

	if (cmd)
		setenv("CNI_COMMAND", cmd, 1);
	else
		unsetenv("CNI_COMMAND");
	redirect(STDIN_FILENO, "stdin", in, len);
	redirect(STDOUT_FILENO, "stdout", "", 0);
	status = plugin_main(verbs, N(verbs));
	ck_assert_int_eq(lseek(STDOUT_FILENO, 0, SEEK_SET), 0);
	n = read(STDOUT_FILENO, out, size - 1);
	ck_assert_int_ge(n, 0);
	out[n] = '\0';
	return status;
}

START_TEST(test_main)
{
	char *in = unit_dq(runs[_i].in), *want = unit_dq(runs[_i].out), out[4096];

	ck_assert_int_eq(run(runs[_i].cmd, in, strlen(in), out, sizeof(out)), runs[_i].status);
	ck_assert_str_eq(out, want);
	free(in);
	free(want);
}
END_TEST

static const size_t sizes[] = { PLUGIN_STDIN_MAX, PLUGIN_STDIN_MAX + 1 };

START_TEST(test_stdin_limit)
{
	char *in = malloc(sizes[_i]), out[4096];
	int status;

	memset(in, ' ', sizes[_i]);
	memcpy(in, "{\"cniVersion\":\"1.0.0\"}", 22);
	status = run("DEL", in, sizes[_i], out, sizeof(out));
	if (sizes[_i] <= PLUGIN_STDIN_MAX) {
		ck_assert_int_eq(status, 0);
		ck_assert_str_eq(out, "");
	} else {
		ck_assert_int_eq(status, 1);
		ck_assert_str_eq(out, "{\"cniVersion\":\"1.1.0\",\"code\":6,"
				 "\"msg\":\"network config on stdin exceeds 1048576 bytes\"}\n");
	}
	free(in);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_main, 0, N(runs));
	tcase_add_loop_test(tc, test_stdin_limit, 0, N(sizes));
}

int main(void)
{
	return unit_run("plugin", add_tests);
}
