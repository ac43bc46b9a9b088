// SPDX-License-Identifier: Apache-2.0
/* InfiniBand VFs: the GUID set through the PF, the rebind that makes the VF
 * take it, and the IPoIB netdev the kernel recreates on a rebind or an RDMA move. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <net/if_arp.h>

#include "clock.h"
#include "guid.h"
#include "guidscan.h"
#include "ib.h"
#include "ibsysfs.h"
#include "log.h"
#include "netdev.h"
#include "nodelock.h"
#include "pcidrv.h"
#include "statefile.h"
#include "vf.h"

/* How long a rebound VF (or an IPoIB netdev an RDMA move recreates) may take
 * to show its netdev and RDMA device again. */
#define IB_REFIND_MS 10000
#define IB_POLL_MS 20
#define IB_GUID_FIX "supply one (the pod's infiniband-guid network-selection key, or " \
	"\"guid\" in the network), or let the SR-IOV operator assign VF GUIDs"

/* The VF's netdev type, else its RDMA port's link layer. */
static bool is_ib(struct attach *a)
{
	struct link_info link;

	if (a->vf.ifname[0] && link_get_by_name(a->host_nl, a->vf.ifname, &link) == 0)
		return link.type == ARPHRD_INFINIBAND;
	return ibsysfs_is_ib(&a->vf);
}

static int read_guids(struct attach *a, struct cni_err *err)
{
	int ret = ibsysfs_guids(&a->vf, &a->state.ib_node_guid, &a->state.ib_port_guid);

	if (ret < 0)
		cni_err_set(err, CNI_ERR_DEVICE, "cannot read the GUIDs of VF %s (RDMA device %s): %s",
			    a->vf.bdf, a->vf.n_rdma ? a->vf.rdma[0] : "none", strerror(-ret));
	return ret;
}

/* The Ethernet-only keys have no meaning on IPoIB (its PF has no such ops). */
static int check_keys(const struct attach *a, struct cni_err *err)
{
	const char *key = a->conf.ib.eth_key;

	if (!key && a->conf.has_mac)
		key = "runtimeConfig.mac or CNI_ARGS MAC";
	if (!key)
		return 0;
	cni_err_set(err, CNI_ERR_CONFIG, "%s is an Ethernet setting: VF %s is InfiniBand (its "
		    "address comes from its GUID)", key, a->vf.bdf);
	return -EINVAL;
}

int ib_prepare(struct attach *a, struct cni_err *err)
{
	char text[GUID_STR_LEN + 1];
	int ret;

	if (a->state.chained || !is_ib(a))
		return 0;
	a->state.ib = true;
	snprintf(a->state.ib_driver, sizeof(a->state.ib_driver), "%s", a->vf.driver);
	ret = check_keys(a, err);
	if (ret == 0)
		ret = ibconf_check_ready(&a->conf.ib, err);
	if (ret == 0)
		ret = read_guids(a, err);
	if (ret < 0)
		return ret;
	if (!a->conf.ib.has_guid && !guid_assigned(a->state.ib_node_guid)) {
		guid_format(a->state.ib_node_guid, text);
		cni_err_set(err, CNI_ERR_CONFIG, "VF %s has no valid GUID (%s) and none was given: "
			    IB_GUID_FIX, a->vf.bdf, text);
		return -EINVAL;
	}
	if (!a->conf.ib.has_guid)
		return 0;
	/* Two ADDs giving one GUID to two VFs (of one PF or two) at once would
	 * both pass guidscan_check, each looking before the other sets it: the
	 * VF locks do not meet. The GUID's own lock, node-wide, is held from
	 * the check until ib_apply has set the GUID through the PF, which from
	 * then on reports it for this VF to any later check; only ADDs giving
	 * the same GUID wait for each other, and not for a rebind. */
	ret = vf_find_pf(a, err);
	if (ret == 0)
		ret = attach_lock_guid(a, a->conf.ib.guid, NODELOCK_WAIT_MS, err);
	if (ret == 0)
		ret = guidscan_check(a->host_nl, &a->vf, a->conf.ib.guid, a->conf.ib.guid_key, err);
	return ret;
}

/* Calls try every IB_POLL_MS while it returns -EAGAIN, for at most
 * IB_REFIND_MS: what the kernel (or udev) does after a probe or a move
 * takes its time. try's last return. */
static int retry(struct attach *a, int (*try)(struct attach *a, void *arg), void *arg)
{
	long deadline = clock_ms() + IB_REFIND_MS;
	struct timespec pause = { 0, IB_POLL_MS * 1000000L };
	int ret;

	while ((ret = try(a, arg)) == -EAGAIN && clock_ms() < deadline)
		nanosleep(&pause, NULL);
	return ret;
}

/* The VF's netdev (and, with_rdma, its RDMA device) in the host as the
 * kernel shows them after a probe; a netdev udev renames meanwhile is looked
 * up again. */
static int found_in_host(struct attach *a, bool with_rdma)
{
	struct cni_err ignored = { 0 };
	char bdf[SYSFS_BDF_MAX];
	struct link_info link;
	struct rdmanl_dev dev;

	snprintf(bdf, sizeof(bdf), "%s", a->vf.bdf);
	if (sysfs_vf_read(bdf, &a->vf, &ignored) < 0 || !a->vf.ifname[0] ||
	    link_get_by_name(a->host_nl, a->vf.ifname, &link) < 0)
		return -EAGAIN;
	a->host_ifindex = link.ifindex;
	if (!with_rdma)
		return 0;
	if (a->vf.n_rdma != 1 || rdmanl_dev_by_name(a->host_ns, a->vf.rdma[0], &dev, &ignored) < 0)
		return -EAGAIN;
	snprintf(a->state.rdma_name, sizeof(a->state.rdma_name), "%s", dev.name);
	a->state.rdma_index = dev.index;
	return 0;
}

static int found_with_rdma(struct attach *a, void *arg)
{
	(void)arg;
	return found_in_host(a, true);
}

static int refind(struct attach *a, const char *after, struct cni_err *err)
{
	if (retry(a, found_with_rdma, NULL) == 0)
		return 0;
	cni_err_set(err, CNI_ERR_DEVICE, "VF %s did not come back after %s: no netdev and RDMA "
		    "device under its PCI address after %d ms", a->vf.bdf, after, IB_REFIND_MS);
	return -ETIMEDOUT;
}

/* One request per GUID: do_setvfinfo() acts on the first GUID of a nest. */
static int set_guids(struct attach *a, uint64_t node, uint64_t port, struct cni_err *err)
{
	struct vf_config cfg = { .node_guid = node, .port_guid = port };
	int ret = vf_find_pf(a, err);

	if (ret == 0)
		ret = link_vf_set(a->host_nl, a->pf_ifindex, a->vf.vf_index, &cfg,
				  VF_NODE_GUID | VF_PORT_GUID, err);
	return ret;
}

/* mlx5 takes the GUIDs at the VF's next probe. The VF lock is enough around
 * it: the new devices are found by the VF's PCI address, never by a name,
 * so another VF's rebind reusing an mlx5_N name cannot mislead this one, and
 * ib-sriov-cni's node-wide lock is not needed. */
static int rebind(struct attach *a, struct cni_err *err)
{
	int ret = pcidrv_unbind(a->state.ib_driver, a->vf.bdf);

	if (ret == 0 || ret == -ENODEV)
		ret = pcidrv_bind(a->state.ib_driver, a->vf.bdf);
	if (ret < 0 && ret != -EBUSY) {
		cni_err_set(err, CNI_ERR_DEVICE, "failed to rebind VF %s to %s: %s", a->vf.bdf,
			    a->state.ib_driver, strerror(-ret));
		return ret;
	}
	return refind(a, "its driver was rebound", err);
}

/* A failure leaves the VF half-given (GUIDs written, maybe unbound): ADD's
 * rollback runs ib_restore for this step too, and keeps the state for DEL
 * when that fails. The state names the GUID before the PF is written (a
 * DEL after such a rollback puts the old ones back) and the new RDMA
 * device after the rebind (DEL looks for it by name). */
int ib_apply(struct attach *a, struct cni_err *err)
{
	int ret;

	if (!a->state.ib || !a->conf.ib.has_guid)
		return 0;
	a->state.ib_guid = a->conf.ib.guid;
	ret = attach_save(a, err);
	if (ret < 0) {
		a->state.ib_guid = 0;		/* nothing written */
		return ret;
	}
	ret = set_guids(a, a->state.ib_guid, a->state.ib_guid, err);
	/* the PF shows it now (or the ADD ends): another check may look */
	attach_unlock_guid(a);
	if (ret == 0)
		ret = rebind(a, err);
	if (ret == 0)
		ret = attach_save(a, err);
	if (ret < 0)
		cni_err_wrap(err, "cannot give VF %s GUID %s", a->vf.bdf, a->conf.ib.guid_key);
	return ret;
}

/* The kernel names a new IPoIB netdev ib%d, the lowest number free, so the
 * rebinds of VFs restored at once hand out each other's names. A name
 * another netdev holds is waited for (that one is usually such a VF, about
 * to take its own name), this one parked meanwhile under a name of ours, so
 * two VFs holding each other's names both get theirs. A name still held
 * after IB_REFIND_MS is its holder's: the VF takes the next free ib%d. */
#define IB_PARKED_NAME "ibpark%d"
#define IB_KERNEL_NAME "ib%d"

/* One try at the host name (the netdev parked on the first that finds it
 * taken); -EAGAIN while another netdev holds it. */
struct name_try {
	struct cni_err *taken;
	bool parked;
};

static int take_host_name(struct attach *a, void *arg)
{
	struct name_try *t = arg;
	int ret = link_set_name(a->host_nl, a->host_ifindex, a->state.host_ifname, t->taken);

	if (ret != -EEXIST)
		return ret;
	if (!t->parked && link_set_name(a->host_nl, a->host_ifindex, IB_PARKED_NAME, t->taken) == 0) {
		log_info("VF %s waits for its host name %s, another netdev's now", a->vf.bdf,
			 a->state.host_ifname);
		t->parked = true;
	}
	return -EAGAIN;
}

static int rename_host(struct attach *a, struct cni_err *err)
{
	struct cni_err taken = { 0 };
	struct name_try t = { .taken = &taken };
	struct link_info link;
	int ret;

	if (!a->state.host_ifname[0] || !strcmp(a->vf.ifname, a->state.host_ifname))
		return 0;
	ret = retry(a, take_host_name, &t);
	snprintf(link.name, sizeof(link.name), "%s", a->state.host_ifname);
	if (ret == -EAGAIN) {
		ret = link_set_name(a->host_nl, a->host_ifindex, IB_KERNEL_NAME, &taken);
		if (ret == 0 && link_get_by_index(a->host_nl, a->host_ifindex, &link) < 0)
			snprintf(link.name, sizeof(link.name), "%s", IB_KERNEL_NAME);
		log_warn("VF %s: its host name %s is another netdev's after %d ms: it is %s now",
			 a->vf.bdf, a->state.host_ifname, IB_REFIND_MS, link.name);
	}
	if (ret < 0) {
		*err = taken;
		return ret;
	}
	snprintf(a->vf.ifname, sizeof(a->vf.ifname), "%s", link.name);
	return 0;
}

/* The lock file names the attachment that holds the VF: a late DEL of an
 * older one must not rebind a VF another pod now has. */
static bool holds_vf(const struct attach *a)
{
	struct record_holder h;

	return statefile_holder(a->lock_fd, &h) < 0 || !h.dir[0] || attach_is_holder(a, &h);
}

/* ADD read the VF's GUIDs before it saved the state and before it set one
 * (ib_guid), so wherever ib_guid is set (this ADD's rollback, a state file)
 * they are known and put back as they were, all zeros or all ones included
 * (ib-sriov-cni leaves the pod's GUID, its #217; mlx5 takes any value).
 * Only DEL without state does not know them (ib_locate says so). */
int ib_restore(struct attach *a, struct cni_err *err)
{
	int ret;

	if (!a->state.ib)
		return 0;
	if (!holds_vf(a)) {
		log_info("VF %s is held by another attachment: its GUID stays", a->vf.bdf);
		return 0;
	}
	if (a->state.ib_guid) {
		ret = set_guids(a, a->state.ib_node_guid, a->state.ib_port_guid, err);
		if (ret == 0)
			ret = rebind(a, err);
		if (ret == 0)
			a->state.ib_guid = 0;
	} else {
		/* the netdev the move back made, renamed below */
		ret = refind(a, "its RDMA device came back", err);
	}
	if (ret == 0)
		ret = rename_host(a, err);
	if (ret < 0)
		cni_err_wrap(err, "failed to restore InfiniBand VF %s", a->vf.bdf);
	return ret;
}

/* After an RDMA move into the pod: ipoib made a new netdev, in the host
 * (Linux before 6.17) or in the pod (6.17 on, "RDMA/ipoib: Use parent rdma
 * device net namespace"). In the pod it is found by its parent device (the
 * VF's PCI address) or as the RDMA port's netdev. */
static int find_in_pod(struct attach *a, struct link_info *link)
{
	struct rdmanl_dev dev;
	struct cni_err ignored = { 0 };

	if (link_get_by_parent(a->pod_nl, a->vf.bdf, link) == 0)
		return 0;
	if (rdmanl_dev_by_name(a->pod_ns, a->state.rdma_name, &dev, &ignored) == 0 &&
	    dev.ndev_index && link_get_by_index(a->pod_nl, (int)dev.ndev_index, link) == 0)
		return 0;
	return -EAGAIN;
}

static int ipoib_in_pod(struct attach *a, void *arg)
{
	struct cni_err *err = arg;
	char alias[LINK_ALIAS_MAX];
	struct link_info link;
	int ret;

	if (found_in_host(a, false) == 0)
		return netdev_move_to_pod(a, err);
	ret = find_in_pod(a, &link);
	if (ret < 0)
		return ret;
	ret = record_alias(&a->state, alias);
	if (ret == 0 && strcmp(link.name, a->state.ifname))
		ret = link_set_name(a->pod_nl, link.ifindex, a->state.ifname, err);
	if (ret == 0)
		ret = link_set_alias(a->pod_nl, link.ifindex, alias, err);
	if (ret == 0)
		a->pod_ifindex = link.ifindex;
	return ret;
}

int ib_netdev_to_pod(struct attach *a, struct cni_err *err)
{
	int ret;

	if (!a->state.ib || !a->state.has_rdma)
		return 0;
	ret = retry(a, ipoib_in_pod, err);
	if (ret == -EAGAIN)
		cni_err_set(err, CNI_ERR_DEVICE, "VF %s has no IPoIB netdev %d ms after its RDMA "
			    "device %s moved into netns %s", a->vf.bdf, IB_REFIND_MS,
			    a->state.rdma_name, a->state.netns);
	return ret;
}

/* The netdev in the pod dies with the RDMA device's move back. */
int ib_netdev_to_host(struct attach *a, struct cni_err *err)
{
	(void)err;
	if (a->state.ib && a->state.has_rdma)
		a->pod_ifindex = 0;
	return 0;
}

/* DEL without state: our link in the pod, or the VF's netdev the kernel
 * recreated in the host when the pod netns died, says which link layer.
 * The GUID the VF had before ADD is unknown then: it keeps the pod's. */
void ib_locate(struct attach *a)
{
	struct link_info link;

	if (a->pod_ifindex && link_get_by_index(a->pod_nl, a->pod_ifindex, &link) == 0)
		a->state.ib = link.type == ARPHRD_INFINIBAND;
	else
		a->state.ib = is_ib(a);
	if (a->state.ib) {
		snprintf(a->state.ib_driver, sizeof(a->state.ib_driver), "%s", a->vf.driver);
		log_warn("VF %s: no state file: its GUID before ADD is unknown, it keeps the one "
			 "it has", a->vf.bdf);
	}
}

/* CHECK: the PF still gives the VF the network's GUID, as node and as port
 * GUID; the message names the one that differs and both values. */
int ib_check(struct attach *a, struct cni_err *err)
{
	char want[GUID_STR_LEN + 1], node[GUID_STR_LEN + 1], port[GUID_STR_LEN + 1];
	uint64_t guid = a->conf.ib.guid;
	struct vf_config cfg;
	int ret;

	if (!a->conf.ib.has_guid)
		return 0;
	ret = vf_read(a, err);
	if (ret == 0)
		ret = vf_find_pf(a, err);
	if (ret < 0)
		return ret;
	ret = link_vf_get(a->host_nl, a->pf_ifindex, a->vf.vf_index, &cfg);
	if (ret < 0) {
		cni_err_set(err, CNI_ERR_CHECK, "cannot read the GUIDs PF %s gives VF %s: %s",
			    a->vf.pf_ifname, a->vf.bdf, strerror(-ret));
		return ret;
	}
	if (!cfg.guids)
		cfg.node_guid = cfg.port_guid = 0;
	if (cfg.node_guid == guid && cfg.port_guid == guid)
		return 0;
	guid_format(guid, want);
	guid_format(cfg.node_guid, node);
	guid_format(cfg.port_guid, port);
	if (cfg.node_guid != guid && cfg.port_guid != guid)
		cni_err_set(err, CNI_ERR_CHECK, "VF %s has node GUID %s and port GUID %s, not %s "
			    "(%s)", a->vf.bdf, node, port, want, a->conf.ib.guid_key);
	else
		cni_err_set(err, CNI_ERR_CHECK, "VF %s has %s GUID %s, not %s (%s)", a->vf.bdf,
			    cfg.node_guid != guid ? "node" : "port",
			    cfg.node_guid != guid ? node : port, want, a->conf.ib.guid_key);
	return -EINVAL;
}
