/* SPDX-License-Identifier: Apache-2.0 */
/* Requests to rdmasim-drv, the simulated PCI driver core and mlx5/ipoib
 * driver model: one text request (and optionally one fd) per connection,
 * the kernel's answer (0 or -errno) back. */
#pragma once

#include <stddef.h>

#define RDMASIM_DRV_REQ_MAX 256

/* The daemon's socket: "<state>.drv". */
int rdmasim_drv_sock_path(const char *state, char *out, unsigned long size);
/* Sends req (and fd when >= 0) to the daemon of the world at state and
 * returns its answer; -ENOTCONN when no daemon runs for it. */
int rdmasim_drv_call(const char *state, const char *req, int fd);
/* The same, the text after the answer (e.g. of "ipoib-addr") in out. */
int rdmasim_drv_query(const char *state, const char *req, int fd, char *out, size_t size);
