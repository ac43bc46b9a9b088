// SPDX-License-Identifier: Apache-2.0
/* Fuzz target: callrec_scan over arbitrary call-record files (a torn
 * append, a file overwritten, another file at the name): every record it
 * hands on encodes back to the same bytes, the bytes used never pass the
 * input, and a final scan uses them all. */
#include <stdlib.h>
#include <string.h>
#include "callrec.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void again(const struct callrec *r, void *arg)
{
	uint8_t buf[CALLREC_SIZE];
	struct callrec back;

	(void)arg;
	if (strlen(r->network) > CALLREC_NETWORK_MAX)
		abort();
	callrec_encode(r, buf);
	if (callrec_decode(buf, &back) || memcmp(&back, r, sizeof(back)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t damaged = 0;
	size_t used = callrec_scan(data, size, false, again, NULL, &damaged);

	if (used > size || size - used >= CALLREC_SIZE)
		abort();
	damaged = 0;
	if (callrec_scan(data, size, true, again, NULL, &damaged) != size ||
	    damaged > size / CALLREC_SIZE + 1)
		abort();
	return 0;
}
