/* SPDX-License-Identifier: Apache-2.0 */
/* What every ippool verb starts from: the parsed config, the log, the open store. */
#pragma once

#include "poolconf.h"
#include "netconf.h"
#include "plugin.h"
#include "store.h"

/* What the config on stdin says, copied out of its tree (which setup_open
 * frees), and the store it names. */
struct ippool {
	struct cni_netconf nc;
	struct pool_conf *conf;
	struct pool_store *store;
};

/* Parses stdin and the configuration file, opens the log and the store. */
int setup_open(struct plugin_ctx *ctx, struct ippool *p);
void setup_close(struct ippool *p);
/* The store settings of an operator tool: the configuration file's dataDir
 * and store (conf_path NULL: the default file, which may be absent). */
int setup_tool_conf(const char *conf_path, struct pool_conf *c, struct cni_err *err);
int setup_store(const struct pool_conf *c, bool nosync, struct pool_store **out, struct cni_err *err);
/* The store an operator tool works on (`ippool list`, `ippool reconcile`):
 * setup_tool_conf's, its dataDir replaced by data_dir unless NULL, opened. */
int setup_tool_store(const char *conf_path, const char *data_dir, struct pool_conf *c,
		     struct pool_store **out, struct cni_err *err);
/* An operator tool's failure on stderr: "ippool TOOL: <msg> (code N)". */
void setup_tool_error(const char *tool, const struct cni_err *err);
