// SPDX-License-Identifier: Apache-2.0
/* Fuzz target: sysfs_parse_int on arbitrary text (sriov_numvfs, sriov_offset,
 * sriov_stride, sriov_totalvfs, net/<if>/type as a file on disk may hold
 * them); what parses is the int that strtoll reads, and prints back as text
 * that parses to the same value. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include "fuzz.h"
#include "sysfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_text(data, size), *end, text[16];
	long long wide;
	int v, again;

	if (!s)
		return 0;
	if (sysfs_parse_int(s, &v) == 0) {
		errno = 0;
		wide = strtoll(s, &end, 10);
		if (errno || *end || wide != v)
			abort();
		snprintf(text, sizeof(text), "%d", v);
		if (sysfs_parse_int(text, &again) || again != v)
			abort();
	}
	free(s);
	return 0;
}
