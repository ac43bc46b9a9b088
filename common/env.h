/* SPDX-License-Identifier: Apache-2.0 */
/* The CNI_* environment, validated per command as the spec and libcni do. */
#pragma once

#include <stdbool.h>
#include "err.h"
#include "version.h"

enum cni_cmd {
	CNI_CMD_ADD,
	CNI_CMD_DEL,
	CNI_CMD_CHECK,
	CNI_CMD_GC,
	CNI_CMD_STATUS,
	CNI_CMD_VERSION,
	CNI_CMD_COUNT,
};

/* Strings borrow getenv(); NULL where unset (and not required). */
struct cni_env {
	enum cni_cmd cmd;
	const char *containerid;
	const char *netns;
	const char *ifname;
	const char *args;
	const char *path;
};

/* Reads and validates the environment for the command it names. Bad or
 * missing values fill err with CNI_ERR_ENV (unknown command: also 4, and
 * env->cmd is CNI_CMD_COUNT). */
int env_read(struct cni_env *env, struct cni_err *err);
const char *env_cmd_name(enum cni_cmd cmd);
/* CHECK needs 0.4.0+, GC and STATUS 1.1.0+ (CNI_ERR_VERSION otherwise). */
int env_check_version(enum cni_cmd cmd, enum cni_version v, struct cni_err *err);

/* The one id rule (docs/internals.md (Contracts)), for a containerID or a
 * network name that becomes part of a path or key, as messages spell it. */
#define ENV_ID_RULE "^[a-zA-Z0-9][a-zA-Z0-9_.\\-]*$"
/* s matches ENV_ID_RULE, in ASCII whatever the locale. */
bool env_valid_id(const char *s);
/* docs/internals.md (Contracts): 1-15 bytes, no '/', ':' or space, not "." or "..". */
bool env_valid_ifname(const char *s);
