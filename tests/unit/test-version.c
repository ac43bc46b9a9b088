// SPDX-License-Identifier: Apache-2.0
/* Unit tests for version.c: names both ways and the VERSION answer. */
#include <errno.h>
#include <stdlib.h>
#include <cjson/cJSON.h>
#include "version.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *const known[] = { "0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0" };
static const char *const unknown[] = { "0.1.0", "0.2.0", "1.2.0", "1.1", "", " 1.0.0", "1.0.0 ", NULL };

START_TEST(test_known)
{
	enum cni_version v;

	ck_assert_int_eq(version_parse(known[_i], &v), 0);
	ck_assert_int_eq(v, _i);
	ck_assert_str_eq(version_str(v), known[_i]);
}
END_TEST

START_TEST(test_unknown)
{
	enum cni_version v = CNI_V031;

	ck_assert_int_eq(version_parse(unknown[_i], &v), -EINVAL);
	ck_assert_int_eq(v, CNI_V031);
}
END_TEST

START_TEST(test_str_out_of_range)
{
	ck_assert_ptr_null(version_str(CNI_VERSION_COUNT));
	ck_assert_ptr_null(version_str((enum cni_version)-1));
}
END_TEST

static const struct {
	const char *in, *want;
} infos[] = {
	{ "0.4.0", "0.4.0" },
	{ NULL, "1.1.0" },
};

START_TEST(test_info)
{
	char *doc = version_info_json(infos[_i].in);
	cJSON *root = cJSON_Parse(doc), *list;
	int i;

	ck_assert_ptr_nonnull(root);
	ck_assert_str_eq(cJSON_GetObjectItem(root, "cniVersion")->valuestring, infos[_i].want);
	list = cJSON_GetObjectItem(root, "supportedVersions");
	ck_assert_int_eq(cJSON_GetArraySize(list), N(known));
	for (i = 0; i < (int)N(known); i++)
		ck_assert_str_eq(cJSON_GetArrayItem(list, i)->valuestring, known[i]);
	cJSON_Delete(root);
	free(doc);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_known, 0, N(known));
	tcase_add_loop_test(tc, test_unknown, 0, N(unknown));
	tcase_add_test(tc, test_str_out_of_range);
	tcase_add_loop_test(tc, test_info, 0, N(infos));
}

int main(void)
{
	return unit_run("version", add_tests);
}
