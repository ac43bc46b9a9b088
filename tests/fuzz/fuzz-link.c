// SPDX-License-Identifier: Apache-2.0
/* Fuzz target: link_decode on arbitrary link replies (the RTM_NEWLINK every
 * link lookup and walk reads): it reads nothing outside the message, and a
 * link it accepts has a printable address and strings within bounds. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "link.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly size bytes: a read past it is the sanitizer's */
	void *msg = malloc(size ? size : 1);
	char text[LINK_ADDR_STR_MAX];
	struct link_info info;
	int ret;

	if (!msg)
		return 0;
	memcpy(msg, data, size);
	ret = link_decode(msg, size, &info);
	if (ret == 0) {
		link_addr_format(&info, text);
		if (info.addr_len < 0 || info.addr_len > LINK_ADDR_MAX ||
		    strlen(text) != (size_t)(info.addr_len ? 3 * info.addr_len - 1 : 0) ||
		    strnlen(info.name, sizeof(info.name)) == sizeof(info.name) ||
		    strnlen(info.parent, sizeof(info.parent)) == sizeof(info.parent))
			abort();
	} else if (ret != -EINVAL && ret != -EPROTO) {
		abort();
	}
	free(msg);
	return 0;
}
