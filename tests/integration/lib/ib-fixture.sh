# SPDX-License-Identifier: Apache-2.0
# The InfiniBand NIC: IPoIB PFs and VFs that rdmasim-drv binds and rebinds as mlx5 does.
# shellcheck shell=bash
# shellcheck disable=SC2034,SC2153 # FX_* of fixture.sh are read and set here
#
# Sets:  RDMASIM_DRV    the driver model's binary (meson sets it; default in $T_BUILD)
#        FX_IB          1 once fx_setup_ib ran: fx_sync leaves the VFs' sysfs entries to rdmasim-drv
#        FX_DRV_PID     rdmasim-drv's pid (stopped at exit through T_AT_EXIT)
#        FX_VF_NODE_GUID[k], FX_VF_PORT_GUID[k]  VF k's firmware GUIDs
#        FX_VF_IF, FX_VF_RDMA, FX_VF_IDX  emptied: the driver model makes the VFs' netdevs and devices
#        T_AT_EXIT      appended (rdmasim-drv's stop, the GUID lock files)
# Reads: FX, FX_NVFS, FX_PF_IF, FX_PF_BDFS, FX_VF_BDF, FX_VF_PF, RDMA_SIM_STATE, SYSFS_PATH,
#        T_LOCK_DIR (fixture.sh); P (cleanup.sh); T_BUILD, RDMASIM_LIB (lib.sh)
#
# fx_setup_ib [--pfs N] [--vfs N] [--ipoib-netns host|dev] [--no-guid I]
# fx_setup's NIC with IPoIB PFs (VF GUIDs set through them, `sim pf ... ib`;
# sysfs net/<pf>/type 32, ARPHRD_INFINIBAND; --pfs N of them, --vfs VFs each)
# and, in place of the veth VF stand-ins, VFs bound to mlx5_core by
# rdmasim-drv: each has an IPoIB netdev stand-in (a tun device of type
# infiniband, "${P}ib%d") and an RDMA device (lowest free mlx5_N, a new index at
# each probe), both recreated by an unbind/bind of the VF and the netdev by a
# move of the RDMA device. --ipoib-netns: where that move recreates the
# netdev: in the host (Linux before 6.17, the default) or in the RDMA
# device's netns (6.17 on). --no-guid I: VF I's firmware gave it no GUID (all
# zeros), as met on H200 nodes.
#
# Each VF I (numbered over all PFs, as fx_setup does) comes up with firmware GUIDs FX_VF_NODE_GUID[I] / FX_VF_PORT_GUID[I]
# (16 hex digits, unique to this run) until the PF sets others.

RDMASIM_DRV=${RDMASIM_DRV:-$T_BUILD/tests/rdmasim/rdmasim-drv}

# drv CMD ARGS...: a request to this run's rdmasim-drv.
drv() {
	"$RDMASIM_DRV" "$RDMA_SIM_STATE" "$@"
}

fx_drv_stop() {
	drv quit 2>/dev/null
}

fx_setup_ib() {
	local nvfs=2 npfs=1 where=host noguid=-1 i p bdf
	while [ $# -gt 0 ]; do
		case $1 in
		--pfs) npfs=$2; shift ;;
		--vfs) nvfs=$2; shift ;;
		--ipoib-netns) where=$2; shift ;;
		--no-guid) noguid=$2; shift ;;
		*) echo "fx_setup_ib: unknown option $1" >&2; return 1 ;;
		esac
		shift
	done
	fx_setup --pfs "$npfs" --vfs "$nvfs" --vf-info || return
	for ((p = 0; p < npfs; p++)); do
		sim pf "${FX_PF_IF[p]}" "$nvfs" ib || return
		echo 32 >"$(fx_dir "${FX_PF_BDFS[p]}")/net/${FX_PF_IF[p]}/type" || return
	done
	# the Ethernet VF stand-ins make way for the driver model's
	for ((i = 0; i < FX_NVFS; i++)); do
		bdf=${FX_VF_BDF[i]}
		ip link del "${FX_VF_IF[i]}" || return
		rm -rf "$(fx_dir "$bdf")/net" "$(fx_dir "$bdf")/infiniband"
		FX_VF_IF[i]='' FX_VF_RDMA[i]='' FX_VF_IDX[i]=0
	done
	jq --arg pfs "${FX_PF_BDFS[*]}" '.devices |= map(select(.pci | IN($pfs | split(" ")[])))' \
		"$RDMA_SIM_STATE" \
		>"$RDMA_SIM_STATE.new" && mv "$RDMA_SIM_STATE.new" "$RDMA_SIM_STATE" || return
	# fx_sync leaves them to rdmasim-drv
	fx_vfs_json >"$FX/vfs.json" && rm -f "$FX/synced" || return
	FX_DRV_PID=$(drv serve "$P") || return
	T_AT_EXIT+=(fx_drv_stop)
	drv ipoib-netns "$where" || return
	FX_VF_NODE_GUID=() FX_VF_PORT_GUID=()
	# this run's own (its PID in them): a VF of a test running beside it, in
	# a pod, holds its firmware GUIDs node-wide, as ADD sees them; the GUID
	# locks ADDs giving them leave go at exit
	ib_guid_locks_go "0002$(printf '%06x' $(($$ & 0xffffff)))"
	for ((i = 0; i < FX_NVFS; i++)); do
		FX_VF_NODE_GUID[i]=$(printf '0002%06xb1%04x' $(($$ & 0xffffff)) "$i")
		FX_VF_PORT_GUID[i]=$(printf '0002%06xb2%04x' $(($$ & 0xffffff)) "$i")
		if [ "$i" -eq "$noguid" ]; then
			FX_VF_NODE_GUID[i]=0000000000000000 FX_VF_PORT_GUID[i]=0000000000000000
		fi
		drv vf "${FX_VF_BDF[i]}" $((i - FX_VF_PF[i] * nvfs)) mlx5_core "${FX_VF_NODE_GUID[i]}" \
			"${FX_VF_PORT_GUID[i]}" || return
	done
	FX_IB=1
}

# ib_guid_locks_go HEX: at exit, the GUID lock files (one per GUID an ADD
# gave, kept until reboot on a node) of the GUIDs starting with HEX, which
# only this test gives.
ib_guid_locks_go() {
	T_AT_EXIT+=("rm -f $T_LOCK_DIR/guids/$1*.lock")
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
