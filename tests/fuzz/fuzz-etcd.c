// SPDX-License-Identifier: Apache-2.0
/* Fuzz target: the etcd gateway's answers (range, txn of either branch,
 * errors, auth token) against the requests ippool sends (those
 * gen-etcd-corpus.py recorded the seeds for). What a parse takes is an answer
 * to its request, and reads back the same when written out again. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "fuzz.h"
#include "etcd_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct etcd_op one = { .type = ETCD_RANGE, .key = "/seed/o/c1/net1" };
static const struct etcd_op page = { .type = ETCD_RANGE, .key = "/seed/n/rdma-net/v4/c0000200",
				     .range_end = "/seed/n/rdma-net/v4/~", .limit = 4 };
static const struct etcd_op all = { .type = ETCD_RANGE, .key = "/seed/", .range_end = "/seed0" };
static const struct etcd_op *const reads[] = { &one, &page, &all };

static const struct etcd_op success[] = {
	{ .type = ETCD_PUT, .key = "/seed/o/t1/net1", .value = "{}" },
	{ .type = ETCD_DELETE, .key = "/seed/o/none/net1" },
	{ .type = ETCD_RANGE, .key = "/seed/o/c1/net1" },
};
static const struct etcd_op failure[] = {
	{ .type = ETCD_RANGE, .key = "/seed/o/c1/net1" },
	{ .type = ETCD_RANGE, .key = "/seed/n/rdma-net/v4/c0000200",
	  .range_end = "/seed/n/rdma-net/v4/~", .limit = 4 },
};
static const struct etcd_txn txn = { NULL, 0, success, 3, failure, 2 };
/* STATUS: a put behind a compare that never holds, nothing on failure. */
static const struct etcd_txn status = { NULL, 0, success, 1, NULL, 0 };

static void empty(const struct etcd_kvs *kvs)
{
	if (kvs->n || kvs->kv || kvs->more || kvs->revision)
		abort();
}

/* s as etcd sends it: the base64 the request builder makes of a key. */
static cJSON *b64(const char *s)
{
	char *json = etcd_range_json(s, NULL, 0);
	cJSON *o = cJSON_Parse(json), *v = cJSON_DetachItemFromObject(o, "key");

	free(json);
	cJSON_Delete(o);
	return v;
}

static void add_rev(cJSON *o, const char *name, long long v)
{
	char s[24];

	snprintf(s, sizeof(s), "%lld", v);
	cJSON_AddStringToObject(o, name, s);
}

/* kvs written out as etcd would and parsed again: the same, field by field. */
static void round_trip(const struct etcd_kvs *kvs, const struct etcd_op *req)
{
	cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "kvs");
	cJSON *hdr = cJSON_AddObjectToObject(root, "header");
	struct etcd_kvs back;
	char *doc;

	add_rev(hdr, "revision", kvs->revision);
	cJSON_AddBoolToObject(root, "more", kvs->more);
	for (size_t i = 0; i < kvs->n; i++) {
		cJSON *kv = cJSON_CreateObject();

		cJSON_AddItemToObject(kv, "key", b64(kvs->kv[i].key));
		cJSON_AddItemToObject(kv, "value", b64(kvs->kv[i].value));
		add_rev(kv, "create_revision", kvs->kv[i].create_rev);
		add_rev(kv, "mod_revision", kvs->kv[i].mod_rev);
		add_rev(kv, "version", kvs->kv[i].version);
		cJSON_AddItemToArray(arr, kv);
	}
	doc = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	if (!doc)
		return;
	if (etcd_parse_range(doc, req, &back) || back.n != kvs->n || back.more != kvs->more ||
	    back.revision != kvs->revision)
		abort();
	for (size_t i = 0; i < kvs->n; i++)
		if (strcmp(back.kv[i].key, kvs->kv[i].key) ||
		    strcmp(back.kv[i].value, kvs->kv[i].value) ||
		    back.kv[i].create_rev != kvs->kv[i].create_rev ||
		    back.kv[i].mod_rev != kvs->kv[i].mod_rev ||
		    back.kv[i].version != kvs->kv[i].version)
			abort();
	etcd_kvs_release(&back);
	free(doc);
}

/* What a taken answer must be: within the request, in order. */
static void judge(const struct etcd_kvs *kvs, const struct etcd_op *req)
{
	if ((req->limit > 0 && kvs->n > (size_t)req->limit) || (!req->range_end && kvs->n > 1))
		abort();
	for (size_t i = 0; i < kvs->n; i++) {
		const struct etcd_kv *kv = &kvs->kv[i];

		if (!kv->key || !kv->value || strcmp(kv->key, req->key) < 0 ||
		    (req->range_end && strcmp(kv->key, req->range_end) >= 0) ||
		    (i && strcmp(kvs->kv[i - 1].key, kv->key) >= 0) || kv->create_rev < 1 ||
		    kv->mod_rev < kv->create_rev || kv->mod_rev > kvs->revision)
			abort();
	}
	round_trip(kvs, req);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *body = fuzz_text(data, size), msg[64], token[32];
	struct etcd_kvs kvs, r[3];
	bool ok;
	int ret, code;
	size_t i;

	if (!body)
		return 0;
	for (i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
		ret = etcd_parse_range(body, reads[i], &kvs);
		if (ret == -EINVAL)
			empty(&kvs);
		else if (ret)
			abort();
		else
			judge(&kvs, reads[i]);
		etcd_kvs_release(&kvs);
	}
	ret = etcd_parse_txn(body, &txn, &ok, r, 3);
	if (ret && ret != -EINVAL)
		abort();
	for (i = 0; i < 3; i++) {
		if (ret || i >= (ok ? 1u : 2u))
			empty(&r[i]);
		else
			judge(&r[i], ok ? &success[2] : &failure[i]);
		etcd_kvs_release(&r[i]);
	}
	ret = etcd_parse_txn(body, &status, &ok, NULL, 0);
	if (ret && ret != -EINVAL)
		abort();
	if (!etcd_parse_error(body, &code, msg, sizeof(msg)) && strlen(msg) >= sizeof(msg))
		abort();
	if (!etcd_parse_token(body, token, sizeof(token)))
		for (i = 0; token[i]; i++)
			if (i >= sizeof(token) - 1 || token[i] <= ' ' || token[i] >= 0x7f)
				abort();
	free(body);
	return 0;
}
