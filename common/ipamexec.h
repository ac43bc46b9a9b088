/* SPDX-License-Identifier: Apache-2.0 */
/* Delegation to the IPAM plugin named by ipam.type, found in CNI_PATH. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "env.h"
#include "err.h"
#include "result.h"

/* An IPAM plugin between ipamexec_start and ipamexec_finish. */
struct ipamexec_run {
	pid_t pid;		/* -1: none running */
	enum cni_cmd cmd;
	const char *type;	/* borrowed, like conf, until ipamexec_finish */
	const char *conf;
	size_t conf_len, sent;
	int in;			/* its stdin, we write */
	int out;		/* its stdout, we read */
	char *buf;		/* what it printed, NUL-terminated */
	size_t len, cap;
	bool overflow;
};

#define IPAMEXEC_RUN_INIT { .pid = -1, .in = -1, .out = -1 }

/* Starts <type> from CNI_PATH with the caller's environment but CNI_COMMAND
 * set to cmd, and hands it as much of the config as its stdin takes without
 * waiting; the plugin runs while the caller goes on. SIGPIPE is ignored in
 * the caller from then on (the plugin gets the default). On failure nothing
 * is left running. lock_fd (-1: none), the caller's flock, is inherited by
 * the plugin: the lock stays held until the plugin exits, even if the caller
 * is killed first (a runtime timeout), so no one can undo the caller's work
 * while the plugin is still doing its part. */
int ipamexec_start(struct ipamexec_run *r, enum cni_cmd cmd, const char *type, const char *conf,
		   size_t conf_len, int lock_fd, struct cni_err *err);

/* Feeds the rest of the config, waits for the plugin and releases *r. ADD
 * parses the result into *out (may be NULL for other commands). A plugin
 * error is copied into err (its code, its msg prefixed with the type); a
 * missing binary or bad type is CNI_ERR_IPAM. */
int ipamexec_finish(struct ipamexec_run *r, struct cni_result *out, struct cni_err *err);

/* ipamexec_start (no lock) then ipamexec_finish. */
int ipamexec_call(enum cni_cmd cmd, const char *type, const char *conf, size_t conf_len,
		  struct cni_result *out, struct cni_err *err);
