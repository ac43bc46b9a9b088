// SPDX-License-Identifier: Apache-2.0
/* sriov-rdma: an SR-IOV VF and its RDMA device into a pod, and back; reconcile when run outside CNI. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmds.h"
#include "plugin.h"

static const struct plugin_verb verbs[] = {
	{ CNI_CMD_ADD, cmd_add },
	{ CNI_CMD_DEL, cmd_del },
	{ CNI_CMD_CHECK, cmd_check },
	{ CNI_CMD_GC, cmd_gc },
	{ CNI_CMD_STATUS, cmd_status },
};

/* A runtime never passes argv. */
int main(int argc, char **argv)
{
	if (getenv("CNI_COMMAND") || argc < 2)
		return plugin_main(CALLREC_SRIOV_RDMA, verbs, sizeof(verbs) / sizeof(verbs[0]));
	if (!strcmp(argv[1], "reconcile"))
		return cmd_reconcile(argc - 1, argv + 1);
	fprintf(stderr, CMD_RECONCILE_USAGE
		"(as a CNI plugin, sriov-rdma reads CNI_COMMAND and the config on stdin)\n");
	return 2;
}
