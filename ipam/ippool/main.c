// SPDX-License-Identifier: Apache-2.0
/* ippool: the CNI verb table, and the argv tools when run outside CNI. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmds.h"

static const struct plugin_verb verbs[] = {
	{ CNI_CMD_ADD, cmd_add },
	{ CNI_CMD_DEL, cmd_del },
	{ CNI_CMD_CHECK, cmd_check },
	{ CNI_CMD_GC, cmd_gc },
	{ CNI_CMD_STATUS, cmd_status },
};

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} tools[] = {
	{ "list", tool_list },
	{ "fill", tool_fill },
	{ "reconcile", tool_reconcile },
	{ "release-node", tool_release_node },
};

int main(int argc, char **argv)
{
	if (getenv("CNI_COMMAND") || argc < 2)
		return plugin_main(CALLREC_IPPOOL, verbs, sizeof(verbs) / sizeof(verbs[0]));
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (!strcmp(argv[1], tools[i].name))
			return tools[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "usage: ippool list [--conf FILE] [--data-dir DIR] [--json]\n"
			"       ippool fill --data-dir DIR --range CIDR --count N [--network NAME]\n"
			"       ippool reconcile [--conf FILE] [--data-dir DIR] [--grace SECONDS] [--dry-run] [--json]\n"
			"       ippool release-node NODE [--conf FILE] [--force]\n"
			"(as a CNI plugin, ippool reads CNI_COMMAND and the config on stdin)\n");
	return 2;
}
