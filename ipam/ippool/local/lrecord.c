// SPDX-License-Identifier: Apache-2.0
/* The local store's text records (lease, hold, pool, state files): written and read back strictly. */
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include "env.h"
#include "lrecord.h"
#include "range.h"

static int done(int n, size_t size)
{
	return n < 0 || (size_t)n >= size ? -ENOSPC : n;
}

/* Whether buf[0..len) is what the writer makes of what was read from it
 * (no "0012", no "2001:0db8::1"): one spelling per record. */
static bool canonical(const char *buf, size_t len, int n, const char *again)
{
	return n >= 0 && (size_t)n == len && !memcmp(buf, again, len);
}

/* The next field of the record at *p (up to end), ended by stop (' ' or
 * '\n'), into out: 0, or -EBADMSG when it is empty, too long for out, holds
 * a control byte or a space, or its end is missing. *p moves past stop. */
static int field(const char **p, const char *end, char stop, char *out, size_t size)
{
	const char *s = *p;
	size_t n = 0;

	while (s + n < end && s[n] != stop) {
		if ((unsigned char)s[n] <= ' ' || s[n] == 0x7f || n + 1 >= size)
			return -EBADMSG;
		n++;
	}
	if (!n || s + n == end)
		return -EBADMSG;
	memcpy(out, s, n);
	out[n] = '\0';
	*p = s + n + 1;
	return 0;
}

/* "<key> <value>\n" at *p. */
static int line(const char **p, const char *end, const char *key, char *out, size_t size)
{
	size_t klen = strlen(key);

	if ((size_t)(end - *p) <= klen || memcmp(*p, key, klen) || (*p)[klen] != ' ')
		return -EBADMSG;
	*p += klen + 1;
	return field(p, end, '\n', out, size);
}

/* Decimal digits only, no sign: what the writers print. */
static int parse_i64(const char *s, int64_t *out)
{
	int64_t v = 0;

	if (!*s)
		return -EBADMSG;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (INT64_MAX - (*s - '0')) / 10)
			return -EBADMSG;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	return 0;
}

#define LEASE_MAGIC "ippool-lease 1\n"

/* Control characters would break the line format. */
static void clean_value(const char *in, char *out, size_t size)
{
	size_t i;

	for (i = 0; in[i] && i + 1 < size; i++)
		out[i] = (unsigned char)in[i] < 0x20 ? '?' : in[i];
	out[i] = '\0';
}

int lrec_lease_format(const struct lrec_lease *s, char *buf, size_t size)
{
	const struct pool_owner *o = &s->l.owner;
	char ns[POOL_STR_MAX], name[POOL_STR_MAX], uid[POOL_STR_MAX], a[64];
	int n, k;

	if (!pool_owner_netns_valid(o))
		return -EINVAL;
	clean_value(o->pod_namespace, ns, sizeof(ns));
	clean_value(o->pod_name, name, sizeof(name));
	clean_value(o->pod_uid, uid, sizeof(uid));
	/* No cni_network line without one: what older versions wrote. */
	n = done(snprintf(buf, size, LEASE_MAGIC "containerid %s\nifname %s\n%s%s%s"
			  "pod_namespace %s\npod_name %s\npod_uid %s\ncreated %" PRId64 "\n",
			  o->key.containerid, o->key.ifname, o->cni_network[0] ? "cni_network " : "",
			  o->cni_network, o->cni_network[0] ? "\n" : "", ns, name, uid, o->created),
		 size);
	/* The netns lines only where there is something recorded. */
	if (n >= 0 && o->netns[0]) {
		k = done(snprintf(buf + n, size - (size_t)n, "netns %s\n", o->netns), size - (size_t)n);
		n = k < 0 ? k : n + k;
	}
	if (n >= 0 && o->ns.ino) {
		k = done(snprintf(buf + n, size - (size_t)n, "netns_dev %" PRIu64 "\nnetns_ino %" PRIu64
				  "\nboot_id %s\n", o->ns.dev, o->ns.ino, o->ns.boot), size - (size_t)n);
		n = k < 0 ? k : n + k;
	}
	for (int i = 0; i < s->l.n_addrs && n >= 0; i++) {
		const struct pool_addr *p = &s->l.addrs[i];

		ipaddr_format_u128(p->family, p->addr, a);
		k = done(snprintf(buf + n, size - (size_t)n, "addr %s %s %d %d %s\n", p->network,
				  p->pool, p->prefix_len, s->shared[i], a), size - (size_t)n);
		n = k < 0 ? k : n + k;
	}
	return n;
}

/* The rest of the line at *p into out: any bytes but control ones, maybe none. */
static int rest(const char **p, const char *end, char *out, size_t size)
{
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	size_t n = nl ? (size_t)(nl - *p) : 0;

	if (!nl || n >= size)
		return -EBADMSG;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)(*p)[i] < 0x20)
			return -EBADMSG;
	memcpy(out, *p, n);
	out[n] = '\0';
	*p = nl + 1;
	return 0;
}

/* "<network> <pool> <prefix length> <shared 0|1> <address>\n" */
static int lease_addr(const char **p, const char *end, struct lrec_lease *s)
{
	struct pool_addr *a = &s->l.addrs[s->l.n_addrs];
	char len[4], shared[2], text[64];
	int64_t plen;

	if (s->l.n_addrs == POOL_MAX_RANGES || field(p, end, ' ', a->network, sizeof(a->network)) ||
	    field(p, end, ' ', a->pool, sizeof(a->pool)) || field(p, end, ' ', len, sizeof(len)) ||
	    field(p, end, ' ', shared, sizeof(shared)) || field(p, end, '\n', text, sizeof(text)) ||
	    (*shared != '0' && *shared != '1') || parse_i64(len, &plen) ||
	    ipaddr_parse_u128(text, &a->family, &a->addr) ||
	    plen > (a->family == AF_INET ? 32 : 128))
		return -EBADMSG;
	a->prefix_len = (int)plen;
	s->shared[s->l.n_addrs++] = *shared == '1';
	return 0;
}

enum line_kind { TEXT, I64, U64 };

/* The owner's lines: where each goes. */
static const struct {
	const char *key;
	size_t off, size;	/* size: of a TEXT line's buffer */
	enum line_kind kind;
} owner_lines[] = {
	{ "containerid", offsetof(struct pool_owner, key.containerid), POOL_NAME_MAX, TEXT },
	{ "ifname", offsetof(struct pool_owner, key.ifname), POOL_IFNAME_MAX, TEXT },
	{ "cni_network", offsetof(struct pool_owner, cni_network), POOL_NAME_MAX, TEXT },
	{ "pod_namespace", offsetof(struct pool_owner, pod_namespace), POOL_STR_MAX, TEXT },
	{ "pod_name", offsetof(struct pool_owner, pod_name), POOL_STR_MAX, TEXT },
	{ "pod_uid", offsetof(struct pool_owner, pod_uid), POOL_STR_MAX, TEXT },
	{ "created", offsetof(struct pool_owner, created), 0, I64 },
	{ "netns", offsetof(struct pool_owner, netns), POOL_NETNS_MAX, TEXT },
	{ "netns_dev", offsetof(struct pool_owner, ns.dev), 0, U64 },
	{ "netns_ino", offsetof(struct pool_owner, ns.ino), 0, U64 },
	{ "boot_id", offsetof(struct pool_owner, ns.boot), NSIDENT_BOOT_MAX, TEXT },
};
#define N_OWNER_LINES (sizeof(owner_lines) / sizeof(owner_lines[0]))
#define REQUIRED_LINES 0x43u	/* containerid, ifname, created */
#define NS_ID_LINES 0x700u	/* netns_dev, netns_ino, boot_id: all or none */

/* One "<key> <value>\n" line of the owner; seen: the lines already read. */
static int lease_owner(const char **p, const char *end, const char *key, struct pool_owner *o,
		       unsigned int *seen)
{
	char v[POOL_NETNS_MAX], *to;
	int64_t num;
	size_t i;

	for (i = 0; i < N_OWNER_LINES && strcmp(key, owner_lines[i].key); i++)
		;
	if (i == N_OWNER_LINES || *seen & 1u << i || rest(p, end, v, sizeof(v)))
		return -EBADMSG;
	*seen |= 1u << i;
	to = (char *)o + owner_lines[i].off;
	if (owner_lines[i].kind == TEXT) {
		if (strlen(v) >= owner_lines[i].size)
			return -EBADMSG;
		strcpy(to, v);
	} else if (parse_i64(v, &num)) {
		return -EBADMSG;
	} else if (owner_lines[i].kind == I64) {
		*(int64_t *)(void *)to = num;
	} else {
		*(uint64_t *)(void *)to = (uint64_t)num;
	}
	return 0;
}

int lrec_lease_parse(const char *buf, size_t len, struct lrec_lease *s)
{
	const char *p = buf + strlen(LEASE_MAGIC), *end = buf + len;
	struct pool_owner *o = &s->l.owner;
	unsigned int seen = 0;
	char key[16];
	int ret = 0;

	memset(s, 0, sizeof(*s));
	if (len < strlen(LEASE_MAGIC) || memcmp(buf, LEASE_MAGIC, strlen(LEASE_MAGIC)))
		ret = -EBADMSG;
	while (!ret && p < end) {
		ret = field(&p, end, ' ', key, sizeof(key));
		if (!ret && !strcmp(key, "addr"))
			ret = lease_addr(&p, end, s);
		else if (!ret)
			ret = lease_owner(&p, end, key, o, &seen);
	}
	/* containerid, ifname and created are there; the CNI network, the
	 * netns lines (older versions wrote none) and pod lines may be left out,
	 * the three of the netns's identity only together. */
	if (ret || (seen & REQUIRED_LINES) != REQUIRED_LINES ||
	    ((seen & NS_ID_LINES) && (seen & NS_ID_LINES) != NS_ID_LINES) ||
	    !s->l.n_addrs || !env_valid_id(o->key.containerid) ||
	    !env_valid_ifname(o->key.ifname) || (o->cni_network[0] && !env_valid_id(o->cni_network)) ||
	    !pool_owner_netns_valid(o)) {
		memset(s, 0, sizeof(*s));
		return -EBADMSG;
	}
	return 0;
}

int lrec_hold_format(const struct lrec_hold *h, char *buf, size_t size)
{
	char a[64];

	ipaddr_format_u128(h->family, h->addr, a);
	return done(snprintf(buf, size, "%s %s %" PRId64 "\n", h->scope, a, h->until), size);
}

int lrec_hold_parse(const char *buf, size_t len, struct lrec_hold *h)
{
	const char *p = buf, *end = buf + len;
	char a[64], until[24], again[LREC_SCOPE_MAX + 96];

	memset(h, 0, sizeof(*h));
	if (field(&p, end, ' ', h->scope, sizeof(h->scope)) || field(&p, end, ' ', a, sizeof(a)) ||
	    field(&p, end, '\n', until, sizeof(until)) || p != end ||
	    ipaddr_parse_u128(a, &h->family, &h->addr) || parse_i64(until, &h->until) ||
	    !canonical(buf, len, lrec_hold_format(h, again, sizeof(again)), again)) {
		memset(h, 0, sizeof(*h));
		return -EBADMSG;
	}
	return 0;
}

int lrec_pool_format(const struct pool_info *pi, char *buf, size_t size)
{
	char a[64], b[64], u[48];

	ipaddr_format_u128(pi->family, pi->span.first, a);
	ipaddr_format_u128(pi->family, pi->span.last, b);
	range_u128_format(pi->usable, u, sizeof(u));
	return done(snprintf(buf, size, "network %s\npool %s\nshared %d\nfirst %s\nlast %s\nusable %s\n",
			     pi->network, pi->pool, pi->shared, a, b, u), size);
}

int lrec_pool_parse(const char *buf, size_t len, struct pool_info *pi)
{
	const char *p = buf, *end = buf + len;
	char shared[2], first[64], last[64], usable[48], again[POOL_NAME_MAX + POOL_ID_MAX + 256];
	int f2 = 0;

	memset(pi, 0, sizeof(*pi));
	if (line(&p, end, "network", pi->network, sizeof(pi->network)) ||
	    line(&p, end, "pool", pi->pool, sizeof(pi->pool)) ||
	    line(&p, end, "shared", shared, sizeof(shared)) || (*shared != '0' && *shared != '1') ||
	    line(&p, end, "first", first, sizeof(first)) || line(&p, end, "last", last, sizeof(last)) ||
	    line(&p, end, "usable", usable, sizeof(usable)) || p != end ||
	    ipaddr_parse_u128(first, &pi->family, &pi->span.first) ||
	    ipaddr_parse_u128(last, &f2, &pi->span.last) || f2 != pi->family ||
	    range_u128_parse(usable, &pi->usable) || pi->span.first > pi->span.last ||
	    (pi->usable && pi->usable - 1 > pi->span.last - pi->span.first)) {
		memset(pi, 0, sizeof(*pi));
		return -EBADMSG;
	}
	pi->shared = *shared == '1';
	if (!canonical(buf, len, lrec_pool_format(pi, again, sizeof(again)), again)) {
		memset(pi, 0, sizeof(*pi));
		return -EBADMSG;
	}
	return 0;
}

int lrec_state_format(const char *boot_id, bool clean, char *buf, size_t size)
{
	return done(snprintf(buf, size, "%s %s\n", boot_id, clean ? "clean" : "dirty"), size);
}

bool lrec_state_clean(const char *buf, size_t len, const char *boot_id)
{
	char want[128];
	int n = lrec_state_format(boot_id, true, want, sizeof(want));

	return n > 0 && len == (size_t)n && !memcmp(buf, want, len);
}
