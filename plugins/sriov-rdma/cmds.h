/* SPDX-License-Identifier: Apache-2.0 */
/* The commands of sriov-rdma (main.c's tables), one file each: the CNI verbs and the argv command. */
#pragma once

#include "plugin.h"

int cmd_add(struct plugin_ctx *ctx);
int cmd_del(struct plugin_ctx *ctx);
int cmd_check(struct plugin_ctx *ctx);
int cmd_gc(struct plugin_ctx *ctx);
int cmd_status(struct plugin_ctx *ctx);
/* sriov-rdma reconcile [--grace S] [--dry-run] [--json]: exit 0, 1 or 2. */
#define CMD_RECONCILE_USAGE "usage: sriov-rdma reconcile [--grace SECONDS] [--dry-run] [--json]\n"
int cmd_reconcile(int argc, char **argv);
