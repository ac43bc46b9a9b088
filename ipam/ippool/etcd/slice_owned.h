/* SPDX-License-Identifier: Apache-2.0 */
/* A node's own records of the slices it holds: <dataDir>/etcd-slices/<hash of the prefix>/owned/, one file per slice. */
#pragma once

#include <stddef.h>
#include "err.h"
#include "slice_layout.h"

/* Opens (creating it when create) root/owned, root open as rootfd: fd,
 * -ENOENT (not create, none there) or CNI_ERR_STORE. */
int owned_open(int rootfd, const char *root, bool create, int *fd, struct cni_err *err);
/* The directory's flock (every change of the records and every allocation
 * that trusts them), waited for at most timeout_ms: CNI_ERR_TRY_AGAIN. */
int owned_lock(int fd, const char *root, int timeout_ms, struct cni_err *err);
void owned_unlock(int fd);
/* Every record, parsed, sorted by block. A damaged one is left out and
 * logged naming its file: the node allocates nothing from it, and the next
 * claim adopts the slice again from etcd if etcd says it is this node's. */
int owned_read(int fd, const char *root, struct slice_rec **out, size_t *n, struct cni_err *err);
/* Written durably (the commit point of a claim's second step and of
 * "releasing"), or removed. */
int owned_write(int fd, const char *root, const struct slice_rec *rec, struct cni_err *err);
int owned_remove(int fd, const char *root, const struct slice_rec *rec, struct cni_err *err);
