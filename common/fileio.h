/* SPDX-License-Identifier: Apache-2.0 */
/* Whole files in one directory: written atomically (0600 in 0700 dirs), read with a bound, listed, removed. */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/* What writes or creates (mkdir, write, remove) reaches dir from "/"
 * without following a symlink on the way (safeopen_dir): a dataDir
 * cannot be redirected. Reads and lists follow them (the doctor reads
 * sysfs and /proc through these). */

/* Creates dir and parents (0700). */
int fileio_mkdir(const char *dir);
/* Temp file .<name>.tmp in dir, write, rename to name: a reader, or a
 * writer killed half-way, never leaves a partial name. Not synced: for
 * records of kernel state that a reboot discards with them (after a power
 * loss the file may be missing or empty, which its readers take as absent).
 * Writers of one name must be serialized (the caller's lock): they share
 * the temp file. 0600. */
int fileio_write(const char *dir, const char *name, const char *data, size_t len);
/* The same with the file's mode, the file fsync'd before the rename and dir
 * after it: for what must outlive a power loss (an installed binary). */
int fileio_write_durable(const char *dir, const char *name, const char *data, size_t len,
			 mode_t mode);
/* Reads dir/name into a malloc'd NUL-terminated buffer; -ENOENT if absent. */
int fileio_read(const char *dir, const char *name, char **out, size_t *len);
/* The same, -EFBIG when the file holds more than max bytes. */
int fileio_read_max(const char *dir, const char *name, size_t max, char **out, size_t *len);
/* The same from an open file (a regular one, else -EINVAL), -EFBIG past max
 * bytes; fd stays open. */
int fileio_read_fd(int fd, size_t max, char **out, size_t *len);
/* Removes name and the temp file a killed writer left; -ENOENT is success. */
int fileio_remove(const char *dir, const char *name);
/* Lists names in dir ending in suffix, sorted, dot files skipped (an absent dir
 * is empty); caller frees each and the array. */
int fileio_list(const char *dir, const char *suffix, char ***names, size_t *n);

/* The same operations in a directory already open (dirfd), for a store that
 * keeps its directories open: names are one component, the directory is
 * not walked again. */
int fileio_write_at(int dirfd, const char *name, const char *data, size_t len);
int fileio_write_durable_at(int dirfd, const char *name, const char *data, size_t len,
			    mode_t mode);
/* fileio_read_max of dirfd/name. */
int fileio_read_at(int dirfd, const char *name, size_t max, char **out, size_t *len);
/* fileio_list of dirfd; suffix "" lists every name. */
int fileio_list_at(int dirfd, const char *suffix, char ***names, size_t *n);
/* Removes the temp files that writers killed half-way left in dirfd. Only
 * for a directory whose every writer holds a lock the caller holds: a live
 * writer's temp file would go too. */
int fileio_reap_at(int dirfd);
