// SPDX-License-Identifier: Apache-2.0
/* Fuzz target: guid_parse and guid_parse_any on arbitrary strings
 * (infinibandGUID, args.cni.guid, guid from a config, GUIDs in state files):
 * what parses has the same hex digits, lower-cased, as the text it prints,
 * and that text parses again to the same value; what guid_parse takes,
 * guid_parse_any takes too. And guid_parse_sysfs (an RDMA device's node_guid
 * file) on the same bytes. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "guid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* s's hex digits, lower-cased, are the canonical text's; one separator,
 * the same throughout, between groups of two (':' or '-') or four ('.'). */
static void check_spelling(const char *s, const char *canon)
{
	size_t n = 0, width = 0, seps = 0;
	char sep = 0;

	for (size_t i = 0; s[i]; i++) {
		if (isxdigit((unsigned char)s[i])) {
			while (canon[n] == ':')
				n++;
			if (tolower((unsigned char)s[i]) != canon[n++])
				abort();
			continue;
		}
		if (!width)
			width = i, sep = s[i];
		if (s[i] != sep || (i + 1) % (width + 1))
			abort();
		seps++;
	}
	if (n != GUID_STR_LEN || (width != 2 && width != 4) || seps != 16 / width - 1 ||
	    !strchr(width == 2 ? ":-" : ".", sep))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_text(data, size), text[GUID_STR_LEN + 1];
	uint64_t guid, any, again;
	int strict, loose;

	if (!s)
		return 0;
	strict = guid_parse(s, &guid);
	loose = guid_parse_any(s, &any);
	if (strict == 0 && (loose || any != guid || s[2] != ':'))
		abort();
	if (loose == 0) {
		guid_format(any, text);
		check_spelling(s, text);
		if (guid_parse(text, &again) || again != any)
			abort();
	}
	guid_parse_sysfs(s, &guid);
	free(s);
	return 0;
}
