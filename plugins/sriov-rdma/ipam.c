// SPDX-License-Identifier: Apache-2.0
/* Addresses come from the IPAM plugin the config names; chained use has none. */
#include "ipamexec.h"
#include "steps.h"

int ipam_add(struct attach *a, struct cni_err *err)
{
	if (!a->conf.has_ipam || a->chained)
		return 0;
	return ipam_exec(CNI_CMD_ADD, a->conf.ipam_type, a->conf_text, a->conf_len, &a->result,
			 err);
}

int ipam_del(struct attach *a, struct cni_err *err)
{
	if (!a->conf.has_ipam || a->chained)
		return 0;
	return ipam_exec(CNI_CMD_DEL, a->conf.ipam_type, a->conf_text, a->conf_len, NULL, err);
}
