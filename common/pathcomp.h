/* SPDX-License-Identifier: Apache-2.0 */
/* A path's components as the kernel walks them: runs of "/" and "." components count for nothing. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The next component of *p, which moves past it; *start points at it. Its
 * length, 0 at the end of the path. */
size_t pathcomp_next(const char **p, const char **start);
/* How many components path has ("/" has none). */
int pathcomp_count(const char *path);
/* name is one entry of a directory: not empty, no "/", not "." or "..". */
bool pathcomp_is_name(const char *name);
