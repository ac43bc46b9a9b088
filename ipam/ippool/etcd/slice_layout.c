// SPDX-License-Identifier: Apache-2.0
/* Node slices on the etcd store: block arithmetic, keys, and the slice, heartbeat and local record values; pure. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <cjson/cJSON.h>
#include "env.h"
#include "json.h"
#include "slice_layout.h"

static int bits(int family)
{
	return family == AF_INET ? 32 : 128;
}

/* Host part of a /len: all ones below the prefix. */
static ipaddr_u128 host(int family, int len)
{
	int h = bits(family) - len;

	return h >= 128 ? ~(ipaddr_u128)0 : ((ipaddr_u128)1 << h) - 1;
}

struct pool_span slice_block(int family, int len, ipaddr_u128 a)
{
	ipaddr_u128 h = host(family, len);

	return (struct pool_span){ a & ~h, a | h };
}

static int shift(int family, int len)
{
	return bits(family) - len;
}

ipaddr_u128 slice_index(const struct pool_range *r, int len, ipaddr_u128 a)
{
	ipaddr_u128 net = r->span.first & ~host(r->family, r->prefix_len);
	int sh = shift(r->family, len);

	return sh >= 128 ? 0 : (a - net) >> sh;
}

void slice_index_range(const struct pool_range *r, int len, ipaddr_u128 *lo, ipaddr_u128 *hi)
{
	*lo = slice_index(r, len, r->span.first);
	*hi = slice_index(r, len, r->span.last);
}

struct pool_span slice_nth(const struct pool_range *r, int len, ipaddr_u128 i)
{
	ipaddr_u128 net = r->span.first & ~host(r->family, r->prefix_len);
	int sh = shift(r->family, len);

	return slice_block(r->family, len, net + (sh >= 128 ? 0 : i << sh));
}

ipaddr_u128 slice_usable(const struct pool_range *r, const struct pool_span *b)
{
	ipaddr_u128 first = b->first > r->span.first ? b->first : r->span.first;
	ipaddr_u128 last = b->last < r->span.last ? b->last : r->span.last, n;

	if (first > last)
		return 0;
	n = last - first + 1;
	for (size_t i = 0; i < r->n_skip; i++) {
		ipaddr_u128 f = r->skip[i].first > first ? r->skip[i].first : first;
		ipaddr_u128 l = r->skip[i].last < last ? r->skip[i].last : last;

		if (f <= l)
			n -= l - f + 1;
	}
	return n;
}

/* Appends s to out[0..*n), merging it into the last span when they touch
 * (spans come in order of their first address). */
static void push(struct pool_span *out, size_t *n, struct pool_span s)
{
	if (*n && s.first <= out[*n - 1].last + 1 && out[*n - 1].last != ~(ipaddr_u128)0) {
		if (s.last > out[*n - 1].last)
			out[*n - 1].last = s.last;
		return;
	}
	out[(*n)++] = s;
}

/* The parts of span no block of own covers, in order. */
static size_t gaps(const struct pool_span *span, const struct pool_span *own, size_t n,
		   struct pool_span *out)
{
	ipaddr_u128 cur = span->first;
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		if (own[i].last < cur || own[i].first > span->last)
			continue;
		if (own[i].first > cur)
			out[m++] = (struct pool_span){ cur, own[i].first - 1 };
		if (own[i].last >= span->last)
			return m;
		cur = own[i].last + 1;
	}
	out[m++] = (struct pool_span){ cur, span->last };
	return m;
}

int slice_restrict(const struct pool_range *r, const struct pool_span *own, size_t n,
		   struct pool_range *out, struct pool_span **skip_out)
{
	struct pool_span *g = malloc((n + 1) * sizeof(*g));
	struct pool_span *s = malloc((n + 1 + r->n_skip) * sizeof(*s));
	size_t ng, ns = 0, i = 0, j = 0;
	ipaddr_u128 skipped = 0;

	*skip_out = NULL;
	if (!g || !s) {
		free(g);
		free(s);
		return -ENOMEM;
	}
	ng = gaps(&r->span, own, n, g);
	while (i < ng || j < r->n_skip)
		push(s, &ns, j == r->n_skip || (i < ng && g[i].first < r->skip[j].first) ?
			     g[i++] : r->skip[j++]);
	free(g);
	*out = *r;
	out->skip = s;
	out->n_skip = ns;
	for (i = 0; i < ns; i++)
		skipped += s[i].last - s[i].first + 1;
	out->usable = r->span.last - r->span.first + 1 - skipped;
	*skip_out = s;
	return 0;
}

void slice_dir(const char *prefix, const struct pool_range *r, char *out)
{
	char n[LAYOUT_KEY_MAX];

	/* The scope directory P/n/<scope>/ with n for s. */
	layout_scope_dir(prefix, r, n);
	snprintf(out, LAYOUT_KEY_MAX, "%s/s/%s", prefix, n + strlen(prefix) + 3);
}

void slice_key(const char *prefix, const struct pool_range *r, ipaddr_u128 first, char *out)
{
	char dir[LAYOUT_KEY_MAX];

	slice_dir(prefix, r, dir);
	layout_addr_key(dir, r->family, first, out);
}

void slice_node_dir(const char *prefix, const char *node, char *out)
{
	snprintf(out, LAYOUT_KEY_MAX, "%s/t/%s/", prefix, node);
}

void slice_node_key(const char *prefix, const char *node, const char *skey, char *out)
{
	size_t n = strlen(prefix) + 3;

	snprintf(out, LAYOUT_KEY_MAX, "%s/t/%s/%s", prefix, node,
		 strlen(skey) > n ? skey + n : "");
}

void slice_heartbeat_key(const char *prefix, const char *node, char *out)
{
	snprintf(out, LAYOUT_KEY_MAX, "%s/h/%s", prefix, node);
}

void slice_scope(const struct slice_rec *rec, struct pool_range *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->network, sizeof(out->network), "%s", rec->s.network);
	snprintf(out->pool, sizeof(out->pool), "%s", rec->s.pool);
	out->family = rec->s.family;
	out->shared = rec->shared;
}

bool slice_valid_node(const char *node)
{
	size_t n = strlen(node);

	if (!n || n > 253 || !strcmp(node, ".") || !strcmp(node, ".."))
		return false;
	return strspn(node, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") == n;
}

/* hex of a as layout_addr_key writes it. */
static void hex(int family, ipaddr_u128 a, char out[33])
{
	char key[LAYOUT_KEY_MAX];

	layout_addr_key("", family, a, key);
	snprintf(out, 33, "%.32s", key);
}

char *slice_value(const struct slice_rec *rec, bool record)
{
	cJSON *o = cJSON_CreateObject();
	char first[33];
	bool ok;

	hex(rec->s.family, rec->s.span.first, first);
	ok = o && cJSON_AddStringToObject(o, "node", rec->s.node) &&
	     cJSON_AddStringToObject(o, "network", rec->s.network) &&
	     cJSON_AddStringToObject(o, "pool", rec->s.pool) &&
	     cJSON_AddNumberToObject(o, "family", rec->s.family == AF_INET ? 4 : 6) &&
	     cJSON_AddBoolToObject(o, "shared", rec->shared) &&
	     cJSON_AddStringToObject(o, "first", first) &&
	     cJSON_AddNumberToObject(o, "prefixLength", rec->len) &&
	     cJSON_AddNumberToObject(o, "claimed", (double)rec->claimed) &&
	     (!record || cJSON_AddStringToObject(o, "state", rec->releasing ? "releasing" : "owned"));
	return json_print_free(o, ok ? 0 : -ENOMEM);
}

/* A time in unix seconds: not negative, and of at most 15 digits, which
 * cJSON prints back exactly (it prints numbers with %.15g). */
static bool time_of(const cJSON *o, const char *name, int64_t *out)
{
	return json_int64(cJSON_GetObjectItemCaseSensitive(o, name), out) && *out >= 0 &&
	       *out < 1000000000000000;
}

static bool copy(const cJSON *o, const char *name, char *out, size_t size)
{
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, name));

	if (!v || !*v || strlen(v) >= size)
		return false;
	strcpy(out, v);
	return true;
}

static bool parse_state(const cJSON *o, bool record, bool *releasing)
{
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "state"));

	if (!record)
		return !cJSON_GetObjectItemCaseSensitive(o, "state");
	*releasing = v && !strcmp(v, "releasing");
	return v && (*releasing || !strcmp(v, "owned"));
}

/* family, prefix length and the block they and "first" make. */
static bool parse_block(const cJSON *o, struct slice_rec *rec)
{
	char first[40];
	int64_t f, len;

	if (!json_int64(cJSON_GetObjectItemCaseSensitive(o, "family"), &f) || (f != 4 && f != 6) ||
	    !json_int64(cJSON_GetObjectItemCaseSensitive(o, "prefixLength"), &len) ||
	    !copy(o, "first", first, sizeof(first)))
		return false;
	rec->s.family = f == 4 ? AF_INET : AF_INET6;
	if (len < 0 || len > bits(rec->s.family) ||
	    layout_hex_parse(first, rec->s.family, &rec->s.span.first))
		return false;
	rec->len = (int)len;
	rec->s.span = slice_block(rec->s.family, rec->len, rec->s.span.first);
	return true;
}

int slice_parse(const char *value, bool record, struct slice_rec *rec)
{
	cJSON *o = cJSON_Parse(value);
	const cJSON *shared = cJSON_GetObjectItemCaseSensitive(o, "shared");
	const char *first = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "first"));
	char again[33];
	bool ok;

	memset(rec, 0, sizeof(*rec));
	ok = cJSON_IsObject(o) && copy(o, "node", rec->s.node, sizeof(rec->s.node)) &&
	     slice_valid_node(rec->s.node) &&
	     copy(o, "network", rec->s.network, sizeof(rec->s.network)) &&
	     (env_valid_id(rec->s.network) || !strcmp(rec->s.network, "_")) &&
	     copy(o, "pool", rec->s.pool, sizeof(rec->s.pool)) && cJSON_IsBool(shared) &&
	     parse_block(o, rec) &&
	     time_of(o, "claimed", &rec->claimed) &&
	     parse_state(o, record, &rec->releasing);
	rec->shared = cJSON_IsTrue(shared);
	/* "first" is the block's own first address, not one inside it. */
	if (ok) {
		hex(rec->s.family, rec->s.span.first, again);
		ok = !strcmp(again, first);
	}
	cJSON_Delete(o);
	if (!ok)
		memset(rec, 0, sizeof(*rec));
	return ok ? 0 : -EINVAL;
}

char *slice_heartbeat_value(const char *node, int64_t now)
{
	cJSON *o = cJSON_CreateObject();
	bool ok = o && cJSON_AddStringToObject(o, "node", node) &&
		  cJSON_AddNumberToObject(o, "time", (double)now);

	return json_print_free(o, ok ? 0 : -ENOMEM);
}

int slice_parse_heartbeat(const char *value, char node[LAYOUT_NODE_MAX], int64_t *time)
{
	cJSON *o = cJSON_Parse(value);
	bool ok = cJSON_IsObject(o) && copy(o, "node", node, LAYOUT_NODE_MAX) &&
		  slice_valid_node(node) &&
		  time_of(o, "time", time);

	cJSON_Delete(o);
	if (!ok) {
		*node = '\0';
		*time = 0;
	}
	return ok ? 0 : -EINVAL;
}
