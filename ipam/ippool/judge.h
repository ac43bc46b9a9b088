/* SPDX-License-Identifier: Apache-2.0 */
/* Reconcile's decision on one lease, from what was judged of it: pure, so a table tests it. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include "nsident.h"
#include "store.h"

enum judge_verdict {
	JUDGE_LIVE,		/* its netns is there: kept */
	JUDGE_GONE,		/* its netns is gone and the grace has passed: freed */
	JUDGE_UNKNOWN,		/* nothing recorded, or unreadable now: never freed */
	JUDGE_GRACE,		/* its netns is gone, but the lease is younger than the grace: kept */
};

/* Whether a lease is this node's to judge: recorded by this node (node, the
 * hostname) or by no node in particular (the local store, old etcd leases). */
bool judge_ours(const struct pool_owner *o, const char *node);

/* The verdict on one of this node's leases: its netns verdict (nsident_judge),
 * a gone one kept until the lease is grace seconds old at now (grace >= 0;
 * a created time ahead of now is younger than any grace). */
enum judge_verdict judge_lease(enum nsident_verdict ns, int64_t created, int64_t now, long grace);

/* "live", "gone", "unknown", "grace". */
const char *judge_name(enum judge_verdict v);
