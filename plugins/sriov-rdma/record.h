/* SPDX-License-Identifier: Apache-2.0 */
/* What an attachment leaves for later readers, without I/O: its state file, its VF lock file's holder line, the alias on its VF. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>
#include "link.h"
#include "linkvf.h"
#include "netconf.h"
#include "nsident.h"
#include "rdmanl.h"
#include "sysfs.h"

/* What ADD saves of its request for reconcile, which has no runtime to ask:
 * the network config as it came on stdin, CNI_ARGS and CNI_PATH, the IPAM
 * DEL's input. A config past RECORD_CONF_MAX is not saved (nor the rest of
 * the request: the attachment is then reconcile's "unknown"). */
#define RECORD_CONF_MAX 65536
#define RECORD_ARGS_MAX 4096
#define RECORD_PATH_MAX 4096

/* Exactly what the state file holds: the attachment, the host-side facts
 * DEL restores, the network GC is scoped to, an InfiniBand VF's GUIDs and
 * the request reconcile judges and undoes it by. Saved before ADD's first
 * change, read back by DEL, GC, reconcile and the doctor. */
struct record_state {
	char network[NETCONF_NAME_MAX];	/* the config's name; "" in an earlier version's file */
	char containerid[NETCONF_NAME_MAX];
	char ifname[IFNAMSIZ];
	char netns[PATH_MAX];		/* "" when unknown (DEL may have none) */
	char device_id[SYSFS_BDF_MAX];	/* the VF: PCI address, or auxiliary id of an SF */
	int vf_index;			/* N of its PF's virtfnN */

	/* The VF as it was on the host: recorded by ADD, restored by DEL. */
	char host_ifname[IFNAMSIZ];
	char host_alias[LINK_ALIAS_MAX];
	uint8_t host_mac[6];
	bool host_up;
	bool chained;			/* an earlier plugin moved the netdev */
	struct vf_config vf_orig;	/* VF settings before ADD (not its GUIDs: ib_*) ... */
	unsigned int vf_changed;	/* ... of the fields ADD changed */
	bool has_rdma;			/* the RDMA device moves with the netdev */
	char rdma_name[RDMANL_NAME_MAX];
	uint32_t rdma_index;

	/* InfiniBand (ib.c): the GUIDs the VF used before ADD, the one ADD set
	 * (node and port; 0 none), the driver it is rebound to. */
	bool ib;
	uint64_t ib_node_guid, ib_port_guid;
	uint64_t ib_guid;
	char ib_driver[SYSFS_NAME_MAX];

	/* The request (record_state_set_request): the netns CNI_NETNS named
	 * then, when, and the IPAM DEL's input. All unset in an earlier
	 * version's file, or when the request did not fit. */
	struct nsident ns;
	uint64_t created;		/* unix seconds */
	char conf[RECORD_CONF_MAX];
	char cni_args[RECORD_ARGS_MAX];
	char cni_path[RECORD_PATH_MAX];
};

/* The fields are a few hundred bytes, the saved request's strings at most
 * twice their size once escaped (the config is JSON: its only control bytes
 * are tab, CR and LF; the rest is visible ASCII): past this it is damage. */
#define RECORD_STATE_MAX (16384 + 2 * (RECORD_CONF_MAX + RECORD_ARGS_MAX + RECORD_PATH_MAX))

/* Records the request in s when every part of it is one the decoder takes
 * back: conf (len bytes) a JSON object with no control byte but tab, CR and
 * LF, shorter than RECORD_CONF_MAX; args and path (NULL: none) visible
 * ASCII that fits; ns known (ino and a boot id). -EINVAL or -E2BIG
 * otherwise, and s records no request. */
int record_state_set_request(struct record_state *s, const struct nsident *ns, uint64_t created,
			     const char *conf, size_t len, const char *args, const char *path);
/* Whether s records its request (reconcile can judge and undo it). */
bool record_state_has_request(const struct record_state *s);

/* The state file name <containerID>:<ifname>.json, and its split (-EINVAL
 * for other names). */
void record_state_name(const char *containerid, const char *ifname, char *out, size_t size);
int record_state_split(const char *name, char *containerid, size_t size, char ifname[IFNAMSIZ]);

/* The state file's text (malloc'd; NULL when out of memory). */
char *record_state_encode(const struct record_state *s);
/* Takes a state file's text (len bytes, NUL-terminated) into *s when it is
 * one record_state_encode writes, or one an earlier version wrote (no
 * "network": s->network ""; no request: those fields unset): every field
 * there with its type, numbers integral and within their type, identities
 * valid, the request whole or absent. Keys it does not know are left alone
 * (a later version's). -EBADMSG otherwise, *s untouched. */
int record_state_decode(const char *text, size_t len, struct record_state *s);

/* The lock file of a VF names the state file of the attachment that holds
 * it: "<dataDir>/<containerID>:<ifname>.json", no newline. */
struct record_holder {
	char dir[PATH_MAX];		/* "" when the lock file names no holder */
	char containerid[NETCONF_NAME_MAX];
	char ifname[IFNAMSIZ];
};

#define RECORD_HOLDER_MAX (PATH_MAX + NETCONF_NAME_MAX + IFNAMSIZ + 8)

/* The line for (dir, containerid, ifname): -EINVAL when dir is not one
 * record_holder_parse takes (absolute, no "." or ".." or empty component,
 * visible ASCII), -ENAMETOOLONG past RECORD_HOLDER_MAX. */
int record_holder_format(const char *dir, const char *containerid, const char *ifname,
			 char out[RECORD_HOLDER_MAX]);
/* An empty text is no holder; anything record_holder_format cannot have
 * written is -EBADMSG. */
int record_holder_parse(const char *text, size_t len, struct record_holder *h);
/* Whether h names the state file of (dir, containerid, ifname). */
bool record_holder_is(const struct record_holder *h, const char *dir, const char *containerid,
		      const char *ifname);

/* IFLA_IFALIAS on the VF while it is in a pod: "sriov-rdma:<host-ifname>:<containerID>".
 * It survives the pod netns (the kernel returns the VF with it), so DEL can
 * restore the name without any file and tell whose VF it is. */
#define RECORD_ALIAS_PREFIX "sriov-rdma:"

/* The alias ADD puts on the VF of s (-ENAMETOOLONG for a containerID too
 * long to fit IFALIASZ), and its parse (-EINVAL when not ours). */
int record_alias(const struct record_state *s, char out[LINK_ALIAS_MAX]);
int record_alias_parse(const char *alias, char host_ifname[IFNAMSIZ], char *containerid,
		       size_t size);
