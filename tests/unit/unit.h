/* SPDX-License-Identifier: Apache-2.0 */
/* What every Check unit test binary shares: its main, and readable JSON tables. */
#pragma once

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A malloc'd copy of s with every ' turned into ": tables of JSON stay readable. */
static inline char *unit_dq(const char *s)
{
	char *d = strdup(s), *p;

	ck_assert_ptr_nonnull(d);
	for (p = d; *p; p++)
		if (*p == '\'')
			*p = '"';
	return d;
}

/* A seed of the fuzz corpus (tests/fuzz/corpus/<rel>) whole, malloc'd,
 * NUL-terminated: real records a test reads as a parser would. */
static inline char *unit_seed(const char *rel)
{
	char path[512], *text = NULL;
	size_t len = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/../fuzz/corpus/%s", SRCDIR, rel);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	ck_assert_int_gt(getdelim(&text, &len, '\0', f), 0);
	fclose(f);
	return text;
}

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
