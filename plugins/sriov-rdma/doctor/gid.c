// SPDX-License-Identifier: Apache-2.0
/* Parses the kernel's GID table text and maps addresses to GIDs. */
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include "gid.h"

static int hex(char c)
{
	return isdigit((unsigned char)c) ? c - '0' : tolower((unsigned char)c) - 'a' + 10;
}

int gid_parse(const char *text, uint8_t out[16])
{
	/* 8 groups x 4 hex digits, 7 colons: 39 characters */
	static const size_t len = 39;
	size_t tlen = strlen(text);

	if (tlen == len + 1 && text[len] == '\n')
		tlen--;
	if (tlen != len)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		bool colon = i % 5 == 4;

		if (colon ? text[i] != ':' : !isxdigit((unsigned char)text[i]))
			return -EINVAL;
	}
	for (int b = 0; b < 16; b++) {
		const char *p = text + (b / 2) * 5 + (b % 2) * 2;

		out[b] = (uint8_t)(hex(p[0]) << 4 | hex(p[1]));
	}
	return 0;
}

static const struct {
	const char *name;
	enum gid_type type;
} type_names[] = {
	{ "IB/RoCE v1", GID_ROCE_V1 },
	{ "RoCE v2", GID_ROCE_V2 },
};

int gid_type_parse(const char *text, enum gid_type *out)
{
	size_t tlen = strcspn(text, "\n");

	if (text[tlen] && text[tlen + 1])
		return -EINVAL;
	for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++) {
		if (strlen(type_names[i].name) == tlen && !strncmp(text, type_names[i].name, tlen)) {
			*out = type_names[i].type;
			return 0;
		}
	}
	return -EINVAL;
}

bool gid_is_zero(const uint8_t gid[16])
{
	static const uint8_t zero[16];

	return memcmp(gid, zero, sizeof(zero)) == 0;
}

void gid_from_addr(const struct ipaddr *a, uint8_t out[16])
{
	memset(out, 0, 16);
	if (a->family == AF_INET6) {
		memcpy(out, a->bytes, 16);
		return;
	}
	out[10] = 0xff;
	out[11] = 0xff;
	memcpy(out + 12, a->bytes, 4);
}

const struct gid_entry *gid_find(const struct gid_entry *table, int n, const uint8_t gid[16],
				 enum gid_type type, const char *ndev)
{
	for (int i = 0; i < n; i++) {
		if (table[i].type == type && !memcmp(table[i].gid, gid, 16) &&
		    !strcmp(table[i].ndev, ndev))
			return &table[i];
	}
	return NULL;
}
