/* SPDX-License-Identifier: Apache-2.0 */
/* The CNI commands of sriov-rdma (main.c's table), one file each. */
#pragma once

#include "plugin.h"

int cmd_add(struct plugin_ctx *ctx);
int cmd_del(struct plugin_ctx *ctx);
int cmd_check(struct plugin_ctx *ctx);
int cmd_gc(struct plugin_ctx *ctx);
int cmd_status(struct plugin_ctx *ctx);
