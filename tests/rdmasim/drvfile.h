/* SPDX-License-Identifier: Apache-2.0 */
/* The fake sysfs driver attributes bus/pci/drivers/<driver>/{bind,unbind}:
 * a write of a device address goes to rdmasim-drv, and returns its answer as
 * the kernel's driver core would. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef int (*drvfile_open_t)(const char *path, int flags, ...);

/* path is such an attribute under $SYSFS_PATH and rdmasim-drv runs: *fd is
 * a descriptor standing for it (opened with real_open), true. */
bool drvfile_open(const char *path, int flags, drvfile_open_t real_open, int *fd);
/* fd stands for an attribute: *ret is what write() returns, true. */
bool drvfile_write(int fd, const void *buf, size_t len, ssize_t *ret);
void drvfile_close(int fd);
/* The kernel computes sysfs on read: before path, a VF's net/ or
 * infiniband/ directory under $SYSFS_PATH/bus/pci/devices/, is listed,
 * rdmasim-drv rewrites the VF's entries (a netdev renamed since shows its
 * new name). */
void drvfile_before_list(const char *path);
/* newfd now stands for what oldfd does (dup2, dup3: a shell's redirection). */
void drvfile_dup(int oldfd, int newfd);
