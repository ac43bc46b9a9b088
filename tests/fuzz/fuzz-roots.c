// SPDX-License-Identifier: Apache-2.0
/* Fuzz target: confpath_parse_roots on arbitrary admin files of allowed roots. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "confpath.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_text(data, size);
	struct confpath_roots roots;
	int line = -1, ret;

	if (!s)
		return 0;
	ret = confpath_parse_roots(s, &roots, &line);
	/* a refusal names its line; what is taken is a root the policy can use */
	if (ret && (ret != -EINVAL || line < 1) && ret != -ENOMEM)
		abort();
	if (!ret && (line != 0 || roots.n < 0 || roots.n > CONFPATH_MAX_ROOTS))
		abort();
	for (int i = 0; !ret && i < roots.n; i++)
		if (confpath_lexical(roots.root[i]) || strlen(roots.root[i]) >= CONFPATH_ROOT_MAX)
			abort();
	free(s);
	return 0;
}
