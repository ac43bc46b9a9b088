// SPDX-License-Identifier: Apache-2.0
/* Fuzz target: cniargs_parse on arbitrary CNI_ARGS strings. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "cniargs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_text(data, size);
	struct cni_args args;
	struct cni_err err = { 0 };

	if (!s)
		return 0;
	if (cniargs_parse(s, &args, &err) && !err.code)
		abort();	/* every failure must say why */
	free(s);
	return 0;
}
