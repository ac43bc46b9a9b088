// SPDX-License-Identifier: Apache-2.0
/* cJSON both ways: the last step of every document we write, integers read back exactly. */
#include <errno.h>
#include "json.h"

char *json_print_free(cJSON *root, int build_err)
{
	char *doc = build_err ? NULL : cJSON_PrintUnformatted(root);

	cJSON_Delete(root);
	if (!doc)
		errno = build_err ? -build_err : ENOMEM;
	return doc;
}

bool json_int64(const cJSON *v, int64_t *out)
{
	double d;

	if (!cJSON_IsNumber(v))
		return false;
	d = v->valuedouble;
	/* -2^63 and 2^63 are exact doubles; NaN fails both compares. */
	if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0) || (double)(int64_t)d != d)
		return false;
	*out = (int64_t)d;
	return true;
}
