// SPDX-License-Identifier: Apache-2.0
/* Unit tests for the etcd gateway client: request JSON, answers, config, backoff. */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include <sys/socket.h>
#include "etcd_client.h"
#include "etcd_layout.h"
#include "unit.h"
#include "http.h"

/* The field of a request's JSON, as a string ("" when absent). */
static const char *field(const cJSON *o, const char *path0, const char *path1)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, path0);

	if (path1)
		v = cJSON_GetObjectItemCaseSensitive(v, path1);
	return cJSON_IsString(v) ? v->valuestring : "";
}

START_TEST(range_request_encodes_base64_and_limit)
{
	char *s = etcd_range_json("/ippool/o/", "/ippool/o0", 500);
	cJSON *o = cJSON_Parse(s);

	ck_assert_str_eq(field(o, "key", NULL), "L2lwcG9vbC9vLw==");
	ck_assert_str_eq(field(o, "range_end", NULL), "L2lwcG9vbC9vMA==");
	ck_assert_str_eq(field(o, "limit", NULL), "500");
	cJSON_Delete(o);
	free(s);
	s = etcd_range_json("k", NULL, 0);
	ck_assert_str_eq(s, "{\"key\":\"aw==\"}");
	free(s);
}
END_TEST

START_TEST(txn_request_has_compares_and_both_branches)
{
	const struct etcd_cmp cmp[] = {
		{ .key = "a", .target = ETCD_MOD, .rev = 0 },
		{ .key = "bb", .target = ETCD_VALUE, .value = "v" },
		{ .key = "ccc", .target = ETCD_VERSION, .rev = 12345678901234LL },
		{ .key = "d", .target = ETCD_CREATE, .rev = 7 },
		{ .key = "e", .range_end = "f", .target = ETCD_CREATE, .rev = 0 },
	};
	const struct etcd_op ok[] = {
		{ .type = ETCD_PUT, .key = "a", .value = "xyz" },
		{ .type = ETCD_DELETE, .key = "bb" },
	};
	const struct etcd_op fail[] = { { .type = ETCD_RANGE, .key = "a", .range_end = "b", .limit = 8 } };
	const struct etcd_txn txn = { cmp, 5, ok, 2, fail, 1 };
	char *s = etcd_txn_json(&txn);
	cJSON *o = cJSON_Parse(s);
	const cJSON *c = cJSON_GetObjectItem(o, "compare");
	const cJSON *succ = cJSON_GetObjectItem(o, "success");
	const cJSON *f = cJSON_GetObjectItem(o, "failure");

	ck_assert_int_eq(cJSON_GetArraySize(c), 5);
	ck_assert_str_eq(field(cJSON_GetArrayItem(c, 0), "target", NULL), "MOD");
	ck_assert_str_eq(field(cJSON_GetArrayItem(c, 0), "mod_revision", NULL), "0");
	ck_assert_str_eq(field(cJSON_GetArrayItem(c, 0), "result", NULL), "EQUAL");
	ck_assert_str_eq(field(cJSON_GetArrayItem(c, 1), "value", NULL), "dg==");
	ck_assert_str_eq(field(cJSON_GetArrayItem(c, 2), "version", NULL), "12345678901234");
	ck_assert_str_eq(field(cJSON_GetArrayItem(c, 3), "target", NULL), "CREATE");
	ck_assert_str_eq(field(cJSON_GetArrayItem(c, 3), "create_revision", NULL), "7");
	ck_assert_ptr_null(cJSON_GetObjectItem(cJSON_GetArrayItem(c, 3), "range_end"));
	ck_assert_str_eq(field(cJSON_GetArrayItem(c, 4), "range_end", NULL), "Zg==");
	ck_assert_str_eq(field(cJSON_GetArrayItem(succ, 0), "request_put", "value"), "eHl6");
	ck_assert_str_eq(field(cJSON_GetArrayItem(succ, 1), "request_delete_range", "key"), "YmI=");
	ck_assert_str_eq(field(cJSON_GetArrayItem(f, 0), "request_range", "limit"), "8");
	cJSON_Delete(o);
	free(s);
}
END_TEST

static const struct etcd_op foo_page = { .type = ETCD_RANGE, .key = "foo", .range_end = "fop",
					  .limit = 2 };

START_TEST(range_answer_decodes_keys_and_string_revisions)
{
	/* As etcd 3.4 prints it: int64 as strings, bytes as base64, zero values left out. */
	const char *body = "{\"header\":{\"revision\":\"42\"},\"kvs\":["
			   "{\"key\":\"Zm9v\",\"create_revision\":\"2\",\"mod_revision\":\"40\","
			   "\"version\":\"3\",\"value\":\"YmFy\"},"
			   "{\"key\":\"Zm9vMg==\",\"create_revision\":\"41\",\"mod_revision\":\"41\","
			   "\"version\":\"1\"}],\"more\":true,\"count\":\"7\"}";
	struct etcd_kvs kvs;

	ck_assert_int_eq(etcd_parse_range(body, &foo_page, &kvs), 0);
	ck_assert_int_eq(kvs.n, 2);
	ck_assert(kvs.more);
	ck_assert_int_eq(kvs.revision, 42);
	ck_assert_str_eq(kvs.kv[0].key, "foo");
	ck_assert_str_eq(kvs.kv[0].value, "bar");
	ck_assert_int_eq(kvs.kv[0].create_rev, 2);
	ck_assert_int_eq(kvs.kv[0].mod_rev, 40);
	ck_assert_int_eq(kvs.kv[0].version, 3);
	ck_assert_str_eq(kvs.kv[1].key, "foo2");
	ck_assert_str_eq(kvs.kv[1].value, "");
	etcd_kvs_release(&kvs);
}
END_TEST

START_TEST(range_answer_empty)
{
	const struct etcd_op one = { .type = ETCD_RANGE, .key = "k" };
	struct etcd_kvs kvs;

	ck_assert_int_eq(etcd_parse_range("{\"header\":{\"revision\":\"3\"}}", &one, &kvs), 0);
	ck_assert_int_eq(kvs.n, 0);
	ck_assert(!kvs.more);
	ck_assert_int_eq(kvs.revision, 3);
	etcd_kvs_release(&kvs);
}
END_TEST

#define KV(key, rest) "{\"key\":\"" key "\",\"create_revision\":\"2\",\"version\":\"1\"" rest "}"
#define HDR "{\"header\":{\"revision\":\"9\"},"

static const char *const bad_ranges[] = {
	"not json",
	"{\"header\":{\"revision\":\"x1\"}}",
	"{\"header\":{\"revision\":\" 5\"}}",
	"{\"header\":{\"revision\":1.5}}",
	"{\"header\":{\"revision\":1e300}}",
	"{\"kvs\":{}}",
	HDR "\"kvs\":[" KV("@@@", ",\"mod_revision\":\"3\"") "]}",
	HDR "\"kvs\":[" KV("Zm9v", ",\"mod_revision\":\"\"") "]}",
	HDR "\"kvs\":[" KV("Zm9", ",\"mod_revision\":\"3\"") "]}",
	/* padding only at the end; a NUL byte inside */
	HDR "\"kvs\":[" KV("Zg=v", ",\"mod_revision\":\"3\"") "]}",
	HDR "\"kvs\":[" KV("Zm9v", ",\"mod_revision\":\"3\",\"value\":\"AA==\"") "]}",
	"{\"more\":\"yes\"}",
	/* not an answer to foo_page: outside it, out of order, over the limit, more
	 * before the limit, revisions that do not hold together */
	HDR "\"kvs\":[" KV("Zm9w", ",\"mod_revision\":\"3\"") "]}",
	HDR "\"kvs\":[" KV("Zm9vMg==", ",\"mod_revision\":\"3\"") ","
	    KV("Zm9v", ",\"mod_revision\":\"3\"") "]}",
	HDR "\"kvs\":[" KV("Zm9v", ",\"mod_revision\":\"3\"") ","
	    KV("Zm9v", ",\"mod_revision\":\"3\"") "]}",
	HDR "\"kvs\":[" KV("Zm9v", ",\"mod_revision\":\"3\"") "," KV("Zm9vMQ==", ",\"mod_revision\":\"3\"")
	    "," KV("Zm9vMg==", ",\"mod_revision\":\"3\"") "]}",
	HDR "\"more\":true,\"kvs\":[" KV("Zm9v", ",\"mod_revision\":\"3\"") "]}",
	HDR "\"more\":true}",
	HDR "\"kvs\":[" KV("Zm9v", ",\"mod_revision\":\"10\"") "]}",
	HDR "\"kvs\":[" KV("Zm9v", ",\"mod_revision\":\"1\"") "]}",
	HDR "\"kvs\":[{\"key\":\"Zm9v\",\"mod_revision\":\"3\",\"create_revision\":\"2\"}]}",
	"{\"kvs\":[" KV("Zm9v", ",\"mod_revision\":\"3\"") "]}",
};

START_TEST(range_answer_malformed_is_einval)
{
	struct etcd_kvs kvs;

	ck_assert_int_eq(etcd_parse_range(bad_ranges[_i], &foo_page, &kvs), -EINVAL);
	ck_assert_int_eq(kvs.n, 0);
	ck_assert_ptr_null(kvs.kv);
}
END_TEST

static const struct etcd_op put_del[] = {
	{ .type = ETCD_PUT, .key = "a", .value = "x" },
	{ .type = ETCD_DELETE, .key = "b" },
};
static const struct etcd_op read_a[] = { { .type = ETCD_RANGE, .key = "a" } };
static const struct etcd_txn put_or_read = { NULL, 0, put_del, 2, read_a, 1 };

START_TEST(txn_answer_without_succeeded_is_false)
{
	/* A failed compare: proto3 JSON omits "succeeded"; the failure branch ran. */
	const char *body = "{\"header\":{\"revision\":\"9\"},\"responses\":[{\"response_range\":"
			   "{\"header\":{\"revision\":\"9\"},\"kvs\":[" KV("YQ==", ",\"mod_revision\":\"8\","
			   "\"value\":\"eA==\"") "],\"count\":\"1\"}}]}";
	struct etcd_kvs r[2];
	bool ok = true;

	ck_assert_int_eq(etcd_parse_txn(body, &put_or_read, &ok, r, 2), 0);
	ck_assert(!ok);
	ck_assert_int_eq(r[0].n, 1);
	ck_assert_str_eq(r[0].kv[0].key, "a");
	ck_assert_int_eq(r[0].kv[0].mod_rev, 8);
	ck_assert_int_eq(r[1].n, 0);
	etcd_kvs_release(&r[0]);
}
END_TEST

START_TEST(txn_answer_succeeded_skips_other_responses)
{
	const char *body = "{\"header\":{\"revision\":\"10\"},\"succeeded\":true,\"responses\":["
			   "{\"response_put\":{\"header\":{\"revision\":\"10\"}}},"
			   "{\"response_delete_range\":{\"header\":{},\"deleted\":\"1\"}}]}";
	bool ok = false;

	ck_assert_int_eq(etcd_parse_txn(body, &put_or_read, &ok, NULL, 0), 0);
	ck_assert(ok);
	ck_assert_int_eq(etcd_parse_txn("{\"succeeded\":\"true\"}", &put_or_read, &ok, NULL, 0),
			 -EINVAL);
	ck_assert_int_eq(etcd_parse_txn("[]", &put_or_read, &ok, NULL, 0), -EINVAL);
}
END_TEST

/* Responses that do not match the ops of the branch that ran. */
static const char *const bad_txns[] = {
	"{\"succeeded\":true,\"responses\":[{\"response_put\":{}}]}",
	"{\"succeeded\":true,\"responses\":[{\"response_put\":{}},{\"response_put\":{}}]}",
	"{\"succeeded\":true,\"responses\":[{\"response_put\":{}},{\"response_delete_range\":1}]}",
	"{\"succeeded\":true,\"responses\":[{\"response_put\":{},\"response_range\":{}},"
	"{\"response_delete_range\":{}}]}",
	"{\"succeeded\":true}",
	"{\"responses\":[{\"response_put\":{}}]}",
	"{\"responses\":{\"response_range\":{}}}",
	"{\"responses\":[{\"response_range\":{\"header\":{\"revision\":\"9\"},\"kvs\":["
	KV("Yg==", ",\"mod_revision\":\"8\"") "]}}]}",
	"{\"responses\":[]}",
};

START_TEST(txn_answer_not_matching_the_branch_is_einval)
{
	struct etcd_kvs r[1];
	bool ok;

	ck_assert_int_eq(etcd_parse_txn(bad_txns[_i], &put_or_read, &ok, r, 1), -EINVAL);
	ck_assert_ptr_null(r[0].kv);
}
END_TEST

START_TEST(token_answer)
{
	char tok[8];

	ck_assert_int_eq(etcd_parse_token("{\"header\":{},\"token\":\"abc.12\"}", tok, sizeof(tok)), 0);
	ck_assert_str_eq(tok, "abc.12");
	ck_assert_int_eq(etcd_parse_token("{\"token\":\"abcdefgh\"}", tok, sizeof(tok)), -EINVAL);
	ck_assert_int_eq(etcd_parse_token("{\"token\":\"a\\r\\nX: y\"}", tok, sizeof(tok)), -EINVAL);
	ck_assert_int_eq(etcd_parse_token("{\"token\":\"a b\"}", tok, sizeof(tok)), -EINVAL);
	ck_assert_int_eq(etcd_parse_token("{\"token\":\"\"}", tok, sizeof(tok)), -EINVAL);
	ck_assert_int_eq(etcd_parse_token("{\"token\":7}", tok, sizeof(tok)), -EINVAL);
	ck_assert_int_eq(etcd_parse_token("", tok, sizeof(tok)), -EINVAL);
}
END_TEST

START_TEST(error_answer)
{
	char msg[64];
	int code;

	ck_assert_int_eq(etcd_parse_error("{\"error\":\"etcdserver: request timed out\","
					  "\"message\":\"etcdserver: request timed out\",\"code\":14}",
					  &code, msg, sizeof(msg)), 0);
	ck_assert_int_eq(code, 14);
	ck_assert_str_eq(msg, "etcdserver: request timed out");
	ck_assert_int_eq(etcd_parse_error("<html>bad gateway</html>", &code, msg, sizeof(msg)),
			 -EINVAL);
}
END_TEST

START_TEST(prefix_end_bumps_last_byte)
{
	char *end;

	ck_assert_int_eq(etcd_prefix_end("/ippool/o/", &end), 0);
	ck_assert_str_eq(end, "/ippool/o0");
	free(end);
	ck_assert_int_eq(etcd_prefix_end("", &end), -EINVAL);
	ck_assert_ptr_null(end);
}
END_TEST

START_TEST(backoff_stays_in_bounds)
{
	unsigned int attempt, r;
	long cap, ms;

	for (attempt = 0; attempt < 40; attempt++) {
		cap = attempt < 16 && (ETCD_BACKOFF_BASE_MS << attempt) < ETCD_BACKOFF_MAX_MS ?
		      ETCD_BACKOFF_BASE_MS << attempt : ETCD_BACKOFF_MAX_MS;
		for (r = 0; r < 1000; r += 7) {
			ms = etcd_backoff_ms(attempt, r * 2654435761u);
			ck_assert_int_ge(ms, cap / 2);
			ck_assert_int_le(ms, cap);
		}
	}
	ck_assert_int_le(etcd_backoff_ms(1000, ~0u), ETCD_BACKOFF_MAX_MS);
}
END_TEST

struct conf_case {
	const char *json;
	int ret;
	const char *msg_has;	/* error message part, or the first endpoint on success */
};

static const struct conf_case conf_cases[] = {
	{ "{\"type\":\"etcd\",\"endpoints\":[\"https://10.0.0.5:2379/\",\"http://h:2379\"]}", 0,
	  "https://10.0.0.5:2379" },
	{ "{\"type\":\"etcd\"}", -EINVAL, "store.endpoints" },
	{ "{\"endpoints\":[]}", -EINVAL, "store.endpoints" },
	{ "{\"endpoints\":[\"10.0.0.5:2379\"]}", -EINVAL, "\"10.0.0.5:2379\"" },
	{ "{\"endpoints\":[5]}", -EINVAL, "not a string" },
	{ "{\"endpoints\":[\"http://h\"],\"cert\":\"/c.pem\"}", -EINVAL, "\"cert\" and \"key\"" },
	{ "{\"endpoints\":[\"http://h\"],\"username\":\"u\"}", -EINVAL, "username \"u\"" },
	{ "{\"endpoints\":[\"http://h\"],\"timeout_ms\":10}", -EINVAL, "timeout_ms" },
	{ "{\"endpoints\":[\"http://h\"],\"timeout_ms\":\"5\"}", -EINVAL, "timeout_ms" },
	{ "{\"endpoints\":[\"http://h\"],\"prefix\":\"/a b\"}", -EINVAL, "\"/a b\"" },
	{ "{\"endpoints\":[\"http://h\"],\"prefix\":7}", -EINVAL, "store.prefix" },
};

START_TEST(conf_parse_table)
{
	const struct conf_case *c = &conf_cases[_i];
	cJSON *j = cJSON_Parse(c->json);
	struct etcd_conf conf;
	struct cni_err err = { 0 };

	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(etcd_conf_parse(j, &conf, &err), c->ret);
	if (c->ret) {
		ck_assert_int_eq(err.code, CNI_ERR_CONFIG);
		ck_assert_msg(strstr(err.msg, c->msg_has), "message \"%s\" lacks %s", err.msg,
			      c->msg_has);
	} else {
		ck_assert_str_eq(conf.endpoints[0], c->msg_has);
	}
	cJSON_Delete(j);
}
END_TEST

START_TEST(conf_defaults)
{
	cJSON *j = cJSON_Parse("{\"endpoints\":[\"http://h:1\"],\"prefix\":\"/p/\","
			       "\"username\":\"u\",\"password\":\"pw\",\"cacert\":\"/ca\","
			       "\"cert\":\"/c\",\"key\":\"/k\"}");
	struct etcd_conf conf;
	struct cni_err err = { 0 };

	ck_assert_int_eq(etcd_conf_parse(j, &conf, &err), 0);
	ck_assert_str_eq(conf.prefix, "/p");
	ck_assert_int_eq(conf.timeout_ms, POOL_TIMEOUT_MS);
	ck_assert_str_eq(conf.username, "u");
	ck_assert_str_eq(conf.password, "pw");
	ck_assert_str_eq(conf.cacert, "/ca");
	ck_assert_str_eq(conf.key, "/k");
	cJSON_Delete(j);
	j = cJSON_Parse("{\"endpoints\":[\"http://h:1\"]}");
	ck_assert_int_eq(etcd_conf_parse(j, &conf, &err), 0);
	ck_assert_str_eq(conf.prefix, "/ippool");
	cJSON_Delete(j);
}
END_TEST

START_TEST(unreachable_endpoint_is_try_again_naming_it)
{
	cJSON *j = cJSON_Parse("{\"endpoints\":[\"http://127.0.0.1:1\"],\"timeout_ms\":300}");
	struct etcd_conf conf;
	struct cni_err err = { 0 };
	struct etcd_kvs kvs;
	struct etcd *e;

	ck_assert_int_eq(etcd_conf_parse(j, &conf, &err), 0);
	ck_assert_int_eq(etcd_connect(&conf, &e, &err), 0);
	ck_assert_int_lt(etcd_range(e, "k", NULL, 0, &kvs, &err), 0);
	ck_assert_int_eq(err.code, CNI_ERR_TRY_AGAIN);
	ck_assert_msg(strstr(err.msg, "http://127.0.0.1:1"), "message: %s", err.msg);
	ck_assert_int_eq(kvs.n, 0);
	etcd_disconnect(e);
	cJSON_Delete(j);
}
END_TEST

struct reply_case {
	const char *raw;
	bool eof;
	int ret;
	long status;
	const char *body;
	bool keep_alive;
	size_t tail;		/* bytes after the reply */
};

#define OK200 "HTTP/1.1 200 OK\r\n"
#define CHUNKED OK200 "Transfer-Encoding: chunked\r\n\r\n"

static const struct reply_case reply_cases[] = {
	{ OK200 "Content-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"a\":1}",
	  false, 0, 200, "{\"a\":1}", true, 0 },
	/* Go's server chunks bodies it did not size; etcd's gateway does for big answers. */
	{ CHUNKED "4\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n", false, 0, 200, "{\"a\":1}", true, 0 },
	{ CHUNKED "4;ext=1\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\nTrailer: x\r\n\r\n", false, 0, 200,
	  "{\"a\":1}", true, 0 },
	{ OK200 "transfer-encoding: chunked\r\n\r\n4\r\n{\"a\"\r\n", false, 1, 0, NULL, false, 0 },
	{ OK200 "Content-Length: 7\r\n\r\n{\"a\"", false, 1, 0, NULL, false, 0 },
	{ OK200 "Content-Length: 7\r\n\r\n{\"a\"", true, -EPROTO, 0, NULL, false, 0 },
	{ OK200 "Content-Le", false, 1, 0, NULL, false, 0 },
	{ OK200 "Content-Le", true, -EPROTO, 0, NULL, false, 0 },
	{ "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\nno leader", true, 0, 503,
	  "no leader", false, 0 },
	{ "HTTP/1.1 503 Service Unavailable\r\n\r\nno leader", false, 1, 0, NULL, false, 0 },
	{ "HTTP/1.1 400 Bad Request\r\nContent-Length: 2\r\n\r\n{}", false, 0, 400, "{}", true, 0 },
	{ "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}", false, 0, 200,
	  "{}", false, 0 },
	{ "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}", false, 0, 200, "{}", false, 0 },
	{ "HTTP/1.1 204 No Content\r\n\r\n", false, 0, 204, "", true, 0 },
	/* A second reply nobody asked for: the caller sees it and drops the connection. */
	{ OK200 "Content-Length: 2\r\n\r\n{}" OK200 "Content-Length: 2\r\n\r\n{}", false, 0, 200,
	  "{}", true, 40 },
	{ "SSH-2.0-OpenSSH_9.2\r\n", false, -EPROTO, 0, NULL, false, 0 },
	{ "HTTP/1.1 abc\r\n\r\n", false, -EPROTO, 0, NULL, false, 0 },
	{ "HTTP/1.1 20\r\n\r\n", false, -EPROTO, 0, NULL, false, 0 },
	{ "HTTP/1.1 100 Continue\r\n\r\n", false, -EPROTO, 0, NULL, false, 0 },
	{ "HTTP/2.0 200 OK\r\n\r\n", false, -EPROTO, 0, NULL, false, 0 },
	{ "HTTP/1.1 200 OK\n\n", false, -EPROTO, 0, NULL, false, 0 },
	{ OK200 "Content-Length 2\r\n\r\n{}", false, -EPROTO, 0, NULL, false, 0 },
	{ OK200 " Content-Length: 2\r\n\r\n{}", false, -EPROTO, 0, NULL, false, 0 },
	{ CHUNKED "zz\r\n", false, -EPROTO, 0, NULL, false, 0 },
	/* The size check wrapped: heap corruption (issue 15). */
	{ CHUNKED "fffffffffffffffe\r\nab\r\n0\r\n\r\n", false, -EMSGSIZE, 0, NULL, false, 0 },
	{ CHUNKED "ffffffffffffffff\r\nab\r\n0\r\n\r\n", false, -EMSGSIZE, 0, NULL, false, 0 },
	{ CHUNKED "10000000000000002\r\nab\r\n0\r\n\r\n", false, -EMSGSIZE, 0, NULL, false, 0 },
	{ CHUNKED "4000001\r\n", false, -EMSGSIZE, 0, NULL, false, 0 },
	{ CHUNKED "3ffffff\r\nab\r\n4\r\nabcd\r\n0\r\n\r\n", false, 1, 0, NULL, false, 0 },
	{ CHUNKED "-2\r\nab\r\n0\r\n\r\n", false, -EPROTO, 0, NULL, false, 0 },
	{ CHUNKED "0x2\r\nab\r\n0\r\n\r\n", false, -EPROTO, 0, NULL, false, 0 },
	{ CHUNKED " 2\r\nab\r\n0\r\n\r\n", false, -EPROTO, 0, NULL, false, 0 },
	{ CHUNKED "\r\nab\r\n0\r\n\r\n", false, -EPROTO, 0, NULL, false, 0 },
	{ CHUNKED "2\r\nabc\r\n0\r\n\r\n", false, -EPROTO, 0, NULL, false, 0 },
	{ CHUNKED "2\r\nab\r\n0\r\n", true, -EPROTO, 0, NULL, false, 0 },
	{ OK200 "Content-Length: -1\r\n\r\n{}", false, -EPROTO, 0, NULL, false, 0 },
	{ OK200 "Content-Length: 18446744073709551617\r\n\r\n{}", false, -EMSGSIZE, 0, NULL,
	  false, 0 },
	{ OK200 "Content-Length: 67108865\r\n\r\n{}", false, -EMSGSIZE, 0, NULL, false, 0 },
	{ OK200 "Content-Length: 2x\r\n\r\n{}", false, -EPROTO, 0, NULL, false, 0 },
	{ OK200 "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}}", false, -EPROTO, 0, NULL,
	  false, 0 },
	{ OK200 "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
	  false, -EPROTO, 0, NULL, false, 0 },
	{ OK200 "Transfer-Encoding: gzip, chunked\r\n\r\n", false, -EPROTO, 0, NULL, false, 0 },
};

START_TEST(http_reply_table)
{
	const struct reply_case *c = &reply_cases[_i];
	size_t len = strlen(c->raw), used = 7;
	struct http_reply r;

	ck_assert_int_eq(http_parse_reply(c->raw, len, c->eof, &r, &used), c->ret);
	if (c->ret == 0) {
		ck_assert_int_eq(r.status, c->status);
		ck_assert_str_eq(r.body, c->body);
		ck_assert_uint_eq(r.len, strlen(c->body));
		ck_assert_int_eq(r.keep_alive, c->keep_alive);
		ck_assert_uint_eq(used, len - c->tail);
	} else {
		ck_assert_ptr_null(r.body);
		ck_assert_uint_eq(used, 0);
	}
	free(r.body);
}
END_TEST

/* Endless header fields: refused once past the limit, whatever follows. */
START_TEST(http_header_limit)
{
	size_t len = HTTP_HEADER_MAX + 64, used;
	char *raw = malloc(len);
	struct http_reply r;

	ck_assert_ptr_nonnull(raw);
	memset(raw, 'a', len);
	memcpy(raw, OK200 "X: ", strlen(OK200 "X: "));
	ck_assert_int_eq(http_parse_reply(raw, HTTP_HEADER_MAX - 1, false, &r, &used), 1);
	ck_assert_int_eq(http_parse_reply(raw, len, false, &r, &used), -EMSGSIZE);
	free(raw);
}
END_TEST

/* Key order must be address order: etcd range reads walk keys lexically. */
static const ipaddr_u128 ordered[] = { 0, 1, 9, 10, 15, 16, 255, 256, 0xc0000201, 0xc00002ff,
				     0xfffffffe };

START_TEST(hex_keys_sort_as_addresses)
{
	char a[33], b[33];
	ipaddr_u128 back;

	layout_addr_key("", AF_INET, ordered[_i], a);
	ck_assert_uint_eq(strlen(a), 8);
	ck_assert_int_eq(layout_hex_parse(a, AF_INET, &back), 0);
	ck_assert(back == ordered[_i]);
	if (_i + 1 < (int)(sizeof(ordered) / sizeof(ordered[0]))) {
		layout_addr_key("", AF_INET, ordered[_i + 1], b);
		ck_assert_int_lt(strcmp(a, b), 0);
	}
}
END_TEST

START_TEST(hex_v6_and_bad_input)
{
	ipaddr_u128 v = ((ipaddr_u128)0x20010db8 << 96) | 1, back;
	char h[33];

	layout_addr_key("", AF_INET6, v, h);
	ck_assert_str_eq(h, "20010db8000000000000000000000001");
	ck_assert_int_eq(layout_hex_parse(h, AF_INET6, &back), 0);
	ck_assert(back == v);
	ck_assert_int_eq(layout_hex_parse("c00002", AF_INET, &back), -EINVAL);
	ck_assert_int_eq(layout_hex_parse("C0000201", AF_INET, &back), -EINVAL);
	ck_assert_int_eq(layout_hex_parse("c000020g", AF_INET, &back), -EINVAL);
}
END_TEST

START_TEST(keys_by_scope)
{
	struct pool_range r = { .network = "_", .pool = "10.56.0.0/16", .family = AF_INET,
				.shared = true };
	struct pool_key k = { "abc", "net1" };
	char key[LAYOUT_KEY_MAX], akey[LAYOUT_KEY_MAX];

	layout_scope_dir("/ippool", &r, key);
	ck_assert_str_eq(key, "/ippool/n/_/v4/");
	r.shared = false;
	layout_scope_dir("/ippool", &r, key);
	ck_assert_str_eq(key, "/ippool/n/_/p/10.56.0.0_16/");
	layout_addr_key(key, AF_INET, 0x0a380102, akey);
	ck_assert_str_eq(akey, "/ippool/n/_/p/10.56.0.0_16/0a380102");
	layout_info_key("/p", "rdma", "2001:db8::/64", key);
	ck_assert_str_eq(key, "/p/i/rdma/2001:db8::_64");
	layout_owner_key("/p", &k, key);
	ck_assert_str_eq(key, "/p/o/abc/net1");
}
END_TEST

#define BOOT "2dd41058-814b-48e8-9a29-17e48eba27f6"

START_TEST(lease_round_trip)
{
	char keys[POOL_MAX_RANGES][LAYOUT_KEY_MAX] = { "/p/n/_/v4/c0000201",
						       "/p/n/_/v6/20010db8000000000000000000000002" };
	char back_keys[POOL_MAX_RANGES][LAYOUT_KEY_MAX], node[LAYOUT_NODE_MAX];
	struct pool_lease l = {
		.owner = { .key = { "c1", "net1" }, .cni_network = "rail-1", .pod_namespace = "ns",
			   .pod_name = "p", .pod_uid = "u", .created = 1796034403,
			   .netns = "/var/run/netns/cni-1", .ns = { 4, 4026532174, BOOT } },
		.addrs = { { "_", "192.0.2.0/24", AF_INET, 24, 0xc0000201 },
			   { "_", "2001:db8::/64", AF_INET6, 64,
			     ((ipaddr_u128)0x20010db8 << 96) | 2 } },
		.n_addrs = 2,
	}, back;
	char *v = layout_lease_value(&l, keys, "node-1");

	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(layout_parse_lease("/p", v, &back, back_keys, node), 0);
	ck_assert_str_eq(back.owner.key.containerid, "c1");
	ck_assert_str_eq(back.owner.cni_network, "rail-1");
	ck_assert_str_eq(node, "node-1");
	ck_assert_str_eq(back.owner.pod_uid, "u");
	ck_assert_int_eq(back.owner.created, 1796034403);
	ck_assert_int_eq(back.n_addrs, 2);
	ck_assert(back.addrs[1].addr == l.addrs[1].addr);
	ck_assert_int_eq(back.addrs[1].family, AF_INET6);
	ck_assert_int_eq(back.addrs[1].prefix_len, 64);
	ck_assert_str_eq(back_keys[1], keys[1]);
	ck_assert_str_eq(back.owner.netns, "/var/run/netns/cni-1");
	ck_assert(back.owner.ns.dev == 4 && back.owner.ns.ino == 4026532174);
	ck_assert_str_eq(back.owner.ns.boot, BOOT);
	free(v);
	/* the writer refuses what the reader would */
	l.owner.ns.boot[0] = 'X';
	ck_assert_ptr_null(layout_lease_value(&l, keys, "node-1"));
	l.owner.ns.boot[0] = '2';
	/* without a network: no cniNetwork written */
	l.owner.cni_network[0] = '\0';
	v = layout_lease_value(&l, keys, "node-1");
	ck_assert_ptr_null(strstr(v, "cniNetwork"));
	ck_assert_int_eq(layout_parse_lease("/p", v, &back, back_keys, node), 0);
	ck_assert_str_eq(back.owner.cni_network, "");
	free(v);
	ck_assert_int_eq(layout_parse_lease("/p", "{\"containerID\":\"c1\"}", &back, back_keys, node),
			 -EINVAL);
	ck_assert_int_eq(layout_parse_lease("/p", "garbage", &back, back_keys, node), -EINVAL);
}
END_TEST

/* Leases as older versions wrote them (no node, no cniNetwork) and damaged ones. */
#define LEASE_HEAD "{\"containerID\":\"c1\",\"ifname\":\"net1\",\"podNamespace\":\"\",\"podName\":\"\"," \
		   "\"podUID\":\"\",\"created\":1,\"addrs\":[{\"network\":\"_\",\"pool\":\"192.0.2.0/24\"," \
		   "\"family\":4,\"prefixLength\":24,\"address\":\"192.0.2.1\",\"key\":\"/p/n/_/v4/c0000201\"}]"
#define NETNS_ID(dev, ino, boot) ",\"netns\":\"/run/netns/x\",\"netnsDev\":" dev ",\"netnsIno\":" ino \
	",\"bootID\":" boot
#define NETNS_OK NETNS_ID("4", "4026532174", "\"" BOOT "\"")
static const struct {
	const char *value;
	int ret;
	const char *cni_network, *node;
} leases[] = {
	{ LEASE_HEAD "}", 0, "", "" },
	{ LEASE_HEAD ",\"node\":\"gpu-1\"}", 0, "", "gpu-1" },
	{ LEASE_HEAD ",\"node\":\"gpu-1\",\"cniNetwork\":\"rail-3\"}", 0, "rail-3", "gpu-1" },
	{ LEASE_HEAD ",\"cniNetwork\":\"../x\"}", -EINVAL, NULL, NULL },
	{ LEASE_HEAD ",\"cniNetwork\":\"\"}", 0, "", "" },
	{ LEASE_HEAD ",\"cniNetwork\":7}", -EINVAL, NULL, NULL },
	{ LEASE_HEAD ",\"node\":null}", -EINVAL, NULL, NULL },
	/* the netns: absent before reconcile, else checked as every store's */
	{ LEASE_HEAD ",\"netns\":\"/var/run/netns/x\"}", 0, "", "" },
	{ LEASE_HEAD NETNS_OK "}", 0, "", "" },
	{ LEASE_HEAD ",\"netns\":\"var/run/netns/x\"}", -EINVAL, NULL, NULL },
	{ LEASE_HEAD ",\"netns\":\"/var/run/netns/a b\"}", -EINVAL, NULL, NULL },
	{ LEASE_HEAD ",\"netns\":7}", -EINVAL, NULL, NULL },
	{ LEASE_HEAD ",\"netnsDev\":4,\"netnsIno\":4026532174,\"bootID\":\"" BOOT "\"}", -EINVAL,
	  NULL, NULL },
	{ LEASE_HEAD NETNS_ID("4", "0", "\"" BOOT "\"") "}", -EINVAL, NULL, NULL },
	{ LEASE_HEAD NETNS_ID("4", "-1", "\"" BOOT "\"") "}", -EINVAL, NULL, NULL },
	{ LEASE_HEAD NETNS_ID("-4", "1", "\"" BOOT "\"") "}", -EINVAL, NULL, NULL },
	{ LEASE_HEAD NETNS_ID("4", "1.5", "\"" BOOT "\"") "}", -EINVAL, NULL, NULL },
	{ LEASE_HEAD NETNS_ID("4", "9007199254740992", "\"" BOOT "\"") "}", -EINVAL, NULL, NULL },
	{ LEASE_HEAD NETNS_ID("4", "\"4026532174\"", "\"" BOOT "\"") "}", -EINVAL, NULL, NULL },
	{ LEASE_HEAD NETNS_ID("4", "4026532174", "\"2dd41058-814b-48e8-9a29-17e48eba27f\"") "}", -EINVAL,
	  NULL, NULL },
	{ LEASE_HEAD NETNS_ID("4", "4026532174", "36") "}", -EINVAL, NULL, NULL },
	{ LEASE_HEAD ",\"netns\":\"/run/netns/x\",\"netnsIno\":4026532174}", -EINVAL, NULL, NULL },
	{ LEASE_HEAD ",\"netns\":\"/run/netns/x\",\"netnsIno\":4026532174,\"bootID\":\"" BOOT "\"}", -EINVAL,
	  NULL, NULL },
};

START_TEST(lease_versions)
{
	char keys[POOL_MAX_RANGES][LAYOUT_KEY_MAX], node[LAYOUT_NODE_MAX];
	struct pool_lease l;

	ck_assert_int_eq(layout_parse_lease("/p", leases[_i].value, &l, keys, node), leases[_i].ret);
	if (leases[_i].ret)
		return;
	ck_assert_str_eq(l.owner.cni_network, leases[_i].cni_network);
	ck_assert_str_eq(node, leases[_i].node);
	ck_assert_str_eq(l.owner.node, leases[_i].node);
}
END_TEST

/* A lease an ippool before netns recording wrote (a seed kept from then):
 * read with no netns, which reconcile never frees, and its node. */
START_TEST(lease_before_netns)
{
	char keys[POOL_MAX_RANGES][LAYOUT_KEY_MAX], node[LAYOUT_NODE_MAX];
	char *text = unit_seed("etcd-layout/o_c1_net1-before-netns");
	struct pool_lease l;

	ck_assert_int_eq(layout_parse_lease("/seed", text, &l, keys, node), 0);
	ck_assert_str_eq(l.owner.key.containerid, "c1");
	ck_assert_str_eq(l.owner.node, "vm");
	ck_assert_str_eq(l.owner.netns, "");
	ck_assert(!l.owner.ns.ino && !l.owner.ns.dev && !l.owner.ns.boot[0]);
	free(text);
}
END_TEST

START_TEST(gc_keys)
{
	struct pool_owner o = { .key = { "6c1d", "net3" }, .cni_network = "rail-3" };
	char dir[LAYOUT_KEY_MAX], key[LAYOUT_KEY_MAX];
	struct pool_key k;

	layout_gc_dir("/ippool", "gpu-017", "rail-3", dir);
	ck_assert_str_eq(dir, "/ippool/g/gpu-017/rail-3/");
	layout_gc_key("/ippool", "gpu-017", &o, key);
	ck_assert_str_eq(key, "/ippool/g/gpu-017/rail-3/6c1d/net3");
	ck_assert_int_eq(layout_gc_parse(dir, key, &k), 0);
	ck_assert_str_eq(k.containerid, "6c1d");
	ck_assert_str_eq(k.ifname, "net3");
	/* a network's directory never holds another's: names end at '/' */
	layout_gc_dir("/ippool", "gpu-017", "rail-3x", dir);
	ck_assert_int_eq(strncmp(key, dir, strlen(dir)) == 0, 0);
}
END_TEST

/* The longest names still make a whole key. */
START_TEST(gc_key_longest)
{
	struct pool_owner o = { .key.ifname = "123456789012345" };
	char prefix[ETCD_STR_MAX], node[HOST_NAME_MAX + 1], key[LAYOUT_KEY_MAX];

	memset(prefix, 'p', sizeof(prefix) - 1);
	prefix[sizeof(prefix) - 1] = '\0';
	memset(node, 'h', sizeof(node) - 1);
	node[sizeof(node) - 1] = '\0';
	memset(o.cni_network, 'n', sizeof(o.cni_network) - 1);
	memset(o.key.containerid, 'c', sizeof(o.key.containerid) - 1);
	layout_gc_key(prefix, node, &o, key);
	ck_assert_int_eq(strlen(key), ETCD_STR_MAX - 1 + 3 + HOST_NAME_MAX + 1 + POOL_NAME_MAX - 1 + 1 +
			 POOL_NAME_MAX - 1 + 1 + 15);
	ck_assert_str_eq(key + strlen(key) - 16, "/123456789012345");
}
END_TEST

/* Index keys that do not name one valid attachment under the directory. */
static const char *const bad_gc_keys[] = {
	"/ippool/g/gpu-017/rail-3/6c1d",
	"/ippool/g/gpu-017/rail-3/6c1d/",
	"/ippool/g/gpu-017/rail-3//net3",
	"/ippool/g/gpu-017/rail-3/6c1d/net3/x",
	"/ippool/g/gpu-017/rail-3/../net3",
	"/ippool/g/gpu-017/rail-3/6c1d/a:b",
	"/ippool/g/gpu-017/rail-3/6c1d/1234567890123456",
	"/ippool/g/gpu-017/rail-4/6c1d/net3",
	"/ippool/g/gpu-017/rail-3",
};

START_TEST(gc_key_bad)
{
	struct pool_key k;

	ck_assert_int_eq(layout_gc_parse("/ippool/g/gpu-017/rail-3/", bad_gc_keys[_i], &k), -EINVAL);
}
END_TEST

#define LEASE(id, created, fam, len, key) "{\"containerID\":\"" id "\",\"ifname\":\"net1\"," \
	"\"podNamespace\":\"\",\"podName\":\"\",\"podUID\":\"\",\"created\":" created "," \
	"\"addrs\":[{\"network\":\"_\",\"pool\":\"192.0.2.0/24\",\"family\":" fam "," \
	"\"prefixLength\":" len ",\"address\":\"192.0.2.1\",\"key\":\"" key "\"}]}"

static const struct {
	const char *value;
	int ret;
} damaged_leases[] = {
	{ LEASE("c1", "1", "4", "24", "/p/n/_/v4/c0000201"), 0 },
	{ LEASE("c1", "1", "4", "24", "/p/n/_/p/192.0.2.0_24/c0000201"), 0 },
	/* DEL would delete what the lease names: only the key of its address */
	{ LEASE("c1", "1", "4", "24", "/q/n/_/v4/c0000201"), -EINVAL },
	{ LEASE("c1", "1", "4", "24", "/p/n/other/v4/c0000201"), -EINVAL },
	{ LEASE("c1", "1", "4", "24", "/p/o/c2/net1"), -EINVAL },
	{ LEASE("c1", "1", "4", "24", "c0000201"), -EINVAL },
	{ LEASE("c1", "1", "6", "24", "/p/n/_/v4/c0000201"), -EINVAL },
	{ LEASE("c1", "1", "5", "24", "/p/n/_/v4/c0000201"), -EINVAL },
	{ LEASE("c1", "1", "4", "33", "/p/n/_/v4/c0000201"), -EINVAL },
	{ LEASE("c1", "1", "4", "-1", "/p/n/_/v4/c0000201"), -EINVAL },
	{ LEASE("c1", "1e300", "4", "24", "/p/n/_/v4/c0000201"), -EINVAL },
	{ LEASE("c1", "1.5", "4", "24", "/p/n/_/v4/c0000201"), -EINVAL },
	{ LEASE("../c1", "1", "4", "24", "/p/n/_/v4/c0000201"), -EINVAL },
	{ "{\"containerID\":\"c1\",\"ifname\":\"net1\",\"podNamespace\":\"\",\"podName\":\"\","
	  "\"podUID\":\"\",\"created\":1,\"addrs\":[]}", -EINVAL },
};

START_TEST(lease_checks)
{
	char keys[POOL_MAX_RANGES][LAYOUT_KEY_MAX], node[LAYOUT_NODE_MAX];
	struct pool_lease l;

	ck_assert_int_eq(layout_parse_lease("/p", damaged_leases[_i].value, &l, keys, node),
			 damaged_leases[_i].ret);
	ck_assert_int_eq(l.n_addrs, damaged_leases[_i].ret ? 0 : 1);
}
END_TEST

START_TEST(info_round_trip)
{
	struct pool_info pi = { .network = "_", .pool = "10.56.0.0/16", .family = AF_INET,
				.shared = true, .span = { 0x0a380001, 0x0a38fffe }, .usable = 65278 },
			 back;
	ipaddr_u128 cursor;
	char *v = layout_info_value(&pi, 0x0a380103);

	ck_assert_int_eq(layout_parse_info(v, &back, &cursor), 0);
	ck_assert(cursor == 0x0a380103);
	ck_assert(back.span.first == pi.span.first && back.span.last == pi.span.last);
	ck_assert(back.usable == 65278);
	ck_assert(back.shared);
	free(v);
	ck_assert_int_eq(layout_parse_info("{\"family\":4}", &back, &cursor), -EINVAL);
}
END_TEST

#define INFO(fam, first, last, usable, cursor) "{\"network\":\"_\",\"pool\":\"p\",\"family\":" \
	fam ",\"shared\":true,\"first\":\"" first "\",\"last\":\"" last "\",\"usable\":\"" \
	usable "\",\"cursor\":\"" cursor "\"}"

static const struct {
	const char *value;
	int ret;
} infos[] = {
	{ INFO("4", "00000001", "000000fe", "254", "000000ff"), 0 },
	{ INFO("4", "00000001", "000000fe", "0", "00000001"), 0 },
	{ INFO("4", "00000001", "000000fe", "255", "00000001"), -EINVAL },
	{ INFO("4", "00000001", "000000fe", "254", "00000100"), -EINVAL },
	{ INFO("4", "00000001", "000000fe", "254", "00000000"), -EINVAL },
	{ INFO("4", "000000fe", "00000001", "0", "000000fe"), -EINVAL },
	{ INFO("4", "00000001", "000000fe", "340282366920938463463374607431768211456", "00000001"),
	  -EINVAL },
	{ INFO("4", "00000001", "000000fe", "-1", "00000001"), -EINVAL },
	{ INFO("6", "00000001", "000000fe", "254", "00000001"), -EINVAL },
	{ INFO("\"4\"", "00000001", "000000fe", "254", "00000001"), -EINVAL },
};

START_TEST(info_checks)
{
	struct pool_info pi;
	ipaddr_u128 cursor;

	ck_assert_int_eq(layout_parse_info(infos[_i].value, &pi, &cursor), infos[_i].ret);
}
END_TEST

START_TEST(holds_block_until_they_run_out)
{
	struct pool_key k = { "c1", "net1" }, other = { "c1", "net2" };
	char *held = layout_addr_value(&k, "192.0.2.0/24", AF_INET, 0xc0000201, 0);
	char *hold = layout_addr_value(NULL, "192.0.2.0/24", AF_INET, 0xc0000201, 1000);

	ck_assert(layout_value_blocks(held, 5000));
	ck_assert(layout_value_held_by(held, &k));
	ck_assert(!layout_value_held_by(held, &other));
	ck_assert(layout_value_has_holder(held));
	ck_assert(layout_value_blocks(hold, 999));
	ck_assert(!layout_value_blocks(hold, 1000));
	ck_assert(!layout_value_has_holder(hold));
	ck_assert(!layout_value_held_by(hold, &k));
	free(held);
	free(hold);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("etcd");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, range_request_encodes_base64_and_limit);
	tcase_add_test(tc, txn_request_has_compares_and_both_branches);
	tcase_add_test(tc, range_answer_decodes_keys_and_string_revisions);
	tcase_add_test(tc, range_answer_empty);
	tcase_add_loop_test(tc, range_answer_malformed_is_einval, 0,
			    sizeof(bad_ranges) / sizeof(bad_ranges[0]));
	tcase_add_test(tc, txn_answer_without_succeeded_is_false);
	tcase_add_test(tc, txn_answer_succeeded_skips_other_responses);
	tcase_add_loop_test(tc, txn_answer_not_matching_the_branch_is_einval, 0,
			    sizeof(bad_txns) / sizeof(bad_txns[0]));
	tcase_add_test(tc, token_answer);
	tcase_add_test(tc, error_answer);
	tcase_add_test(tc, prefix_end_bumps_last_byte);
	tcase_add_test(tc, backoff_stays_in_bounds);
	tcase_add_loop_test(tc, conf_parse_table, 0, sizeof(conf_cases) / sizeof(conf_cases[0]));
	tcase_add_test(tc, conf_defaults);
	tcase_add_test(tc, unreachable_endpoint_is_try_again_naming_it);
	tcase_add_loop_test(tc, hex_keys_sort_as_addresses, 0, sizeof(ordered) / sizeof(ordered[0]));
	tcase_add_test(tc, hex_v6_and_bad_input);
	tcase_add_test(tc, keys_by_scope);
	tcase_add_test(tc, lease_round_trip);
	tcase_add_loop_test(tc, lease_versions, 0, sizeof(leases) / sizeof(leases[0]));
	tcase_add_test(tc, lease_before_netns);
	tcase_add_test(tc, gc_keys);
	tcase_add_test(tc, gc_key_longest);
	tcase_add_loop_test(tc, gc_key_bad, 0, sizeof(bad_gc_keys) / sizeof(bad_gc_keys[0]));
	tcase_add_test(tc, info_round_trip);
	tcase_add_loop_test(tc, lease_checks, 0, sizeof(damaged_leases) / sizeof(damaged_leases[0]));
	tcase_add_loop_test(tc, info_checks, 0, sizeof(infos) / sizeof(infos[0]));
	tcase_add_test(tc, holds_block_until_they_run_out);
	tcase_add_loop_test(tc, http_reply_table, 0, sizeof(reply_cases) / sizeof(reply_cases[0]));
	tcase_add_test(tc, http_header_limit);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
