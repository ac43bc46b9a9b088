/* SPDX-License-Identifier: Apache-2.0 */
/* What the local backend offers beyond the store ops: the question node slices ask of it. */
#pragma once

#include <stdbool.h>
#include "store.h"

/* How many addresses of span in r's uniqueness scope are held now: leased,
 * or on a hold that has not run out (expired holds go first). st is a
 * local store. */
int local_span_held(struct pool_store *st, const struct pool_range *r, const struct pool_span *span,
		    size_t *held, struct cni_err *err);
/* The store's open with its root (cfg->data_dir, for messages) already
 * open as rootfd, which stays the caller's: the path is not walked again. */
int local_store_open_at(int rootfd, const struct pool_store_cfg *cfg, struct pool_store **out,
			struct cni_err *err);
