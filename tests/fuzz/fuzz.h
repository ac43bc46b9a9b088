/* SPDX-License-Identifier: Apache-2.0 */
/* What the fuzz targets share: the input as the NUL-terminated text the parsers read. */
#pragma once

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A malloc'd copy of data with a NUL after it (NULs inside are kept, as a
 * reader that knows the size sees them); NULL when out of memory. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	if (text) {
		memcpy(text, data, size);
		text[size] = '\0';
	}
	return text;
}
