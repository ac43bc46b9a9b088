// SPDX-License-Identifier: Apache-2.0
/* Unit tests for env.c: required variables per command, id/ifname syntax, version gates. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "env.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* NULL = unset */
static const struct {
	const char *cmd, *cid, *netns, *ifname, *path;
	int code;
	const char *msg;	/* substring of the message */
} reads[] = {
	{ "ADD", "abc", "/run/netns/x", "net1", "/opt/cni/bin", 0, NULL },
	{ "CHECK", "abc", "/run/netns/x", "net1", "/opt/cni/bin", 0, NULL },
	{ "DEL", "abc", NULL, "net1", "/opt/cni/bin", 0, NULL },
	{ "DEL", "abc", "", "net1", "/opt/cni/bin", 0, NULL },
	{ "GC", NULL, NULL, NULL, "/opt/cni/bin", 0, NULL },
	{ "STATUS", NULL, NULL, NULL, "/opt/cni/bin", 0, NULL },
	{ "VERSION", NULL, NULL, NULL, NULL, 0, NULL },
	{ NULL, "abc", "/run/netns/x", "net1", "/p", CNI_ERR_ENV, "CNI_COMMAND is not set" },
	{ "", "abc", "/run/netns/x", "net1", "/p", CNI_ERR_ENV, "CNI_COMMAND is not set" },
	{ "add", "abc", "/run/netns/x", "net1", "/p", CNI_ERR_ENV, "unknown CNI_COMMAND \"add\"" },
	{ "ADD", NULL, "/run/netns/x", "net1", "/p", CNI_ERR_ENV, "CNI_CONTAINERID is not set" },
	{ "ADD", "abc", NULL, "net1", "/p", CNI_ERR_ENV, "CNI_NETNS is not set" },
	{ "ADD", "abc", "", "net1", "/p", CNI_ERR_ENV, "CNI_NETNS is not set" },
	{ "ADD", "abc", "/n", NULL, "/p", CNI_ERR_ENV, "CNI_IFNAME is not set" },
	{ "ADD", "abc", "/n", "net1", NULL, CNI_ERR_ENV, "CNI_PATH is not set" },
	{ "CHECK", "abc", NULL, "net1", "/p", CNI_ERR_ENV, "CNI_NETNS is not set" },
	{ "DEL", NULL, "/n", "net1", "/p", CNI_ERR_ENV, "CNI_CONTAINERID is not set" },
	{ "DEL", "abc", "/n", NULL, "/p", CNI_ERR_ENV, "CNI_IFNAME is not set" },
	{ "DEL", "abc", "/n", "net1", NULL, CNI_ERR_ENV, "CNI_PATH is not set" },
	{ "GC", NULL, NULL, NULL, NULL, CNI_ERR_ENV, "CNI_PATH is not set" },
	{ "STATUS", NULL, NULL, NULL, NULL, CNI_ERR_ENV, "CNI_PATH is not set" },
	{ "ADD", "../etc", "/n", "net1", "/p", CNI_ERR_ENV, "invalid CNI_CONTAINERID \"../etc\"" },
	{ "DEL", "a/b", "/n", "net1", "/p", CNI_ERR_ENV, "invalid CNI_CONTAINERID \"a/b\"" },
	{ "ADD", "abc", "/n", "a/b", "/p", CNI_ERR_ENV, "invalid CNI_IFNAME \"a/b\"" },
	{ "ADD", "abc", "/n", "sixteen-bytes-xx", "/p", CNI_ERR_ENV, "invalid CNI_IFNAME \"sixteen-bytes-xx\"" },
	{ "DEL", "abc", "/n", "..", "/p", CNI_ERR_ENV, "invalid CNI_IFNAME \"..\"" },
};

static void put(const char *var, const char *val)
{
	if (val)
		setenv(var, val, 1);
	else
		unsetenv(var);
}

START_TEST(test_read)
{
	struct cni_env env;
	struct cni_err err = { 0 };
	int ret;

	put("CNI_COMMAND", reads[_i].cmd);
	put("CNI_CONTAINERID", reads[_i].cid);
	put("CNI_NETNS", reads[_i].netns);
	put("CNI_IFNAME", reads[_i].ifname);
	put("CNI_PATH", reads[_i].path);
	setenv("CNI_ARGS", "IgnoreUnknown=1", 1);
	ret = env_read(&env, &err);
	ck_assert_int_eq(err.code, reads[_i].code);
	if (reads[_i].code) {
		ck_assert_int_eq(ret, -EINVAL);
		ck_assert_msg(strstr(err.msg, reads[_i].msg), "message \"%s\" lacks \"%s\"",
			      err.msg, reads[_i].msg);
		return;
	}
	ck_assert_int_eq(ret, 0);
	ck_assert_str_eq(env_cmd_name(env.cmd), reads[_i].cmd);
	ck_assert_str_eq(env.args, "IgnoreUnknown=1");
	if (env.cmd == CNI_CMD_ADD)
		ck_assert_str_eq(env.netns, reads[_i].netns);
	if (env.cmd == CNI_CMD_DEL)
		ck_assert_ptr_null(env.netns);
	if (env.cmd == CNI_CMD_GC) {
		ck_assert_ptr_null(env.containerid);
		ck_assert_str_eq(env.path, reads[_i].path);
	}
}
END_TEST

static const struct {
	const char *s;
	int valid;
} ids[] = {
	{ "a", 1 },
	{ "0123456789abcdef", 1 },
	{ "Pod_1.net-2", 1 },
	{ "", 0 },
	{ ".hidden", 0 },
	{ "-x", 0 },
	{ "_x", 0 },
	{ "a/b", 0 },
	{ "a b", 0 },
	{ "a\nb", 0 },
	{ "caf\xc3\xa9", 0 },
	{ "..", 0 },
	{ NULL, 0 },
};

START_TEST(test_id)
{
	ck_assert_int_eq(env_valid_id(ids[_i].s), ids[_i].valid);
}
END_TEST

static const struct {
	const char *s;
	int valid;
} ifnames[] = {
	{ "eth0", 1 },
	{ "net1", 1 },
	{ "fifteen-bytes-x", 1 },
	{ "-", 1 },
	{ "...", 1 },
	{ "sixteen-bytes-xx", 0 },
	{ "", 0 },
	{ ".", 0 },
	{ "..", 0 },
	{ "a/b", 0 },
	{ "a:b", 0 },
	{ "a b", 0 },
	{ "a\tb", 0 },
	{ NULL, 0 },
};

START_TEST(test_ifname)
{
	ck_assert_int_eq(env_valid_ifname(ifnames[_i].s), ifnames[_i].valid);
}
END_TEST

static const struct {
	enum cni_cmd cmd;
	enum cni_version v;
	int ok;
} gates[] = {
	{ CNI_CMD_ADD, CNI_V030, 1 },
	{ CNI_CMD_DEL, CNI_V030, 1 },
	{ CNI_CMD_CHECK, CNI_V031, 0 },
	{ CNI_CMD_CHECK, CNI_V040, 1 },
	{ CNI_CMD_CHECK, CNI_V110, 1 },
	{ CNI_CMD_GC, CNI_V100, 0 },
	{ CNI_CMD_GC, CNI_V110, 1 },
	{ CNI_CMD_STATUS, CNI_V040, 0 },
	{ CNI_CMD_STATUS, CNI_V110, 1 },
	{ CNI_CMD_VERSION, CNI_V030, 1 },
};

START_TEST(test_version_gate)
{
	struct cni_err err = { 0 };
	int ret = env_check_version(gates[_i].cmd, gates[_i].v, &err);

	if (gates[_i].ok) {
		ck_assert_int_eq(ret, 0);
		ck_assert_int_eq(err.code, 0);
		return;
	}
	ck_assert_int_eq(ret, -EINVAL);
	ck_assert_int_eq(err.code, CNI_ERR_VERSION);
	ck_assert_ptr_nonnull(strstr(err.msg, env_cmd_name(gates[_i].cmd)));
	ck_assert_ptr_nonnull(strstr(err.msg, version_str(gates[_i].v)));
}
END_TEST

START_TEST(test_cmd_name_range)
{
	ck_assert_str_eq(env_cmd_name(CNI_CMD_STATUS), "STATUS");
	ck_assert_ptr_null(env_cmd_name(CNI_CMD_COUNT));
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_read, 0, N(reads));
	tcase_add_loop_test(tc, test_id, 0, N(ids));
	tcase_add_loop_test(tc, test_ifname, 0, N(ifnames));
	tcase_add_loop_test(tc, test_version_gate, 0, N(gates));
	tcase_add_test(tc, test_cmd_name_range);
}

int main(void)
{
	return unit_run("env", add_tests);
}
