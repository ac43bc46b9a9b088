/* SPDX-License-Identifier: Apache-2.0 */
/* The agent's metrics in the Prometheus text exposition format (node_exporter's textfile collector), without I/O. */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include "totals.h"

/* One SR-IOV PF's VFs by state (docs/metrics.md). */
struct metrics_pf {
	char name[64];			/* its netdev, else its PCI address */
	int free, attached, parked;
};

/* One ippool pool, as `ippool list --json` counts it. */
struct metrics_pool {
	char network[256], pool[64];
	double used, free, slices;
};

/* What is read fresh each run, beside the totals. */
struct metrics_node {
	const struct metrics_pf *pfs;
	int n_pfs;
	const struct metrics_pool *pools;
	int n_pools;
	bool records_writable;		/* a plugin can append a call record now */
	int64_t last_run;		/* unix seconds */
};

/* The whole file (malloc'd), HELP and TYPE before each family's samples,
 * or NULL (errno). */
char *metrics_render(const struct totals *t, const struct metrics_node *n);
