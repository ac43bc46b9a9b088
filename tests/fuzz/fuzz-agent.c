// SPDX-License-Identifier: Apache-2.0
/* Fuzz target: what the node agent and the doctor read from disk and from
 * the agent's children. The first byte picks the reader: the agent's
 * totals file (what decodes encodes and decodes again to the same), its
 * status file (likewise), a reconcile summary of either plugin, `ippool
 * list --json`; the rest is the text. */
#include <stdlib.h>
#include <string.h>
#include "agentstatus.h"
#include "fuzz.h"
#include "summary.h"
#include "totals.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void totals(const char *text)
{
	struct totals *t = malloc(sizeof(*t)), *back = malloc(sizeof(*back));
	char *again = NULL, *third = NULL;

	if (t && back && totals_decode(text, t) == 0) {
		again = totals_encode(t);
		if (!again || totals_decode(again, back) || !(third = totals_encode(back)) ||
		    strcmp(again, third))
			abort();
	}
	free(third);
	free(again);
	free(back);
	free(t);
}

static void status(const char *text)
{
	struct agentstatus s, back;
	char *again;

	if (agentstatus_decode(text, &s))
		return;
	again = agentstatus_encode(&s);
	if (!again || agentstatus_decode(again, &back) || memcmp(&s, &back, sizeof(s)))
		abort();
	free(again);
}

static void reconcile(const char *text, enum summary_kind kind)
{
	struct summary s;

	if (summary_reconcile(text, kind, &s) == 0 &&
	    (s.done < 0 || s.failed < 0 || s.n_items > SUMMARY_MAX_ITEMS))
		abort();
	summary_release(&s);
}

static void pools(const char *text)
{
	struct metrics_pool *p;
	int n;

	if (summary_pools(text, &p, &n) == 0)
		for (int i = 0; i < n; i++)
			if (!p[i].pool[0] || p[i].used < 0 || p[i].free < 0 || p[i].slices < 0)
				abort();
	free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (!size)
		return 0;
	text = fuzz_text(data + 1, size - 1);
	if (!text)
		return 0;
	switch (data[0] % 5) {
	case 0: totals(text); break;
	case 1: status(text); break;
	case 2: reconcile(text, SUMMARY_SRIOV_RDMA); break;
	case 3: reconcile(text, SUMMARY_IPPOOL); break;
	default: pools(text); break;
	}
	free(text);
	return 0;
}
