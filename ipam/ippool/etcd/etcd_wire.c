// SPDX-License-Identifier: Apache-2.0
/* etcd v3's JSON gateway messages: the requests we send, checked parses of the answers. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base64.h"
#include "etcd_wire.h"
#include "json.h"

static int add_b64(cJSON *obj, const char *name, const char *s)
{
	char *enc = base64_encode(s);
	int ret = enc && cJSON_AddStringToObject(obj, name, enc) ? 0 : -ENOMEM;

	free(enc);
	return ret;
}

static int add_int64(cJSON *obj, const char *name, int64_t v)
{
	char s[24];

	snprintf(s, sizeof(s), "%" PRId64, v);
	return cJSON_AddStringToObject(obj, name, s) ? 0 : -ENOMEM;
}

static int fill_range(cJSON *obj, const char *key, const char *range_end, long limit)
{
	int ret = add_b64(obj, "key", key);

	if (!ret && range_end)
		ret = add_b64(obj, "range_end", range_end);
	if (!ret && limit > 0)
		ret = add_int64(obj, "limit", limit);
	return ret;
}

char *etcd_range_json(const char *key, const char *range_end, long limit)
{
	cJSON *root = cJSON_CreateObject();

	return json_print_free(root, root ? fill_range(root, key, range_end, limit) : -ENOMEM);
}

static const char *const target_names[] = {
	[ETCD_VERSION] = "VERSION",
	[ETCD_CREATE] = "CREATE",
	[ETCD_MOD] = "MOD",
	[ETCD_VALUE] = "VALUE",
};

static const char *const target_fields[] = {
	[ETCD_VERSION] = "version",
	[ETCD_CREATE] = "create_revision",
	[ETCD_MOD] = "mod_revision",
	[ETCD_VALUE] = "value",
};

static int add_cmp(cJSON *arr, const struct etcd_cmp *c)
{
	cJSON *obj = cJSON_CreateObject();
	int ret;

	if (!obj || !cJSON_AddItemToArray(arr, obj)) {
		cJSON_Delete(obj);
		return -ENOMEM;
	}
	ret = add_b64(obj, "key", c->key);
	if (!ret && c->range_end)
		ret = add_b64(obj, "range_end", c->range_end);
	if (!ret && !cJSON_AddStringToObject(obj, "target", target_names[c->target]))
		ret = -ENOMEM;
	if (!ret && !cJSON_AddStringToObject(obj, "result", "EQUAL"))
		ret = -ENOMEM;
	if (!ret && c->target == ETCD_VALUE)
		ret = add_b64(obj, "value", c->value);
	else if (!ret)
		ret = add_int64(obj, target_fields[c->target], c->rev);
	return ret;
}

static const char *const op_names[] = {
	[ETCD_PUT] = "request_put",
	[ETCD_DELETE] = "request_delete_range",
	[ETCD_RANGE] = "request_range",
};

static int add_op(cJSON *arr, const struct etcd_op *op)
{
	cJSON *wrap = cJSON_CreateObject();
	cJSON *obj = cJSON_CreateObject();
	int ret;

	if (!wrap || !obj || !cJSON_AddItemToObject(wrap, op_names[op->type], obj)) {
		cJSON_Delete(wrap);
		cJSON_Delete(obj);
		return -ENOMEM;
	}
	if (!cJSON_AddItemToArray(arr, wrap)) {
		cJSON_Delete(wrap);
		return -ENOMEM;
	}
	if (op->type == ETCD_PUT) {
		ret = add_b64(obj, "key", op->key);
		return ret ? ret : add_b64(obj, "value", op->value);
	}
	return fill_range(obj, op->key, op->range_end, op->type == ETCD_RANGE ? op->limit : 0);
}

static int add_ops(cJSON *root, const char *name, const struct etcd_op *ops, size_t n)
{
	cJSON *arr = cJSON_AddArrayToObject(root, name);
	size_t i;
	int ret;

	if (!arr)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		ret = add_op(arr, &ops[i]);
		if (ret)
			return ret;
	}
	return 0;
}

char *etcd_txn_json(const struct etcd_txn *txn)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *cmp = root ? cJSON_AddArrayToObject(root, "compare") : NULL;
	int ret = cmp ? 0 : -ENOMEM;
	size_t i;

	for (i = 0; !ret && i < txn->n_cmp; i++)
		ret = add_cmp(cmp, &txn->cmp[i]);
	if (!ret)
		ret = add_ops(root, "success", txn->success, txn->n_success);
	if (!ret)
		ret = add_ops(root, "failure", txn->failure, txn->n_failure);
	return json_print_free(root, ret);
}

/* proto3 JSON: int64 as a string (a number is accepted too), absent = 0. */
static int get_int64(const cJSON *obj, const char *name, int64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
	char *end;

	*out = 0;
	if (!v)
		return 0;
	if (cJSON_IsNumber(v))
		return json_int64(v, out) ? 0 : -EINVAL;
	/* strtoll would also take blanks and a '+' before the digits. */
	if (!cJSON_IsString(v) || !(isdigit((unsigned char)*v->valuestring) ||
				    *v->valuestring == '-'))
		return -EINVAL;
	errno = 0;
	*out = strtoll(v->valuestring, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

static int get_b64(const cJSON *obj, const char *name, char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

	if (v && !cJSON_IsString(v))
		return -EINVAL;
	*out = base64_decode(v ? v->valuestring : "");
	return *out ? 0 : -errno;
}

static int parse_kv(const cJSON *obj, struct etcd_kv *kv)
{
	int ret;

	if (!cJSON_IsObject(obj))
		return -EINVAL;
	ret = get_b64(obj, "key", &kv->key);
	if (!ret)
		ret = get_b64(obj, "value", &kv->value);
	if (!ret)
		ret = get_int64(obj, "create_revision", &kv->create_rev);
	if (!ret)
		ret = get_int64(obj, "mod_revision", &kv->mod_rev);
	if (!ret)
		ret = get_int64(obj, "version", &kv->version);
	return ret;
}

void etcd_kvs_release(struct etcd_kvs *kvs)
{
	size_t i;

	if (!kvs)
		return;
	for (i = 0; i < kvs->n; i++) {
		free(kvs->kv[i].key);
		free(kvs->kv[i].value);
	}
	free(kvs->kv);
	memset(kvs, 0, sizeof(*kvs));
}

static int parse_range_obj(const cJSON *obj, struct etcd_kvs *out)
{
	const cJSON *kvs = cJSON_GetObjectItemCaseSensitive(obj, "kvs");
	const cJSON *more = cJSON_GetObjectItemCaseSensitive(obj, "more");
	const cJSON *header = cJSON_GetObjectItemCaseSensitive(obj, "header");
	const cJSON *kv;
	int n = cJSON_GetArraySize(kvs), ret;

	memset(out, 0, sizeof(*out));
	if (!cJSON_IsObject(obj) || (kvs && !cJSON_IsArray(kvs)) || (more && !cJSON_IsBool(more)))
		return -EINVAL;
	ret = get_int64(header, "revision", &out->revision);
	if (ret) {
		out->revision = 0;
		return ret;
	}
	out->more = cJSON_IsTrue(more);
	if (!n)
		return 0;
	out->kv = calloc((size_t)n, sizeof(*out->kv));
	if (!out->kv)
		return -ENOMEM;
	cJSON_ArrayForEach(kv, kvs) {
		ret = parse_kv(kv, &out->kv[out->n++]);
		if (ret) {
			etcd_kvs_release(out);
			return ret;
		}
	}
	return 0;
}

/* Whether kvs can be etcd's answer to req: at most limit keys (more only
 * when cut there), each in [key, range_end) (the key itself without
 * range_end) in ascending order, with revisions that hold together. Callers
 * index by position, walk pages by the last key and compare on these
 * revisions: an answer that breaks this is not used at all. */
static bool answers(const struct etcd_kvs *kvs, const struct etcd_op *req)
{
	size_t i;

	if (kvs->more && (req->limit <= 0 || kvs->n != (size_t)req->limit))
		return false;
	if ((req->limit > 0 && kvs->n > (size_t)req->limit) || (!req->range_end && kvs->n > 1))
		return false;
	for (i = 0; i < kvs->n; i++) {
		const struct etcd_kv *kv = &kvs->kv[i];

		if (req->range_end ? strcmp(kv->key, req->key) < 0 ||
				     strcmp(kv->key, req->range_end) >= 0 :
				     strcmp(kv->key, req->key) != 0)
			return false;
		if (i && strcmp(kvs->kv[i - 1].key, kv->key) >= 0)
			return false;
		if (kv->create_rev < 1 || kv->mod_rev < kv->create_rev || kv->version < 1 ||
		    kv->mod_rev > kvs->revision)
			return false;
	}
	return true;
}

/* A range answer of req in out; -EINVAL (out empty) when it is none. */
static int parse_answer(const cJSON *obj, const struct etcd_op *req, struct etcd_kvs *out)
{
	int ret = parse_range_obj(obj, out);

	if (!ret && !answers(out, req)) {
		etcd_kvs_release(out);
		ret = -EINVAL;
	}
	return ret;
}

int etcd_parse_range(const char *body, const struct etcd_op *req, struct etcd_kvs *out)
{
	cJSON *root = cJSON_Parse(body);
	int ret;

	memset(out, 0, sizeof(*out));
	ret = root ? parse_answer(root, req, out) : -EINVAL;
	cJSON_Delete(root);
	return ret;
}

static const char *const response_names[] = {
	[ETCD_PUT] = "response_put",
	[ETCD_DELETE] = "response_delete_range",
	[ETCD_RANGE] = "response_range",
};

/* The responses of the branch that ran: one per op, each of its op's kind;
 * the range answers go to ranges[] in order. */
static int parse_responses(const cJSON *resps, const struct etcd_op *ops, size_t n_ops,
			   struct etcd_kvs *ranges, size_t n_ranges)
{
	const cJSON *r, *body;
	size_t i = 0, k = 0;
	int ret;

	if ((resps && !cJSON_IsArray(resps)) || (size_t)cJSON_GetArraySize(resps) != n_ops)
		return -EINVAL;
	cJSON_ArrayForEach(r, resps) {
		body = cJSON_GetObjectItemCaseSensitive(r, response_names[ops[i].type]);
		if (!cJSON_IsObject(body) || cJSON_GetArraySize(r) != 1)
			return -EINVAL;
		if (ops[i].type == ETCD_RANGE && k < n_ranges) {
			ret = parse_answer(body, &ops[i], &ranges[k++]);
			if (ret)
				return ret;
		}
		i++;
	}
	return 0;
}

int etcd_parse_txn(const char *body, const struct etcd_txn *txn, bool *succeeded,
		   struct etcd_kvs *ranges, size_t n_ranges)
{
	cJSON *root = cJSON_Parse(body);
	const cJSON *ok = cJSON_GetObjectItemCaseSensitive(root, "succeeded");
	size_t i;
	int ret = -EINVAL;

	for (i = 0; i < n_ranges; i++)
		memset(&ranges[i], 0, sizeof(ranges[i]));
	if (!cJSON_IsObject(root) || (ok && !cJSON_IsBool(ok)))
		goto out;
	/* proto3 leaves false out: a failed compare has no "succeeded". */
	*succeeded = cJSON_IsTrue(ok);
	ret = parse_responses(cJSON_GetObjectItemCaseSensitive(root, "responses"),
			      *succeeded ? txn->success : txn->failure,
			      *succeeded ? txn->n_success : txn->n_failure, ranges, n_ranges);
	if (ret)
		for (i = 0; i < n_ranges; i++)
			etcd_kvs_release(&ranges[i]);
out:
	cJSON_Delete(root);
	return ret;
}

int etcd_parse_token(const char *body, char *token, size_t size)
{
	cJSON *root = cJSON_Parse(body);
	const char *tok = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "token"));
	size_t i;
	int ret = -EINVAL;

	/* It goes into a header line: visible ASCII only. */
	for (i = 0; tok && tok[i] > ' ' && tok[i] < 0x7f; i++)
		;
	if (tok && i && !tok[i] && i < size) {
		memcpy(token, tok, i + 1);
		ret = 0;
	}
	cJSON_Delete(root);
	return ret;
}

int etcd_parse_error(const char *body, int *code, char *msg, size_t size)
{
	cJSON *root = cJSON_Parse(body);
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(root, "code");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "message");
	int ret = -EINVAL;

	if (!cJSON_IsNumber(c))
		goto out;
	*code = c->valueint;
	snprintf(msg, size, "%s", cJSON_IsString(m) ? m->valuestring : "");
	ret = 0;
out:
	cJSON_Delete(root);
	return ret;
}

int etcd_prefix_end(const char *prefix, char **out)
{
	size_t len = strlen(prefix);

	*out = NULL;
	/* Our prefixes are printable ASCII: bumping the last byte never carries. */
	if (!len || (uint8_t)prefix[len - 1] >= 0x7f)
		return -EINVAL;
	*out = strdup(prefix);
	if (!*out)
		return -ENOMEM;
	(*out)[len - 1]++;
	return 0;
}
