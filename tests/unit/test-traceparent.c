// SPDX-License-Identifier: Apache-2.0
/* Unit tests for traceparent.c: the W3C trace context rules, case by case. */
#include <errno.h>
#include <string.h>
#include "traceparent.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define TRACE "4bf92f3577b34da6a3ce929d0e0e4736"
#define PARENT "00f067aa0ba902b7"

static const struct {
	const char *in;
	const char *trace;	/* NULL: refused */
} cases[] = {
	{ "00-" TRACE "-" PARENT "-01", TRACE },
	{ "00-" TRACE "-" PARENT "-00", TRACE },
	{ "00-" TRACE "-" PARENT "-ff", TRACE },		/* unknown flags are kept */
	{ "01-" TRACE "-" PARENT "-01", TRACE },		/* a later version ... */
	{ "cc-" TRACE "-" PARENT "-01-what-the-future-holds", TRACE },	/* ... may have more */
	{ "00-" TRACE "-" PARENT "-01-extra", NULL },	/* version 00 has not */
	{ "cc-" TRACE "-" PARENT "-01extra", NULL },
	{ "ff-" TRACE "-" PARENT "-01", NULL },		/* forbidden version */
	{ "00-00000000000000000000000000000000-" PARENT "-01", NULL },
	{ "00-" TRACE "-0000000000000000-01", NULL },
	{ "00-4BF92F3577B34DA6A3CE929D0E0E4736-" PARENT "-01", NULL },	/* upper case */
	{ "00-" TRACE "-00F067AA0BA902B7-01", NULL },
	{ "0A-" TRACE "-" PARENT "-01", NULL },
	{ "00-" TRACE "-" PARENT "-0G", NULL },
	{ "00-" TRACE "-" PARENT "-1", NULL },
	{ "00-" TRACE "-" PARENT, NULL },
	{ "00-4bf92f3577b34da6a3ce929d0e0e473-" PARENT "-01", NULL },	/* short id */
	{ "00-" TRACE "0-" PARENT "-01", NULL },
	{ "00_" TRACE "_" PARENT "_01", NULL },
	{ " 00-" TRACE "-" PARENT "-01", NULL },
	{ "00-" TRACE "-" PARENT "-01 ", NULL },
	{ "00-4bf92f3577b34da6-3ce929d0e0e4736-" PARENT "-01", NULL },
	{ "", NULL },
	{ NULL, NULL },
};

START_TEST(test_parse)
{
	char text[TRACEPARENT_ID_LEN + 1];
	uint8_t id[16];

	memset(id, 0xaa, sizeof(id));
	if (cases[_i].trace) {
		ck_assert_int_eq(traceparent_parse(cases[_i].in, id), 0);
		ck_assert(traceparent_is_set(id));
		traceparent_format(id, text);
		ck_assert_str_eq(text, cases[_i].trace);
	} else {
		ck_assert_int_eq(traceparent_parse(cases[_i].in, id), -EINVAL);
		ck_assert(!traceparent_is_set(id));	/* refused: no half-read id */
	}
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_parse, 0, N(cases));
}

int main(void)
{
	return unit_run("traceparent", add_tests);
}
