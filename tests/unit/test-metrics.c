// SPDX-License-Identifier: Apache-2.0
/* Unit tests for metrics.c: the families in order with HELP and TYPE, cumulative buckets, escaped labels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "metrics.h"
#include "unit.h"

static void fold(struct totals *t, int verb, int code, const char *network, uint32_t us)
{
	struct callrec r = { .plugin = CALLREC_SRIOV_RDMA, .verb = (uint8_t)verb, .code = (uint16_t)code,
			     .duration_us = us };

	snprintf(r.network, sizeof(r.network), "%s", network);
	totals_fold(t, &r);
}

static void has(const char *text, const char *line)
{
	ck_assert_msg(strstr(text, line), "no \"%s\" in:\n%s", line, text);
}

/* Every sample's family has its TYPE line before it. */
static void typed_first(const char *text)
{
	const char *line = text;

	while (*line) {
		const char *end = strchr(line, '\n');
		char name[128], type[160];
		size_t n = strcspn(line, "{ ");

		ck_assert_ptr_nonnull(end);
		if (line[0] != '#') {
			snprintf(name, sizeof(name), "%.*s", (int)n, line);
			for (const char *sfx = NULL; (sfx = strstr(name, "_bucket")) ||
			     (sfx = strstr(name, "_sum")) || (sfx = strstr(name, "_count"));)
				name[sfx - name] = '\0';
			snprintf(type, sizeof(type), "# TYPE %s ", name);
			ck_assert_msg(strstr(text, type) && strstr(text, type) < line,
				      "sample \"%.*s\" before its TYPE", (int)(end - line), line);
		}
		line = end + 1;
	}
}

START_TEST(test_render)
{
	struct totals *t = calloc(1, sizeof(*t));
	struct metrics_pf pf = { .name = "ens8f0", .free = 6, .attached = 1, .parked = 1 };
	struct metrics_pool pool = { .network = "", .pool = "192.0.2.0/28", .used = 1, .free = 13 };
	struct metrics_node n = { .pfs = &pf, .n_pfs = 1, .pools = &pool, .n_pools = 1,
				  .records_writable = true, .last_run = 1796400000 };
	char *text;

	fold(t, CNI_CMD_ADD, 0, "rail-0", 800);
	fold(t, CNI_CMD_ADD, 0, "rail-0", 3000);
	fold(t, CNI_CMD_ADD, 11, "rail-\"1", 20000000);
	t->runs = 4;
	text = metrics_render(t, &n);
	ck_assert_ptr_nonnull(text);
	typed_first(text);
	has(text, "# TYPE sriov_rdma_calls_total counter\n");
	has(text, "sriov_rdma_calls_total{verb=\"ADD\",code=\"0\",network=\"rail-0\"} 2\n");
	has(text, "sriov_rdma_calls_total{verb=\"ADD\",code=\"11\",network=\"rail-\\\"1\"} 1\n");
	has(text, "# TYPE sriov_rdma_call_duration_seconds histogram\n");
	has(text, "sriov_rdma_call_duration_seconds_bucket{verb=\"ADD\",le=\"0.001\"} 1\n");
	has(text, "sriov_rdma_call_duration_seconds_bucket{verb=\"ADD\",le=\"0.005\"} 2\n");
	has(text, "sriov_rdma_call_duration_seconds_bucket{verb=\"ADD\",le=\"10\"} 2\n");
	has(text, "sriov_rdma_call_duration_seconds_bucket{verb=\"ADD\",le=\"+Inf\"} 3\n");
	has(text, "sriov_rdma_call_duration_seconds_sum{verb=\"ADD\"} 20.003800\n");
	has(text, "sriov_rdma_call_duration_seconds_count{verb=\"ADD\"} 3\n");
	has(text, "# TYPE ippool_calls_total counter\n");
	has(text, "sriov_rdma_reconcile_runs_total 4\n");
	has(text, "sriov_rdma_vfs{pf=\"ens8f0\",state=\"parked\"} 1\n");
	has(text, "ippool_addresses{network=\"\",pool=\"192.0.2.0/28\",state=\"free\"} 13\n");
	has(text, "ippool_slices{network=\"\",pool=\"192.0.2.0/28\"} 0\n");
	has(text, "sriov_rdma_call_records_writable 1\n");
	ck_assert_ptr_null(strstr(text, "ippool_call_duration_seconds_bucket"));	/* no calls */
	free(text);
	free(t);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_test(tc, test_render);
}

int main(void)
{
	return unit_run("metrics", add_tests);
}
