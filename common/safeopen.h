/* SPDX-License-Identifier: Apache-2.0 */
/* Opening a path from "/" one component at a time, never through a symlink. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

/* Opens directory path (O_RDONLY) from "/" one component at a time with
 * O_NOFOLLOW, creating missing ones 0700 when create: returns fd or -errno
 * (-ENOTDIR or -ELOOP for a symlink on the way). */
int safeopen_dir(const char *path, bool create);
/* Opens file path through safeopen_dir of its directory (not created),
 * the file itself with openat(flags | O_NOFOLLOW | O_CLOEXEC, mode); it must
 * be a regular file (-EINVAL otherwise; a FIFO does not block the open). */
int safeopen_file(const char *path, int flags, mode_t mode);
/* safeopen_file for a file only root may fill: every directory from "/" to
 * the file's own must be safeopen_trusted (-EPERM otherwise, unless a part is
 * missing: -ENOENT). The file itself is the caller's to judge. */
int safeopen_file_trusted(const char *path, int flags, mode_t mode);
/* Only root can change what fd holds: it is root's, not writable by group or other. */
bool safeopen_trusted(int fd);
/* The prefix of path that is a symlink, "" when no part that exists is one. */
void safeopen_find_symlink(const char *path, char prefix[PATH_MAX]);
