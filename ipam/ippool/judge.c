// SPDX-License-Identifier: Apache-2.0
/* Reconcile's decision on one lease: whose it is, and whether its netns is gone for long enough to free it. */
#include <string.h>
#include "judge.h"

bool judge_ours(const struct pool_owner *o, const char *node)
{
	return !o->node[0] || !strcmp(o->node, node);
}

enum judge_verdict judge_lease(enum nsident_verdict ns, int64_t created, int64_t now, long grace)
{
	static const enum judge_verdict of[] = {
		[NSIDENT_LIVE] = JUDGE_LIVE,
		[NSIDENT_GONE] = JUDGE_GONE,
		[NSIDENT_UNKNOWN] = JUDGE_UNKNOWN,
	};

	/* younger than grace, written so that no created overflows it */
	if (ns == NSIDENT_GONE && created > now - grace)
		return JUDGE_GRACE;
	return of[ns];
}

const char *judge_name(enum judge_verdict v)
{
	static const char *const names[] = {
		[JUDGE_LIVE] = "live",
		[JUDGE_GONE] = "gone",
		[JUDGE_UNKNOWN] = "unknown",
		[JUDGE_GRACE] = "grace",
	};

	return names[v];
}
