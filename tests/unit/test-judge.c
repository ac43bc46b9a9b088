// SPDX-License-Identifier: Apache-2.0
/* judge: reconcile frees a lease only when it is this node's, its netns is gone and the grace has passed. */
#include <stdint.h>
#include <stdio.h>
#include "judge.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define NOW INT64_C(1796400000)

static const struct {
	enum nsident_verdict ns;
	int64_t created;
	long grace;
	enum judge_verdict want;
} verdicts[] = {
	{ NSIDENT_LIVE, NOW - 3600, 60, JUDGE_LIVE },
	{ NSIDENT_LIVE, NOW, 0, JUDGE_LIVE },
	{ NSIDENT_GONE, NOW - 3600, 60, JUDGE_GONE },
	{ NSIDENT_GONE, NOW - 60, 60, JUDGE_GONE },	/* exactly the grace old */
	{ NSIDENT_GONE, NOW - 59, 60, JUDGE_GRACE },
	{ NSIDENT_GONE, NOW, 60, JUDGE_GRACE },
	{ NSIDENT_GONE, NOW, 0, JUDGE_GONE },		/* --grace 0: at once */
	{ NSIDENT_GONE, NOW + 5, 0, JUDGE_GRACE },	/* made after now: a clock stepped back */
	{ NSIDENT_GONE, INT64_MIN, 60, JUDGE_GONE },	/* no overflow on a damaged time */
	{ NSIDENT_GONE, INT64_MAX, 0, JUDGE_GRACE },
	{ NSIDENT_GONE, 0, INT32_MAX, JUDGE_GRACE },	/* a grace longer than any age */
	{ NSIDENT_UNKNOWN, NOW - 3600, 0, JUDGE_UNKNOWN },	/* old leases: never freed */
	{ NSIDENT_UNKNOWN, NOW, 60, JUDGE_UNKNOWN },
};

START_TEST(test_verdicts)
{
	ck_assert_int_eq(judge_lease(verdicts[_i].ns, verdicts[_i].created, NOW, verdicts[_i].grace),
			 verdicts[_i].want);
}
END_TEST

static const struct {
	const char *recorded, *node;
	bool ours;
} nodes[] = {
	{ "", "gpu-017", true },		/* local store, old etcd leases */
	{ "gpu-017", "gpu-017", true },
	{ "gpu-018", "gpu-017", false },
	{ "gpu-01", "gpu-017", false },
	{ "gpu-0170", "gpu-017", false },
};

START_TEST(test_ours)
{
	struct pool_owner o = { 0 };

	snprintf(o.node, sizeof(o.node), "%s", nodes[_i].recorded);
	ck_assert_int_eq(judge_ours(&o, nodes[_i].node), nodes[_i].ours);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_str_eq(judge_name(JUDGE_LIVE), "live");
	ck_assert_str_eq(judge_name(JUDGE_GONE), "gone");
	ck_assert_str_eq(judge_name(JUDGE_UNKNOWN), "unknown");
	ck_assert_str_eq(judge_name(JUDGE_GRACE), "grace");
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_verdicts, 0, N(verdicts));
	tcase_add_loop_test(tc, test_ours, 0, N(nodes));
	tcase_add_test(tc, test_names);
}

int main(void)
{
	return unit_run("judge", add_tests);
}
