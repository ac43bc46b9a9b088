/* SPDX-License-Identifier: Apache-2.0 */
/* Node slices on the etcd store: block arithmetic, keys, and the slice, heartbeat and local record values; pure. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "etcd_layout.h"
#include "store.h"

/*
 * A slice is a naturally aligned block of /len addresses of a uniqueness
 * scope (etcd_layout.h), so two pools of one address space that use the
 * same node_slice_size share one grid of slices. Under the prefix P:
 *   P/s/<net>/v4/<hex first>      a slice's owner (value: slice_value)
 *   P/s/<net>/v6/<hex first>      the same for IPv6
 *   P/s/<net>/p/<pool>/<hex first> pool scope (enable_overlapping_ranges false)
 *   P/t/<node>/<scope as above>/<hex first>  the node's index of its slices
 *                                 (value: the same slice value)
 *   P/h/<node>                    the node's heartbeat (value: heartbeat)
 * A node's own record of a slice (<dataDir>/etcd-slices/<hash of the prefix>/owned/<name>) is the
 * slice value with "state": "owned" or "releasing".
 */

struct slice_rec {
	struct pool_slice s;	/* network, pool (the one that claimed it), family, span, node */
	bool shared;		/* the scope: network's shared space, or the pool's own */
	int len;		/* the slice's prefix length */
	int64_t claimed;	/* unix seconds */
	bool releasing;		/* local record only: no allocation from it any more */
};

/* The block of /len that holds a (len from 0 to the family's bits). */
struct pool_span slice_block(int family, int len, ipaddr_u128 a);
/* The blocks of /len r's span touches: indexes lo..hi counted from r's
 * network (the span's first address with the prefix's host bits clear). */
void slice_index_range(const struct pool_range *r, int len, ipaddr_u128 *lo, ipaddr_u128 *hi);
/* The index of the block of /len that holds a, counted from r's network. */
ipaddr_u128 slice_index(const struct pool_range *r, int len, ipaddr_u128 a);
/* The block of index i (as slice_index_range counts them). */
struct pool_span slice_nth(const struct pool_range *r, int len, ipaddr_u128 i);
/* Addresses of block b that r hands out (in span, not skipped). */
ipaddr_u128 slice_usable(const struct pool_range *r, const struct pool_span *b);
/* r restricted to the blocks own[0..n) (sorted, disjoint): everything else
 * in r's span joins skip, so exclusions, bounds and the gateway still apply;
 * desc stays r's (messages name the range as configured).
 * *skip_out (malloc'd, the caller frees it) backs out->skip. -ENOMEM. */
int slice_restrict(const struct pool_range *r, const struct pool_span *own, size_t n,
		   struct pool_range *out, struct pool_span **skip_out);

/* Keys. The slice directory of r's scope ends in '/'. */
void slice_dir(const char *prefix, const struct pool_range *r, char *out);
void slice_key(const char *prefix, const struct pool_range *r, ipaddr_u128 first, char *out);
void slice_node_dir(const char *prefix, const char *node, char *out);
/* The node index key of slice key skey: P/t/<node>/ + skey's part after P/s/. */
void slice_node_key(const char *prefix, const char *node, const char *skey, char *out);
void slice_heartbeat_key(const char *prefix, const char *node, char *out);
/* The scope as a pool_range (network, pool, family, shared) of a record. */
void slice_scope(const struct slice_rec *rec, struct pool_range *out);

/* Values: malloc'd JSON, NULL on OOM. record adds "state". */
char *slice_value(const struct slice_rec *rec, bool record);
/* 0 or -EINVAL (rec zeroed): a node name, network, pool, family 4 or 6, a
 * prefix length the family has, "first" the fixed-width hex of a block of
 * that length, "claimed" an integer, and "state" owned|releasing exactly
 * when record. */
int slice_parse(const char *value, bool record, struct slice_rec *rec);
char *slice_heartbeat_value(const char *node, int64_t now);
int slice_parse_heartbeat(const char *value, char node[LAYOUT_NODE_MAX], int64_t *time);
/* A node name as a key part: a hostname's characters, 1 to 253 bytes. */
bool slice_valid_node(const char *node);
