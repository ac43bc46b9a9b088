// SPDX-License-Identifier: Apache-2.0
/* Buffers sized to what was read, not to the largest input allowed. */
#include <errno.h>
#include <stdlib.h>
#include "buf.h"

int buf_reserve(char **buf, size_t *cap, size_t need, size_t max)
{
	size_t size = *cap ? *cap : 4096;
	char *grown;

	while (size < need)
		size *= 2;
	if (size > max)
		size = max;
	if (size <= *cap)
		return 0;
	grown = realloc(*buf, size);
	if (!grown)
		return -ENOMEM;
	*buf = grown;
	*cap = size;
	return 0;
}
