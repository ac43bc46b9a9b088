/* SPDX-License-Identifier: Apache-2.0 */
/* The etcd store's keys and values (README, "ippool on etcd"): names, hex, JSON both ways. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include "store.h"

/*
 * Under the prefix P:
 *   P/o/<containerID>/<ifname>        the lease of one attachment
 *   P/n/<net>/v4/<8 hex>              an address held, shared scope (IPv4)
 *   P/n/<net>/v6/<32 hex>             the same for IPv6
 *   P/n/<net>/p/<pool>/<hex>          an address held, pool scope
 *                                     (enable_overlapping_ranges false)
 *   P/i/<net>/<pool>                  pool info and its cursor
 * <net> is network_name or "_" when unset; <pool> the pool id with '/' as
 * '_'. Fixed-width hex makes key order address order.
 */

/* Prefix, names and ids are bounded (512, 256, 128): keys fit. */
#define LAYOUT_KEY_MAX 1024

void layout_owner_key(const char *prefix, const struct pool_key *k, char *out);
void layout_info_key(const char *prefix, const char *net, const char *pool, char *out);
/* The directory of a range's uniqueness scope, ending in '/'. */
void layout_scope_dir(const char *prefix, const struct pool_range *r, char *out);
void layout_addr_key(const char *dir, int family, pool_u128 a, char *out);
/* 8 (IPv4) or 32 (IPv6) lower-case hex digits; out holds 33 bytes. */
void layout_hex_format(int family, pool_u128 a, char *out);
int layout_hex_parse(const char *s, int family, pool_u128 *out);

/* An address key's value: its holder (k), or a hold until hold_until (k NULL). */
char *layout_addr_value(const struct pool_key *k, const char *pool, int family, pool_u128 a,
			int64_t hold_until);
/* Held, or on a hold that has not run out at now. */
bool layout_value_blocks(const char *value, int64_t now);
bool layout_value_held_by(const char *value, const struct pool_key *k);
bool layout_value_has_holder(const char *value);

/* The lease: owner metadata, the node that made it and, per address, the
 * key that holds it. */
char *layout_lease_value(const struct pool_lease *l, char keys[][LAYOUT_KEY_MAX], const char *node);
int layout_parse_lease(const char *value, struct pool_lease *l, char keys[][LAYOUT_KEY_MAX]);
/* Whether the lease was made on node. */
bool layout_lease_on(const char *value, const char *node);

/* Pool info with the cursor: every usable address below it is held. */
char *layout_info_value(const struct pool_info *pi, pool_u128 cursor);
int layout_parse_info(const char *value, struct pool_info *pi, pool_u128 *cursor);
