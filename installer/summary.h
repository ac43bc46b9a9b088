/* SPDX-License-Identifier: Apache-2.0 */
/* What the agent reads from the commands it runs: a reconcile's --json summary, `ippool list --json`; without I/O. */
#pragma once

#include <stdbool.h>
#include "metrics.h"

#define SUMMARY_MAX_ITEMS 256
#define SUMMARY_MAX_POOLS 256

enum summary_kind { SUMMARY_SRIOV_RDMA, SUMMARY_IPPOOL };

/* One attachment or lease the run acted on or kept (docs/internals.md (Contracts)). */
struct summary_item {
	char containerid[256], ifname[16], network[256];
	char what[256];			/* sriov-rdma: its deviceID; ippool: its addresses */
	char netns[256], verdict[16], action[16], error[256];
};

struct summary {
	bool dry_run;
	long done;			/* "undone" or "freed" */
	long failed;
	struct summary_item *items;	/* malloc'd, at most SUMMARY_MAX_ITEMS */
	int n_items;
};

/* The one JSON object a reconcile of kind prints; -EBADMSG when it is not
 * one (a count missing or negative, an item not an object with string
 * fields). */
int summary_reconcile(const char *text, enum summary_kind kind, struct summary *out);
void summary_release(struct summary *s);

/* `ippool list --json`: {"pools":[{network,pool,used,free,slices},...]}
 * into *pools (malloc'd, at most SUMMARY_MAX_POOLS); -EBADMSG otherwise. */
int summary_pools(const char *text, struct metrics_pool **pools, int *n);
