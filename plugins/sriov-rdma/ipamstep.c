// SPDX-License-Identifier: Apache-2.0
/* The IPAM step: addresses from the plugin ipam.type names (ipamexec.h runs it); chained use has none. */
#include <string.h>

#include "ipamexec.h"
#include "ipamstep.h"

/* IPAM types that only keep books and never look at the pod's link. Each
 * netns move waits out a kernel RCU barrier (~16 ms here) with the CPU idle:
 * these run meanwhile. Any other type (dhcp talks through the link) runs
 * while the link is in the pod: after the moves on ADD, before them on DEL. */
static const char *const bookkeeping[] = { "ippool", "host-local", "static", "whereabouts" };

static bool has_ipam(const struct attach *a)
{
	return a->conf.has_ipam && !a->state.chained;
}

static bool beside_moves(const struct attach *a)
{
	for (size_t i = 0; i < sizeof(bookkeeping) / sizeof(bookkeeping[0]); i++)
		if (!strcmp(a->conf.ipam_type, bookkeeping[i]))
			return true;
	return false;
}

/* The plugin holds the VF lock with us: a DEL that follows an ADD the
 * runtime killed waits until the plugin it left running has allocated. */
static int start(struct attach *a, enum cni_cmd cmd, struct cni_err *err)
{
	return ipamexec_start(&a->ipam, cmd, a->conf.ipam_type, a->conf_text, a->conf_len,
			      a->lock_fd, err);
}

int ipamstep_add_start(struct attach *a, struct cni_err *err)
{
	if (!has_ipam(a) || !beside_moves(a))
		return 0;
	return start(a, CNI_CMD_ADD, err);
}

/* A move failed while the plugin ran: what it allocated goes back. */
int ipamstep_add_abandon(struct attach *a, struct cni_err *err)
{
	struct cni_err ignored = { 0 };

	if (a->ipam.pid < 0)
		return 0;
	if (ipamexec_finish(&a->ipam, &a->result, &ignored) < 0)
		return 0;	/* it allocated nothing */
	return ipamstep_del(a, err);
}

int ipamstep_add(struct attach *a, struct cni_err *err)
{
	int ret = 0;

	if (!has_ipam(a))
		return 0;
	if (a->ipam.pid < 0)
		ret = start(a, CNI_CMD_ADD, err);
	return ret ? ret : ipamexec_finish(&a->ipam, &a->result, err);
}

int ipamstep_del(struct attach *a, struct cni_err *err)
{
	if (!has_ipam(a))
		return 0;
	return ipamexec_call(CNI_CMD_DEL, a->conf.ipam_type, a->conf_text, a->conf_len, NULL, err);
}

int ipamstep_del_start(struct attach *a, struct cni_err *err)
{
	if (!has_ipam(a))
		return 0;
	return beside_moves(a) ? start(a, CNI_CMD_DEL, err) : ipamstep_del(a, err);
}

int ipamstep_del_finish(struct attach *a, struct cni_err *err)
{
	return a->ipam.pid < 0 ? 0 : ipamexec_finish(&a->ipam, NULL, err);
}
