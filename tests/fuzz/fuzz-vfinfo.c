// SPDX-License-Identifier: Apache-2.0
/* Fuzz target: link_vf_decode on arbitrary PF replies, the kernel's wrapped
 * IFLA_VFINFO_LIST among them: it reads nothing outside the message and
 * answers found, not found, or not a message. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "linkvf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int vfs[] = { 0, 2, 349, 499 };
	/* a copy of exactly size bytes: a read past it is the sanitizer's */
	void *msg = malloc(size ? size : 1);
	struct vf_config out;

	if (!msg)
		return 0;
	memcpy(msg, data, size);
	for (size_t i = 0; i < sizeof(vfs) / sizeof(vfs[0]); i++) {
		int ret = link_vf_decode(msg, size, vfs[i], &out);

		if (ret != 0 && ret != -ENOENT && ret != -EINVAL)
			abort();
	}
	free(msg);
	return 0;
}
