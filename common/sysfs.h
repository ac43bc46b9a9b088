/* SPDX-License-Identifier: Apache-2.0 */
/* Reads under /sys or $SYSFS_PATH: a VF's PF, index, driver, netdev, RDMA device; the node's SR-IOV PFs. */
#pragma once

#include <stdbool.h>
#include <net/if.h>
#include "err.h"

#define SYSFS_BDF_MAX 32
#define SYSFS_NAME_MAX 64
#define SYSFS_MAX_RDMA 4

struct sysfs_vf {
	char bdf[SYSFS_BDF_MAX];		/* "0000:3b:00.2" */
	char pf_bdf[SYSFS_BDF_MAX];
	char pf_ifname[IFNAMSIZ];		/* "" when the PF has no netdev in this netns */
	int vf_index;				/* N of physfn/virtfnN */
	char driver[SYSFS_NAME_MAX];		/* "" when unbound */
	char ifname[IFNAMSIZ];			/* "" when not in this netns (in a pod) */
	char rdma[SYSFS_MAX_RDMA][SYSFS_NAME_MAX];	/* infiniband/<dev> here (and auxiliary SFs) */
	int n_rdma;
};

/* $SYSFS_PATH or "/sys" (no trailing slash). */
const char *sysfs_root(void);
/* PCI address syntax: dddd:bb:dd.f (lower-case hex). */
bool sysfs_valid_bdf(const char *bdf);
/* Auxiliary device id syntax: [a-z0-9_]+(.[a-z0-9_]+)*.N, e.g. "mlx5_core.sf.4". */
bool sysfs_valid_aux_id(const char *id);
/* Facts about the VF; errors (CNI_ERR_DEVICE) only for: no such PCI device,
 * not a VF (no physfn), VF not listed by its PF. Driver, netdev and RDMA
 * presence are left to the caller to judge. */
int sysfs_vf_read(const char *bdf, struct sysfs_vf *out, struct cni_err *err);
/* Only bdf and its RDMA devices (infiniband/; none when absent): what a
 * look at every VF of a node needs, in one directory read each. */
int sysfs_vf_rdma(const char *bdf, struct sysfs_vf *out);
/* The same facts for a sub-function under bus/auxiliary/devices/<id>: bdf holds
 * the id, vf_index is -1 and the PF fields are "". Errors: no such device. */
int sysfs_aux_read(const char *id, struct sysfs_vf *out, struct cni_err *err);
/* An SR-IOV PF: VFs created (sriov_numvfs above 0) and a netdev in this netns. */
struct sysfs_pf {
	char bdf[SYSFS_BDF_MAX];
	char ifname[IFNAMSIZ];
	int type;				/* net/<ifname>/type (ARPHRD_*), -1 unknown */
};

/* Calls fn for every such PF under bus/pci/devices; a non-zero return of
 * fn ends the walk and is returned (-errno when the directory does not read). */
int sysfs_pf_walk(int (*fn)(const struct sysfs_pf *pf, void *arg), void *arg);
/* The PCI address of VF n of PF pf_bdf (its virtfnN link). */
int sysfs_virtfn(const char *pf_bdf, int n, char out[SYSFS_BDF_MAX]);
/* The first line of a small sysfs attribute file (at most size-1 bytes,
 * newline cut). -errno: a read error is what an absent attribute gives
 * (e.g. EINVAL for an empty GID slot's type). */
int sysfs_read_attr(const char *path, char *buf, size_t size);
/* text as an integer attribute holds it ("%d"): decimal, optional sign,
 * nothing after it, within int; -EINVAL for anything else. */
int sysfs_parse_int(const char *text, int *out);
/* sysfs_read_attr, then sysfs_parse_int: -errno, or -EINVAL for text that is no int. */
int sysfs_read_int(const char *path, int *out);
