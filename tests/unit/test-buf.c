// SPDX-License-Identifier: Apache-2.0
/* Unit tests for buf.c: growth by doubling, capped at the limit. */
#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	size_t cap, need, max, want_cap;
} grows[] = {
	{ 0, 1, 1 << 20, 4096 },		/* first call: 4 KiB */
	{ 0, 4096, 1 << 20, 4096 },
	{ 0, 4097, 1 << 20, 8192 },
	{ 4096, 100, 1 << 20, 4096 },		/* enough already: unchanged */
	{ 4096, 5000, 1 << 20, 8192 },		/* doubles */
	{ 4096, 40000, 1 << 20, 65536 },	/* as often as needed */
	{ 4096, 600000, 600001, 600001 },	/* never past max */
	{ 0, 10, 10, 10 },			/* max below 4 KiB */
};

START_TEST(test_grow)
{
	char *buf = NULL;
	size_t cap = 0;

	if (grows[_i].cap) {
		ck_assert_int_eq(buf_reserve(&buf, &cap, grows[_i].cap, grows[_i].cap), 0);
		memset(buf, 'x', cap);
	}
	ck_assert_int_eq(buf_reserve(&buf, &cap, grows[_i].need, grows[_i].max), 0);
	ck_assert_uint_eq(cap, grows[_i].want_cap);
	/* what was there is kept, and every byte is usable */
	if (grows[_i].cap)
		ck_assert_int_eq(buf[grows[_i].cap - 1], 'x');
	memset(buf, 'y', cap);
	free(buf);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_grow, 0, N(grows));
}

int main(void)
{
	return unit_run("buf", add_tests);
}
