/* SPDX-License-Identifier: Apache-2.0 */
/* etcd v3's JSON gateway messages: the requests we send, checked parses of the answers. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
	const char *range_end;	/* NULL = the key alone; else every key in
				 * [key, range_end), and an empty range
				 * compares as absent keys do */
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

/* The end of the range holding every key that starts with prefix. */
int etcd_prefix_end(const char *prefix, char **out);

/* Pure request builders and answer parsers (the client; unit tests, fuzz
 * targets). An answer that is not one etcd could give to the request (keys
 * outside it or out of order, more keys than the limit, revisions that do
 * not hold together, responses not matching the ops of the branch that ran,
 * bad base64, a NUL in a key or value) is -EINVAL and leaves out empty. */
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
