// SPDX-License-Identifier: Apache-2.0
/* etcd v3 through its JSON gateway over libcurl: range, txn, auth, failover. */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dlfcn.h>
#include <curl/curl.h>
#include "clock.h"
#include "etcd.h"
#include "store.h"
#include "http.h"
#include "json.h"

#define RESPONSE_MAX (64 << 20)
#define TOKEN_MAX 512
/* gRPC codes etcd returns through the gateway. */
#define GRPC_DEADLINE_EXCEEDED 4
#define GRPC_UNAVAILABLE 14
#define GRPC_UNAUTHENTICATED 16

struct etcd {
	const struct etcd_conf *conf;
	CURL *curl;			/* https:// endpoints */
	struct curl_slist *headers;
	struct http_conn http;		/* http:// endpoints */
	char token[TOKEN_MAX];
	int cur;			/* endpoint in use */
	long start;			/* of the command's clock (clock_ms) */
	long deadline;
	unsigned long conflicts;
};

struct buf {
	char *data;
	size_t len;
};

/* libcurl and its dependencies cost milliseconds to map at every exec: only
 * a process that talks to etcd over https loads it (the local store and
 * http:// never pay), and a node without https endpoints needs no libcurl. */
static struct {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*setopt)(CURL *curl, CURLoption option, ...);
	CURLcode (*perform)(CURL *curl);
	CURLcode (*getinfo)(CURL *curl, CURLINFO info, ...);
	void (*cleanup)(CURL *curl);
	const char *(*strerror)(CURLcode code);
	struct curl_slist *(*slist_append)(struct curl_slist *list, const char *s);
	void (*slist_free_all)(struct curl_slist *list);
} cu;

static const struct {
	const char *name;
	size_t off;
} cu_syms[] = {
	{ "curl_global_init", offsetof(__typeof__(cu), global_init) },
	{ "curl_easy_init", offsetof(__typeof__(cu), easy_init) },
	{ "curl_easy_setopt", offsetof(__typeof__(cu), setopt) },
	{ "curl_easy_perform", offsetof(__typeof__(cu), perform) },
	{ "curl_easy_getinfo", offsetof(__typeof__(cu), getinfo) },
	{ "curl_easy_cleanup", offsetof(__typeof__(cu), cleanup) },
	{ "curl_easy_strerror", offsetof(__typeof__(cu), strerror) },
	{ "curl_slist_append", offsetof(__typeof__(cu), slist_append) },
	{ "curl_slist_free_all", offsetof(__typeof__(cu), slist_free_all) },
};

static int load_curl(struct cni_err *err)
{
	static void *lib;
	size_t i;
	void *f;

	if (lib)
		return 0;
	lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
	for (i = 0; lib && i < sizeof(cu_syms) / sizeof(cu_syms[0]); i++) {
		f = dlsym(lib, cu_syms[i].name);
		if (!f)
			break;
		memcpy((char *)&cu + cu_syms[i].off, &f, sizeof(f));
	}
	if (lib && i == sizeof(cu_syms) / sizeof(cu_syms[0]) && !cu.global_init(CURL_GLOBAL_DEFAULT))
		return 0;
	cni_err_set(err, CNI_ERR_STORE,
		    "cannot load libcurl.so.4, which https:// etcd endpoints need: install it on "
		    "the node (Debian/Ubuntu: libcurl4; RHEL/RHCOS/Fedora: libcurl or "
		    "libcurl-minimal): %s", dlerror() ?: "symbols missing or init failed");
	if (lib)
		dlclose(lib);
	lib = NULL;
	return -ENOENT;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *b64_encode(const char *s)
{
	size_t len = strlen(s), i, o = 0;
	char *out = malloc((len + 2) / 3 * 4 + 1);

	if (!out)
		return NULL;
	for (i = 0; i < len; i += 3) {
		uint32_t v = (uint8_t)s[i] << 16;

		if (i + 1 < len)
			v |= (uint8_t)s[i + 1] << 8;
		if (i + 2 < len)
			v |= (uint8_t)s[i + 2];
		out[o++] = b64[v >> 18 & 63];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = i + 1 < len ? b64[v >> 6 & 63] : '=';
		out[o++] = i + 2 < len ? b64[v & 63] : '=';
	}
	out[o] = '\0';
	return out;
}

/* Decodes padded standard base64 into a NUL-terminated string; NULL +
 * EINVAL on bad input, a NUL byte among them: none of our keys or values has
 * one, and a string cut at it would be another key. */
static char *b64_decode(const char *s)
{
	size_t len = strlen(s), pad = 0, o = 0, i;
	uint32_t v = 0;
	int bits = 0;
	char *out;

	if (len % 4) {
		errno = EINVAL;
		return NULL;
	}
	while (pad < 2 && pad < len && s[len - 1 - pad] == '=')
		pad++;
	out = malloc(len / 4 * 3 + 1);
	if (!out)
		return NULL;
	for (i = 0; i < len - pad; i++) {
		const char *p = strchr(b64, s[i]);

		if (!p)
			goto bad;
		v = v << 6 | (uint32_t)(p - b64);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o] = (char)(v >> bits & 0xff);
			if (!out[o++])
				goto bad;
		}
	}
	out[o] = '\0';
	return out;
bad:
	free(out);
	errno = EINVAL;
	return NULL;
}

static int add_b64(cJSON *obj, const char *name, const char *s)
{
	char *enc = b64_encode(s);
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
	*out = b64_decode(v ? v->valuestring : "");
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

long etcd_backoff_ms(unsigned int attempt, unsigned int rnd)
{
	long cap = ETCD_BACKOFF_MAX_MS;

	if (attempt < 16 && ETCD_BACKOFF_BASE_MS << attempt < ETCD_BACKOFF_MAX_MS)
		cap = ETCD_BACKOFF_BASE_MS << attempt;
	/* Half fixed, half random: lock-stepped retries spread out. */
	return cap / 2 + (long)(rnd % (unsigned int)(cap - cap / 2 + 1));
}

static int conf_string(const cJSON *store, const char *name, char *out, struct cni_err *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(store, name);

	if (!v)
		return 0;
	if (!cJSON_IsString(v) || strlen(v->valuestring) >= ETCD_STR_MAX) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid store.%s: not a string of under %d bytes",
			    name, ETCD_STR_MAX);
		return -EINVAL;
	}
	strcpy(out, v->valuestring);
	return 0;
}

static int conf_endpoints(const cJSON *store, struct etcd_conf *out, struct cni_err *err)
{
	const cJSON *eps = cJSON_GetObjectItemCaseSensitive(store, "endpoints");
	const cJSON *ep;

	if (!cJSON_IsArray(eps) || !cJSON_GetArraySize(eps) ||
	    cJSON_GetArraySize(eps) > ETCD_MAX_ENDPOINTS) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid store.endpoints: need 1 to %d URLs",
			    ETCD_MAX_ENDPOINTS);
		return -EINVAL;
	}
	cJSON_ArrayForEach(ep, eps) {
		const char *s = cJSON_GetStringValue(ep);

		if (!s || strlen(s) >= ETCD_STR_MAX ||
		    (strncmp(s, "http://", 7) && strncmp(s, "https://", 8))) {
			cni_err_set(err, CNI_ERR_CONFIG,
				    "invalid store endpoint \"%s\": not an http:// or https:// URL",
				    s ? s : "(not a string)");
			return -EINVAL;
		}
		/* Paths are appended: "https://h:2379/" + "/v3/..." would not route. */
		snprintf(out->endpoints[out->n_endpoints++], ETCD_STR_MAX, "%.*s",
			 (int)(strlen(s) - (s[strlen(s) - 1] == '/')), s);
	}
	return 0;
}

static int conf_prefix(struct etcd_conf *out, struct cni_err *err)
{
	size_t len = strlen(out->prefix), i;

	if (!len)
		strcpy(out->prefix, "/ippool");
	while (len > 1 && out->prefix[len - 1] == '/')
		out->prefix[--len] = '\0';
	for (i = 0; out->prefix[i]; i++) {
		if (out->prefix[i] <= ' ' || out->prefix[i] >= 0x7f) {
			cni_err_set(err, CNI_ERR_CONFIG,
				    "invalid store.prefix \"%s\": printable ASCII only", out->prefix);
			return -EINVAL;
		}
	}
	return 0;
}

static const char *const string_keys[] = {
	"prefix", "cacert", "cert", "key", "username", "password",
};

int etcd_conf_parse(const cJSON *store, struct etcd_conf *out, struct cni_err *err)
{
	char *fields[] = { out->prefix, out->cacert, out->cert, out->key, out->username,
			   out->password };
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < sizeof(string_keys) / sizeof(string_keys[0]); i++) {
		ret = conf_string(store, string_keys[i], fields[i], err);
		if (ret)
			return ret;
	}
	ret = conf_endpoints(store, out, err);
	if (!ret)
		ret = pool_store_timeout(store, &out->timeout_ms, err);
	if (!ret)
		ret = conf_prefix(out, err);
	if (ret)
		return ret;
	if (!*out->cert != !*out->key) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid store: \"cert\" and \"key\" go together");
		return -EINVAL;
	}
	if (*out->username && !*out->password) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid store: username \"%s\" without password",
			    out->username);
		return -EINVAL;
	}
	return 0;
}

long etcd_elapsed_ms(const struct etcd *e)
{
	return clock_ms() - e->start;
}

long etcd_remaining_ms(const struct etcd *e)
{
	long ms = e->deadline - clock_ms();

	return ms > 0 ? ms : 0;
}

const char *etcd_endpoint(const struct etcd *e)
{
	return e->conf->endpoints[e->cur];
}

unsigned long etcd_conflicts(const struct etcd *e)
{
	return e->conflicts;
}

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *arg)
{
	struct buf *b = arg;
	size_t n = size * nmemb;
	char *p;

	if (b->len + n >= RESPONSE_MAX)
		return 0;
	p = realloc(b->data, b->len + n + 1);
	if (!p)
		return 0;
	memcpy(p + b->len, ptr, n);
	b->data = p;
	b->len += n;
	p[b->len] = '\0';
	return n;
}

static int set_headers(struct etcd *e)
{
	struct curl_slist *h = NULL, *next;
	char auth[TOKEN_MAX + 32];

	if (!e->curl)
		return 0;
	/* No "Expect: 100-continue": it costs a round trip on bigger bodies. */
	next = cu.slist_append(h, "Content-Type: application/json");
	next = next ? cu.slist_append(h = next, "Expect:") : NULL;
	if (next && *e->token) {
		snprintf(auth, sizeof(auth), "Authorization: %s", e->token);
		next = cu.slist_append(h = next, auth);
	}
	if (!next) {
		cu.slist_free_all(h);
		return -ENOMEM;
	}
	cu.slist_free_all(e->headers);
	e->headers = next;
	return cu.setopt(e->curl, CURLOPT_HTTPHEADER, next) ? -EINVAL : 0;
}

/* Attempt timeout: with a spare endpoint, half the budget, so a black-holed
 * member leaves time to ask another one. */
static long attempt_ms(const struct etcd *e)
{
	long left = etcd_remaining_ms(e);
	long cap = e->conf->n_endpoints > 1 ? e->conf->timeout_ms / 2 : e->conf->timeout_ms;

	return left < cap ? left : cap;
}

enum outcome { DONE, RETRY_OTHER, REAUTH, REFUSED };

/* What an answer means: status and body of a POST. */
static enum outcome judge(struct etcd *e, long status, const char *body, char *why,
			  size_t why_size)
{
	char msg[256];
	int code;

	if (status == 200 && body)
		return DONE;
	if (!body || etcd_parse_error(body, &code, msg, sizeof(msg))) {
		snprintf(why, why_size, "HTTP status %ld", status);
		return status >= 500 ? RETRY_OTHER : REFUSED;
	}
	snprintf(why, why_size, "%s", msg);
	if (code == GRPC_UNAUTHENTICATED && *e->conf->username)
		return REAUTH;
	/* No leader, request timed out, member stopping: another may serve. */
	return code == GRPC_UNAVAILABLE || code == GRPC_DEADLINE_EXCEEDED ? RETRY_OTHER : REFUSED;
}

static bool is_http(const char *endpoint)
{
	return !strncmp(endpoint, "http://", 7);
}

/* One POST to the current endpoint. */
static enum outcome post_once(struct etcd *e, const char *path, const char *body,
			      struct buf *resp, char *why, size_t why_size)
{
	char url[ETCD_STR_MAX + 64];
	long ms = attempt_ms(e), status = 0;
	struct http_reply r;
	CURLcode rc;

	snprintf(url, sizeof(url), "%s%s", e->conf->endpoints[e->cur], path);
	free(resp->data);
	resp->data = NULL;
	resp->len = 0;
	if (is_http(url)) {
		if (http_post(&e->http, url, *e->token ? e->token : NULL, body, ms > 1 ? ms : 1,
			      &r, why, why_size))
			return RETRY_OTHER;
		resp->data = r.body;
		resp->len = r.len;
		return judge(e, r.status, r.body, why, why_size);
	}
	cu.setopt(e->curl, CURLOPT_URL, url);
	cu.setopt(e->curl, CURLOPT_POSTFIELDS, body);
	cu.setopt(e->curl, CURLOPT_TIMEOUT_MS, ms > 1 ? ms : 1L);
	cu.setopt(e->curl, CURLOPT_CONNECTTIMEOUT_MS, ms > 2 ? ms / 2 : 1L);
	cu.setopt(e->curl, CURLOPT_WRITEDATA, resp);
	rc = cu.perform(e->curl);
	if (rc != CURLE_OK) {
		snprintf(why, why_size, "%s", cu.strerror(rc));
		return RETRY_OTHER;
	}
	cu.getinfo(e->curl, CURLINFO_RESPONSE_CODE, &status);
	return judge(e, status, resp->data, why, why_size);
}

static int authenticate(struct etcd *e, struct cni_err *err);

/* POSTs to the current endpoint, moving to the next on transport failures,
 * until one answers or the command's time is spent. */
static int post(struct etcd *e, const char *path, const char *body, struct buf *resp,
		struct cni_err *err)
{
	char why[256], cause[sizeof(why)] = "", seen[CNI_ERR_DETAILS_MAX] = "";
	int tried = 0, reauth = 0, n = e->conf->n_endpoints, failed = e->cur;
	size_t len = 0;
	enum outcome o;

	/* At least one try, even when the budget went on loading libraries. */
	do {
		o = post_once(e, path, body, resp, why, sizeof(why));
		if (o == DONE)
			return 0;
		if (o == REFUSED) {
			cni_err_set(err, CNI_ERR_STORE, "etcd %s refused %s: %s",
				    e->conf->endpoints[e->cur], path, why);
			return -EPERM;
		}
		if (o == REAUTH && !reauth++) {
			*e->token = '\0';
			if (authenticate(e, err))
				return -EPERM;
			continue;
		}
		/* The message names the first failure, the one a try with the
		 * whole budget met (a refused certificate), not the timeout of
		 * a later try that had only what was left of it. */
		if (!cause[0]) {
			failed = e->cur;
			snprintf(cause, sizeof(cause), "%s", why);
		}
		/* Details: each endpoint's first failure. */
		if (tried < n && len < sizeof(seen))
			len += (size_t)snprintf(seen + len, sizeof(seen) - len, "%s%s: %s",
						len ? "; " : "", e->conf->endpoints[e->cur], why);
		if (++tried % n)
			e->cur = (e->cur + 1) % n;
		else if (etcd_remaining_ms(e) > 0)
			usleep(20000);	/* every endpoint failed: give them a moment */
	} while (etcd_remaining_ms(e) > 0);
	cni_err_set(err, CNI_ERR_TRY_AGAIN, "etcd %s unavailable: %s",
		    e->conf->endpoints[failed], cause);
	cni_err_details(err, "%s", seen);
	return -ETIMEDOUT;
}

static int authenticate(struct etcd *e, struct cni_err *err)
{
	cJSON *req = cJSON_CreateObject();
	struct buf b = { 0 };
	char *body = NULL;
	int ret = -ENOMEM;

	if (!req || !cJSON_AddStringToObject(req, "name", e->conf->username) ||
	    !cJSON_AddStringToObject(req, "password", e->conf->password))
		goto out;
	body = cJSON_PrintUnformatted(req);
	if (!body)
		goto out;
	ret = set_headers(e);
	if (!ret)
		ret = post(e, "/v3/auth/authenticate", body, &b, err);
	if (ret)
		goto out;
	if (etcd_parse_token(b.data, e->token, sizeof(e->token))) {
		cni_err_set(err, CNI_ERR_STORE, "etcd %s: no usable token for user \"%s\"",
			    e->conf->endpoints[e->cur], e->conf->username);
		ret = -EPROTO;
		goto out;
	}
	ret = set_headers(e);
out:
	if (ret == -ENOMEM)
		cni_err_set(err, CNI_ERR_STORE, "etcd authentication: out of memory");
	cJSON_Delete(req);
	free(body);
	free(b.data);
	return ret;
}

static int setup_curl(struct etcd *e)
{
	const struct etcd_conf *c = e->conf;
	int bad = 0;

	bad |= cu.setopt(e->curl, CURLOPT_NOSIGNAL, 1L);
	bad |= cu.setopt(e->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	bad |= cu.setopt(e->curl, CURLOPT_WRITEFUNCTION, on_data);
	bad |= cu.setopt(e->curl, CURLOPT_TCP_NODELAY, 1L);
	if (*c->cacert)
		bad |= cu.setopt(e->curl, CURLOPT_CAINFO, c->cacert);
	if (*c->cert) {
		bad |= cu.setopt(e->curl, CURLOPT_SSLCERT, c->cert);
		bad |= cu.setopt(e->curl, CURLOPT_SSLKEY, c->key);
	}
	return bad ? -EINVAL : set_headers(e);
}

int etcd_open(const struct etcd_conf *conf, struct etcd **out, struct cni_err *err)
{
	struct etcd *e = calloc(1, sizeof(*e));
	int ret = -ENOMEM, i;

	*out = NULL;
	if (!e)
		goto fail;
	http_init(&e->http);
	e->conf = conf;
	e->start = clock_ms();
	e->deadline = e->start + conf->timeout_ms;
	/* Spread nodes over the members; failover walks on from there. */
	e->cur = getpid() % conf->n_endpoints;
	for (i = 0; i < conf->n_endpoints && is_http(conf->endpoints[i]); i++)
		;
	if (i < conf->n_endpoints) {
		ret = load_curl(err);
		if (ret)
			goto fail;
		ret = -ENOMEM;
		e->curl = cu.easy_init();
		if (!e->curl || setup_curl(e))
			goto fail;
	}
	if (*conf->username) {
		ret = authenticate(e, err);
		if (ret)
			goto fail;
	}
	*out = e;
	return 0;
fail:
	if (ret == -ENOMEM)
		cni_err_set(err, CNI_ERR_STORE, "cannot set up the etcd client (libcurl)");
	etcd_close(e);
	return ret;
}

void etcd_close(struct etcd *e)
{
	if (!e)
		return;
	http_close(&e->http);
	if (e->curl)
		cu.cleanup(e->curl);
	if (e->headers)
		cu.slist_free_all(e->headers);
	free(e);
}

static int bad_answer(struct etcd *e, const char *path, int ret, struct cni_err *err)
{
	cni_err_set(err, CNI_ERR_STORE, "etcd %s sent an answer to %s that does not parse: %s",
		    e->conf->endpoints[e->cur], path, strerror(-ret));
	return ret;
}

int etcd_range(struct etcd *e, const char *key, const char *range_end, long limit,
	       struct etcd_kvs *out, struct cni_err *err)
{
	const struct etcd_op req = { .type = ETCD_RANGE, .key = key, .range_end = range_end,
				     .limit = limit };
	char *body = etcd_range_json(key, range_end, limit);
	struct buf b = { 0 };
	int ret = body ? post(e, "/v3/kv/range", body, &b, err) : -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (!ret) {
		ret = etcd_parse_range(b.data, &req, out);
		if (ret)
			bad_answer(e, "/v3/kv/range", ret, err);
	}
	if (ret == -ENOMEM)
		cni_err_set(err, CNI_ERR_STORE, "etcd range request: out of memory");
	free(body);
	free(b.data);
	return ret;
}

int etcd_txn(struct etcd *e, const struct etcd_txn *txn, bool *succeeded,
	     struct etcd_kvs *ranges, size_t n_ranges, struct cni_err *err)
{
	char *body = etcd_txn_json(txn);
	struct buf b = { 0 };
	int ret = body ? post(e, "/v3/kv/txn", body, &b, err) : -ENOMEM;
	size_t i;

	for (i = 0; i < n_ranges; i++)
		memset(&ranges[i], 0, sizeof(ranges[i]));
	if (!ret) {
		ret = etcd_parse_txn(b.data, txn, succeeded, ranges, n_ranges);
		if (ret)
			bad_answer(e, "/v3/kv/txn", ret, err);
		else if (!*succeeded)
			e->conflicts++;
	}
	if (ret == -ENOMEM)
		cni_err_set(err, CNI_ERR_STORE, "etcd transaction: out of memory");
	free(body);
	free(b.data);
	return ret;
}
