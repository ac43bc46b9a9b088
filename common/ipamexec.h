/* SPDX-License-Identifier: Apache-2.0 */
/* Delegation to the IPAM plugin named by ipam.type, found in CNI_PATH. */
#pragma once

#include "env.h"
#include "err.h"
#include "result.h"

/* Runs <type> from CNI_PATH with the caller's environment but CNI_COMMAND set
 * to cmd, the config on stdin. ADD parses the result into *out (may be NULL
 * for other commands). A plugin error is copied into err (its code, its msg
 * prefixed with the type); a missing binary or bad type is CNI_ERR_IPAM. */
int ipam_exec(enum cni_cmd cmd, const char *type, const char *conf, size_t conf_len,
	      struct cni_result *out, struct cni_err *err);
