// SPDX-License-Identifier: Apache-2.0
/* The agent's metrics file: every family with HELP and TYPE, counters from the totals, gauges from the node. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "metrics.h"

static const char *const plugins[TOTALS_PLUGINS] = { "sriov_rdma", "ippool" };

static const char *verb_name(int verb)
{
	const char *name = env_cmd_name((enum cni_cmd)verb);

	return name ? name : "unknown";
}

/* A label value as the format wants it: \\, \" and \n escaped. */
static void label(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void calls(FILE *f, const struct totals *t, int p)
{
	char name[64];

	snprintf(name, sizeof(name), "%s_calls_total", plugins[p]);
	family(f, name, "counter", p == TOTALS_IPPOOL ?
	       "ippool CNI calls by verb, CNI error code (0: success) and network." :
	       "sriov-rdma CNI calls by verb, CNI error code (0: success) and network.");
	for (int i = 0; i < t->n_calls; i++) {
		const struct totals_call *c = &t->calls[i];

		if ((c->plugin == CALLREC_IPPOOL) != (p == TOTALS_IPPOOL))
			continue;
		fprintf(f, "%s{verb=\"%s\",code=\"%u\",network=", name, verb_name(c->verb), c->code);
		label(f, c->network);
		fprintf(f, "} %" PRIu64 "\n", c->count);
	}
}

static void durations(FILE *f, const struct totals *t, int p)
{
	char name[64];

	snprintf(name, sizeof(name), "%s_call_duration_seconds", plugins[p]);
	family(f, name, "histogram", p == TOTALS_IPPOOL ? "ippool CNI call durations by verb." :
	       "sriov-rdma CNI call durations by verb (its IPAM plugin's time included).");
	for (int v = 0; v < TOTALS_VERBS; v++) {
		const struct totals_hist *h = &t->hist[p][v];
		uint64_t cum = 0;

		if (!h->count)
			continue;
		for (int b = 0; b < TOTALS_BOUNDS; b++) {
			cum += h->bucket[b];
			fprintf(f, "%s_bucket{verb=\"%s\",le=\"%g\"} %" PRIu64 "\n", name, verb_name(v),
				totals_bounds[b], cum);
		}
		fprintf(f, "%s_bucket{verb=\"%s\",le=\"+Inf\"} %" PRIu64 "\n", name, verb_name(v),
			h->count);
		fprintf(f, "%s_sum{verb=\"%s\"} %.6f\n", name, verb_name(v), h->sum_us / 1e6);
		fprintf(f, "%s_count{verb=\"%s\"} %" PRIu64 "\n", name, verb_name(v), h->count);
	}
}

static void counter(FILE *f, const char *name, const char *help, uint64_t v)
{
	family(f, name, "counter", help);
	fprintf(f, "%s %" PRIu64 "\n", name, v);
}

static void records(FILE *f, const struct totals *t, bool writable)
{
	family(f, "sriov_rdma_call_records_dropped_total", "counter",
	       "Calls of either plugin missing from these counts: file full (the agent did not "
	       "fold in time), damaged records, series over the label limit.");
	fprintf(f, "sriov_rdma_call_records_dropped_total{reason=\"full\"} %" PRIu64 "\n",
		t->dropped_full);
	fprintf(f, "sriov_rdma_call_records_dropped_total{reason=\"damaged\"} %" PRIu64 "\n",
		t->damaged);
	fprintf(f, "sriov_rdma_call_records_dropped_total{reason=\"overflow\"} %" PRIu64 "\n",
		t->overflow);
	family(f, "sriov_rdma_call_records_writable", "gauge",
	       "1 when a plugin can append its call record, 0 when calls go unrecorded.");
	fprintf(f, "sriov_rdma_call_records_writable %d\n", writable);
}

static void reconcile(FILE *f, const struct totals *t, int64_t last_run)
{
	counter(f, "sriov_rdma_reconcile_runs_total", "Runs of the node agent.", t->runs);
	family(f, "sriov_rdma_reconcile_errors_total", "counter",
	       "Reconcile commands that did not end with everything found undone or freed.");
	fprintf(f, "sriov_rdma_reconcile_errors_total{command=\"sriov-rdma\"} %" PRIu64 "\n",
		t->errors[TOTALS_SRIOV_RDMA]);
	fprintf(f, "sriov_rdma_reconcile_errors_total{command=\"ippool\"} %" PRIu64 "\n",
		t->errors[TOTALS_IPPOOL]);
	counter(f, "sriov_rdma_reconciled_total", "Attachments of dead pods undone by the agent.",
		t->undone);
	counter(f, "ippool_reconciled_total", "Leases of dead pods freed by the agent.", t->freed);
	family(f, "sriov_rdma_agent_last_run_timestamp_seconds", "gauge",
	       "When the agent last ran, unix time.");
	fprintf(f, "sriov_rdma_agent_last_run_timestamp_seconds %" PRId64 "\n", last_run);
}

static void vfs(FILE *f, const struct metrics_node *n)
{
	static const char *const states[] = { "free", "attached", "parked" };

	family(f, "sriov_rdma_vfs", "gauge", "VFs of each SR-IOV PF: free, attached (held by an "
	       "attachment), parked (held, but back in the host: its pod is gone).");
	for (int i = 0; i < n->n_pfs; i++) {
		const int v[] = { n->pfs[i].free, n->pfs[i].attached, n->pfs[i].parked };

		for (int s = 0; s < 3; s++) {
			fputs("sriov_rdma_vfs{pf=", f);
			label(f, n->pfs[i].name);
			fprintf(f, ",state=\"%s\"} %d\n", states[s], v[s]);
		}
	}
}

static void pool_sample(FILE *f, const char *name, const struct metrics_pool *p,
			const char *state, double v)
{
	fprintf(f, "%s{network=", name);
	label(f, p->network);
	fputs(",pool=", f);
	label(f, p->pool);
	if (state)
		fprintf(f, ",state=\"%s\"", state);
	fprintf(f, "} %.17g\n", v);
}

static void pools(FILE *f, const struct metrics_node *n)
{
	family(f, "ippool_addresses", "gauge", "Addresses of each ippool pool: used, free.");
	for (int i = 0; i < n->n_pools; i++) {
		pool_sample(f, "ippool_addresses", &n->pools[i], "used", n->pools[i].used);
		pool_sample(f, "ippool_addresses", &n->pools[i], "free", n->pools[i].free);
	}
	family(f, "ippool_slices", "gauge", "Node slices of each pool this node holds (0 without slices).");
	for (int i = 0; i < n->n_pools; i++)
		pool_sample(f, "ippool_slices", &n->pools[i], NULL, n->pools[i].slices);
}

char *metrics_render(const struct totals *t, const struct metrics_node *n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	for (int p = 0; p < TOTALS_PLUGINS; p++) {
		calls(f, t, p);
		durations(f, t, p);
	}
	records(f, t, n->records_writable);
	reconcile(f, t, n->last_run);
	vfs(f, n);
	pools(f, n);
	if (ferror(f)) {
		fclose(f);
		free(text);
		errno = ENOMEM;
		return NULL;
	}
	fclose(f);
	return text;
}
