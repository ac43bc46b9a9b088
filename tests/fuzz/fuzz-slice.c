// SPDX-License-Identifier: Apache-2.0
/* Fuzz target: node slice values as etcd, another node or a broken writer
 * may have left them (a slice's owner, a node's heartbeat) and a node's own
 * slice records on disk. What a parser takes is a block the layout allows,
 * and writing it out again reads back the same. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "fuzz.h"
#include "slice_layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void slice(const char *value, bool record)
{
	struct slice_rec rec, back;
	struct pool_span b;
	char *again;

	if (slice_parse(value, record, &rec)) {
		if (rec.s.node[0] || rec.s.family || rec.len)
			abort();
		return;
	}
	b = slice_block(rec.s.family, rec.len, rec.s.span.first);
	if ((rec.s.family != AF_INET && rec.s.family != AF_INET6) || !slice_valid_node(rec.s.node) ||
	    b.first != rec.s.span.first || b.last != rec.s.span.last || (!record && rec.releasing))
		abort();
	again = slice_value(&rec, record);
	if (!again)
		return;
	if (slice_parse(again, record, &back) || memcmp(&rec, &back, sizeof(rec)))
		abort();
	free(again);
}

static void heartbeat(const char *value)
{
	char node[LAYOUT_NODE_MAX], node2[LAYOUT_NODE_MAX], *again;
	int64_t t, t2;

	if (slice_parse_heartbeat(value, node, &t)) {
		if (node[0] || t)
			abort();
		return;
	}
	if (!slice_valid_node(node))
		abort();
	again = slice_heartbeat_value(node, t);
	if (!again)
		return;
	if (slice_parse_heartbeat(again, node2, &t2) || strcmp(node, node2) || t != t2)
		abort();
	free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *value = fuzz_text(data, size);

	if (!value)
		return 0;
	slice(value, false);
	slice(value, true);
	heartbeat(value);
	free(value);
	return 0;
}
