// SPDX-License-Identifier: Apache-2.0
/* InfiniBand GUIDs: parsed from and printed to text, read from IPoIB addresses. */
#include <errno.h>
#include <stdio.h>
#include "guid.h"

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int guid_parse(const char *s, uint64_t *out)
{
	uint64_t guid = 0;

	/* eight pairs of hex digits, a colon after each but the last */
	for (int i = 0; i < GUID_STR_LEN + 1; i += 3) {
		int hi = hex(s[i]), lo = hi < 0 ? -1 : hex(s[i + 1]);
		char sep = lo < 0 ? 'x' : s[i + 2];

		if (lo < 0 || sep != (i == GUID_STR_LEN - 2 ? '\0' : ':'))
			return -EINVAL;
		guid = guid << 8 | (uint64_t)(hi << 4 | lo);
	}
	*out = guid;
	return 0;
}

int guid_parse_sysfs(const char *s, uint64_t *out)
{
	uint64_t guid = 0;

	/* four groups of four hex digits (node_guid_show()'s %04x of be16s) */
	for (int i = 0; i < 20; i++) {
		int digit = hex(s[i]);

		if (i % 5 == 4) {
			if (s[i] != (i == 19 ? '\0' : ':') && !(i == 19 && s[i] == '\n' && !s[20]))
				return -EINVAL;
			continue;
		}
		if (digit < 0)
			return -EINVAL;
		guid = guid << 4 | (uint64_t)digit;
	}
	*out = guid;
	return 0;
}

void guid_format(uint64_t g, char out[GUID_STR_LEN + 1])
{
	snprintf(out, GUID_STR_LEN + 1, "%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x",
		 (unsigned int)(g >> 56) & 0xff, (unsigned int)(g >> 48) & 0xff,
		 (unsigned int)(g >> 40) & 0xff, (unsigned int)(g >> 32) & 0xff,
		 (unsigned int)(g >> 24) & 0xff, (unsigned int)(g >> 16) & 0xff,
		 (unsigned int)(g >> 8) & 0xff, (unsigned int)g & 0xff);
}

bool guid_assigned(uint64_t guid)
{
	return guid != 0 && guid != UINT64_MAX;
}

int guid_from_ipoib_addr(const uint8_t *addr, size_t len, uint64_t *out)
{
	uint64_t guid = 0;

	if (len != GUID_IPOIB_ADDR_LEN)
		return -EINVAL;
	for (size_t i = GUID_IPOIB_ADDR_LEN - 8; i < GUID_IPOIB_ADDR_LEN; i++)
		guid = guid << 8 | addr[i];
	*out = guid;
	return 0;
}
