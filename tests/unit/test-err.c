// SPDX-License-Identifier: Apache-2.0
/* Unit tests for err.c: first error wins, wrapping, details, the error JSON. */
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "err.h"
#include "unit.h"

START_TEST(test_first_error_wins)
{
	struct cni_err err = { 0 };

	cni_err_set(&err, CNI_ERR_NETLINK, "failed to move %s", "eth1");
	cni_err_set(&err, CNI_ERR_IO, "cleanup failed");
	ck_assert_int_eq(err.code, CNI_ERR_NETLINK);
	ck_assert_str_eq(err.msg, "failed to move eth1");
	ck_assert(cni_err_is_set(&err));
}
END_TEST

START_TEST(test_null_err_is_harmless)
{
	cni_err_set(NULL, 5, "x");
	cni_err_details(NULL, "x");
	cni_err_wrap(NULL, "x");
	ck_assert(!cni_err_is_set(NULL));
}
END_TEST

static const struct {
	const char *msg;
	const char *prefix;
	const char *want;
} wraps[] = {
	{ "Operation not permitted", "failed to move VF 0000:3b:00.2", "failed to move VF 0000:3b:00.2: Operation not permitted" },
	{ "", "failed to add", "failed to add" },
};

START_TEST(test_wrap)
{
	struct cni_err err = { .code = CNI_ERR_IO };

	strcpy(err.msg, wraps[_i].msg);
	cni_err_wrap(&err, "%s", wraps[_i].prefix);
	ck_assert_str_eq(err.msg, wraps[_i].want);
	ck_assert_int_eq(err.code, CNI_ERR_IO);
}
END_TEST

START_TEST(test_wrap_truncates)
{
	struct cni_err err = { .code = CNI_ERR_IO };

	memset(err.msg, 'm', sizeof(err.msg) - 1);
	cni_err_wrap(&err, "ctx");
	ck_assert_uint_eq(strlen(err.msg), CNI_ERR_MSG_MAX - 1);
	ck_assert(!strncmp(err.msg, "ctx: mmm", 8));
}
END_TEST

START_TEST(test_details_append)
{
	struct cni_err err = { 0 };

	cni_err_details(&err, "extack: %s", "bad vf");
	cni_err_details(&err, "second");
	ck_assert_str_eq(err.details, "extack: bad vf; second");
}
END_TEST

START_TEST(test_details_overflow)
{
	struct cni_err err = { 0 };
	char big[CNI_ERR_DETAILS_MAX * 2];

	memset(big, 'd', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	cni_err_details(&err, "%s", big);
	cni_err_details(&err, "more");
	ck_assert_uint_eq(strlen(err.details), CNI_ERR_DETAILS_MAX - 1);
}
END_TEST

static const struct {
	const char *details;
	const char *version;
	const char *want;
} jsons[] = {
	{ "", "0.4.0", "{\"cniVersion\":\"0.4.0\",\"code\":7,\"msg\":\"bad \\\"x\\\"\"}" },
	{ "why", "1.0.0", "{\"cniVersion\":\"1.0.0\",\"code\":7,\"msg\":\"bad \\\"x\\\"\",\"details\":\"why\"}" },
	{ "", NULL, "{\"cniVersion\":\"1.1.0\",\"code\":7,\"msg\":\"bad \\\"x\\\"\"}" },
};

START_TEST(test_json)
{
	struct cni_err err = { 0 };
	char *doc;

	cni_err_set(&err, CNI_ERR_CONFIG, "bad \"x\"");
	if (jsons[_i].details[0])
		cni_err_details(&err, "%s", jsons[_i].details);
	doc = cni_err_json(&err, jsons[_i].version);
	ck_assert_ptr_nonnull(doc);
	ck_assert_str_eq(doc, jsons[_i].want);
	free(doc);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_test(tc, test_first_error_wins);
	tcase_add_test(tc, test_null_err_is_harmless);
	tcase_add_loop_test(tc, test_wrap, 0, sizeof(wraps) / sizeof(wraps[0]));
	tcase_add_test(tc, test_wrap_truncates);
	tcase_add_test(tc, test_details_append);
	tcase_add_test(tc, test_details_overflow);
	tcase_add_loop_test(tc, test_json, 0, sizeof(jsons) / sizeof(jsons[0]));
}

int main(void)
{
	return unit_run("err", add_tests);
}
