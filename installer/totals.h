/* SPDX-License-Identifier: Apache-2.0 */
/* The agent's folded counters: call records by label, durations as histograms, reconcile results, the read positions in the call-record files; kept across restarts as JSON. */
#pragma once

#include <stdint.h>
#include "callrec.h"
#include "env.h"

#define TOTALS_BOUNDS 13		/* histogram bucket bounds, then +Inf */
#define TOTALS_MAX_CALLS 1024		/* series of calls_total, both plugins */
#define TOTALS_OTHER_SLOTS 64		/* of them, kept for network="_other" */
#define TOTALS_OTHER "_other"
#define TOTALS_VERBS (CNI_CMD_COUNT + 1)	/* the verbs, and "unknown" */
#define TOTALS_FILES 2			/* calls and calls.old */

/* Seconds, for calls of 1 ms to 10 s. */
extern const double totals_bounds[TOTALS_BOUNDS];

struct totals_call {
	uint8_t plugin, verb;
	uint16_t code;
	char network[CALLREC_NETWORK_MAX + 1];
	uint64_t count;
};

struct totals_hist {
	uint64_t bucket[TOTALS_BOUNDS + 1];	/* per bucket, not cumulative */
	uint64_t count, sum_us;
};

/* How far a call-record file (by inode) has been read. */
struct totals_pos {
	uint64_t ino, offset;
};

enum { TOTALS_SRIOV_RDMA, TOTALS_IPPOOL, TOTALS_PLUGINS };

struct totals {
	struct totals_call calls[TOTALS_MAX_CALLS];
	int n_calls;
	struct totals_hist hist[TOTALS_PLUGINS][TOTALS_VERBS];
	uint64_t runs, undone, freed, errors[TOTALS_PLUGINS];
	uint64_t dropped_full, damaged, overflow;
	struct totals_pos files[TOTALS_FILES];
	int n_files;
	struct totals_pos dropped;	/* calls.dropped: bytes (drops) counted */
};

/* Counts one call record (a plugin that is neither: damaged). Past
 * TOTALS_MAX_CALLS - TOTALS_OTHER_SLOTS series, a new network counts as
 * TOTALS_OTHER; past them all, in overflow. */
void totals_fold(struct totals *t, const struct callrec *r);

/* The offset already read of file ino (0: not seen). */
uint64_t totals_offset(const struct totals *t, uint64_t ino);

/* t as one JSON document (malloc'd), or NULL (errno). */
char *totals_encode(const struct totals *t);
/* text into *t (zeroed first); -EBADMSG for anything totals_encode does
 * not write (t zeroed again: counting starts over, which the log says). */
int totals_decode(const char *text, struct totals *t);
