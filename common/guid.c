// SPDX-License-Identifier: Apache-2.0
/* InfiniBand GUIDs: parsed from and printed to text. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
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

/* The 16 hex digits of s[0..len), in groups of width digits with sep
 * between them and nowhere else. */
static int parse_groups(const char *s, size_t len, size_t width, char sep, uint64_t *out)
{
	uint64_t guid = 0;

	if (len != 16 + 16 / width - 1)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		int digit = hex(s[i]);

		if (i % (width + 1) == width) {
			if (s[i] != sep)
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

int guid_parse(const char *s, uint64_t *out)
{
	return parse_groups(s, strnlen(s, GUID_STR_LEN + 1), 2, ':', out);
}

int guid_parse_any(const char *s, uint64_t *out)
{
	size_t len = strnlen(s, GUID_STR_LEN + 1);

	/* net.ParseMAC picks the form by s[2], then s[4], and wants the same
	 * separator throughout */
	if (len == GUID_STR_LEN && (s[2] == ':' || s[2] == '-'))
		return parse_groups(s, len, 2, s[2], out);
	if (len == GUID_QUAD_STR_LEN && s[4] == '.')
		return parse_groups(s, len, 4, '.', out);
	return -EINVAL;
}

int guid_parse_sysfs(const char *s, uint64_t *out)
{
	/* four groups of four hex digits (node_guid_show()'s %04x of be16s) */
	size_t len = strnlen(s, GUID_QUAD_STR_LEN + 2);

	if (len == GUID_QUAD_STR_LEN + 1 && s[GUID_QUAD_STR_LEN] == '\n')
		len--;
	return parse_groups(s, len, 4, ':', out);
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
