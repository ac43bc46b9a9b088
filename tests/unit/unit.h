/* SPDX-License-Identifier: Apache-2.0 */
/* The main every Check unit test binary shares. */
#pragma once

#include <check.h>
#include <stdlib.h>

/* Runs one module's test case (add_tests fills it); exit status 0 only
 * when every test passed. */
static inline int unit_run(const char *module, void (*add_tests)(TCase *tc))
{
	Suite *s = suite_create(module);
	TCase *tc = tcase_create(module);
	SRunner *sr;
	int failed;

	add_tests(tc);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
