/* SPDX-License-Identifier: Apache-2.0 */
/* etcd v3 through its JSON gateway over libcurl: range, txn, auth, failover. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include "err.h"

#define ETCD_MAX_ENDPOINTS 8
#define ETCD_STR_MAX 512

/* The "store" block of type "etcd". */
struct etcd_conf {
	char endpoints[ETCD_MAX_ENDPOINTS][ETCD_STR_MAX];
	int n_endpoints;
	char prefix[ETCD_STR_MAX];	/* default "/ippool", no trailing slash */
	char cacert[ETCD_STR_MAX];
	char cert[ETCD_STR_MAX];
	char key[ETCD_STR_MAX];
	char username[ETCD_STR_MAX];
	char password[ETCD_STR_MAX];
	int timeout_ms;			/* budget of one whole command */
};

/* Reads {"type":"etcd","endpoints":[...],...}. Missing endpoints, a URL that
 * is not http(s)://, a cert without key, a username without password:
 * CNI_ERR_CONFIG naming the key and value. */
int etcd_conf_parse(const cJSON *store, struct etcd_conf *out, struct cni_err *err);

struct etcd_kv {
	char *key;		/* decoded, NUL-terminated */
	char *value;
	int64_t create_rev;
	int64_t mod_rev;
	int64_t version;
};

struct etcd_kvs {
	struct etcd_kv *kv;
	size_t n;
	bool more;		/* the limit cut the answer */
	int64_t revision;	/* of the store when it answered */
};

void etcd_kvs_release(struct etcd_kvs *kvs);

/* Compares are always "equal"; version 0 / create 0 means absent. */
enum etcd_target { ETCD_VERSION, ETCD_CREATE, ETCD_MOD, ETCD_VALUE };

struct etcd_cmp {
	const char *key;
	enum etcd_target target;
	int64_t rev;		/* VERSION, CREATE, MOD */
	const char *value;	/* VALUE */
};

enum etcd_op_type { ETCD_PUT, ETCD_DELETE, ETCD_RANGE };

struct etcd_op {
	enum etcd_op_type type;
	const char *key;
	const char *value;	/* PUT */
	const char *range_end;	/* RANGE, DELETE; NULL = the key alone */
	long limit;		/* RANGE; 0 = none */
};

struct etcd_txn {
	const struct etcd_cmp *cmp;
	size_t n_cmp;
	const struct etcd_op *success;
	size_t n_success;
	const struct etcd_op *failure;
	size_t n_failure;
};

struct etcd;

/* Opens one curl handle (kept alive for every request of the command) and
 * starts the command's clock: each request is bounded by what is left of
 * conf->timeout_ms. Authenticates when a username is set. */
int etcd_open(const struct etcd_conf *conf, struct etcd **out, struct cni_err *err);
void etcd_close(struct etcd *e);
/* Milliseconds since the command's clock started (etcd_open). */
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

/* The end of the range holding every key that starts with prefix. */
int etcd_prefix_end(const char *prefix, char **out);
/* Jittered exponential backoff before retry number attempt (0-based), from a
 * random value rnd: in [cap / 2, cap], cap = min(BASE << attempt, MAX). */
#define ETCD_BACKOFF_BASE_MS 1
#define ETCD_BACKOFF_MAX_MS 16
long etcd_backoff_ms(unsigned int attempt, unsigned int rnd);

/* Pure request builders and answer parsers (unit tests, fuzz targets). An
 * answer that is not one etcd could give to the request (keys outside it or
 * out of order, more keys than the limit, revisions that do not hold
 * together, responses not matching the ops of the branch that ran, bad
 * base64, a NUL in a key or value) is -EINVAL and leaves out empty. */
char *etcd_range_json(const char *key, const char *range_end, long limit);
char *etcd_txn_json(const struct etcd_txn *txn);
int etcd_parse_range(const char *body, const struct etcd_op *req, struct etcd_kvs *out);
int etcd_parse_txn(const char *body, const struct etcd_txn *txn, bool *succeeded,
		   struct etcd_kvs *ranges, size_t n_ranges);
/* {"error","message","code"} of a refused request: grpc code and message. */
int etcd_parse_error(const char *body, int *code, char *msg, size_t size);
/* The token of an /v3/auth/authenticate answer, visible ASCII shorter than
 * size (it becomes a header line); -EINVAL otherwise. */
int etcd_parse_token(const char *body, char *token, size_t size);
