/* SPDX-License-Identifier: Apache-2.0 */
/* The last step of every JSON document we write. */
#pragma once

#include <cjson/cJSON.h>

/* Prints root unformatted when build_err is 0 (root was built whole) and
 * frees root either way (NULL is fine). NULL, with errno set to -build_err or
 * ENOMEM, when building or printing failed. */
char *json_print_free(cJSON *root, int build_err);
