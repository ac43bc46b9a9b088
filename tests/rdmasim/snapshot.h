/* SPDX-License-Identifier: Apache-2.0 */
/* A binary snapshot of the parsed state next to the JSON state file. */
#pragma once

#include <sys/stat.h>
#include "state.h"

/* The state parsed from the JSON file json describes: -ESTALE (or -ENOENT)
 * when the snapshot is of another version of it; st is then empty. */
int rdmasim_snapshot_read(const char *path, const struct stat *json, struct rdmasim_state *st);
/* offs: where each device lies in the JSON file (n + 1 entries), or NULL. */
void rdmasim_snapshot_write(const char *path, const struct stat *json,
			    const struct rdmasim_state *st, const uint32_t *offs);
/* Device i's record and the offsets written over a snapshot of old_json,
 * now tagged json; -ESTALE when the snapshot is not old_json's. */
int rdmasim_snapshot_update(const char *path, const struct stat *old_json,
			    const struct stat *json, const struct rdmasim_state *st,
			    const uint32_t *offs, int i);
