/* SPDX-License-Identifier: Apache-2.0 */
/* The etcd client of one command: requests to the endpoints, failover, auth and the time budget. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include "err.h"
#include "etcd_conf.h"
#include "etcd_wire.h"

struct etcd;

/* Opens one curl handle (kept alive for every request of the command) and
 * starts the command's clock: each request is bounded by what is left of
 * conf->timeout_ms. Authenticates when a username is set. conf is borrowed
 * for the life of the client. */
int etcd_connect(const struct etcd_conf *conf, struct etcd **out, struct cni_err *err);
/* Accepts NULL. */
void etcd_disconnect(struct etcd *e);
/* Milliseconds since the command's clock started (etcd_connect). */
long etcd_elapsed_ms(const struct etcd *e);
/* Milliseconds left of the command's budget (0 when spent). */
long etcd_remaining_ms(const struct etcd *e);
/* The endpoint the last request went to (for messages). */
const char *etcd_endpoint(const struct etcd *e);
/* Transactions that lost a compare so far (for the stats line). */
unsigned long etcd_conflicts(const struct etcd *e);

/* Errors: transport failures on every endpoint, no leader, timeouts:
 * CNI_ERR_TRY_AGAIN naming the endpoint; refusals (auth, permissions, space):
 * CNI_ERR_STORE with etcd's message. */
int etcd_range(struct etcd *e, const char *key, const char *range_end, long limit,
	       struct etcd_kvs *out, struct cni_err *err);
/* ranges[i] receives the i-th range response of the branch that ran (up to
 * n_ranges); the caller releases them. */
int etcd_txn(struct etcd *e, const struct etcd_txn *txn, bool *succeeded,
	     struct etcd_kvs *ranges, size_t n_ranges, struct cni_err *err);

/* fn for every key under dir (ending in '/'), page keys at a time, until fn
 * returns non-zero (returned). Pages that keep coming end with the budget:
 * CNI_ERR_TRY_AGAIN, -ETIMEDOUT. */
#define ETCD_KEY_MAX 1152
typedef int (*etcd_kv_fn)(const struct etcd_kv *kv, void *arg, struct cni_err *err);
int etcd_each(struct etcd *e, const char *dir, long page, etcd_kv_fn fn, void *arg,
	      struct cni_err *err);

/* Jittered exponential backoff before retry number attempt (0-based), from a
 * random value rnd: in [cap / 2, cap], cap = min(BASE << attempt, MAX). */
#define ETCD_BACKOFF_BASE_MS 1
#define ETCD_BACKOFF_MAX_MS 16
long etcd_backoff_ms(unsigned int attempt, unsigned int rnd);
