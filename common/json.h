/* SPDX-License-Identifier: Apache-2.0 */
/* cJSON both ways: the last step of every document we write, integers read back exactly. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <cjson/cJSON.h>

/* Prints root unformatted when build_err is 0 (root was built whole) and
 * frees root either way (NULL is fine). NULL, with errno set to -build_err or
 * ENOMEM, when building or printing failed. */
char *json_print_free(cJSON *root, int build_err);

/* A JSON number that is an integer an int64_t holds (not 1.5, 1e300, NaN):
 * true with *out. cJSON keeps numbers as doubles; a cast of one out of range
 * is undefined behaviour. */
bool json_int64(const cJSON *v, int64_t *out);
