/* SPDX-License-Identifier: Apache-2.0 */
/* The ippool storage interface: one vtable per backend (local, etcd), one handle per open store. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include "err.h"
#include "ipaddr.h"
#include "netconf.h"
#include "nsident.h"

/*
 * Vocabulary
 *
 * - An address is an ipaddr_u128 (ipaddr.h) plus a family: IPv4 uses the low 32 bits.
 * - A pool is one configured range of one network: (network, pool id), where
 *   the pool id is the range as written in normalized form ("10.56.0.0/16",
 *   "10.56.0.10-10.56.0.99/16").
 * - A lease is everything one attachment (containerID, ifname) holds: one
 *   address per range of the ADD that made it. It records the CNI network
 *   (the config's top-level "name") whose ADD made it: GC's scope. Leases
 *   written before ippool recorded it have "" there, and GC never takes them.
 * - The uniqueness scope of an address: with shared = true
 *   (enable_overlapping_ranges, the default) it is (network, family): no two
 *   pools of a network ever hold the same address, however their ranges
 *   overlap. With shared = false it is (network, pool).
 *
 * Contract every backend keeps
 *
 * - Each mutating op (reserve, release, gc) is atomic: it happens entirely or
 *   not at all, as seen by every other process on every node the backend
 *   serves, including when the caller is killed (-9) at any instruction. A
 *   killed reserve may at most leave the lease it was making in place, fully
 *   recorded under its owner, so that release or gc of that owner removes it.
 * - No address is ever held by two owners within its uniqueness scope.
 * - Ownership: release and gc only remove addresses recorded under the owner
 *   they name; reserve never takes an address held by anyone else.
 * - Ops return 0 or -errno and fill err (first error wins, see err.h) with:
 *     CNI_ERR_EXHAUSTED (110)  reserve: a range has no free address
 *                              (-ENOSPC; message from pool_err_exhausted)
 *     CNI_ERR_ADDR_TAKEN (111) reserve: a requested address is held by another
 *                              owner (-EADDRINUSE)
 *     CNI_ERR_STORE (112)      the store is unreadable, unwritable, corrupt
 *                              beyond repair, or unreachable (-EIO and others)
 *     CNI_ERR_TRY_AGAIN (11)   lock or transaction contention outlasted the
 *                              backend's patience (-EAGAIN)
 *     CNI_ERR_CONFIG (7)       open: backend keys invalid (-EINVAL)
 *   Messages are lower-case and name the value (address, pool, path, endpoint).
 * - Ops do no work proportional to the size of a range; work proportional to
 *   the number of reservations is allowed only in gc, list and repair.
 */

#define POOL_MAX_RANGES 8		/* ipRanges entries per ADD */
#define POOL_ID_MAX 128			/* normalized range text */
#define POOL_NAME_MAX NETCONF_NAME_MAX	/* network_name, containerID */
#define POOL_STR_MAX 256		/* CNI_ARGS values */
#define POOL_IFNAME_MAX 16
#define POOL_NETNS_MAX 4096		/* CNI_NETNS as recorded */
#define POOL_NODE_MAX 256		/* a node name: its hostname */

/* Inclusive interval of addresses, first <= last. */
struct pool_span {
	ipaddr_u128 first;
	ipaddr_u128 last;
};

/* One range of an ADD, fully resolved by the caller (range.c); pure data. */
struct pool_range {
	char network[POOL_NAME_MAX];
	char pool[POOL_ID_MAX];
	char desc[2 * POOL_ID_MAX + 64];	/* for messages: "192.0.2.0/28 (range_start..range_end, 3 excluded)" */
	int family;			/* AF_INET or AF_INET6 */
	int prefix_len;			/* of the range, for the result */
	bool shared;			/* enable_overlapping_ranges */
	struct pool_span span;		/* candidates after clipping; never empty */
	const struct pool_span *skip;	/* excluded + gateway: sorted, disjoint, inside span */
	size_t n_skip;
	ipaddr_u128 usable;		/* addresses in span not in skip (for list) */
	bool has_want;			/* a specific address was asked for */
	ipaddr_u128 want;			/* in span and not in skip (caller checks) */
};

/* (containerID, ifname): the identity of an attachment. */
struct pool_key {
	char containerid[POOL_NAME_MAX];
	char ifname[POOL_IFNAME_MAX];
};

struct pool_owner {
	struct pool_key key;
	char cni_network[POOL_NAME_MAX];	/* the config's "name"; "" on old leases */
	char pod_namespace[POOL_STR_MAX];	/* "" when CNI_ARGS lacks it */
	char pod_name[POOL_STR_MAX];
	char pod_uid[POOL_STR_MAX];
	int64_t created;			/* unix seconds, set by the caller */
	/* What reconcile judges (nsident.h): the CNI_NETNS of the ADD and the
	 * netns it named then; "" and zeroes on leases written before
	 * reconcile existed, which reconcile never frees. */
	char netns[POOL_NETNS_MAX];
	struct nsident ns;
	/* The node whose ADD made it, as list reports it: "" in the local
	 * store (only ever this node) and on etcd leases of old versions. */
	char node[POOL_NODE_MAX];
};

struct pool_addr {
	char network[POOL_NAME_MAX];
	char pool[POOL_ID_MAX];
	int family;
	int prefix_len;
	ipaddr_u128 addr;
};

struct pool_lease {
	struct pool_owner owner;
	struct pool_addr addrs[POOL_MAX_RANGES];
	int n_addrs;
};

/* A pool as last seen by reserve, for `ippool list`. */
struct pool_info {
	char network[POOL_NAME_MAX];
	char pool[POOL_ID_MAX];
	int family;
	bool shared;
	struct pool_span span;
	ipaddr_u128 usable;
};

/* The ipam "store" key is either a backend name ("local", "etcd") or an
 * object {"type": "<backend>", ...backend keys}; absent = "local". */
struct pool_store_cfg {
	char data_dir[4096];		/* local store root (dataDir) */
	long hold_seconds;		/* release_hold_seconds, 0 = none */
	int slice_len;			/* node_slice_size (etcd), 0 = none */
	bool nosync;			/* bulk tools only (ippool fill): skip fsync, a
					 * power loss may lose recent changes; may be ignored */
	const cJSON *store;		/* the "store" object, NULL for the string form or absent;
					 * borrowed for open only: copy what you keep */
};

/* The "timeout_ms" of a store object (NULL: absent): how long one command
 * may wait on the store; 100 to 600000, default POOL_TIMEOUT_MS. Out of
 * range or not a number: CNI_ERR_CONFIG. */
#define POOL_TIMEOUT_MS 5000
int pool_store_timeout(const cJSON *store, int *out_ms, struct cni_err *err);

struct pool_store;

/* A node slice (etcd store with node_slice_size): a block of a pool one
 * node allocates from alone. */
struct pool_slice {
	char network[POOL_NAME_MAX];
	char pool[POOL_ID_MAX];
	int family;
	struct pool_span span;
	char node[POOL_NODE_MAX];		/* its owner */
};

typedef int (*pool_lease_fn)(const struct pool_lease *lease, void *arg);
typedef int (*pool_slice_fn)(const struct pool_slice *slice, void *arg);
typedef int (*pool_info_fn)(const struct pool_info *info, void *arg);

struct pool_store_ops {
	const char *name;		/* the "store" value: "local", "etcd" */

	/* Connects or opens, creating an empty store if there is none; does not
	 * check more than it must (status does). */
	int (*open)(const struct pool_store_cfg *cfg, struct pool_store **out, struct cni_err *err);
	/* Accepts NULL. */
	void (*close)(struct pool_store *s);

	/* STATUS: 0 when reserve would be able to read and write the store;
	 * CNI_ERR_STORE naming what is wrong otherwise. No side effects beyond
	 * repairing derived data. */
	int (*status)(struct pool_store *s, struct cni_err *err);

	/* ADD, one transaction.
	 * If owner->key already holds a lease with, for every range i, an address
	 * in range i's (network, pool) and span, equal to want when has_want: that
	 * lease is returned unchanged (idempotent ADD; owner metadata is kept).
	 * Otherwise any lease of the key is released (as release does) and a new
	 * one made: for each range in order the wanted address, or the lowest free
	 * one in span not in skip, not held within its uniqueness scope and not on
	 * hold (pool_first_free), is reserved; out->addrs[i] matches ranges[i].
	 * All or nothing: on -ENOSPC (a range exhausted) or -EADDRINUSE (want held
	 * by another owner) no new address is reserved (the old lease, if one did
	 * not fit, may be gone). Also records a pool_info per range for list. */
	int (*reserve)(struct pool_store *s, const struct pool_owner *owner,
		       const struct pool_range *ranges, int n_ranges,
		       struct pool_lease *out, struct cni_err *err);

	/* DEL: removes the key's lease from every pool and network of the store
	 * (idempotent: 0 when there is none). Released addresses are not handed
	 * out again for hold_seconds. */
	int (*release)(struct pool_store *s, const struct pool_key *key, struct cni_err *err);

	/* CHECK: the key's lease into *out; -ENOENT (err untouched) when none. */
	int (*lookup)(struct pool_store *s, const struct pool_key *key,
		      struct pool_lease *out, struct cni_err *err);

	/* GC: releases, as release does, every lease recorded under cni_network
	 * whose key is not among valid[0..n_valid). Leases of other CNI networks,
	 * whatever address space, pool or store they share with it, and leases
	 * with no network recorded (""), are untouched. Each lease's removal is
	 * atomic; gc as a whole need not be (a killed gc is finished by the next
	 * one). A backend may narrow the scope further (etcd: this node's). */
	int (*gc)(struct pool_store *s, const char *cni_network,
		  const struct cni_attachment *valid, int n_valid, struct cni_err *err);

	/* `ippool list`: info_fn for every pool_info, then lease_fn for every
	 * lease; a non-zero callback return stops and is returned. Either fn may
	 * be NULL. Read-only but for repairs of derived data. */
	int (*list)(struct pool_store *s, pool_info_fn info_fn, pool_lease_fn lease_fn,
		    void *arg, struct cni_err *err);

	/* The ops below are NULL where a backend has nothing to do for them
	 * (local: one node, no slices). */

	/* `ippool list`: fn for every node slice of every node. */
	int (*slices)(struct pool_store *s, pool_slice_fn fn, void *arg, struct cni_err *err);
	/* `ippool reconcile`, each run: records that this node is alive (etcd:
	 * its heartbeat, which release-node judges). */
	int (*heartbeat)(struct pool_store *s, struct cni_err *err);
	/* `ippool reconcile`, after its releases: gives back what this node
	 * holds and no longer needs (its empty slices whose release hold has
	 * run out), fn for each (none given back with dry_run). */
	int (*tidy)(struct pool_store *s, bool dry_run, pool_slice_fn fn, void *arg,
		    struct cni_err *err);
	/* `ippool release-node NODE`: -EBUSY (err naming the heartbeat's age)
	 * while node's heartbeat is fresh, unless force; else removes node's
	 * slices (slice_fn each) and its leases (lease_fn each). */
	int (*release_node)(struct pool_store *s, const char *node, bool force,
			    pool_slice_fn slice_fn, pool_lease_fn lease_fn, void *arg,
			    struct cni_err *err);
};

/* Every backend's handle starts with this; the backend allocates the rest. */
struct pool_store {
	const struct pool_store_ops *ops;
};

/* Backends (local/, etcd/), registered in the table in store.c (one line each). */
extern const struct pool_store_ops local_store_ops;
extern const struct pool_store_ops etcd_store_ops;

/* Opens the backend named name ("" or NULL = "local"); unknown names are
 * CNI_ERR_CONFIG naming the value. */
int pool_store_open(const char *name, const struct pool_store_cfg *cfg,
		    struct pool_store **out, struct cni_err *err);
void pool_store_close(struct pool_store *s);

/* What a lease may record of its netns, the rule every backend's parser
 * keeps and ADD records by: netns "" with no identity (leases of older
 * versions), or an absolute path of printable ASCII without spaces, shorter
 * than POOL_NETNS_MAX, with no identity (it could not be read at ADD) or
 * with one: ino 1 to POOL_NS_NUM_MAX, dev 0 to POOL_NS_NUM_MAX (a JSON
 * number holds them exactly) and a boot id of 36 characters in the
 * kernel's form (lower-case hex, dashes at 8, 13, 18 and 23). Pure. */
#define POOL_NS_NUM_MAX ((UINT64_C(1) << 53) - 1)
bool pool_owner_netns_valid(const struct pool_owner *o);

/* Shared helpers for backends (pure, range.c). */

/* Lowest address in r->span that is neither in r->skip nor in taken[0..n),
 * taken strictly ascending (values outside span allowed). Returns 0 and
 * *out, or -ENOSPC. Work: O((n_skip + 1) * log n), never O(span) or O(n). */
int pool_first_free(const struct pool_range *r, const ipaddr_u128 *taken, size_t n, ipaddr_u128 *out);
/* Fills err with CNI_ERR_EXHAUSTED: "no free address in <desc>"; returns -ENOSPC. */
int pool_err_exhausted(struct cni_err *err, const struct pool_range *r);
