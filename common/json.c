// SPDX-License-Identifier: Apache-2.0
/* One way to turn a built cJSON tree into text and let go of it. */
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
