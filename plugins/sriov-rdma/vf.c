// SPDX-License-Identifier: Apache-2.0
/* The VF: found through sysfs, judged usable, its admin settings set on the PF. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vf.h"

/* Drivers that give the VF to user space: no kernel netdev, so no RDMA device. */
static const char *const userspace_drivers[] = {
	"vfio-pci", "uio_pci_generic", "igb_uio", "vfio_pci",
};

static int check_driver(const struct sysfs_vf *vf, struct cni_err *err)
{
	for (size_t i = 0; i < sizeof(userspace_drivers) / sizeof(userspace_drivers[0]); i++) {
		if (strcmp(vf->driver, userspace_drivers[i]) == 0) {
			cni_err_set(err, CNI_ERR_DEVICE, "VF %s is bound to %s: RDMA needs a kernel "
				    "netdevice; use deviceType: netdevice in the "
				    "SriovNetworkNodePolicy", vf->bdf, vf->driver);
			return -EINVAL;
		}
	}
	if (!vf->driver[0]) {
		cni_err_set(err, CNI_ERR_DEVICE, "VF %s has no driver bound: bind it to its "
			    "kernel driver (e.g. mlx5_core)", vf->bdf);
		return -ENODEV;
	}
	return 0;
}

int vf_read(struct attach *a, struct cni_err *err)
{
	if (a->conf.is_aux)
		return sysfs_aux_read(a->conf.device_id, &a->vf, err);
	return sysfs_vf_read(a->conf.device_id, &a->vf, err);
}

int vf_resolve(struct attach *a, struct cni_err *err)
{
	int ret = vf_read(a, err);

	if (ret == 0)
		ret = check_driver(&a->vf, err);
	return ret;
}

/* The config keys behind each VF field, for messages. */
static const struct {
	unsigned int field;
	const char *keys;
} field_keys[] = {
	{ VF_MAC, "mac" },
	{ VF_VLAN, "vlan/vlanQoS/vlanProto" },
	{ VF_SPOOFCHK, "spoofchk" },
	{ VF_TRUST, "trust" },
	{ VF_LINK_STATE, "link_state" },
	{ VF_RATE, "min_tx_rate/max_tx_rate" },
};

static const char *field_names(unsigned int mask, char out[128])
{
	size_t len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < sizeof(field_keys) / sizeof(field_keys[0]); i++) {
		if (mask & field_keys[i].field)
			len += (size_t)snprintf(out + len, 128 - len, "%s%s", len ? ", " : "",
						field_keys[i].keys);
	}
	return out;
}

/* Fields whose original value the PF did not report cannot be restored. */
static unsigned int restorable(const struct vf_config *v)
{
	unsigned int mask = VF_MAC | VF_VLAN | VF_RATE;

	if (v->spoofchk >= 0)
		mask |= VF_SPOOFCHK;
	if (v->trust >= 0)
		mask |= VF_TRUST;
	if (v->link_state >= 0)
		mask |= VF_LINK_STATE;
	return mask;
}

static bool has_pf(const struct attach *a)
{
	return !a->conf.is_aux && a->vf.pf_ifname[0];
}

int vf_find_pf(struct attach *a, struct cni_err *err)
{
	struct link_info pf;
	int ret;

	if (!has_pf(a)) {
		cni_err_set(err, CNI_ERR_DEVICE, "cannot apply VF settings to %s: no PF netdev "
			    "in the host netns", a->vf.bdf);
		return -ENODEV;
	}
	ret = link_get_by_name(a->host_nl, a->vf.pf_ifname, &pf);
	if (ret < 0) {
		cni_err_set(err, CNI_ERR_DEVICE, "PF %s of VF %s: %s", a->vf.pf_ifname, a->vf.bdf,
			    strerror(-ret));
		return ret;
	}
	a->pf_ifindex = pf.ifindex;
	return 0;
}

/* Why the PF's VF settings could not be read, and what to do about it. */
static void vf_read_error(const struct attach *a, int ret, const char *fields, struct cni_err *err)
{
	if (ret == -ENOENT)
		cni_err_set(err, CNI_ERR_NETLINK, "PF %s reports no settings for VF %d (%s): "
			    "cannot set %s", a->vf.pf_ifname, a->vf.vf_index, a->vf.bdf, fields);
	else if (ret == -EMSGSIZE)
		cni_err_set(err, CNI_ERR_NETLINK, "cannot read the VF settings of PF %s (VF %d, %s): "
			    "the kernel cannot fit its VF list in one netlink message (%s), as on "
			    "some InfiniBand PFs with many VFs: leave %s out of this network, or "
			    "create fewer VFs", a->vf.pf_ifname, a->vf.vf_index, a->vf.bdf,
			    strerror(-ret), fields);
	else
		cni_err_set(err, CNI_ERR_NETLINK, "cannot read the VF settings of PF %s (VF %d, %s): "
			    "%s: cannot set %s", a->vf.pf_ifname, a->vf.vf_index, a->vf.bdf,
			    strerror(-ret), fields);
}

/* Before any change: the PF, and the VF settings vf_apply will change as
 * they are now, so the state saved before vf_apply can put them back. The
 * MAC alone on a PF without readable VF info (a PF stand-in, a driver that
 * reports none, a VF list the kernel cannot send) is set on the netdev
 * only; any other setting needs the PF. */
int vf_prepare(struct attach *a, struct cni_err *err)
{
	unsigned int mask = a->conf.vf_mask;
	char names[128];
	int ret;

	if (!mask || a->state.chained || (mask == VF_MAC && !has_pf(a)))
		return 0;
	ret = vf_find_pf(a, err);
	if (ret < 0)
		return ret;
	ret = link_vf_get(a->host_nl, a->pf_ifindex, a->vf.vf_index, &a->state.vf_orig);
	if ((ret == -ENOENT || ret == -EMSGSIZE) && mask == VF_MAC)
		return 0;
	if (ret < 0) {
		vf_read_error(a, ret, field_names(mask & ~VF_MAC, names), err);
		return ret;
	}
	a->vf_set = true;
	a->state.vf_changed = mask & restorable(&a->state.vf_orig);
	return 0;
}

/* link_vf_set_some sends one setting at a time and stops at the one the
 * driver refuses: only those it had set before are put back, by ADD's
 * rollback (a partial step: a failed restore keeps the state for DEL).
 * Sending the refused one again, even with its old value, would be refused
 * again (and logged again by the driver) for nothing: it never changed. */
int vf_apply(struct attach *a, struct cni_err *err)
{
	unsigned int set = 0;
	int ret;

	if (!a->vf_set)
		return 0;
	ret = link_vf_set_some(a->host_nl, a->pf_ifindex, a->vf.vf_index, &a->conf.vf,
			       a->conf.vf_mask, &set, err);
	if (ret < 0)
		a->state.vf_changed &= set;
	return ret;
}

/* What was put back is no longer changed: a restore refused part-way leaves
 * only the rest for the next try. */
int vf_restore(struct attach *a, struct cni_err *err)
{
	unsigned int restored = 0;
	int ret;

	if (!a->state.vf_changed)
		return 0;
	ret = vf_find_pf(a, err);
	if (ret == 0)
		ret = link_vf_set_some(a->host_nl, a->pf_ifindex, a->vf.vf_index, &a->state.vf_orig,
				       a->state.vf_changed, &restored, err);
	a->state.vf_changed &= ~restored;
	return ret;
}
