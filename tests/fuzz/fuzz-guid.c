// SPDX-License-Identifier: Apache-2.0
/* Fuzz target: guid_parse on arbitrary strings (infinibandGUID, args.cni.guid,
 * guid from a config, GUIDs in state files); what parses prints back as the
 * same text, lower-cased, and parses again to the same value. And
 * guid_parse_sysfs (an RDMA device's node_guid file) on the same bytes. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "guid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_text(data, size), text[GUID_STR_LEN + 1];
	uint64_t guid, again;

	if (!s)
		return 0;
	if (guid_parse(s, &guid) == 0) {
		guid_format(guid, text);
		for (size_t i = 0; i < GUID_STR_LEN; i++) {
			if (text[i] != tolower((unsigned char)s[i]))
				abort();
		}
		if (guid_parse(text, &again) || again != guid)
			abort();
	}
	guid_parse_sysfs(s, &guid);
	free(s);
	return 0;
}
