/* SPDX-License-Identifier: Apache-2.0 */
/* The local store's index cache: the scopes' index files an op opens, rebuilt from the leases and holds. */
#pragma once

#include <stdbool.h>
#include "err.h"
#include "lindex.h"
#include "local_layout.h"

#define LOCAL_MAX_SCOPES 16

struct local_scope {
	char name[LOCAL_SCOPE_MAX];
	struct lidx x;
};

struct local_index {
	const struct local_disk *disk;
	struct local_scope scopes[LOCAL_MAX_SCOPES];
	int n_scopes;
};

void local_index_init(struct local_index *x, const struct local_disk *d);
/* The index of a scope, opened once per op (the lock held). An index file
 * found missing or malformed is rebuilt from the lease files on the spot
 * (index/ stays dirty): a scope's file is there from its first address on,
 * so a missing one was lost, or the scope is new (a rebuild of what the
 * node holds, once). A rebuild, or more than LOCAL_MAX_SCOPES scopes, closes
 * what was open: pointers from earlier calls go stale. */
int local_index_get(struct local_index *x, const char *scope, struct lidx **out,
		    struct cni_err *err);
/* Closes every scope opened (the end of an op). */
void local_index_close(struct local_index *x);
/* Rewrites index/ from leases/ and holds/ (expired holds go); clean says
 * whether the op is over (the state file says clean after) or still
 * running (its own marker comes at its end). */
int local_index_rebuild(struct local_index *x, bool clean, struct cni_err *err);
