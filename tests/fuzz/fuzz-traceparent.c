// SPDX-License-Identifier: Apache-2.0
/* Fuzz target: traceparent_parse on arbitrary TRACEPARENT values: what
 * parses is exactly the header's trace id, printed back lower-case, never
 * all zeros; what is refused leaves no id. */
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "traceparent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_text(data, size), text[TRACEPARENT_ID_LEN + 1];
	uint8_t id[16];

	if (!s)
		return 0;
	if (traceparent_parse(s, id) == 0) {
		traceparent_format(id, text);
		if (!traceparent_is_set(id) || strncmp(s + 3, text, TRACEPARENT_ID_LEN))
			abort();
	} else if (traceparent_is_set(id)) {
		abort();
	}
	free(s);
	return 0;
}
