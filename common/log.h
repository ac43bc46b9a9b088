/* SPDX-License-Identifier: Apache-2.0 */
/* Logging to stderr or a file at a level; silent on success by default. */
#pragma once

#include <stdint.h>

enum log_level { LOG_LVL_PANIC, LOG_LVL_ERROR, LOG_LVL_WARNING, LOG_LVL_INFO, LOG_LVL_DEBUG };

/* level: "panic" | "error" | "warning" | "info" | "debug" (sriov-cni names;
 * "verbose" = debug) in any case, NULL = "error". file NULL = stderr. An
 * unknown level logs at "error", a file that cannot be opened falls back to
 * stderr: each says so in a warning line. The file is opened with
 * safeopen_file: no symlink on its way, a regular file. */
void log_init(const char *level, const char *file);
__attribute__((format(printf, 2, 3)))
void log_msg(enum log_level level, const char *fmt, ...);
/* Every line from now on carries "trace <32 hex digits>" after the pid
 * (the call's W3C trace id, traceparent_parse); NULL or all zeros: none.
 * Kept by log_init and log_close: it belongs to the call, not the config. */
void log_set_trace(const uint8_t id[16]);
void log_close(void);

#define log_error(...) log_msg(LOG_LVL_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LVL_WARNING, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LVL_DEBUG, __VA_ARGS__)
