/* SPDX-License-Identifier: Apache-2.0 */
/* What /proc says about a process and about file locks: its memlock limit,
 * capabilities and environment, and who holds a lock. The parsers take the
 * bytes as read, so they are tested and fuzzed without a process. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PROCFS_UNLIMITED UINT64_MAX
/* CAP_IPC_LOCK: with it the kernel lets a process pin memory past its memlock limit. */
#define PROCFS_CAP_IPC_LOCK 14

/* "Max locked memory  65536  unlimited  bytes" of /proc/PID/limits: the soft
 * and hard limits in bytes, PROCFS_UNLIMITED for "unlimited". -ENOENT
 * without that line, -EINVAL when it does not read. */
int procfs_memlock(const char *limits, uint64_t *soft, uint64_t *hard);
/* "CapEff:\t<hex>" of /proc/PID/status. */
int procfs_cap_eff(const char *status, uint64_t *caps);
/* The value of name in /proc/PID/environ (len bytes of NUL-separated
 * NAME=value entries; the last may lack its NUL); NULL when absent. The
 * value borrows buf, which must hold a NUL at buf[len] (fileio_read's). */
const char *procfs_environ_get(const char *buf, size_t len, const char *name);
/* The pid holding a lock on the file (major:minor, inode) in /proc/locks
 * text; waiters ("->" lines) are not holders. -ENOENT when none. */
int procfs_lock_holder(const char *locks, unsigned int major, unsigned int minor,
		       unsigned long ino, pid_t *pid);
