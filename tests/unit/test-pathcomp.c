// SPDX-License-Identifier: Apache-2.0
/* Unit tests for pathcomp.c: components as the kernel walks them, and what a directory entry's name may be. */
#include <string.h>
#include "pathcomp.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *path;
	const char *comps[4];	/* NULL-terminated */
} paths[] = {
	{ "/", { NULL } },
	{ "", { NULL } },
	{ "/var/lib/cni", { "var", "lib", "cni", NULL } },
	{ "//run///x/", { "run", "x", NULL } },
	{ "/run/./x/.", { "run", "x", NULL } },
	{ "/run/../x", { "run", "..", "x", NULL } },
	{ "relative/.x/..y", { "relative", ".x", "..y", NULL } },
};

START_TEST(test_next)
{
	const char *p = paths[_i].path, *s;
	size_t len;
	int k = 0;

	while ((len = pathcomp_next(&p, &s))) {
		ck_assert_ptr_nonnull(paths[_i].comps[k]);
		ck_assert_uint_eq(len, strlen(paths[_i].comps[k]));
		ck_assert(!memcmp(s, paths[_i].comps[k], len));
		k++;
	}
	ck_assert_ptr_null(paths[_i].comps[k]);
	ck_assert_int_eq(pathcomp_count(paths[_i].path), k);
}
END_TEST

static const struct {
	const char *name;
	bool ok;
} names[] = {
	{ "c1-net1.json", true }, { ".c1.tmp", true }, { "...", true },
	{ "", false }, { ".", false }, { "..", false }, { "a/b", false }, { "/etc", false },
	{ NULL, false },
};

START_TEST(test_is_name)
{
	ck_assert_int_eq(pathcomp_is_name(names[_i].name), names[_i].ok);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_next, 0, N(paths));
	tcase_add_loop_test(tc, test_is_name, 0, N(names));
}

int main(void)
{
	return unit_run("pathcomp", add_tests);
}
