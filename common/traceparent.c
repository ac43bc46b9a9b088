// SPDX-License-Identifier: Apache-2.0
/* The W3C trace context header (TRACEPARENT): version, trace id, parent id, flags. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include "traceparent.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;		/* upper case too: the spec allows lower case only */
}

/* Two hex digits at s as a byte, -1 when they are not. */
static int hexbyte(const char *s)
{
	int hi = hexval(s[0]), lo = hi < 0 ? -1 : hexval(s[1]);

	return lo < 0 ? -1 : hi << 4 | lo;
}

/* n hex digits of s into n/2 bytes of out (NULL: only checked); true when
 * they are hex and not all zeros. */
static bool hex_field(const char *s, size_t n, uint8_t *out)
{
	bool nonzero = false;

	for (size_t i = 0; i < n; i += 2) {
		int b = hexbyte(s + i);

		if (b < 0)
			return false;
		if (out)
			out[i / 2] = (uint8_t)b;
		nonzero |= b != 0;
	}
	return nonzero;
}

/* Offsets in "vv-tttttttttttttttttttttttttttttttt-pppppppppppppppp-ff". */
#define TRACE_AT 3
#define PARENT_AT (TRACE_AT + 33)
#define FLAGS_AT (PARENT_AT + 17)
#define V00_LEN (FLAGS_AT + 2)

int traceparent_parse(const char *s, uint8_t out[16])
{
	int version, ret = -EINVAL;
	size_t len;

	memset(out, 0, 16);
	if (!s)
		return ret;
	len = strlen(s);
	if (len < V00_LEN || s[2] != '-' || s[PARENT_AT - 1] != '-' || s[FLAGS_AT - 1] != '-')
		return ret;
	version = hexbyte(s);
	if (version < 0 || version == 0xff || hexbyte(s + FLAGS_AT) < 0)
		return ret;
	/* version 00 is exactly this long; a later one may append "-fields" */
	if (len != V00_LEN && (version == 0 || s[V00_LEN] != '-'))
		return ret;
	if (hex_field(s + PARENT_AT, 16, NULL) && hex_field(s + TRACE_AT, 32, out))
		ret = 0;
	else
		memset(out, 0, 16);
	return ret;
}

void traceparent_format(const uint8_t id[16], char out[TRACEPARENT_ID_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";

	for (int i = 0; i < 16; i++) {
		out[2 * i] = digits[id[i] >> 4];
		out[2 * i + 1] = digits[id[i] & 15];
	}
	out[TRACEPARENT_ID_LEN] = '\0';
}

bool traceparent_is_set(const uint8_t id[16])
{
	static const uint8_t zero[16];

	return memcmp(id, zero, 16) != 0;
}
