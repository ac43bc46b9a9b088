# SPDX-License-Identifier: Apache-2.0
# Harness for InfiniBand tests, sourced after lib.sh: an IPoIB PF whose VFs rdmasim-drv binds and rebinds as mlx5 does.
# shellcheck shell=bash
# FX_* of lib.sh are read and set here:
# shellcheck disable=SC2034,SC2153
#
# fx_setup_ib [--vfs N] [--ipoib-netns host|dev] [--no-guid I]
# fx_setup's NIC with an IPoIB PF (VF GUIDs set through it, `sim pf ... ib`)
# and, in place of the veth VF stand-ins, VFs bound to mlx5_core by
# rdmasim-drv: each has an IPoIB netdev stand-in (a tun device of type
# infiniband, "ib%d") and an RDMA device (lowest free mlx5_N, a new index at
# each probe), both recreated by an unbind/bind of the VF and the netdev by a
# move of the RDMA device. --ipoib-netns: where that move recreates the
# netdev: in the host (Linux before 6.17, the default) or in the RDMA
# device's netns (6.17 on). --no-guid I: VF I's firmware gave it no GUID (all
# zeros), as met on H200 nodes.
#
# Each VF I comes up with firmware GUIDs FX_VF_NODE_GUID[I] / FX_VF_PORT_GUID[I]
# (16 hex digits) until the PF sets others.

RDMASIM_DRV=${RDMASIM_DRV:-$T_BUILD/tests/rdmasim/rdmasim-drv}

# drv CMD ARGS...: a request to this run's rdmasim-drv.
drv() {
	"$RDMASIM_DRV" "$RDMA_SIM_STATE" "$@"
}

fx_drv_stop() {
	drv quit 2>/dev/null
}

fx_setup_ib() {
	local nvfs=2 where=host noguid=-1 i bdf
	while [ $# -gt 0 ]; do
		case $1 in
		--vfs) nvfs=$2; shift ;;
		--ipoib-netns) where=$2; shift ;;
		--no-guid) noguid=$2; shift ;;
		*) echo "fx_setup_ib: unknown option $1" >&2; return 1 ;;
		esac
		shift
	done
	fx_setup --vfs "$nvfs" --vf-info || return
	sim pf "$FX_PF" "$nvfs" ib || return
	# the Ethernet VF stand-ins make way for the driver model's
	for ((i = 0; i < nvfs; i++)); do
		bdf=${FX_VF_BDF[i]}
		ip link del "${FX_VF_IF[i]}" || return
		rm -rf "${FX_DEVICES:?}/$bdf/net" "${FX_DEVICES:?}/$bdf/infiniband"
		FX_VF_IF[i]='' FX_VF_RDMA[i]='' FX_VF_IDX[i]=0
	done
	jq --arg pf "$FX_PF_BDF" '.devices |= map(select(.pci == $pf))' "$RDMA_SIM_STATE" \
		>"$RDMA_SIM_STATE.new" && mv "$RDMA_SIM_STATE.new" "$RDMA_SIM_STATE" || return
	# fx_sync leaves them to rdmasim-drv
	fx_vfs_json >"$FX/vfs.json" && rm -f "$FX/synced" || return
	FX_DRV_PID=$(drv serve "$P") || return
	T_AT_EXIT+=(fx_drv_stop)
	drv ipoib-netns "$where" || return
	FX_VF_NODE_GUID=() FX_VF_PORT_GUID=()
	for ((i = 0; i < nvfs; i++)); do
		FX_VF_NODE_GUID[i]=$(printf '0002c90300b1%04x' "$i")
		FX_VF_PORT_GUID[i]=$(printf '0002c90300b2%04x' "$i")
		if [ "$i" -eq "$noguid" ]; then
			FX_VF_NODE_GUID[i]=0000000000000000 FX_VF_PORT_GUID[i]=0000000000000000
		fi
		drv vf "${FX_VF_BDF[i]}" "$i" mlx5_core "${FX_VF_NODE_GUID[i]}" \
			"${FX_VF_PORT_GUID[i]}" || return
	done
	FX_IB=1
}

# ib_rdma I: VF I's RDMA device now (name, "" when it has none).
ib_rdma() {
	jq -r --arg pci "${FX_VF_BDF[$1]}" '.devices[] | select(.pci == $pci) | .name' \
		"$RDMA_SIM_STATE"
}

# ib_rdma_index I: its RDMA device index.
ib_rdma_index() {
	jq -r --arg pci "${FX_VF_BDF[$1]}" '.devices[] | select(.pci == $pci) | .index' \
		"$RDMA_SIM_STATE"
}

# ib_link I [NETNS]: VF I's IPoIB netdev's `ip -j addr` object in NETNS (default
# host), empty when it is not there. Its ifindex is what the RDMA port reports.
ib_link() {
	local nsarg=() idx
	[ -n "${2:-}" ] && nsarg=(-n "$2")
	idx=$(jq -r --arg pci "${FX_VF_BDF[$1]}" '.devices[] | select(.pci == $pci) | .ndev_index' \
		"$RDMA_SIM_STATE")
	[ -n "$idx" ] || return 0
	ip "${nsarg[@]}" -d -j addr show 2>/dev/null |
		jq -c --argjson idx "$idx" '.[] | select(.ifindex == $idx and .link_type == "infiniband")'
}

# ib_sysfs_guid I: the node GUID VF I's RDMA device shows in sysfs (host view).
ib_sysfs_guid() {
	local dev
	dev=$(ib_rdma "$1")
	cat "$SYSFS_PATH/bus/pci/devices/${FX_VF_BDF[$1]}/infiniband/$dev/node_guid" 2>/dev/null
}

# sysfs_write ATTR DRIVER BDF: `echo BDF > /sys/bus/pci/drivers/DRIVER/ATTR`
# (dd: one open, one write), the simulator preloaded. Prints dd's error.
sysfs_write() {
	printf '%s' "$3" | env LD_PRELOAD="$RDMASIM_LIB" \
		dd of="$SYSFS_PATH/bus/pci/drivers/$2/$1" status=none 2>&1
}

# ib_pod_die NETNS-NAME: the pod netns dies: its RDMA devices go back to the
# host and IPoIB recreates their netdevs there (the old ones die with it).
ib_pod_die() {
	drv netns-gone "$(netns_inode "$1")" && sim_netns_gone "$(netns_inode "$1")" &&
		netns_del "$1"
}
