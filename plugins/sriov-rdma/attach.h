/* SPDX-License-Identifier: Apache-2.0 */
/* One attachment (containerID, ifname -> VF): what ADD did, so DEL can undo it. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>
#include "cniargs.h"
#include "conf.h"
#include "env.h"
#include "ipamexec.h"
#include "link.h"
#include "linkvf.h"
#include "plugin.h"
#include "rdmanl.h"
#include "record.h"
#include "result.h"
#include "sysfs.h"

/* IFLA_IFALIAS on the VF while it is in a pod: "sriov-rdma:<host-ifname>:<containerID>".
 * It survives the pod netns (the kernel returns the VF with it), so DEL can
 * restore the name without any file and tell whose VF it is. */
#define ATTACH_ALIAS_PREFIX "sriov-rdma:"

struct attach {
	char network[NETCONF_NAME_MAX];	/* the config's name; "" in a state file of an earlier version */
	char containerid[NETCONF_NAME_MAX];
	char ifname[IFNAMSIZ];
	char netns[PATH_MAX];		/* "" when unknown (DEL may have none) */
	struct conf conf;
	const char *conf_text;		/* stdin, passed on to IPAM */
	size_t conf_len;
	struct cni_args args;
	struct sysfs_vf vf;

	/* The VF as it was on the host: recorded by ADD, restored by DEL. */
	char host_ifname[IFNAMSIZ];
	char host_alias[LINK_ALIAS_MAX];
	uint8_t host_mac[6];
	bool host_up;
	bool chained;			/* an earlier plugin moved the netdev */
	int pf_ifindex;
	struct vf_config vf_orig;	/* VF settings before ADD ... */
	unsigned int vf_changed;	/* ... of the fields ADD changed */
	bool has_rdma;
	char rdma_name[RDMANL_NAME_MAX];
	uint32_t rdma_index;
	/* InfiniBand (ib.c): the GUIDs the VF used before ADD, the one ADD set
	 * (node and port; 0 none), the driver it is rebound to. */
	bool ib;
	uint64_t ib_node_guid, ib_port_guid;
	uint64_t ib_guid;
	char ib_driver[SYSFS_NAME_MAX];

	struct cni_result result;
	cJSON *out;			/* ADD's result document */
	char *devinfo_doc;		/* ADD: the device-info file to write, NULL when none */

	/* Handles, not saved. */
	int host_ns;
	int pod_ns;			/* -1 when the pod netns is gone */
	struct link_sock *host_nl;
	struct link_sock *pod_nl;
	int lock_fd;
	int guid_lock_fd;		/* ADD: the GUID lock, from check to set (ib.c) */
	int host_ifindex;		/* ADD: the VF netdev in the host (prepare) */
	int pod_ifindex;		/* 0 until the netdev is in the pod */
	bool vf_set;			/* ADD: vf_apply sets conf.vf on the PF */
	bool from_state;		/* DEL: a state file named this attachment */
	struct ipamexec_run ipam;		/* the IPAM plugin while it runs beside a move */
};

/* Allocates, parses env/args/config; handles closed. */
int attach_new(const struct plugin_ctx *ctx, struct attach **out, struct cni_err *err);
/* Another attachment, (containerid, ifname), from its state file in dir,
 * its device taken from the file: what GC and ADD undo on others' behalf.
 * -ENOENT when there is no such file (or it does not read). */
int attach_new_saved(const struct plugin_ctx *ctx, const char *dir, const char *containerid,
		     const char *ifname, struct attach **out, struct cni_err *err);
/* Sets the attachment's identity (from the env, or from a state file for GC). */
void attach_set_id(struct attach *a, const char *containerid, const char *ifname,
		   const char *netns);
void attach_free(struct attach *a);

/* Opens the host netns/rtnetlink socket and, when the path exists, the pod's.
 * missing_ok: a pod netns that is gone leaves pod_ns -1 (DEL) instead of failing. */
int attach_open_netns(struct attach *a, bool missing_ok, struct cni_err *err);
/* The per-VF lock, node-wide: ATTACH_LOCK_DIR/<deviceID>.lock for every
 * network and dataDir, so a late DEL of an old pod and the ADD of a new pod
 * that got the same VF, in whatever network, run one after the other, never
 * interleaved. Waits up to wait_ms (ATTACH_LOCK_WAIT_MS for ADD and DEL);
 * -ETIMEDOUT after. The doctor looks here too. */
#define ATTACH_LOCK_DIR "/run/sriov-rdma/locks"
#define ATTACH_LOCK_WAIT_MS 30000
int attach_lock(struct attach *a, int wait_ms, struct cni_err *err);
/* The per-GUID lock, node-wide: ATTACH_GUID_LOCK_DIR/<16 hex digits>.lock
 * (a directory of its own: the doctor counts VF locks), waiting as
 * attach_lock. One empty file per GUID ever locked, gone with /run at boot.
 * unlock releases it (a no-op when not held); attach_free does too. */
#define ATTACH_GUID_LOCK_DIR ATTACH_LOCK_DIR "/guids"
int attach_lock_guid(struct attach *a, uint64_t guid, int wait_ms, struct cni_err *err);
void attach_unlock_guid(struct attach *a);

/* The alias ADD puts on the VF (-ENAMETOOLONG for a containerID too long to
 * fit IFALIASZ), and its parse (-EINVAL when not ours). */
int attach_alias(const struct attach *a, char out[LINK_ALIAS_MAX]);
int attach_alias_parse(const char *alias, char host_ifname[IFNAMSIZ], char *containerid,
		       size_t size);

/* The attachment that holds the VF (its state file, saved under the VF
 * lock), read from the lock file: h->dir "" when none. -EBADMSG when the
 * lock file holds anything its writer cannot have written. */
int attach_holder(const struct attach *a, struct record_holder *h);
/* The same read from any VF lock file (lock_name in ATTACH_LOCK_DIR), not
 * held: for the doctor and for looks at every attachment of the node.
 * -ENOENT when there is no such file, -EBADMSG when it is damaged. */
int attach_lock_holder(const char *lock_name, struct record_holder *h);
/* Whether the holder h names this attachment's state file. */
bool attach_is_holder(const struct attach *a, const struct record_holder *h);
/* State file <dataDir>/<containerID>:<ifname>.json. load: -ENOENT when absent
 * (and, with a warning, when it does not read). save records the attachment
 * as the VF's holder in the lock file; remove clears that when it names this
 * attachment. */
int attach_save(const struct attach *a, struct cni_err *err);
int attach_load(struct attach *a, struct cni_err *err);
int attach_remove(struct attach *a, struct cni_err *err);
