// SPDX-License-Identifier: Apache-2.0
/* Unit tests for json.c: a built tree printed, an unbuilt one freed with its error. */
#include <errno.h>
#include <stdlib.h>
#include "json.h"
#include "unit.h"

START_TEST(test_built)
{
	cJSON *root = cJSON_CreateObject();
	char *doc;

	ck_assert_ptr_nonnull(cJSON_AddNumberToObject(root, "code", 7));
	doc = json_print_free(root, 0);
	ck_assert_str_eq(doc, "{\"code\":7}");
	free(doc);
}
END_TEST

START_TEST(test_not_built)
{
	errno = 0;
	ck_assert_ptr_null(json_print_free(cJSON_CreateObject(), -EINVAL));
	ck_assert_int_eq(errno, EINVAL);
	/* a tree that could not even be created */
	errno = 0;
	ck_assert_ptr_null(json_print_free(NULL, -ENOMEM));
	ck_assert_int_eq(errno, ENOMEM);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_test(tc, test_built);
	tcase_add_test(tc, test_not_built);
}

int main(void)
{
	return unit_run("json", add_tests);
}
