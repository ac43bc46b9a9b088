// SPDX-License-Identifier: Apache-2.0
/* Reads /proc files whole and parses the lines the doctor needs from them. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "procfs.h"

/* The line of text that starts with key, or NULL. */
static const char *line_with(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, key, klen))
			return p + klen;
	}
	return NULL;
}

static int limit_value(const char **p, uint64_t *v)
{
	char *end;

	*p += strspn(*p, " \t");
	if (!strncmp(*p, "unlimited", 9)) {
		*p += 9;
		*v = PROCFS_UNLIMITED;
		return 0;
	}
	if (**p < '0' || **p > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(*p, &end, 10);
	if (errno)
		return -EINVAL;
	*p = end;
	return 0;
}

int procfs_memlock(const char *limits, uint64_t *soft, uint64_t *hard)
{
	const char *p = line_with(limits, "Max locked memory");

	if (!p)
		return -ENOENT;
	if (limit_value(&p, soft) < 0 || limit_value(&p, hard) < 0)
		return -EINVAL;
	return 0;
}

int procfs_cap_eff(const char *status, uint64_t *caps)
{
	const char *p = line_with(status, "CapEff:");
	char *end;

	if (!p)
		return -ENOENT;
	p += strspn(p, " \t");
	errno = 0;
	*caps = strtoull(p, &end, 16);
	if (errno || end == p || (*end && *end != '\n'))
		return -EINVAL;
	return 0;
}

const char *procfs_environ_get(const char *buf, size_t len, const char *name)
{
	size_t nlen = strlen(name);

	for (size_t off = 0; off < len;) {
		const char *e = buf + off;
		size_t elen = strnlen(e, len - off);

		if (elen > nlen && !strncmp(e, name, nlen) && e[nlen] == '=')
			return e + nlen + 1;
		off += elen + 1;
	}
	return NULL;
}

/* One /proc/locks line: "N: TYPE MODE RW PID MAJ:MIN:INO START END". */
static bool lock_line(const char *text, size_t len, unsigned int major, unsigned int minor,
		      unsigned long ino, pid_t *pid)
{
	unsigned int maj, min;
	unsigned long i;
	char line[256];
	int p, n = 0;

	/* scanned alone, so no field is taken from the next line */
	snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1),
		 text);
	if (sscanf(line, "%*d: %*s %*s %*s %d %x:%x:%lu%n", &p, &maj, &min, &i, &n) != 4 || !n)
		return false;
	if (maj != major || min != minor || i != ino)
		return false;
	*pid = p;
	return true;
}

int procfs_lock_holder(const char *locks, unsigned int major, unsigned int minor,
		       unsigned long ino, pid_t *pid)
{
	for (const char *p = locks; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		size_t len = strcspn(p, "\n");
		const char *colon = memchr(p, ':', len);

		/* a waiter: "N: -> FLOCK ..." */
		if (!colon || !strncmp(colon + 1, " ->", 3))
			continue;
		if (lock_line(p, len, major, minor, ino, pid))
			return 0;
	}
	return -ENOENT;
}
