/* SPDX-License-Identifier: Apache-2.0 */
/* The RDMA simulator's world: a JSON state file shared, under a lock, by every
 * process that uses librdmasim.so or rdmasim-ctl. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>
#include <sys/stat.h>

#define RDMASIM_NAME_MAX 64

struct rdmasim_dev {
	char name[RDMASIM_NAME_MAX];
	uint32_t index;
	char pci[32];
	char ndev[IFNAMSIZ];
	uint32_t ndev_index;
	unsigned long netns;		/* inode of the netns it is in */
	/* Its driver has no disassociate_ucontext (rxe, siw): it never
	 * changes netns (EOPNOTSUPP, as in shared mode) */
	bool soft;
};

/* Past 64 KiB of IFLA_VFINFO_LIST (about 222 VFs with stats, 334 without)
 * its 16-bit length wraps, as the kernel's nla_nest_end() lets it */
#define RDMASIM_MAX_VFS 400

/* A VF's admin settings as the PF driver keeps them (ndo_set_vf_*). */
struct rdmasim_vf {
	uint8_t mac[6];
	uint32_t vlan, qos;
	uint16_t vlan_proto;		/* host order: ETH_P_8021Q or ETH_P_8021AD */
	bool spoofchk, trust;
	uint32_t link_state;		/* IFLA_VF_LINK_STATE_* */
	uint32_t min_tx_rate, max_tx_rate;
	/* IPoIB PF: what the PF last set for the VF's next probe (mlx5_ib's
	 * vfs_ctx; 0 never set), not what the VF uses now */
	uint64_t node_guid, port_guid;
};

/* The VF settings a PF's driver has no ndo_set_vf_* for (EOPNOTSUPP). */
enum rdmasim_vf_op {
	VFOP_MAC = 1 << 0, VFOP_VLAN = 1 << 1, VFOP_RATE = 1 << 2, VFOP_SPOOFCHK = 1 << 3,
	VFOP_LINK_STATE = 1 << 4, VFOP_TRUST = 1 << 5, VFOP_GUID = 1 << 6,
};

/* An SR-IOV PF (a netdev of the host netns) whose VFs the simulator keeps:
 * rtnetlink requests about its VF info are answered from here. */
struct rdmasim_pf {
	char name[IFNAMSIZ];
	uint32_t ifindex;
	/* The PF's netdev is IPoIB (ipoib_netdev_ops_pf): VF GUIDs and link
	 * state only, a 20-byte address carrying guid, its own port GUID. */
	bool ib;
	uint64_t guid;
	int n_vfs;
	unsigned int lacks;		/* enum rdmasim_vf_op */
	uint32_t getlink_error;		/* errno of a GETLINK asking its VF info; 0 none */
	struct rdmasim_vf vfs[RDMASIM_MAX_VFS];
};

/* A GPU node's rails. */
#define RDMASIM_MAX_PFS 8

/* No cap on devices: a GPU node has 8 PFs with up to 128 VFs each. */
struct rdmasim_state {
	bool shared;
	int n, cap;
	struct rdmasim_dev *devs;	/* malloc'd or in map, rdmasim_free() */
	void *map;			/* the snapshot devs lies in (private), or NULL */
	size_t map_len;
	struct stat json;		/* the JSON file it was loaded from */
	/* Where device i's object starts in that file (offs[n]: where the
	 * last ends), when rdmasim wrote it; NULL otherwise. malloc'd. */
	uint32_t *offs;
	/* rdmasim_mark(): the one device changed since the load (-1: more) */
	bool marked;
	int only;
	/* The simulated PFs, in the order rdmasim-ctl pf added them. */
	int n_pfs;
	struct rdmasim_pf pfs[RDMASIM_MAX_PFS];
};

/* The enum rdmasim_vf_op bit named "mac", "vlan", "rate", "spoofchk",
 * "link_state" or "trust" (as the state file and rdmasim-ctl spell them); 0 otherwise. */
unsigned int rdmasim_vf_op(const char *name);

/* INFINIBAND_ALEN: flags and QP number, subnet prefix fe80::/64, port GUID. */
#define RDMASIM_IPOIB_ALEN 20
void rdmasim_ipoib_addr(uint32_t qpn, uint64_t guid, uint8_t out[RDMASIM_IPOIB_ALEN]);
/* The 20-byte address of an IPoIB PF's own netdev. */
void rdmasim_pf_addr(const struct rdmasim_pf *pf, uint8_t out[RDMASIM_IPOIB_ALEN]);
/* ipoib's broadcast address (ipv4_bcast_addr with the default P_Key 0xffff). */
extern const uint8_t rdmasim_ipoib_bcast[RDMASIM_IPOIB_ALEN];

/* Inode of the host netns (/proc/1/ns/net). */
unsigned long rdmasim_host_netns(void);
/* Inode of the calling thread's netns, 0 when unknown. */
unsigned long rdmasim_current_netns(void);
/* Takes the world's lock (flock on "<path>.lock"): returns the fd or -errno. */
int rdmasim_lock(const char *path);
void rdmasim_unlock(int fd);
/* On failure too, st holds what rdmasim_free() releases. */
int rdmasim_load(const char *path, struct rdmasim_state *st);
void rdmasim_free(struct rdmasim_state *st);
/* A new zeroed device at the end of st->devs, NULL when out of memory. */
struct rdmasim_dev *rdmasim_add(struct rdmasim_state *st);
/* The state as JSON text (pretty: indented, else one line, quicker to
 * parse at a thousand devices), malloc'd; NULL on allocation failure. */
char *rdmasim_json(const struct rdmasim_state *st, bool pretty);
/* Atomic replace (temp file + rename), so unlocked readers see whole files.
 * When only one device was marked changed, the file read at load is copied
 * with that device's object written anew. */
int rdmasim_save(const char *path, const struct rdmasim_state *st);
/* d is the only change a save has to write (a move); any other change
 * leaves it unmarked, and the save writes everything. */
void rdmasim_mark(struct rdmasim_state *st, const struct rdmasim_dev *d);
struct rdmasim_dev *rdmasim_find(struct rdmasim_state *st, uint32_t index);
/* The simulated PF of that netdev, NULL when none. */
struct rdmasim_pf *rdmasim_pf_find(struct rdmasim_state *st, uint32_t ifindex);
struct rdmasim_pf *rdmasim_pf_by_name(struct rdmasim_state *st, const char *name);
/* A device outside the host netns blocks netns mode changes (EBUSY). */
bool rdmasim_any_moved(const struct rdmasim_state *st);
