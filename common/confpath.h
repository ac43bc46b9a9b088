/* SPDX-License-Identifier: Apache-2.0 */
/* Paths a network config names, confined to allowed roots (opening them is safeopen.h's). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include "err.h"

/* What the plugin does with a config-named path: written paths may lie
 * under the write roots only; read ones under the read roots too. */
enum confpath_use {
	CONFPATH_WRITE_DIR,	/* a directory created and written (dataDir) */
	CONFPATH_WRITE_FILE,	/* a file created or appended to (logFile, log_file) */
	CONFPATH_READ_FILE,	/* a file only read (configuration_path, cacert, cert, key) */
};

/* The node administrator's file of extra roots; the environment variable
 * (set by whoever runs the plugin, never by a config) names another. */
#define CONFPATH_ADMIN_FILE "/etc/cni/net.d/sriov-rdma.d/allowed-roots"
#define CONFPATH_ADMIN_ENV "SRIOV_RDMA_ALLOWED_ROOTS"
#define CONFPATH_MAX_ROOTS 32
#define CONFPATH_ROOT_MAX 256

struct confpath_roots {
	char root[CONFPATH_MAX_ROOTS][CONFPATH_ROOT_MAX];
	bool write[CONFPATH_MAX_ROOTS];	/* false: read only */
	int n;
};

/* Pure: 0 when path is absolute, shorter than PATH_MAX and has no ".."
 * component; -EINVAL (not absolute) or -ELOOP (a "..") otherwise. */
int confpath_lexical(const char *path);
/* Pure: path lies beneath root, component by component ("//" and "."
 * components count for nothing); root itself is not beneath root. */
bool confpath_under(const char *path, const char *root);
/* Pure: the admin file's text, one "write DIR" or "read DIR" a line, "#"
 * comments and blank lines skipped; DIR passes confpath_lexical. A bad
 * line is -EINVAL with *line set to its number (1-based). */
int confpath_parse_roots(const char *text, struct confpath_roots *out, int *line);

/* The contract for a config's key: path passes confpath_lexical, lies under
 * an allowed root for use (the defaults, or the admin file's), and no part
 * of it that exists is a symlink (for a file, nor the file itself).
 * Refusal: CNI_ERR_CONFIG naming key, path and the allowed roots. /var/run
 * is a symlink to /run on most nodes, and the one symlink this resolves: a
 * path starting /var/run/ is first rewritten to /run/... (when it fits size,
 * path's buffer) if /var is a root-owned directory not writable by group or
 * other and /var/run in it a root-owned symlink to "/run" or "../run".
 * Nothing is created. "" (not set) passes. */
int confpath_check(const char *key, char *path, size_t size, enum confpath_use use,
		   struct cni_err *err);
