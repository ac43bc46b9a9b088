/* SPDX-License-Identifier: Apache-2.0 */
/* Copies files into a host directory atomically, only when they differ. */
#pragma once

#include <sys/types.h>

enum install_outcome { INSTALL_NEW, INSTALL_REPLACED, INSTALL_UNCHANGED };

/* Opens the directory dir and takes an exclusive flock on it, so that two
 * installers on one node (a rolling update) never share a temp file.
 * Returns the fd (close it to unlock) or -errno: -ENOTDIR when dir is not a
 * directory, -ENOENT when it does not exist. */
int install_lock(const char *dir);

/* Copies from/name (symlinks followed: a Secret volume is made of them) to
 * to/name with mode (temp file in to, fsync, rename, fsync to), unless
 * to/name is already a file with the same bytes and mode. A kubelet exec of
 * to/name meanwhile finds the old file or the new one, never a partial one.
 * The caller holds install_lock on to. */
int install_file(const char *from, const char *to, const char *name, mode_t mode,
		 enum install_outcome *out);
