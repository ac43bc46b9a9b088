// SPDX-License-Identifier: Apache-2.0
/* One way to turn a built cJSON tree into text and let go of it. */
#include <errno.h>
#include "json.h"

char *json_print_free(cJSON *root, int built)
{
	char *doc = built ? NULL : cJSON_PrintUnformatted(root);

	cJSON_Delete(root);
	if (!doc)
		errno = built ? -built : ENOMEM;
	return doc;
}
