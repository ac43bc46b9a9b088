// SPDX-License-Identifier: Apache-2.0
/* Standard padded base64, the encoding etcd's JSON gateway gives keys and values. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "base64.h"

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *base64_encode(const char *s)
{
	size_t len = strlen(s), i, o = 0;
	char *out = malloc((len + 2) / 3 * 4 + 1);

	if (!out)
		return NULL;
	for (i = 0; i < len; i += 3) {
		uint32_t v = (uint8_t)s[i] << 16;

		if (i + 1 < len)
			v |= (uint8_t)s[i + 1] << 8;
		if (i + 2 < len)
			v |= (uint8_t)s[i + 2];
		out[o++] = b64[v >> 18 & 63];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = i + 1 < len ? b64[v >> 6 & 63] : '=';
		out[o++] = i + 2 < len ? b64[v & 63] : '=';
	}
	out[o] = '\0';
	return out;
}

char *base64_decode(const char *s)
{
	size_t len = strlen(s), pad = 0, o = 0, i;
	uint32_t v = 0;
	int bits = 0;
	char *out;

	if (len % 4) {
		errno = EINVAL;
		return NULL;
	}
	while (pad < 2 && pad < len && s[len - 1 - pad] == '=')
		pad++;
	out = malloc(len / 4 * 3 + 1);
	if (!out)
		return NULL;
	for (i = 0; i < len - pad; i++) {
		const char *p = strchr(b64, s[i]);

		if (!p)
			goto bad;
		v = v << 6 | (uint32_t)(p - b64);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o] = (char)(v >> bits & 0xff);
			if (!out[o++])
				goto bad;
		}
	}
	out[o] = '\0';
	return out;
bad:
	free(out);
	errno = EINVAL;
	return NULL;
}
