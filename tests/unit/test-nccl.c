// SPDX-License-Identifier: Apache-2.0
/* Unit tests for the doctor's nccl.c: NCCL_IB_HCA / NCCL_SOCKET_IFNAME lists
 * select what NCCL's parseStringList + matchIfList would. */
#include <stdio.h>
#include <string.h>
#include "nccl.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *list, *name;
	int port;
	bool selected;
} cases[] = {
	/* prefixes */
	{ "mlx5", "mlx5_2", 1, true },
	{ "mlx5_2", "mlx5_2", 1, true },
	{ "mlx5_2", "mlx5_20", 1, true },	/* a prefix, not a name */
	{ "mlx5_9", "mlx5_2", 1, false },
	{ "mlx5_1,mlx5_2", "mlx5_2", 1, true },
	{ "mlx5_1,mlx5_3", "mlx5_2", 1, false },
	{ "", "mlx5_2", 1, true },		/* empty list: everything */
	{ ",,", "mlx5_2", 1, true },		/* only empty entries: empty list */
	/* exact */
	{ "=mlx5_2", "mlx5_2", 1, true },
	{ "=mlx5_2", "mlx5_20", 1, false },
	{ "=mlx5", "mlx5_2", 1, false },
	/* exclusion */
	{ "^mlx5_2", "mlx5_2", 1, false },
	{ "^mlx5_2", "mlx5_3", 1, true },
	{ "^mlx5", "mlx5_3", 1, false },
	{ "^=mlx5", "mlx5_3", 1, true },
	{ "^=mlx5_3", "mlx5_3", 1, false },
	{ "^", "mlx5_2", 1, false },		/* '^' and an empty list: nothing */
	{ "=^mlx5_2", "mlx5_2", 1, true },	/* NCCL's parser drops one more '^' */
	{ "^^mlx5_2", "mlx5_2", 1, false },
	/* ports */
	{ "mlx5_2:1", "mlx5_2", 1, true },
	{ "mlx5_2:2", "mlx5_2", 1, false },
	{ "mlx5_2:2", "mlx5_2", -1, true },	/* no port asked: any entry port */
	{ "mlx5_2:x", "mlx5_2", 0, true },	/* atoi("x") = 0 */
	{ "mlx5_2:1x", "mlx5_2", 1, true },
	{ ":1,mlx5_2", "mlx5_2", 1, true },	/* an entry without a name is dropped */
	{ ":1", "mlx5_2", 1, true },
	{ "^mlx5_2:1", "mlx5_2", 1, false },
	{ "^mlx5_2:2", "mlx5_2", 1, true },
	{ "=mlx5_2:1,mlx5_3:1", "mlx5_3", 1, true },
	/* interfaces */
	{ "eth", "eth0", -1, true },
	{ "=eth0", "eth0", -1, true },
	{ "^docker,lo,virbr", "lo", -1, false },
	{ "^docker,lo,virbr", "net1", -1, true },
	{ "ib", "net1", -1, false },
};

START_TEST(test_selects)
{
	struct nccl_list l;

	nccl_list_parse(cases[_i].list, &l);
	ck_assert_msg(nccl_list_selects(&l, cases[_i].name, cases[_i].port) == cases[_i].selected,
		      "\"%s\" on %s port %d: want %s", cases[_i].list, cases[_i].name, cases[_i].port,
		      cases[_i].selected ? "selected" : "not selected");
}
END_TEST

START_TEST(test_caps)
{
	char list[NCCL_LIST_MAX * 4 + 200], name[NCCL_PREFIX_MAX + 20];
	struct nccl_list l;
	size_t len = 0;

	/* past NCCL_LIST_MAX entries NCCL reads nothing more */
	for (int i = 0; i < NCCL_LIST_MAX; i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "a%d,", i);
	snprintf(list + len, sizeof(list) - len, "mlx5_2");
	nccl_list_parse(list, &l);
	ck_assert_int_eq(l.n, NCCL_LIST_MAX);
	ck_assert(!nccl_list_selects(&l, "mlx5_2", 1));
	/* a prefix longer than NCCL's buffer is cut, not overflowed */
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	nccl_list_parse(name, &l);
	ck_assert_int_eq(l.n, 1);
	ck_assert_uint_eq(strlen(l.entry[0].prefix), NCCL_PREFIX_MAX - 1);
	ck_assert(nccl_list_selects(&l, name, 1));
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_selects, 0, N(cases));
	tcase_add_test(tc, test_caps);
}

int main(void)
{
	return unit_run("nccl", add_tests);
}
