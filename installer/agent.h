/* SPDX-License-Identifier: Apache-2.0 */
/* The node agent: both reconciles run, the call records folded in, the metrics and status files written; once or every interval. */
#pragma once

#include <signal.h>
#include <stdbool.h>

#define AGENT_MAX_CONFS 16
#define AGENT_TOTALS_FILE "totals.json"

struct agent_opts {
	const char *bin_dir;		/* the installed sriov-rdma and ippool */
	const char *metrics_file;	/* NULL: none written */
	const char *ippool_confs[AGENT_MAX_CONFS];	/* stores besides ippool's default */
	int n_ippool_confs;
	long interval;			/* seconds, recorded for the doctor */
	const char *grace;		/* --grace of both reconciles; NULL: theirs (60 s) */
};

struct agent;

/* The agent's state: its totals read back from callrec_dir() (a damaged
 * file, said on stderr, starts them over). NULL and errno on failure. */
struct agent *agent_new(const struct agent_opts *o);
void agent_free(struct agent *a);

/* One run: `sriov-rdma reconcile --json`, `ippool reconcile --json` for the
 * default store and each --ippool-conf, each freed item logged; the call
 * records folded in; totals, status and metrics written, each atomically.
 * A signal of stop pending in *stop (checked between children) skips the
 * reconciles not started yet; what started finishes, and the files are
 * written. Returns 0 when every command ended well, 1 otherwise. */
int agent_pass(struct agent *a, const sigset_t *stop);
