/* SPDX-License-Identifier: Apache-2.0 */
/* The W3C trace context header libcni passes in TRACEPARENT: its trace id, when valid. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define TRACEPARENT_ID_LEN 32		/* hex digits of a trace id */

/* "00-<32 hex trace-id>-<16 hex parent-id>-<2 hex flags>" (W3C Trace Context,
 * level 1): lower-case hex only, neither id all zeros, version "ff" refused;
 * a version above 00 may carry more fields after the flags ("-..."), version
 * 00 none. On success the trace id as 16 bytes and 0; -EINVAL otherwise
 * (out zeroed). NULL is -EINVAL. */
int traceparent_parse(const char *s, uint8_t out[16]);

/* The 16 bytes as 32 lower-case hex digits and a NUL. */
void traceparent_format(const uint8_t id[16], char out[TRACEPARENT_ID_LEN + 1]);

/* True when id is not all zeros (none recorded). */
bool traceparent_is_set(const uint8_t id[16]);
