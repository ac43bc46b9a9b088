/* SPDX-License-Identifier: Apache-2.0 */
/* The CNI verbs and argv tools of the ippool binary, one file each. */
#pragma once

#include "plugin.h"

int cmd_add(struct plugin_ctx *ctx);
int cmd_del(struct plugin_ctx *ctx);
int cmd_check(struct plugin_ctx *ctx);
int cmd_gc(struct plugin_ctx *ctx);
int cmd_status(struct plugin_ctx *ctx);

/* argv mode (no CNI_COMMAND): `ippool list`, `ippool fill`, `ippool reconcile`. */
int tool_list(int argc, char **argv);
int tool_fill(int argc, char **argv);
int tool_reconcile(int argc, char **argv);
int tool_release_node(int argc, char **argv);
