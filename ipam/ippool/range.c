// SPDX-License-Identifier: Apache-2.0
/* Range arithmetic in 128 bits: parsing, usable bounds, exclusions, clipping, lowest free address. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "range.h"

static int family_bits(int family)
{
	return family == AF_INET ? 32 : 128;
}

/* "addr/len" (host bits kept) as family, number and len; -EINVAL. */
static int prefix_parse(const char *s, int *family, ipaddr_u128 *out, int *len)
{
	struct ipprefix p;

	if (ipprefix_parse(s, &p))
		return -EINVAL;
	*family = p.addr.family;
	*out = ipaddr_to_u128(&p.addr);
	*len = p.len;
	return 0;
}

/* Addresses in a prefix of length len minus one: the host part mask. */
static ipaddr_u128 host_mask(int family, int len)
{
	int host = family_bits(family) - len;

	return host >= 128 ? ~(ipaddr_u128)0 : ((ipaddr_u128)1 << host) - 1;
}

/* First and last usable address of net/len (network and all-ones excluded);
 * -EDOM when there is none (/31, /32, /127, /128). */
static int usable_span(int family, ipaddr_u128 net, int len, struct pool_span *out)
{
	ipaddr_u128 host = host_mask(family, len);

	if (host < 3)
		return -EDOM;
	net &= ~host;
	out->first = net + 1;
	out->last = (net | host) - 1;
	return 0;
}

void range_u128_format(ipaddr_u128 v, char *buf, size_t size)
{
	char tmp[48];
	int i = sizeof(tmp) - 1;

	tmp[i] = '\0';
	do {
		tmp[--i] = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	snprintf(buf, size, "%s", tmp + i);
}

int range_u128_parse(const char *s, ipaddr_u128 *out)
{
	ipaddr_u128 v = 0, d;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		d = (ipaddr_u128)(*s - '0');
		if (v > (~(ipaddr_u128)0 - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* "first-last/nn": the bounds go to *first and *last, the prefix to net/len.
 * -EDOM when first and last are not in one /nn network (whereabouts refuses
 * that too). */
static int parse_dash_form(const char *s, int *family, ipaddr_u128 *net, int *len,
			   ipaddr_u128 *first, ipaddr_u128 *last)
{
	char buf[RANGE_TEXT_MAX];
	char *dash, *slash;
	int f1, f2;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	dash = strchr(buf, '-');
	slash = strchr(buf, '/');
	if (!dash || !slash || slash < dash)
		return -EINVAL;
	*dash = '\0';
	if (ipaddr_parse_u128(buf, &f1, first))
		return -EINVAL;
	if (prefix_parse(dash + 1, &f2, last, len) || f1 != f2)
		return -EINVAL;
	*family = f1;
	*net = *first & ~host_mask(f1, *len);
	return (*last & ~host_mask(f1, *len)) == *net ? 0 : -EDOM;
}

static int err_two_networks(const char *range, int family, ipaddr_u128 first, ipaddr_u128 last, int len,
			    struct cni_err *err)
{
	char a[IPADDR_STR_MAX], b[IPADDR_STR_MAX];

	ipaddr_format_u128(family, first, a);
	ipaddr_format_u128(family, last, b);
	cni_err_set(err, CNI_ERR_CONFIG, "invalid range \"%s\": %s and %s are not in the same /%d network",
		    range, a, b, len);
	return -EINVAL;
}

static int parse_bound(const char *key, const char *s, int family, ipaddr_u128 *out,
		       const char *range, struct cni_err *err)
{
	int fam;

	if (ipaddr_parse_u128(s, &fam, out) || fam != family) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid %s \"%s\" for range %s", key, s, range);
		return -EINVAL;
	}
	return 0;
}

/* An exclude entry (CIDR or bare address) as an interval. */
static int parse_exclude(const char *s, int family, struct pool_span *out,
			 const char *range, struct cni_err *err)
{
	ipaddr_u128 a, host = 0;
	int fam, len = 0;

	if (strchr(s, '/') ? prefix_parse(s, &fam, &a, &len) : ipaddr_parse_u128(s, &fam, &a))
		goto bad;
	if (fam != family)
		goto bad;
	if (strchr(s, '/'))
		host = host_mask(fam, len);
	out->first = a & ~host;
	out->last = a | host;
	return 0;
bad:
	cni_err_set(err, CNI_ERR_CONFIG, "invalid exclude \"%s\" for range %s", s, range);
	return -EINVAL;
}

static int span_cmp(const void *a, const void *b)
{
	const struct pool_span *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/* Clips spans to within, sorts and merges them; returns the new count. */
static size_t normalize_skip(struct pool_span *s, size_t n, const struct pool_span *within)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i].last < within->first || s[i].first > within->last)
			continue;
		s[m].first = s[i].first < within->first ? within->first : s[i].first;
		s[m].last = s[i].last > within->last ? within->last : s[i].last;
		m++;
	}
	qsort(s, m, sizeof(*s), span_cmp);
	n = m;
	m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && s[i].first <= s[m - 1].last + 1) {
			if (s[i].last > s[m - 1].last)
				s[m - 1].last = s[i].last;
			continue;
		}
		s[m++] = s[i];
	}
	return m;
}

static int clip(const struct range_conf *rc, struct pool_range *r, ipaddr_u128 start, ipaddr_u128 end,
		const struct pool_span *usable, struct cni_err *err)
{
	char a[IPADDR_STR_MAX], b[IPADDR_STR_MAX];

	ipaddr_format_u128(r->family, start, a);
	ipaddr_format_u128(r->family, end, b);
	if (start > usable->last) {
		cni_err_set(err, CNI_ERR_CONFIG, "empty interval in range %s: range_start %s is past the range",
			    rc->range, a);
		return -EINVAL;
	}
	if (end < usable->first) {
		cni_err_set(err, CNI_ERR_CONFIG, "empty interval in range %s: range_end %s is before the range",
			    rc->range, b);
		return -EINVAL;
	}
	if (end < start) {
		cni_err_set(err, CNI_ERR_CONFIG, "empty interval in range %s: range_end %s is before range_start %s",
			    rc->range, b, a);
		return -EINVAL;
	}
	r->span.first = start > usable->first ? start : usable->first;
	r->span.last = end < usable->last ? end : usable->last;
	return 0;
}

static void describe(struct pool_range *r)
{
	char a[IPADDR_STR_MAX], b[IPADDR_STR_MAX], n[48];
	ipaddr_u128 skipped = 0;

	for (size_t i = 0; i < r->n_skip; i++)
		skipped += r->skip[i].last - r->skip[i].first + 1;
	r->usable = r->span.last - r->span.first + 1 - skipped;
	ipaddr_format_u128(r->family, r->span.first, a);
	ipaddr_format_u128(r->family, r->span.last, b);
	range_u128_format(skipped, n, sizeof(n));
	snprintf(r->desc, sizeof(r->desc), "%s (%s..%s, %s excluded)", r->pool, a, b, n);
}

int range_build(const struct range_conf *rc, const char *network, bool shared,
		struct pool_range *r, struct pool_span *skip, struct cni_err *err)
{
	struct pool_span usable;
	ipaddr_u128 net, start, end, gw;
	int len, ret;
	size_t n = 0;
	char text[IPADDR_STR_MAX];

	memset(r, 0, sizeof(*r));
	snprintf(r->network, sizeof(r->network), "%s", network);
	r->shared = shared;
	if (strchr(rc->range, '-'))
		ret = parse_dash_form(rc->range, &r->family, &net, &len, &start, &end);
	else
		ret = prefix_parse(rc->range, &r->family, &net, &len);
	if (ret == -EDOM)
		return err_two_networks(rc->range, r->family, start, end, len, err);
	if (ret) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid range \"%s\"", rc->range);
		return -EINVAL;
	}
	net &= ~host_mask(r->family, len);
	r->prefix_len = len;
	ipaddr_format_u128(r->family, net, text);
	snprintf(r->pool, sizeof(r->pool), "%s/%d", text, len);
	if (usable_span(r->family, net, len, &usable)) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid range \"%s\": a /%d has no usable address",
			    rc->range, len);
		return -EINVAL;
	}
	if (!strchr(rc->range, '-')) {
		start = usable.first;
		end = usable.last;
	}
	if (rc->start[0] && parse_bound("range_start", rc->start, r->family, &start, rc->range, err))
		return -EINVAL;
	if (rc->end[0] && parse_bound("range_end", rc->end, r->family, &end, rc->range, err))
		return -EINVAL;
	ret = clip(rc, r, start, end, &usable, err);
	if (ret)
		return ret;
	for (int i = 0; i < rc->n_exclude; i++)
		if (parse_exclude(rc->exclude[i], r->family, &skip[n++], rc->range, err))
			return -EINVAL;
	if (rc->gateway[0]) {
		if (parse_bound("gateway", rc->gateway, r->family, &gw, rc->range, err))
			return -EINVAL;
		skip[n].first = skip[n].last = gw;
		n++;
	}
	r->n_skip = normalize_skip(skip, n, &r->span);
	r->skip = skip;
	describe(r);
	return 0;
}

bool range_contains(const struct pool_range *r, ipaddr_u128 a)
{
	if (a < r->span.first || a > r->span.last)
		return false;
	for (size_t i = 0; i < r->n_skip; i++)
		if (a >= r->skip[i].first && a <= r->skip[i].last)
			return false;
	return true;
}

static size_t lower_bound(const ipaddr_u128 *a, size_t n, ipaddr_u128 v)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Last index of the run of consecutive values starting at a[i]: values are
 * unique and sorted, so a[j] - a[i] == j - i holds exactly up to the first gap. */
static size_t run_end(const ipaddr_u128 *a, size_t n, size_t i)
{
	size_t lo = i, hi = n - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo + 1) / 2;

		if (a[mid] - a[i] == (ipaddr_u128)(mid - i))
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

int pool_first_free(const struct pool_range *r, const ipaddr_u128 *taken, size_t n, ipaddr_u128 *out)
{
	ipaddr_u128 c = r->span.first, stop;
	size_t k = 0, i;

	for (;;) {
		while (k < r->n_skip && r->skip[k].last < c)
			k++;
		if (k < r->n_skip && r->skip[k].first <= c) {
			stop = r->skip[k].last;
		} else {
			i = lower_bound(taken, n, c);
			if (i == n || taken[i] != c) {
				*out = c;
				return 0;
			}
			stop = taken[run_end(taken, n, i)];
		}
		/* stop < c only when taken was not sorted (a damaged index):
		 * moving back could go round for ever. */
		if (stop >= r->span.last || stop < c)
			return -ENOSPC;
		c = stop + 1;
	}
}

int pool_err_exhausted(struct cni_err *err, const struct pool_range *r)
{
	cni_err_set(err, CNI_ERR_EXHAUSTED, "no free address in %s", r->desc);
	return -ENOSPC;
}
