/* SPDX-License-Identifier: Apache-2.0 */
/* One attachment (containerID, ifname -> VF) while a verb works on it: the request, its saved state, what the steps hand on, the live handles. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include "cniargs.h"
#include "conf.h"
#include "ipamexec.h"
#include "link.h"
#include "plugin.h"
#include "record.h"
#include "result.h"
#include "sysfs.h"

struct attach {
	/* The request: the config and CNI_ARGS attach_new read. */
	struct conf conf;
	const char *conf_text;		/* stdin, passed on to IPAM */
	size_t conf_len;
	struct cni_args args;

	/* What the state file holds (record.h): the attachment's identity and
	 * what DEL restores. Its deviceID and vfIndex are vf's: copied in by
	 * attach_save, out by attach_load. */
	struct record_state state;

	/* What the steps find and hand on; not saved. */
	struct sysfs_vf vf;		/* vf.c; ib.c again after a rebind */
	int pf_ifindex;			/* vf_find_pf */
	int host_ifindex;		/* ADD: the VF netdev in the host (netdev.c, ib.c) */
	int pod_ifindex;		/* 0 until the netdev is in the pod */
	bool vf_set;			/* ADD: vf_apply sets conf.vf on the PF */
	bool from_state;		/* DEL: a state file named this attachment */
	bool netns_gone;		/* reconcile: the recorded netns is gone (its path may name another) */
	struct cni_result result;
	cJSON *out;			/* ADD's result document */
	char *devinfo_doc;		/* ADD: the device-info file to write, NULL when none */

	/* Live handles, released by attach_free. */
	int host_ns;
	int pod_ns;			/* -1 when the pod netns is gone */
	struct link_sock *host_nl;
	struct link_sock *pod_nl;
	int lock_fd;			/* the VF lock (nodelock.h) */
	int guid_lock_fd;		/* ADD: the GUID lock, from check to set (ib.c) */
	struct ipamexec_run ipam;		/* the IPAM plugin while it runs beside a move */
};

/* Allocates, parses env/args/config; handles closed. */
int attach_new(const struct plugin_ctx *ctx, struct attach **out, struct cni_err *err);
/* Another attachment, (containerid, ifname), from its state file in dir,
 * its device taken from the file: what GC and ADD undo on others' behalf.
 * -ENOENT when there is no such file (or it does not read). */
int attach_new_saved(const struct plugin_ctx *ctx, const char *dir, const char *containerid,
		     const char *ifname, struct attach **out, struct cni_err *err);
void attach_free(struct attach *a);

/* Opens the host netns/rtnetlink socket and, when the path exists, the pod's.
 * missing_ok: a pod netns that is gone leaves pod_ns -1 (DEL) instead of failing. */
int attach_open_netns(struct attach *a, bool missing_ok, struct cni_err *err);
/* The VF lock of conf.device_id (nodelock.h), waiting up to wait_ms. */
int attach_lock(struct attach *a, int wait_ms, struct cni_err *err);
/* The GUID lock (nodelock.h), waiting as attach_lock. unlock releases it (a
 * no-op when not held); attach_free does too. */
int attach_lock_guid(struct attach *a, uint64_t guid, int wait_ms, struct cni_err *err);
void attach_unlock_guid(struct attach *a);

/* The state file in conf.data_dir, through statefile.c, under the VF lock
 * held: save records the attachment as the VF's holder in the lock file;
 * load is -ENOENT when absent or damaged; remove clears the holder when it
 * names this attachment. */
int attach_save(struct attach *a, struct cni_err *err);
int attach_load(struct attach *a, struct cni_err *err);
int attach_remove(struct attach *a, struct cni_err *err);
/* Whether the holder h, read from the VF lock, names this attachment's state file. */
bool attach_is_holder(const struct attach *a, const struct record_holder *h);
