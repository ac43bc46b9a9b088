/* SPDX-License-Identifier: Apache-2.0 */
/* A byte buffer that grows as input arrives, up to a limit. */
#pragma once

#include <stddef.h>

/* Makes *buf (of *cap bytes, NULL/0 at first) hold at least need bytes,
 * doubling from 4 KiB but never past max (need <= max). -ENOMEM on failure,
 * *buf then unchanged. */
int buf_reserve(char **buf, size_t *cap, size_t need, size_t max);
