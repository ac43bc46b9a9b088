/* SPDX-License-Identifier: Apache-2.0 */
/* Per-resource locks: an exclusive flock on a file, waited for with a timeout. */
#pragma once

/* Blocking exclusive flock on dir/name (created 0600), dir reached from "/"
 * without following a symlink (safeopen_dir); returns fd or -errno.
 * timeout_ms 0 = wait forever, LOCKFILE_TRY = one try without waiting;
 * -ETIMEDOUT when it expires (or the try finds the lock held). */
#define LOCKFILE_TRY (-1)
int lockfile_lock(const char *dir, const char *name, int timeout_ms);
void lockfile_unlock(int fd);
/* The same wait on a file already open, which stays open (flock(LOCK_UN)
 * lets it go): 0, -ETIMEDOUT, or -errno. */
int lockfile_lock_fd(int fd, int timeout_ms);
