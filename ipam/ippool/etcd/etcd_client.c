// SPDX-License-Identifier: Apache-2.0
/* The etcd client of one command: requests to the endpoints, failover, auth and the time budget. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "clock.h"
#include "etcd_client.h"
#include "http.h"
#include "libcurl.h"

#define RESPONSE_MAX (64 << 20)
#define TOKEN_MAX 512
/* gRPC codes etcd returns through the gateway. */
#define GRPC_DEADLINE_EXCEEDED 4
#define GRPC_UNAVAILABLE 14
#define GRPC_UNAUTHENTICATED 16

struct etcd {
	const struct etcd_conf *conf;
	const struct libcurl *cu;	/* loaded for https:// endpoints */
	CURL *curl;
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
	next = e->cu->slist_append(h, "Content-Type: application/json");
	next = next ? e->cu->slist_append(h = next, "Expect:") : NULL;
	if (next && *e->token) {
		snprintf(auth, sizeof(auth), "Authorization: %s", e->token);
		next = e->cu->slist_append(h = next, auth);
	}
	if (!next) {
		e->cu->slist_free_all(h);
		return -ENOMEM;
	}
	e->cu->slist_free_all(e->headers);
	e->headers = next;
	return e->cu->setopt(e->curl, CURLOPT_HTTPHEADER, next) ? -EINVAL : 0;
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
	e->cu->setopt(e->curl, CURLOPT_URL, url);
	e->cu->setopt(e->curl, CURLOPT_POSTFIELDS, body);
	e->cu->setopt(e->curl, CURLOPT_TIMEOUT_MS, ms > 1 ? ms : 1L);
	e->cu->setopt(e->curl, CURLOPT_CONNECTTIMEOUT_MS, ms > 2 ? ms / 2 : 1L);
	e->cu->setopt(e->curl, CURLOPT_WRITEDATA, resp);
	rc = e->cu->perform(e->curl);
	if (rc != CURLE_OK) {
		snprintf(why, why_size, "%s", e->cu->strerror(rc));
		return RETRY_OTHER;
	}
	e->cu->getinfo(e->curl, CURLINFO_RESPONSE_CODE, &status);
	return judge(e, status, resp->data, why, why_size);
}

/* Where one request's walk over the endpoints stands. */
struct walk {
	int tried;
	int failed;				/* the endpoint the message names */
	char cause[256];			/* its failure */
	char seen[CNI_ERR_DETAILS_MAX];		/* each endpoint's first failure */
	size_t len;
};

/* The walk spent the command's time: CNI_ERR_TRY_AGAIN. */
static int gave_up(const struct etcd *e, const struct walk *w, struct cni_err *err)
{
	cni_err_set(err, CNI_ERR_TRY_AGAIN, "etcd %s unavailable: %s",
		    e->conf->endpoints[w->failed], w->cause);
	cni_err_details(err, "%s", w->seen);
	return -ETIMEDOUT;
}

/* POSTs to the current endpoint, moving to the next on transport failures,
 * until one answers or the command's time is spent: 0, -EPERM (refused) or
 * -ETIMEDOUT. With may_reauth, an answer that the token is not (or no
 * longer) valid ends the walk with REAUTH (> 0): the caller authenticates
 * and walks on with w. */
static int walk(struct etcd *e, const char *path, const char *body, struct buf *resp,
		struct walk *w, bool may_reauth, struct cni_err *err)
{
	char why[sizeof(w->cause)];
	int n = e->conf->n_endpoints;
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
		if (o == REAUTH && may_reauth)
			return REAUTH;
		/* The message names the first failure, the one a try with the
		 * whole budget met (a refused certificate), not the timeout of
		 * a later try that had only what was left of it. */
		if (!w->cause[0]) {
			w->failed = e->cur;
			snprintf(w->cause, sizeof(w->cause), "%s", why);
		}
		if (w->tried < n && w->len < sizeof(w->seen))
			w->len += (size_t)snprintf(w->seen + w->len, sizeof(w->seen) - w->len,
						   "%s%s: %s", w->len ? "; " : "",
						   e->conf->endpoints[e->cur], why);
		if (++w->tried % n)
			e->cur = (e->cur + 1) % n;
		else if (etcd_remaining_ms(e) > 0)
			usleep(20000);	/* every endpoint failed: give them a moment */
	} while (etcd_remaining_ms(e) > 0);
	return gave_up(e, w, err);
}

static int authenticate(struct etcd *e, struct cni_err *err)
{
	struct walk w = { .failed = e->cur };
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
		ret = walk(e, "/v3/auth/authenticate", body, &b, &w, false, err);
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

/* A request's POST: a token refused once is renewed, and the walk goes on
 * (authenticate's own request renews nothing: it is what failed). */
static int post(struct etcd *e, const char *path, const char *body, struct buf *resp,
		struct cni_err *err)
{
	struct walk w = { .failed = e->cur };
	int ret = walk(e, path, body, resp, &w, true, err);

	if (ret != REAUTH)
		return ret;
	*e->token = '\0';
	if (authenticate(e, err))
		return -EPERM;
	if (etcd_remaining_ms(e) <= 0)
		return gave_up(e, &w, err);
	return walk(e, path, body, resp, &w, false, err);
}

static int setup_curl(struct etcd *e)
{
	const struct etcd_conf *c = e->conf;
	int bad = 0;

	bad |= e->cu->setopt(e->curl, CURLOPT_NOSIGNAL, 1L);
	bad |= e->cu->setopt(e->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	bad |= e->cu->setopt(e->curl, CURLOPT_WRITEFUNCTION, on_data);
	bad |= e->cu->setopt(e->curl, CURLOPT_TCP_NODELAY, 1L);
	if (*c->cacert)
		bad |= e->cu->setopt(e->curl, CURLOPT_CAINFO, c->cacert);
	if (*c->cert) {
		bad |= e->cu->setopt(e->curl, CURLOPT_SSLCERT, c->cert);
		bad |= e->cu->setopt(e->curl, CURLOPT_SSLKEY, c->key);
	}
	return bad ? -EINVAL : set_headers(e);
}

int etcd_connect(const struct etcd_conf *conf, struct etcd **out, struct cni_err *err)
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
		ret = libcurl_load(&e->cu, err);
		if (ret)
			goto fail;
		ret = -ENOMEM;
		e->curl = e->cu->easy_init();
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
	etcd_disconnect(e);
	return ret;
}

void etcd_disconnect(struct etcd *e)
{
	if (!e)
		return;
	http_close(&e->http);
	if (e->curl)
		e->cu->cleanup(e->curl);
	if (e->headers)
		e->cu->slist_free_all(e->headers);
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

int etcd_each(struct etcd *e, const char *dir, long page, etcd_kv_fn fn, void *arg,
	      struct cni_err *err)
{
	char start[ETCD_KEY_MAX + 1], *end = NULL;
	struct etcd_kvs kvs = { 0 };
	size_t i;
	int ret;

	snprintf(start, ETCD_KEY_MAX, "%s", dir);
	if (etcd_prefix_end(start, &end)) {
		cni_err_set(err, CNI_ERR_STORE, "etcd store: out of memory");
		return -ENOMEM;
	}
	do {
		ret = etcd_range(e, start, end, page, &kvs, err);
		for (i = 0; !ret && i < kvs.n; i++)
			ret = fn(&kvs.kv[i], arg, err);
		if (ret || !kvs.more)
			break;
		/* The next page starts just after the last key seen (a page cut by
		 * the limit has one): no key of ours is that long. */
		if (strlen(kvs.kv[kvs.n - 1].key) >= ETCD_KEY_MAX) {
			cni_err_set(err, CNI_ERR_STORE, "etcd %s: corrupt value at key %.*s",
				    etcd_endpoint(e), ETCD_KEY_MAX, kvs.kv[kvs.n - 1].key);
			ret = -EIO;
			break;
		}
		snprintf(start, sizeof(start), "%s%c", kvs.kv[kvs.n - 1].key, 1);
		etcd_kvs_release(&kvs);
		if (!etcd_remaining_ms(e)) {
			cni_err_set(err, CNI_ERR_TRY_AGAIN, "etcd %s: listing %s outlasted %d ms",
				    etcd_endpoint(e), dir, e->conf->timeout_ms);
			ret = -ETIMEDOUT;
			break;
		}
	} while (1);
	etcd_kvs_release(&kvs);
	free(end);
	return ret;
}

long etcd_backoff_ms(unsigned int attempt, unsigned int rnd)
{
	long cap = ETCD_BACKOFF_MAX_MS;

	if (attempt < 16 && ETCD_BACKOFF_BASE_MS << attempt < ETCD_BACKOFF_MAX_MS)
		cap = ETCD_BACKOFF_BASE_MS << attempt;
	/* Half fixed, half random: lock-stepped retries spread out. */
	return cap / 2 + (long)(rnd % (unsigned int)(cap - cap / 2 + 1));
}
