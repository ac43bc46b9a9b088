// SPDX-License-Identifier: Apache-2.0
/* sriov-rdma: an SR-IOV VF and its RDMA device into a pod, and back. */
#include "cmds.h"
#include "plugin.h"

static const struct plugin_verb verbs[] = {
	{ CNI_CMD_ADD, cmd_add },
	{ CNI_CMD_DEL, cmd_del },
	{ CNI_CMD_CHECK, cmd_check },
	{ CNI_CMD_GC, cmd_gc },
	{ CNI_CMD_STATUS, cmd_status },
};

int main(void)
{
	return plugin_main(CALLREC_SRIOV_RDMA, verbs, sizeof(verbs) / sizeof(verbs[0]));
}
