/* SPDX-License-Identifier: Apache-2.0 */
/* A unit test's scratch directory: made fresh for each case by its fixture, removed after it. */
#pragma once

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

static char scratch_dir[64];

/* Makes scratch_dir for a case of test: under /run as root when root_alone
 * (a directory in /tmp, 1777, is not root's alone), else under /tmp. */
static inline void scratch_make(const char *test, bool root_alone)
{
	snprintf(scratch_dir, sizeof(scratch_dir), "%s/%s.XXXXXX",
		 root_alone && geteuid() == 0 ? "/run" : "/tmp", test);
	ck_assert_ptr_nonnull(mkdtemp(scratch_dir));
}

static inline void scratch_remove(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch_dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* scratch_dir/rel into buf. */
static inline void scratch_path(char *buf, size_t size, const char *rel)
{
	snprintf(buf, size, "%s/%s", scratch_dir, rel);
}

/* scratch_dir/rel in one of four buffers used in turn. */
static inline char *scratch_at(const char *rel)
{
	static char buf[4][256];
	static int k;
	char *p = buf[k++ % 4];

	scratch_path(p, 256, rel);
	return p;
}

static inline mode_t scratch_mode(const char *path)
{
	struct stat st;

	ck_assert_int_eq(lstat(path, &st), 0);
	return st.st_mode & 07777;
}
