// SPDX-License-Identifier: Apache-2.0
/* The node-wide GUID scan: whether another VF of the node holds an InfiniBand GUID, now or once its pod detaches. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if_arp.h>

#include "fileio.h"
#include "guid.h"
#include "guidscan.h"
#include "ibsysfs.h"
#include "nodelock.h"
#include "statefile.h"

/* Who holds a GUID among the VFs of the node's IPoIB PFs. */
struct dup_query {
	struct link_sock *nl;
	const struct sysfs_vf *vf;	/* the VF the GUID is for */
	struct sysfs_pf pf;		/* the PF walked now */
	uint64_t guid;
	int holder;			/* its VF index on pf, -1 none */
	struct cni_err *err;
};

/* A VF holds what its PF last set for it, which it takes at its next probe
 * (mlx5 reports 0 for a GUID never set); for a GUID never set, what it uses
 * now, its firmware's, as far as the host sees its RDMA device. */
static int find_holder(int vf, const struct vf_config *cfg, void *arg)
{
	struct dup_query *q = arg;
	uint64_t node = cfg->guids ? cfg->node_guid : 0, port = cfg->guids ? cfg->port_guid : 0;
	uint64_t used_node = 0, used_port = 0;
	char bdf[SYSFS_BDF_MAX];
	struct sysfs_vf other;

	if (!strcmp(q->pf.bdf, q->vf->pf_bdf) && vf == q->vf->vf_index)
		return 0;
	if ((!node || !port) && sysfs_virtfn(q->pf.bdf, vf, bdf) == 0 &&
	    sysfs_vf_rdma(bdf, &other) == 0 && ibsysfs_guids(&other, &used_node, &used_port) == 0) {
		node = node ? node : used_node;
		port = port ? port : used_port;
	}
	if (node != q->guid && port != q->guid)
		return 0;
	q->holder = vf;
	return 1;
}

static int pf_holder(const struct sysfs_pf *pf, void *arg)
{
	struct dup_query *q = arg;
	struct link_info link;
	int ret;

	/* the VF's own PF whatever sysfs says its type is */
	if (pf->type != ARPHRD_INFINIBAND && strcmp(pf->bdf, q->vf->pf_bdf))
		return 0;
	q->pf = *pf;
	ret = link_get_by_name(q->nl, pf->ifname, &link);
	if (ret == 0)
		ret = link_vf_walk(q->nl, link.ifindex, find_holder, q);
	if (ret < 0)
		cni_err_set(q->err, CNI_ERR_NETLINK, "cannot read the VF GUIDs of PF %s (%s): %s",
			    pf->ifname, pf->bdf, strerror(-ret));
	return ret;
}

/* Whether the state file the holder line h names is an IB attachment's
 * that saved guid as one its VF uses (no GUID given) or gets back when
 * detached (one given, which its PF reports now); into *state. A state
 * that does not read is none: its DEL cannot restore from it either. */
static bool state_saves(const struct record_holder *h, uint64_t guid, struct record_state *state)
{
	return statefile_read(h->dir, h->containerid, h->ifname, state) == 0 && state->ib &&
	       (state->ib_node_guid == guid || state->ib_port_guid == guid);
}

/* The attached VF other than vf whose state saved guid, found through the
 * VF lock files' holder lines: 1 with *state its state, else 0. A VF in a
 * pod is invisible to the PF walk when it keeps its firmware GUIDs (its PF
 * reports 0, its RDMA device is not in the host), and a VF given a GUID
 * gets its saved ones back at DEL. */
static int state_holder(const struct sysfs_vf *vf, uint64_t guid, struct record_state *state)
{
	struct record_holder h;
	char **names = NULL;
	int found = 0;
	size_t n = 0;

	if (fileio_list(NODELOCK_DIR, ".lock", &names, &n) < 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!found && statefile_lock_holder(names[i], &h) == 0 && h.dir[0] &&
		    state_saves(&h, guid, state) && strcmp(state->device_id, vf->bdf))
			found = 1;
		free(names[i]);
	}
	free(names);
	return found;
}

static int refuse_held(const char *key, uint64_t guid, const char *holder, struct cni_err *err)
{
	char text[GUID_STR_LEN + 1];

	guid_format(guid, text);
	cni_err_set(err, CNI_ERR_CONFIG, "%s %s is already held by VF %s: duplicate GUIDs break "
		    "the fabric; give each pod its own", key, text, holder);
	return -EEXIST;
}

int guidscan_check(struct link_sock *nl, const struct sysfs_vf *vf, uint64_t guid,
		   const char *key, struct cni_err *err)
{
	struct dup_query q = { .nl = nl, .vf = vf, .guid = guid, .holder = -1, .err = err };
	char bdf[SYSFS_BDF_MAX], holder[SYSFS_BDF_MAX + IFNAMSIZ + NETCONF_NAME_MAX + 64];
	struct record_state state;
	int ret;

	ret = sysfs_pf_walk(pf_holder, &q);
	if (ret < 0 && !err->msg[0])
		cni_err_set(err, CNI_ERR_IO, "cannot list the PCI devices under %s: %s",
			    sysfs_root(), strerror(-ret));
	if (ret < 0)
		return ret;
	if (ret > 0) {
		if (sysfs_virtfn(q.pf.bdf, q.holder, bdf) < 0)
			snprintf(bdf, sizeof(bdf), "?");
		snprintf(holder, sizeof(holder), "%s (VF %d of PF %s)", bdf, q.holder, q.pf.ifname);
		return refuse_held(key, guid, holder, err);
	}
	ret = state_holder(vf, guid, &state);
	if (ret > 0) {
		snprintf(holder, sizeof(holder), "%s (attached as %s:%s, which %s)",
			 state.device_id, state.containerid, state.ifname,
			 state.ib_guid ? "gets it back when detached" : "uses it");
		ret = refuse_held(key, guid, holder, err);
	}
	return ret;
}
