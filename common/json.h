/* SPDX-License-Identifier: Apache-2.0 */
/* The last step of every JSON document we write. */
#pragma once

#include <cjson/cJSON.h>

/* Prints root unformatted when built is 0 and frees root either way (NULL is
 * fine). NULL, with errno set to -built or ENOMEM, when it was not built or
 * printing failed. */
char *json_print_free(cJSON *root, int built);
