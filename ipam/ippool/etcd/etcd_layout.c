// SPDX-License-Identifier: Apache-2.0
/* The etcd store's keys and values (README, "ippool on etcd"): names, hex, JSON both ways. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <cjson/cJSON.h>
#include "env.h"
#include "etcd_conf.h"
#include "etcd_layout.h"
#include "json.h"
#include "range.h"

/* The longest key: a GC index key with every part at its longest. */
_Static_assert(ETCD_STR_MAX - 1 + sizeof("/g/") - 1 + HOST_NAME_MAX + 1 + POOL_NAME_MAX - 1 + 1 +
	       POOL_NAME_MAX - 1 + 1 + POOL_IFNAME_MAX - 1 + 1 <= LAYOUT_KEY_MAX,
	       "LAYOUT_KEY_MAX too small for a GC index key");

static void esc(const char *in, char *out, size_t size)
{
	size_t i;

	snprintf(out, size, "%s", *in ? in : "_");
	for (i = 0; out[i]; i++)
		if (out[i] == '/')
			out[i] = '_';
}

void layout_owner_key(const char *prefix, const struct pool_key *k, char *out)
{
	snprintf(out, LAYOUT_KEY_MAX, "%s/o/%s/%s", prefix, k->containerid, k->ifname);
}

void layout_info_key(const char *prefix, const char *net, const char *pool, char *out)
{
	char n[POOL_NAME_MAX], p[POOL_ID_MAX];

	esc(net, n, sizeof(n));
	esc(pool, p, sizeof(p));
	snprintf(out, LAYOUT_KEY_MAX, "%s/i/%s/%s", prefix, n, p);
}

void layout_gc_dir(const char *prefix, const char *node, const char *cni_network, char *out)
{
	char n[LAYOUT_NODE_MAX], c[POOL_NAME_MAX];

	esc(node, n, sizeof(n));
	esc(cni_network, c, sizeof(c));
	snprintf(out, LAYOUT_KEY_MAX, "%s/g/%s/%s/", prefix, n, c);
}

void layout_gc_key(const char *prefix, const char *node, const struct pool_owner *o, char *out)
{
	size_t n;

	layout_gc_dir(prefix, node, o->cni_network, out);
	n = strlen(out);
	snprintf(out + n, LAYOUT_KEY_MAX - n, "%s/%s", o->key.containerid, o->key.ifname);
}

int layout_gc_parse(const char *dir, const char *key, struct pool_key *k)
{
	size_t n = strlen(dir);
	const char *id = key + n, *slash;

	if (strncmp(key, dir, n))
		return -EINVAL;
	slash = strchr(id, '/');
	if (!slash || (size_t)(slash - id) >= sizeof(k->containerid) ||
	    strlen(slash + 1) >= sizeof(k->ifname))
		return -EINVAL;
	memset(k, 0, sizeof(*k));
	memcpy(k->containerid, id, (size_t)(slash - id));
	strcpy(k->ifname, slash + 1);
	return env_valid_id(k->containerid) && env_valid_ifname(k->ifname) ? 0 : -EINVAL;
}

/* The directory of a range's uniqueness scope, ending in '/'. */
void layout_scope_dir(const char *prefix, const struct pool_range *r, char *out)
{
	char n[POOL_NAME_MAX], p[POOL_ID_MAX];

	esc(r->network, n, sizeof(n));
	esc(r->pool, p, sizeof(p));
	if (r->shared)
		snprintf(out, LAYOUT_KEY_MAX, "%s/n/%s/v%d/", prefix, n,
			 r->family == AF_INET ? 4 : 6);
	else
		snprintf(out, LAYOUT_KEY_MAX, "%s/n/%s/p/%s/", prefix, n, p);
}

static int hex_width(int family)
{
	return family == AF_INET ? 8 : 32;
}

/* out holds 33 bytes. */
static void hex_format(int family, ipaddr_u128 a, char *out)
{
	int w = hex_width(family), i;

	for (i = w - 1; i >= 0; i--, a >>= 4)
		out[i] = "0123456789abcdef"[a & 15];
	out[w] = '\0';
}

int layout_hex_parse(const char *s, int family, ipaddr_u128 *out)
{
	int w = hex_width(family), i;

	*out = 0;
	if ((int)strlen(s) != w)
		return -EINVAL;
	for (i = 0; i < w; i++) {
		const char *d = strchr("0123456789abcdef", s[i]);

		if (!d || !s[i])
			return -EINVAL;
		*out = *out << 4 | (ipaddr_u128)(d - "0123456789abcdef");
	}
	return 0;
}

void layout_addr_key(const char *dir, int family, ipaddr_u128 a, char *out)
{
	/* Directories stay under LAYOUT_KEY_MAX - 33 (prefix, name and id limits). */
	size_t n = strnlen(dir, LAYOUT_KEY_MAX - 33);

	memcpy(out, dir, n);
	hex_format(family, a, out + n);
}

/* The value of an address key: who holds it, or until when it is on hold. */
char *layout_addr_value(const struct pool_key *k, const char *pool, int family, ipaddr_u128 a,
			int64_t hold_until)
{
	cJSON *o = cJSON_CreateObject();
	char text[64];
	bool ok;

	ipaddr_format_u128(family, a, text);
	ok = o && cJSON_AddStringToObject(o, "address", text) &&
	     cJSON_AddStringToObject(o, "pool", pool);
	if (ok && k)
		ok = cJSON_AddStringToObject(o, "containerID", k->containerid) &&
		     cJSON_AddStringToObject(o, "ifname", k->ifname);
	else if (ok)
		ok = cJSON_AddNumberToObject(o, "holdUntil", (double)hold_until);
	return json_print_free(o, ok ? 0 : -ENOMEM);
}

/* Whether an address key's value blocks allocation now (a holder, or a hold
 * that has not run out). */
bool layout_value_blocks(const char *value, int64_t now)
{
	cJSON *o = cJSON_Parse(value);
	int64_t until;
	bool blocks = !json_int64(cJSON_GetObjectItemCaseSensitive(o, "holdUntil"), &until) ||
		      until > now;

	cJSON_Delete(o);
	return blocks;
}

bool layout_value_held_by(const char *value, const struct pool_key *k)
{
	cJSON *o = cJSON_Parse(value);
	const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "containerID"));
	const char *ifn = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "ifname"));
	bool held = id && ifn && !strcmp(id, k->containerid) && !strcmp(ifn, k->ifname);

	cJSON_Delete(o);
	return held;
}

/* The netns keys, each only where something is recorded (as the local
 * store's lines): "netns", then "netnsDev", "netnsIno", "bootID". */
static bool add_netns(cJSON *o, const struct pool_owner *w)
{
	if (w->netns[0] && !cJSON_AddStringToObject(o, "netns", w->netns))
		return false;
	return !w->ns.ino || (cJSON_AddNumberToObject(o, "netnsDev", (double)w->ns.dev) &&
			      cJSON_AddNumberToObject(o, "netnsIno", (double)w->ns.ino) &&
			      cJSON_AddStringToObject(o, "bootID", w->ns.boot));
}

/* Lease JSON: owner metadata and, per address, the key that holds it. */
char *layout_lease_value(const struct pool_lease *l, char keys[][LAYOUT_KEY_MAX], const char *node)
{
	const struct pool_owner *w = &l->owner;
	cJSON *o = pool_owner_netns_valid(w) ? cJSON_CreateObject() : NULL, *arr, *a;
	char text[64];
	int i;
	bool ok = o && cJSON_AddStringToObject(o, "containerID", w->key.containerid) &&
		  cJSON_AddStringToObject(o, "ifname", w->key.ifname) &&
		  cJSON_AddStringToObject(o, "podNamespace", w->pod_namespace) &&
		  cJSON_AddStringToObject(o, "podName", w->pod_name) &&
		  cJSON_AddStringToObject(o, "podUID", w->pod_uid) &&
		  cJSON_AddNumberToObject(o, "created", (double)w->created) &&
		  cJSON_AddStringToObject(o, "node", node) &&
		  (!w->cni_network[0] || cJSON_AddStringToObject(o, "cniNetwork", w->cni_network)) &&
		  add_netns(o, w);

	arr = ok ? cJSON_AddArrayToObject(o, "addrs") : NULL;
	for (i = 0; arr && i < l->n_addrs; i++) {
		const struct pool_addr *p = &l->addrs[i];

		ipaddr_format_u128(p->family, p->addr, text);
		a = cJSON_CreateObject();
		if (!a || !cJSON_AddItemToArray(arr, a) ||
		    !cJSON_AddStringToObject(a, "network", p->network) ||
		    !cJSON_AddStringToObject(a, "pool", p->pool) ||
		    !cJSON_AddNumberToObject(a, "family", p->family == AF_INET ? 4 : 6) ||
		    !cJSON_AddNumberToObject(a, "prefixLength", p->prefix_len) ||
		    !cJSON_AddStringToObject(a, "address", text) ||
		    !cJSON_AddStringToObject(a, "key", keys[i])) {
			cJSON_Delete(a);
			arr = NULL;
		}
	}
	return json_print_free(o, arr ? 0 : -ENOMEM);
}

static bool copy_str(const cJSON *o, const char *name, char *out, size_t size)
{
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, name));

	if (!v || strlen(v) >= size)
		return false;
	strcpy(out, v);
	return true;
}

/* "family" 4 or 6 as AF_INET or AF_INET6. */
static bool parse_family(const cJSON *o, int *family)
{
	int64_t f;

	if (!json_int64(cJSON_GetObjectItemCaseSensitive(o, "family"), &f) || (f != 4 && f != 6))
		return false;
	*family = f == 4 ? AF_INET : AF_INET6;
	return true;
}

/* Whether key is where address p is held: in its network's shared scope
 * or in its pool's own, under prefix. A lease naming any other key would
 * have DEL and GC delete a key that is not one of ours. */
static bool addr_key_is(const char *prefix, const struct pool_addr *p, const char *key)
{
	struct pool_range r = { .family = p->family };
	char dir[LAYOUT_KEY_MAX], want[LAYOUT_KEY_MAX];

	memcpy(r.network, p->network, sizeof(r.network));
	memcpy(r.pool, p->pool, sizeof(r.pool));
	for (int shared = 0; shared < 2; shared++) {
		r.shared = shared;
		layout_scope_dir(prefix, &r, dir);
		layout_addr_key(dir, p->family, p->addr, want);
		if (!strcmp(want, key))
			return true;
	}
	return false;
}

static bool parse_addr(const char *prefix, const cJSON *a, struct pool_addr *p, char *key)
{
	const char *slash;
	int64_t len;

	if (!copy_str(a, "network", p->network, sizeof(p->network)) ||
	    !copy_str(a, "pool", p->pool, sizeof(p->pool)) ||
	    !copy_str(a, "key", key, LAYOUT_KEY_MAX) || !parse_family(a, &p->family) ||
	    !json_int64(cJSON_GetObjectItemCaseSensitive(a, "prefixLength"), &len) || len < 0 ||
	    len > (p->family == AF_INET ? 32 : 128))
		return false;
	p->prefix_len = (int)len;
	slash = strrchr(key, '/');
	return slash && !layout_hex_parse(slash + 1, p->family, &p->addr) &&
	       addr_key_is(prefix, p, key);
}

/* A string that older versions did not write: "" when absent. */
static bool copy_optional(const cJSON *o, const char *name, char *out, size_t size)
{
	*out = '\0';
	return !cJSON_GetObjectItemCaseSensitive(o, name) || copy_str(o, name, out, size);
}

/* A number that older versions did not write: 0 when absent. */
static bool copy_optional_u64(const cJSON *o, const char *name, uint64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
	int64_t n = 0;

	*out = 0;
	if (v && (!json_int64(v, &n) || n < 0))
		return false;
	*out = (uint64_t)n;
	return true;
}

/* The netns keys: absent in leases of older versions, checked as every
 * store's lease records are; the three of the identity only together. */
static bool parse_netns(const cJSON *o, struct pool_owner *w)
{
	int ids = !!cJSON_GetObjectItemCaseSensitive(o, "netnsDev") +
		  !!cJSON_GetObjectItemCaseSensitive(o, "netnsIno") +
		  !!cJSON_GetObjectItemCaseSensitive(o, "bootID");

	return (ids == 0 || ids == 3) && copy_optional(o, "netns", w->netns, sizeof(w->netns)) &&
	       copy_optional_u64(o, "netnsDev", &w->ns.dev) &&
	       copy_optional_u64(o, "netnsIno", &w->ns.ino) &&
	       copy_optional(o, "bootID", w->ns.boot, sizeof(w->ns.boot)) &&
	       pool_owner_netns_valid(w);
}

int layout_parse_lease(const char *prefix, const char *value, struct pool_lease *l,
		       char keys[][LAYOUT_KEY_MAX], char node[LAYOUT_NODE_MAX])
{
	cJSON *o = cJSON_Parse(value);
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "addrs");
	struct pool_owner *w = &l->owner;
	const cJSON *a;
	bool ok;

	memset(l, 0, sizeof(*l));
	ok = copy_optional(o, "node", node, LAYOUT_NODE_MAX) &&
	     copy_optional(o, "cniNetwork", w->cni_network, sizeof(w->cni_network)) &&
	     parse_netns(o, w) &&
	     (!w->cni_network[0] || env_valid_id(w->cni_network)) &&
	     copy_str(o, "containerID", w->key.containerid, sizeof(w->key.containerid)) &&
	     copy_str(o, "ifname", w->key.ifname, sizeof(w->key.ifname)) &&
	     env_valid_id(w->key.containerid) && env_valid_ifname(w->key.ifname) &&
	     copy_str(o, "podNamespace", w->pod_namespace, sizeof(w->pod_namespace)) &&
	     copy_str(o, "podName", w->pod_name, sizeof(w->pod_name)) &&
	     copy_str(o, "podUID", w->pod_uid, sizeof(w->pod_uid)) &&
	     json_int64(cJSON_GetObjectItemCaseSensitive(o, "created"), &w->created) &&
	     cJSON_IsArray(arr) && cJSON_GetArraySize(arr) >= 1 &&
	     cJSON_GetArraySize(arr) <= POOL_MAX_RANGES;
	for (a = ok ? arr->child : NULL; a; a = a->next) {
		ok = parse_addr(prefix, a, &l->addrs[l->n_addrs], keys[l->n_addrs]);
		if (!ok)
			break;
		l->n_addrs++;
	}
	cJSON_Delete(o);
	if (!ok) {
		memset(l, 0, sizeof(*l));
		*node = '\0';
	}
	_Static_assert(LAYOUT_NODE_MAX == POOL_NODE_MAX, "a lease's node fits its owner's");
	memcpy(w->node, node, POOL_NODE_MAX);
	return ok ? 0 : -EINVAL;
}

char *layout_info_value(const struct pool_info *r, ipaddr_u128 cursor)
{
	cJSON *o = cJSON_CreateObject();
	char first[33], last[33], cur[33], usable[48];
	bool ok;

	hex_format(r->family, r->span.first, first);
	hex_format(r->family, r->span.last, last);
	hex_format(r->family, cursor, cur);
	range_u128_format(r->usable, usable, sizeof(usable));
	ok = o && cJSON_AddStringToObject(o, "network", r->network) &&
	     cJSON_AddStringToObject(o, "pool", r->pool) &&
	     cJSON_AddNumberToObject(o, "family", r->family == AF_INET ? 4 : 6) &&
	     cJSON_AddBoolToObject(o, "shared", r->shared) &&
	     cJSON_AddStringToObject(o, "first", first) &&
	     cJSON_AddStringToObject(o, "last", last) &&
	     cJSON_AddStringToObject(o, "usable", usable) &&
	     cJSON_AddStringToObject(o, "cursor", cur);
	return json_print_free(o, ok ? 0 : -ENOMEM);
}

static const char *str_of(const cJSON *o, const char *name)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, name)) ?: "";
}

int layout_parse_info(const char *value, struct pool_info *pi, ipaddr_u128 *cursor)
{
	cJSON *o = cJSON_Parse(value);
	const cJSON *shared = cJSON_GetObjectItemCaseSensitive(o, "shared");
	const struct pool_span *sp = &pi->span;
	int ret = -EINVAL;

	memset(pi, 0, sizeof(*pi));
	*cursor = 0;
	if (!parse_family(o, &pi->family) || !cJSON_IsBool(shared) ||
	    !copy_str(o, "network", pi->network, sizeof(pi->network)) ||
	    !copy_str(o, "pool", pi->pool, sizeof(pi->pool)))
		goto out;
	pi->shared = cJSON_IsTrue(shared);
	if (layout_hex_parse(str_of(o, "first"), pi->family, &pi->span.first) ||
	    layout_hex_parse(str_of(o, "last"), pi->family, &pi->span.last) ||
	    layout_hex_parse(str_of(o, "cursor"), pi->family, cursor) ||
	    range_u128_parse(str_of(o, "usable"), &pi->usable))
		goto out;
	/* A span, a count that fits in it, a cursor in it or just past its end. */
	if (sp->first > sp->last || (pi->usable && pi->usable - 1 > sp->last - sp->first) ||
	    *cursor < sp->first || (*cursor > sp->last && *cursor - sp->last != 1))
		goto out;
	ret = 0;
out:
	if (ret) {
		memset(pi, 0, sizeof(*pi));
		*cursor = 0;
	}
	cJSON_Delete(o);
	return ret;
}

bool layout_value_has_holder(const char *value)
{
	cJSON *o = cJSON_Parse(value);
	bool held = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "containerID"));

	cJSON_Delete(o);
	return held;
}

