/* SPDX-License-Identifier: Apache-2.0 */
/* The node's CNI network config files (.conf, .conflist, .json in a conf
 * dir) as a flat list of plugin configs, each with its list's cniVersion
 * and name, so a plugin's keys (dataDir, ipam) can be looked at one by one. */
#pragma once

#include <stddef.h>
#include <cjson/cJSON.h>

/* Adds the plugin configs of one file's text to the array out; -EINVAL when
 * the text is not a network config or list (nothing added). */
int conffiles_flatten(const char *text, cJSON *out);
/* Every config file of dir, flattened into a new array (*out, caller
 * deletes); files that do not parse are skipped. An absent dir is empty. */
int conffiles_load(const char *dir, cJSON **out);
