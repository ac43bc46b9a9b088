/* SPDX-License-Identifier: Apache-2.0 */
/* One command the agent runs: its stdout captured, its stderr passed on, waited for to the end. */
#pragma once

#include <stddef.h>

#define CHILD_OUT_MAX (16 << 20)

/* Runs argv[0] (a path) with argv and the agent's environment, its signal
 * mask and dispositions reset; SIGTERM reaching the agent meanwhile waits
 * for it to end (a reconcile is never cut off half-way). *out: its stdout,
 * malloc'd and NUL-terminated (cut at CHILD_OUT_MAX). Returns its exit
 * status (0-255), 128 + N when killed by signal N, or -errno when it did
 * not start. */
int child_run(char *const argv[], char **out);
