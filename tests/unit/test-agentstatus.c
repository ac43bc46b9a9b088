// SPDX-License-Identifier: Apache-2.0
/* Unit tests for agentstatus.c: the status file both ways, damaged ones refused. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "agentstatus.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

START_TEST(test_roundtrip)
{
	struct agentstatus s = { .time = 1796400000, .interval = 60, .undone = 2, .freed = 3,
				 .failed = 1 }, back;
	char *text;

	strcpy(s.error, "ippool reconcile: exit 1, 1 left for the next run");
	text = agentstatus_encode(&s);
	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(agentstatus_decode(text, &back), 0);
	ck_assert_mem_eq(&s, &back, sizeof(s));
	free(text);
}
END_TEST

static const char *const refused[] = {
	"",
	"{'time':1,'interval':60,'undone':0,'freed':0,'failed':0}",
	"{'time':-1,'interval':60,'undone':0,'freed':0,'failed':0,'error':''}",
	"{'time':1,'interval':'60','undone':0,'freed':0,'failed':0,'error':''}",
	"{'time':1.5,'interval':60,'undone':0,'freed':0,'failed':0,'error':''}",
	"{'time':1,'interval':60,'undone':0,'freed':0,'error':''}",
};

START_TEST(test_refused)
{
	char *text = unit_dq(refused[_i]);
	struct agentstatus s;

	ck_assert_int_eq(agentstatus_decode(text, &s), -EBADMSG);
	ck_assert_int_eq(s.time, 0);
	free(text);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_test(tc, test_roundtrip);
	tcase_add_loop_test(tc, test_refused, 0, N(refused));
}

int main(void)
{
	return unit_run("agentstatus", add_tests);
}
