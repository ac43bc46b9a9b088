// SPDX-License-Identifier: Apache-2.0
/* Unit tests for plugin.c: plugin_main over fake verbs, stdin from a file, stdout captured. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "callrec.h"
#include "plugin.h"
#include "traceparent.h"
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

/* The call record each of runs[] leaves: its verb and CNI code. */
static const struct {
	int verb, code;
} recs[] = {
	{ CNI_CMD_VERSION, 0 }, { CNI_CMD_VERSION, 0 }, { CNI_CMD_ADD, 0 }, { CNI_CMD_DEL, 0 },
	{ CNI_CMD_DEL, 5 }, { CNI_CMD_CHECK, 1 }, { CNI_CMD_CHECK, 107 }, { CNI_CMD_GC, 5 },
	{ CNI_CMD_STATUS, 4 }, { CNI_CMD_COUNT, 4 }, { CNI_CMD_COUNT, 4 },
};

static char tmpdir[64];
static char agentdir[96];

static void setup(void)
{
	strcpy(tmpdir, "/tmp/test-plugin.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	setenv("CNI_CONTAINERID", "c1", 1);
	setenv("CNI_NETNS", "/run/netns/p", 1);
	setenv("CNI_IFNAME", "net1", 1);
	setenv("CNI_PATH", "/opt/cni/bin", 1);
	snprintf(agentdir, sizeof(agentdir), "%s/agent", tmpdir);
	setenv("SRIOV_RDMA_AGENT_DIR", agentdir, 1);
	unsetenv("TRACEPARENT");
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
	status = plugin_main(CALLREC_IPPOOL, verbs, N(verbs));
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

/* The records in agentdir/calls: how many, the last into *r. */
static int read_records(struct callrec *r)
{
	uint8_t buf[4 * CALLREC_SIZE];
	char path[160];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/" CALLREC_FILE, agentdir);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	ck_assert_int_eq(n % CALLREC_SIZE, 0);
	if (n > 0)
		ck_assert_int_eq(callrec_decode(buf + n - CALLREC_SIZE, r), 0);
	return (int)(n / CALLREC_SIZE);
}

START_TEST(test_record)
{
	char *in = unit_dq(runs[_i].in), out[4096];
	struct callrec r;

	ck_assert_int_eq(N(recs), N(runs));
	run(runs[_i].cmd, in, strlen(in), out, sizeof(out));
	ck_assert_int_eq(read_records(&r), 1);
	ck_assert_int_eq(r.verb, recs[_i].verb);
	ck_assert_int_eq(r.code, recs[_i].code);
	ck_assert_int_eq(r.plugin, CALLREC_IPPOOL);
	ck_assert(!traceparent_is_set(r.trace));
	free(in);
}
END_TEST

/* The network name and the caller's trace id are kept; a malformed
 * TRACEPARENT is no trace id and no error. */
static const struct {
	const char *traceparent;
	const char *trace;	/* "" none */
} traces[] = {
	{ "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "4bf92f3577b34da6a3ce929d0e0e4736" },
	{ "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", "" },
	{ "garbage", "" },
};

START_TEST(test_record_trace)
{
	static const char conf[] = "{\"cniVersion\":\"1.0.0\",\"name\":\"rail-3\"}";
	char out[4096], trace[TRACEPARENT_ID_LEN + 1] = "";
	struct callrec r;

	setenv("TRACEPARENT", traces[_i].traceparent, 1);
	ck_assert_int_eq(run("ADD", conf, strlen(conf), out, sizeof(out)), 0);
	ck_assert_str_eq(out, "{\"cniVersion\":\"1.0.0\",\"ips\":[]}\n");
	ck_assert_int_eq(read_records(&r), 1);
	ck_assert_str_eq(r.network, "rail-3");
	if (traceparent_is_set(r.trace))
		traceparent_format(r.trace, trace);
	ck_assert_str_eq(trace, traces[_i].trace);
}
END_TEST

/* A file where the directory should be: the call answers as ever. */
START_TEST(test_record_unwritable)
{
	char out[4096];
	FILE *f = fopen(agentdir, "w");

	ck_assert_ptr_nonnull(f);
	fclose(f);
	ck_assert_int_eq(run("ADD", "{\"cniVersion\":\"1.0.0\"}", 22, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "{\"cniVersion\":\"1.0.0\",\"ips\":[]}\n");
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
	tcase_add_loop_test(tc, test_record, 0, N(runs));
	tcase_add_loop_test(tc, test_record_trace, 0, N(traces));
	tcase_add_test(tc, test_record_unwritable);
}

int main(void)
{
	return unit_run("plugin", add_tests);
}
