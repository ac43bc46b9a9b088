/* SPDX-License-Identifier: Apache-2.0 */
/* IPv4/IPv6 addresses and prefixes as plain values, parsed and printed, and as numbers for arithmetic. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>

#define IPADDR_STR_MAX 64	/* INET6_ADDRSTRLEN + "/128" */

struct ipaddr {
	int family;			/* AF_INET, AF_INET6, or 0 = unset */
	uint8_t bytes[16];		/* network order; IPv4 uses the first 4 */
};

struct ipprefix {
	struct ipaddr addr;
	int len;
};

int ipaddr_parse(const char *s, struct ipaddr *out);		/* -EINVAL */
int ipprefix_parse(const char *s, struct ipprefix *out);	/* "a/n", host bits kept */
void ipaddr_format(const struct ipaddr *a, char buf[IPADDR_STR_MAX]);
void ipprefix_format(const struct ipprefix *p, char buf[IPADDR_STR_MAX]);
bool ipaddr_equal(const struct ipaddr *a, const struct ipaddr *b);
bool ipprefix_equal(const struct ipprefix *a, const struct ipprefix *b);

/* An address as a number, for arithmetic on ranges (IP arithmetic is
 * 128-bit everywhere: IPv6 /64 ranges are normal): IPv4 in the low 32 bits.
 * Its family travels beside it. */
typedef unsigned __int128 ipaddr_u128;

ipaddr_u128 ipaddr_to_u128(const struct ipaddr *a);
/* AF_INET takes the low 32 bits of v. */
void ipaddr_from_u128(int family, ipaddr_u128 v, struct ipaddr *out);
/* ipaddr_parse and ipaddr_format for an address held as a number. */
int ipaddr_parse_u128(const char *s, int *family, ipaddr_u128 *out);
void ipaddr_format_u128(int family, ipaddr_u128 v, char buf[IPADDR_STR_MAX]);
