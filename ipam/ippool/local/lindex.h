/* SPDX-License-Identifier: Apache-2.0 */
/* The local store's index: one file per uniqueness scope, a sorted array of held addresses, mmap'd. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include "store.h"

struct lidx {
	int fd;
	void *map;
	size_t map_len;
	uint64_t *count;	/* in the file header */
	ipaddr_u128 *a;		/* sorted, unique */
	size_t cap;
};

/* Opens dirfd/name: -ENOENT when there is none; -EBADMSG when it is not an
 * index (not a regular file, empty, torn, over 2^26 entries, no magic, a
 * count past its size): the caller rebuilds it. */
int lidx_open(int dirfd, const char *name, struct lidx *x);
/* Creates dirfd/name empty (-EEXIST when it is there), blocks allocated. */
int lidx_create(int dirfd, const char *name, struct lidx *x);
void lidx_close(struct lidx *x);
static inline size_t lidx_len(const struct lidx *x)
{
	return (size_t)*x->count;
}
bool lidx_has(const struct lidx *x, ipaddr_u128 v);
/* How many entries lie in span. */
size_t lidx_count(const struct lidx *x, const struct pool_span *span);
/* -EEXIST when present. */
int lidx_insert(struct lidx *x, ipaddr_u128 v);
/* -ENOENT when absent. */
int lidx_remove(struct lidx *x, ipaddr_u128 v);
/* Replaces dirfd/name with the sorted unique a[0..n) (rebuild). */
int lidx_write(int dirfd, const char *name, const ipaddr_u128 *a, size_t n);
