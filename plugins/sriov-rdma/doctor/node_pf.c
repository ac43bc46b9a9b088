// SPDX-License-Identifier: Apache-2.0
/* Node checks of each SR-IOV PF (VF count, link) and each of its VFs
 * (driver, netdev, RDMA device, uverbs char device, VF settings). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "fileio.h"
#include "ibdev.h"
#include "node.h"
#include "record.h"
#include "statefile.h"
#include "sysfs.h"

struct pf {
	char bdf[SYSFS_BDF_MAX];
	char dir[PATH_MAX];
	int numvfs, totalvfs, n_virtfn;
	char ifname[IFNAMSIZ];
	bool has_rdma;
	int ifindex;		/* 0: no PF netdev in the host */
};

struct vf {
	struct node *node;
	const struct pf *pf;
	struct sysfs_vf sys;
	struct ibdev_uverbs uverbs;
	bool has_uverbs;
	struct link_info link;	/* the VF netdev in the host, when sys.ifname is set */
	bool in_host;
};

static int read_int(const char *dir, const char *name, int *v)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return sysfs_read_int(path, v);
}

static bool dir_has_entries(const char *dir, const char *sub, char *first, size_t size)
{
	char path[PATH_MAX];
	char **names = NULL;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	if (first)
		first[0] = '\0';
	if (fileio_list(path, "", &names, &n) < 0)
		return false;
	if (first && n)
		snprintf(first, size, "%s", names[0]);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return n > 0;
}

static int count_virtfn(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;
	int i;

	for (i = 0;; i++) {
		if (snprintf(path, sizeof(path), "%s/virtfn%d", dir, i) >= (int)sizeof(path) ||
		    lstat(path, &st) < 0)
			return i;
	}
}

/* A PCI device is a PF of interest when it can have VFs and has some, or
 * has an RDMA device (a NIC that should have them). */
static bool pf_read(struct node *n, const char *bdf, struct pf *pf)
{
	struct link_info li;

	memset(pf, 0, sizeof(*pf));
	snprintf(pf->bdf, sizeof(pf->bdf), "%s", bdf);
	snprintf(pf->dir, sizeof(pf->dir), "%s/bus/pci/devices/%s", sysfs_root(), bdf);
	if (read_int(pf->dir, "sriov_totalvfs", &pf->totalvfs) < 0 || pf->totalvfs <= 0)
		return false;
	read_int(pf->dir, "sriov_numvfs", &pf->numvfs);
	pf->n_virtfn = count_virtfn(pf->dir);
	pf->has_rdma = dir_has_entries(pf->dir, "infiniband", NULL, 0);
	dir_has_entries(pf->dir, "net", pf->ifname, sizeof(pf->ifname));
	if (pf->ifname[0] && link_get_by_name(n->nl, pf->ifname, &li) == 0)
		pf->ifindex = li.ifindex;
	return pf->numvfs > 0 || pf->has_rdma;
}

static void check_vf_count(const struct pf *pf, struct report *r)
{
	char fix[REPORT_TEXT_MAX];

	snprintf(fix, sizeof(fix), "ask for at most %d VFs (numVfs in the SriovNetworkNodePolicy), "
		 "or raise the firmware's limit (mlxconfig -d %s set SRIOV_EN=1 NUM_OF_VFS=N, "
		 "then reboot)", pf->totalvfs, pf->bdf);
	if (pf->numvfs > pf->totalvfs)
		report_add(r, REPORT_FAIL, "pf-vfs", pf->bdf, fix,
			   "sriov_numvfs %d is above sriov_totalvfs %d", pf->numvfs, pf->totalvfs);
	else if (pf->numvfs == 0)
		report_add(r, REPORT_WARN, "pf-vfs", pf->bdf, fix,
			   "no VFs (sriov_totalvfs %d): a numVfs above it makes VF creation fail",
			   pf->totalvfs);
	else if (pf->n_virtfn != pf->numvfs)
		report_add(r, REPORT_WARN, "pf-vfs", pf->bdf,
			   "let the SR-IOV operator finish (or reset sriov_numvfs to 0, then N)",
			   "sriov_numvfs %d but %d VFs listed (virtfnN)", pf->numvfs, pf->n_virtfn);
	else
		report_add(r, REPORT_OK, "pf-vfs", pf->bdf, NULL, "%d VFs (sriov_totalvfs %d)",
			   pf->numvfs, pf->totalvfs);
}

static void check_pf_link(struct node *n, const struct pf *pf, struct report *r)
{
	struct link_info li;
	char fix[REPORT_TEXT_MAX];

	if (!pf->ifname[0] || link_get_by_name(n->nl, pf->ifname, &li) < 0) {
		report_add(r, REPORT_WARN, "pf-link", pf->bdf,
			   "bind the PF to its kernel driver (mlx5_core)", "no PF netdev in the host");
		return;
	}
	snprintf(fix, sizeof(fix), "ip link set %s up (the SR-IOV operator keeps PFs up: see its "
		 "SriovNetworkNodeState)", pf->ifname);
	if (!li.up)
		report_add(r, REPORT_FAIL, "pf-link", pf->bdf, fix, "%s is down: its VFs have no link",
			   pf->ifname);
	else if (!li.carrier)
		report_add(r, REPORT_FAIL, "pf-link", pf->bdf, "check the cable, the transceiver and "
			   "the switch port", "%s is up but has no carrier: its VFs have no link",
			   pf->ifname);
	else
		report_add(r, REPORT_OK, "pf-link", pf->bdf, NULL, "%s up, carrier", pf->ifname);
}

/* Drivers that give the VF to user space: no kernel netdev, so no RDMA device. */
static bool userspace_driver(const char *driver)
{
	return !strcmp(driver, "vfio-pci") || !strcmp(driver, "vfio_pci") ||
	       !strncmp(driver, "uio", 3) || !strcmp(driver, "igb_uio");
}

static void check_driver(struct vf *v, struct report *r)
{
	if (userspace_driver(v->sys.driver))
		report_add(r, REPORT_WARN, "vf-driver", v->sys.bdf, "use deviceType: netdevice in the "
			   "SriovNetworkNodePolicy of this VF's pool (right for a DPDK pool only)",
			   "bound to %s: no netdev, no RDMA device (ADD fails with 100)", v->sys.driver);
	else if (!v->sys.driver[0])
		report_add(r, REPORT_WARN, "vf-driver", v->sys.bdf, "bind it to its kernel driver "
			   "(echo BDF > /sys/bus/pci/drivers/mlx5_core/bind)", "no driver bound");
	else
		report_add(r, REPORT_OK, "vf-driver", v->sys.bdf, NULL, "%s", v->sys.driver);
}

static void check_netdev(struct vf *v, struct report *r)
{
	char name[SYSFS_BDF_MAX + 8];
	struct record_holder h;

	if (userspace_driver(v->sys.driver))
		return;
	if (v->in_host) {
		report_add(r, REPORT_OK, "vf-netdev", v->sys.bdf, NULL, "%s in the host%s",
			   v->sys.ifname, strncmp(v->link.alias, RECORD_ALIAS_PREFIX,
						  strlen(RECORD_ALIAS_PREFIX)) ? "" :
			   " under its pod name (see vf-parked)");
		return;
	}
	snprintf(name, sizeof(name), "%s.lock", v->sys.bdf);
	if (statefile_lock_holder(name, &h) == 0 && h.dir[0])
		report_add(r, REPORT_OK, "vf-netdev", v->sys.bdf, NULL, "in a pod: attachment "
			   "%s:%s (state in %s)", h.containerid, h.ifname, h.dir);
	else
		report_add(r, REPORT_WARN, "vf-netdev", v->sys.bdf, "if no pod holds it through "
			   "another plugin (sriov-cni), rebind the VF to its driver",
			   "not in the host and no sriov-rdma attachment holds it");
}

static void check_rdma(struct vf *v, struct report *r)
{
	if (!v->pf->has_rdma || userspace_driver(v->sys.driver))
		return;
	if (v->sys.n_rdma > 0)
		report_add(r, REPORT_OK, "vf-rdma", v->sys.bdf, NULL, "%s", v->sys.rdma[0]);
	else if (v->has_uverbs)
		report_add(r, REPORT_OK, "vf-rdma", v->sys.bdf, NULL, "%s (not in the host: in a pod)",
			   v->uverbs.ibdev);
	else
		report_add(r, REPORT_FAIL, "vf-rdma", v->sys.bdf, FIX_IS_RDMA " (or use \"rdma\": "
			   "false in networks that need no RDMA)", "no RDMA device (its PF has one): "
			   "ADD with rdma fails with 103");
}

static void check_uverbs(struct vf *v, struct report *r)
{
	char path[PATH_MAX];
	struct stat st;

	if (!v->pf->has_rdma || userspace_driver(v->sys.driver) ||
	    (!v->sys.n_rdma && !v->has_uverbs))
		return;
	if (!v->has_uverbs) {
		report_add(r, REPORT_FAIL, "vf-uverbs", v->sys.bdf, "load ib_uverbs (modprobe "
			   "ib_uverbs): without it no process can use verbs", "%s has no uverbs char "
			   "device", v->sys.rdma[0]);
		return;
	}
	snprintf(path, sizeof(path), "/dev/infiniband/%s", v->uverbs.name);
	if (stat(path, &st) < 0 || !S_ISCHR(st.st_mode))
		report_add(r, REPORT_FAIL, "vf-uverbs", v->sys.bdf, "check devtmpfs is mounted on /dev "
			   "and udev did not remove /dev/infiniband", "%s: no char device %s",
			   v->uverbs.ibdev, path);
	else if (v->uverbs.has_devt && (major(st.st_rdev) != v->uverbs.major ||
					minor(st.st_rdev) != v->uverbs.minor))
		report_add(r, REPORT_FAIL, "vf-uverbs", v->sys.bdf, "remove the stale node and let "
			   "devtmpfs recreate it (reload ib_uverbs)", "%s is %u:%u, sysfs says %u:%u",
			   path, major(st.st_rdev), minor(st.st_rdev), v->uverbs.major,
			   v->uverbs.minor);
	else
		report_add(r, REPORT_OK, "vf-uverbs", v->sys.bdf, NULL, "%s for %s", path,
			   v->uverbs.ibdev);
}

/* A free VF (its netdev in the host, not parked by a dead pod) should carry
 * no VLAN and no trust: only a pod's attachment sets them. */
static void check_free_settings(struct vf *v, struct report *r)
{
	struct vf_config cfg;
	char fix[REPORT_TEXT_MAX];

	if (!v->in_host || !v->pf->ifindex ||
	    !strncmp(v->link.alias, RECORD_ALIAS_PREFIX, strlen(RECORD_ALIAS_PREFIX)) ||
	    link_vf_get(v->node->vf_nl, v->pf->ifindex, v->sys.vf_index, &cfg) < 0)
		return;
	snprintf(fix, sizeof(fix), "ip link set %s vf %d vlan 0 trust off (left by a DEL that did "
		 "not finish, or by another plugin)", v->pf->ifname, v->sys.vf_index);
	if (cfg.vlan || cfg.trust == 1)
		report_add(r, REPORT_WARN, "vf-settings", v->sys.bdf, fix,
			   "free VF with VLAN %d, trust %s: no attachment holds it", cfg.vlan,
			   cfg.trust == 1 ? "on" : "off");
	else
		report_add(r, REPORT_OK, "vf-settings", v->sys.bdf, NULL, "VLAN 0, trust off");
}

static const struct {
	void (*run)(struct vf *v, struct report *r);
} vf_checks[] = {
	{ check_driver },
	{ check_netdev },
	{ check_rdma },
	{ check_uverbs },
	{ check_free_settings },
};

static void check_vf(struct node *n, const struct pf *pf, int index, struct report *r)
{
	char link[PATH_MAX], target[PATH_MAX], subject[64];
	struct cni_err err = { 0 };
	struct vf v = { .node = n, .pf = pf };
	char *base;
	ssize_t len;

	len = snprintf(link, sizeof(link), "%s/virtfn%d", pf->dir, index) < (int)sizeof(link) ?
	      readlink(link, target, sizeof(target) - 1) : -1;
	target[len > 0 ? len : 0] = '\0';
	base = strrchr(target, '/');
	if (len <= 0 || sysfs_vf_read(base ? base + 1 : target, &v.sys, &err) < 0) {
		snprintf(subject, sizeof(subject), "%s vf%d", pf->bdf, index);
		report_add(r, REPORT_WARN, "vf-sysfs", subject, "reset the PF's VFs (sriov_numvfs 0, "
			   "then N)", "cannot read VF %d: %s", index, err.msg[0] ? err.msg : "no link");
		return;
	}
	v.in_host = v.sys.ifname[0] && link_get_by_name(n->nl, v.sys.ifname, &v.link) == 0;
	snprintf(link, sizeof(link), "%s/bus/pci/devices/%s/infiniband_verbs", sysfs_root(),
		 v.sys.bdf);
	v.has_uverbs = ibdev_uverbs_find(link, NULL, &v.uverbs) == 0;
	for (size_t i = 0; i < sizeof(vf_checks) / sizeof(vf_checks[0]); i++)
		vf_checks[i].run(&v, r);
}

void node_pf_checks(struct node *n, struct report *r)
{
	char dir[PATH_MAX];
	char **names = NULL;
	size_t count = 0;
	int pfs = 0;

	snprintf(dir, sizeof(dir), "%s/bus/pci/devices", sysfs_root());
	fileio_list(dir, "", &names, &count);
	for (size_t i = 0; i < count; i++) {
		struct pf pf;

		if (pf_read(n, names[i], &pf)) {
			pfs++;
			check_vf_count(&pf, r);
			check_pf_link(n, &pf, r);
			for (int vf = 0; vf < pf.n_virtfn; vf++)
				check_vf(n, &pf, vf, r);
		}
		free(names[i]);
	}
	free(names);
	if (!pfs)
		report_add(r, REPORT_WARN, "pf", "node", "enable SR-IOV in the BIOS and the NIC "
			   "firmware, and create VFs (SriovNetworkNodePolicy numVfs)",
			   "no SR-IOV PF under %s/bus/pci/devices", sysfs_root());
}
