// SPDX-License-Identifier: Apache-2.0
/* Leveled log lines (timestamp, level, pid, trace id) to stderr or an append-only file. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include "log.h"
#include "safeopen.h"
#include "traceparent.h"

#define LINE_MAX_LEN 2048

static const char *const names[] = {
	[LOG_LVL_PANIC] = "panic",
	[LOG_LVL_ERROR] = "error",
	[LOG_LVL_WARNING] = "warning",
	[LOG_LVL_INFO] = "info",
	[LOG_LVL_DEBUG] = "debug",
};

static enum log_level max_level = LOG_LVL_ERROR;
static int log_fd = -1;
static char trace[TRACEPARENT_ID_LEN + 1];

static int parse_level(const char *s, enum log_level *out)
{
	size_t i;

	if (!strcasecmp(s, "verbose")) {
		*out = LOG_LVL_DEBUG;
		return 0;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcasecmp(s, names[i])) {
			*out = (enum log_level)i;
			return 0;
		}
	}
	return -EINVAL;
}

static void emit(enum log_level level, const char *fmt, va_list ap)
{
	char line[LINE_MAX_LEN];
	struct timespec ts;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(line, sizeof(line), "%Y-%m-%dT%H:%M:%S", &tm);
	n += (size_t)snprintf(line + n, sizeof(line) - n, ".%03ldZ [%s] pid %d%s%s: ",
			      ts.tv_nsec / 1000000, names[level], (int)getpid(),
			      trace[0] ? " trace " : "", trace);
	vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	n = strlen(line);
	if (n == sizeof(line) - 1)
		n--;
	line[n++] = '\n';
	/* one write per line so lines from concurrent plugins do not interleave */
	if (write(log_fd >= 0 ? log_fd : STDERR_FILENO, line, n) < 0) {
		/* nowhere left to report it */
	}
}

/* Bypasses the level: the user asked for a log file and must learn it is not used. */
__attribute__((format(printf, 1, 2)))
static void warn_always(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(LOG_LVL_WARNING, fmt, ap);
	va_end(ap);
}

/* sriov-cni and whereabouts take level names in any case and refuse none:
 * a typo in a log level must not fail a pod's network. */
void log_init(const char *level, const char *file)
{
	enum log_level lvl = LOG_LVL_ERROR;
	bool known = !level || parse_level(level, &lvl) == 0;
	int fd;

	log_close();
	max_level = lvl;
	if (file && *file) {
		fd = safeopen_file(file, O_WRONLY | O_APPEND | O_CREAT, 0600);
		if (fd >= 0)
			log_fd = fd;
		else
			warn_always("cannot open log file \"%s\": %s; logging to stderr", file,
				    strerror(-fd));
	}
	if (!known)
		warn_always("unknown log level \"%s\": logging at \"%s\"", level, names[lvl]);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	if (level > max_level)
		return;
	va_start(ap, fmt);
	emit(level, fmt, ap);
	va_end(ap);
	errno = saved;
}

void log_set_trace(const uint8_t id[16])
{
	if (id && traceparent_is_set(id))
		traceparent_format(id, trace);
	else
		trace[0] = '\0';
}

void log_close(void)
{
	if (log_fd >= 0)
		close(log_fd);
	log_fd = -1;
	max_level = LOG_LVL_ERROR;
}
