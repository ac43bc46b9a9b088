/* SPDX-License-Identifier: Apache-2.0 */
/* The shape every binary of the project shares: env, stdin, dispatch, print. */
#pragma once

#include <stddef.h>
#include <cjson/cJSON.h>
#include "env.h"
#include "err.h"

#define PLUGIN_STDIN_MAX (1 << 20)

struct plugin_ctx {
	struct cni_env env;
	char *conf;			/* stdin, NUL-terminated */
	size_t conf_len;
	char version[16];		/* config's cniVersion, for the error JSON */
	cJSON *out;			/* set by a verb that prints a result */
	struct cni_err err;
};

struct plugin_verb {
	enum cni_cmd cmd;
	int (*fn)(struct plugin_ctx *ctx);
};

/* Reads env and stdin, answers VERSION itself, refuses CHECK/GC/STATUS in
 * versions that lack them, runs the verb, prints ctx->out or the error JSON
 * on stdout. Returns the process exit status (0 or 1). */
int plugin_main(const struct plugin_verb *verbs, size_t n_verbs);
