/* SPDX-License-Identifier: Apache-2.0 */
/* The shape every binary of the project shares: env, stdin, dispatch, print. */
#pragma once

#include <stddef.h>
#include <cjson/cJSON.h>
#include "callrec.h"
#include "env.h"
#include "err.h"

#define PLUGIN_STDIN_MAX (1 << 20)

struct plugin_ctx {
	struct cni_env env;
	char *conf;			/* stdin, NUL-terminated */
	size_t conf_len;
	char version[16];		/* config's cniVersion, for the error JSON */
	char network[CALLREC_NETWORK_MAX + 1];	/* config's name, for the call record */
	cJSON *out;			/* set by a verb that prints a result */
	struct cni_err err;
};

struct plugin_verb {
	enum cni_cmd cmd;
	int (*fn)(struct plugin_ctx *ctx);
};

/* Reads env and stdin, answers VERSION itself, refuses CHECK/GC/STATUS in
 * versions that lack them, runs the verb, prints ctx->out or the error JSON
 * on stdout. Every log line carries TRACEPARENT's trace id when it is valid.
 * Each call, whatever its verb or outcome, leaves a call record of plugin
 * in callrec_dir(); one that cannot be written is skipped (a debug line),
 * never the call's failure. Returns the process exit status (0 or 1). */
int plugin_main(enum callrec_plugin plugin, const struct plugin_verb *verbs, size_t n_verbs);
