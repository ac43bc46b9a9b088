// SPDX-License-Identifier: Apache-2.0
/* IPv4/IPv6 addresses and prefixes: inet_pton/inet_ntop with strict prefix lengths, and their numbers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "ipaddr.h"

int ipaddr_parse(const char *s, struct ipaddr *out)
{
	struct ipaddr a = { 0 };

	if (!s)
		return -EINVAL;
	if (inet_pton(AF_INET, s, a.bytes) == 1)
		a.family = AF_INET;
	else if (inet_pton(AF_INET6, s, a.bytes) == 1)
		a.family = AF_INET6;
	else
		return -EINVAL;
	*out = a;
	return 0;
}

int ipprefix_parse(const char *s, struct ipprefix *out)
{
	char buf[IPADDR_STR_MAX];
	const char *slash, *p;
	struct ipprefix pfx;
	size_t alen;
	int len = 0;

	if (!s)
		return -EINVAL;
	slash = strchr(s, '/');
	if (!slash || !slash[1])
		return -EINVAL;
	alen = (size_t)(slash - s);
	if (alen >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, alen);
	buf[alen] = '\0';
	if (ipaddr_parse(buf, &pfx.addr))
		return -EINVAL;
	/* digits only: strtol would accept "+8", " 8" and "0x8" */
	for (p = slash + 1; *p; p++) {
		if (*p < '0' || *p > '9' || len > 128)
			return -EINVAL;
		len = len * 10 + (*p - '0');
	}
	if (len > (pfx.addr.family == AF_INET ? 32 : 128))
		return -EINVAL;
	pfx.len = len;
	*out = pfx;
	return 0;
}

void ipaddr_format(const struct ipaddr *a, char buf[IPADDR_STR_MAX])
{
	if (a->family != AF_INET && a->family != AF_INET6) {
		buf[0] = '\0';
		return;
	}
	inet_ntop(a->family, a->bytes, buf, IPADDR_STR_MAX);
}

void ipprefix_format(const struct ipprefix *p, char buf[IPADDR_STR_MAX])
{
	size_t n;

	ipaddr_format(&p->addr, buf);
	if (!buf[0])
		return;
	n = strlen(buf);
	snprintf(buf + n, IPADDR_STR_MAX - n, "/%d", p->len);
}

bool ipaddr_equal(const struct ipaddr *a, const struct ipaddr *b)
{
	if (a->family != b->family)
		return false;
	if (a->family == AF_INET)
		return !memcmp(a->bytes, b->bytes, 4);
	if (a->family == AF_INET6)
		return !memcmp(a->bytes, b->bytes, 16);
	return true;
}

bool ipprefix_equal(const struct ipprefix *a, const struct ipprefix *b)
{
	return a->len == b->len && ipaddr_equal(&a->addr, &b->addr);
}

static int addr_len(int family)
{
	return family == AF_INET ? 4 : 16;
}

ipaddr_u128 ipaddr_to_u128(const struct ipaddr *a)
{
	ipaddr_u128 v = 0;

	for (int i = 0; i < addr_len(a->family); i++)
		v = v << 8 | a->bytes[i];
	return v;
}

void ipaddr_from_u128(int family, ipaddr_u128 v, struct ipaddr *out)
{
	memset(out, 0, sizeof(*out));
	out->family = family;
	for (int i = addr_len(family) - 1; i >= 0; i--, v >>= 8)
		out->bytes[i] = (uint8_t)v;
}

int ipaddr_parse_u128(const char *s, int *family, ipaddr_u128 *out)
{
	struct ipaddr a;

	if (ipaddr_parse(s, &a))
		return -EINVAL;
	*family = a.family;
	*out = ipaddr_to_u128(&a);
	return 0;
}

void ipaddr_format_u128(int family, ipaddr_u128 v, char buf[IPADDR_STR_MAX])
{
	struct ipaddr a;

	ipaddr_from_u128(family, v, &a);
	ipaddr_format(&a, buf);
}
