// SPDX-License-Identifier: Apache-2.0
/* Unit tests for clock.c: milliseconds that only go forward and track a sleep. */
#include <time.h>
#include "clock.h"
#include "unit.h"

START_TEST(test_forward)
{
	const struct timespec pause = { .tv_nsec = 30 * 1000 * 1000 };
	long t0 = clock_ms(), t1;

	ck_assert_int_ge(t0, 0);
	nanosleep(&pause, NULL);
	t1 = clock_ms();
	ck_assert_int_ge(t1 - t0, 30);
	ck_assert_int_lt(t1 - t0, 10000);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_test(tc, test_forward);
}

int main(void)
{
	return unit_run("clock", add_tests);
}
