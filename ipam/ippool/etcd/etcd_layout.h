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
 *   P/g/<node>/<cni>/<containerID>/<ifname>  GC's index: the leases node
 *                                     made in CNI network <cni> (value {})
 * <net> is network_name or "_" when unset; <pool> the pool id with '/' as
 * '_'; <node> the hostname. Fixed-width hex makes key order address order.
 */

/* Prefix, hostname, names and ids are bounded (512, 65, 256, 128): every
 * key fits (etcd_layout.c checks the longest at compile time). */
#define LAYOUT_KEY_MAX 1152
#define LAYOUT_NODE_MAX 256

void layout_owner_key(const char *prefix, const struct pool_key *k, char *out);
void layout_info_key(const char *prefix, const char *net, const char *pool, char *out);
/* The directory of a range's uniqueness scope, ending in '/'. */
void layout_scope_dir(const char *prefix, const struct pool_range *r, char *out);
void layout_addr_key(const char *dir, int family, ipaddr_u128 a, char *out);
/* GC's index: the directory of one node's leases in one CNI network, ending
 * in '/', and the key of one lease in it. node is a hostname (at most
 * HOST_NAME_MAX bytes). */
void layout_gc_dir(const char *prefix, const char *node, const char *cni_network, char *out);
void layout_gc_key(const char *prefix, const char *node, const struct pool_owner *o, char *out);
/* The attachment an index key under dir names: -EINVAL unless the key is
 * dir + "<containerID>/<ifname>", both valid. */
int layout_gc_parse(const char *dir, const char *key, struct pool_key *k);
/* The 8 (IPv4) or 32 (IPv6) lower-case hex digits layout_addr_key ends in. */
int layout_hex_parse(const char *s, int family, ipaddr_u128 *out);

/* An address key's value: its holder (k), or a hold until hold_until (k NULL). */
char *layout_addr_value(const struct pool_key *k, const char *pool, int family, ipaddr_u128 a,
			int64_t hold_until);
/* Held, or on a hold that has not run out at now. */
bool layout_value_blocks(const char *value, int64_t now);
bool layout_value_held_by(const char *value, const struct pool_key *k);
bool layout_value_has_holder(const char *value);

/* The lease: owner metadata (its CNI network "cniNetwork" when it has one,
 * its netns "netns" and that netns's identity "netnsDev", "netnsIno",
 * "bootID" when recorded), the node that made it and, per address, the key
 * that holds it; NULL (also when pool_owner_netns_valid refuses the owner)
 * on failure. Parsing gives node (also into l->owner.node), cni_network and
 * the netns fields "" and 0 when absent (older versions); present, they
 * must be valid (pool_owner_netns_valid). It also checks what keys are made of: an attachment
 * the id rules of docs/internals.md (Contracts) allow, 1 to POOL_MAX_RANGES
 * addresses, each with family 4 or 6, a prefix length that family has, and
 * the key of that address under prefix; -EINVAL (l zeroed) otherwise. */
char *layout_lease_value(const struct pool_lease *l, char keys[][LAYOUT_KEY_MAX], const char *node);
int layout_parse_lease(const char *prefix, const char *value, struct pool_lease *l,
		       char keys[][LAYOUT_KEY_MAX], char node[LAYOUT_NODE_MAX]);

/* Pool info with the cursor: every usable address below it is held.
 * Parsing wants first <= last, usable within them and the cursor in
 * [first, last + 1]; -EINVAL (all zeroed) otherwise. */
char *layout_info_value(const struct pool_info *pi, ipaddr_u128 cursor);
int layout_parse_info(const char *value, struct pool_info *pi, ipaddr_u128 *cursor);
