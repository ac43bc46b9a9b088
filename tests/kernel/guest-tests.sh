#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The lane's guest side: the plugins against a real kernel (ib_core in both netns modes, rdma_rxe, siw, netdevsim's VFs), TAP on stdout, the probe's transcript on fd 3.
# shellcheck source-path=SCRIPTDIR source=../integration/lib.sh
#
# The VF netdevs are veth stand-ins tied to netdevsim's VF indexes by a fake
# sysfs (netdevsim makes no VF netdevs and no PCI functions); each RDMA
# device lives on a veth of its own that never moves (moving the netdev an
# rxe device sits on would unregister it) and the fake sysfs gives it to
# its VF, as mlx5 gives a VF its device. No SR-IOV hardware here, so the
# harness is the host suite's, without the simulator: every netlink
# request below reaches this kernel.
IPAM=ippool
. /src/tests/integration/lib.sh

PROBE=${KERNEL_PROBE:-/opt/cni/bin/kernel-probe}
SRIOV_RDMA_DOCTOR=${SRIOV_RDMA_DOCTOR:-/opt/cni/bin/sriov-rdma-doctor}
NSIM_BUS=/sys/bus/netdevsim
NSIM_DBG=/sys/kernel/debug/netdevsim

# ---- the RDMA core ---------------------------------------------------------------
# mod_load NAME [PARAM...]: one module of the initramfs (crc32c-intel needs
# SSE 4.2, which the emulated CPU may lack: crc32c_generic stands in).
mod_load() {
	grep -q "^${1//-/_} " /proc/modules && return 0
	insmod "/lib/modules/$1.ko" "${@:2}" 2>/dev/null || [ "$1" = crc32c-intel ]
}

# rdma_core MODE: ib_core loaded (again) with netns_mode=MODE (0
# exclusive, 1 shared: the default), then rxe0 (index 0) and siw0 (1).
rdma_core() {
	local m
	rdma link delete rxe0 2>/dev/null
	rdma link delete siw0 2>/dev/null
	for m in siw rdma_rxe ib_uverbs ib_core; do
		! grep -q "^$m " /proc/modules || rmmod "$m" || return
	done
	while read -r m; do
		if [ "$m" = ib_core ]; then mod_load ib_core "netns_mode=$1"; else mod_load "$m"; fi ||
			return
	done </lib/modules/order
	rdma link add rxe0 type rxe netdev "${P}r0" && rdma link add siw0 type siw netdev "${P}r1"
}

# ---- the fixture: netdevsim PFs, veth VFs, the fake sysfs ------------------------------

# nsim_new ID NUMVFS: netdevsim device ID with NUMVFS VFs (max_vfs raised
# first: it is 4 by default and writable only with no VFs); prints its netdev.
nsim_new() {
	local id=$1 n=$2 i
	echo "$id 1" >"$NSIM_BUS/new_device" || return
	for ((i = 0; i < 50; i++)); do
		[ -n "$(ls "$NSIM_BUS/devices/netdevsim$id/net" 2>/dev/null)" ] && break
		sleep 0.1
	done
	nsim_vfs "$id" "$n" || return
	ls "$NSIM_BUS/devices/netdevsim$id/net"
}

nsim_vfs() {
	echo 0 >"$NSIM_BUS/devices/netdevsim$1/sriov_numvfs" &&
		echo "$2" >"$NSIM_DBG/netdevsim$1/max_vfs" &&
		echo "$2" >"$NSIM_BUS/devices/netdevsim$1/sriov_numvfs"
}

# rid_bdf RID: the PCI address of routing ID RID on PF 0000:3b:00.0's
# bus and after (ARI: 256 functions a bus).
# shellcheck disable=SC2317 # run through fixture
rid_bdf() {
	printf '0000:%02x:%02x.%x' $((0x3b + $1 / 256)) $(($1 % 256 / 8)) $(($1 % 8))
}

# kfx_setup NUMVFS STANDINS...: PF netdevsim1 with NUMVFS VFs and RDMA
# device rxepf (rxe on the PF's netdev, never moved); VF I of
# each STANDIN gets a veth stand-in ${P}vI (its peer on the switch's br0:
# 192.0.2.254/24); VF 0 is given rxe0 and VF 1 siw0. Sets the FX_* the
# harness reads (FX_VF_* indexed by VF index) and SYSFS_PATH.
# shellcheck disable=SC2317 # run through fixture
kfx_setup() {
	local n=$1 i dir pf links=()
	shift
	FX=$TMP/fx FX_SW=${P}sw FX_VFS_PER_PF=$n FX_NVFS=$n FX_STANDINS=("$@")
	export SYSFS_PATH=$FX/sys
	FX_PF=$(nsim_new 1 "$n") || return
	ip link set "$FX_PF" up
	# the PF's own RDMA device, as mlx5 has one (the doctor looks at VFs'
	# devices only on such a PF)
	rdma link add rxepf type rxe netdev "$FX_PF" || return
	FX_PF_BDF=0000:3b:00.0
	netns_add "$FX_SW" || return
	ip -n "$FX_SW" link add br0 type bridge && ip -n "$FX_SW" link set br0 up &&
		ip -n "$FX_SW" addr add 192.0.2.254/24 dev br0 || return
	pf=$SYSFS_PATH/devices/pci0000:3b/$FX_PF_BDF
	mkdir -p "$pf/net/$FX_PF" "$pf/infiniband/rxepf" "$SYSFS_PATH/bus/pci/devices" "$SYSFS_PATH/bus/pci/drivers/mlx5_core"
	cat "/sys/class/net/$FX_PF/ifindex" >"$pf/net/$FX_PF/ifindex"
	echo "$n" >"$pf/sriov_numvfs"
	echo "$n" >"$pf/sriov_totalvfs"
	echo 2 >"$pf/sriov_offset"
	echo 1 >"$pf/sriov_stride"
	links+=("$(pci_links "$FX_PF_BDF" mlx5_core)")
	for ((i = 0; i < n; i++)); do
		FX_VF_BDF[i]=$(rid_bdf $((2 + i)))
		dir=devices/pci${FX_VF_BDF[i]%:*}/${FX_VF_BDF[i]}
		mkdir -p "$SYSFS_PATH/$dir"
		links+=("../${FX_VF_BDF[i]} $pf/virtfn$i" "../../pci0000:3b/$FX_PF_BDF $SYSFS_PATH/$dir/physfn"
			"$(pci_links "${FX_VF_BDF[i]}" mlx5_core)")
	done
	printf '%s\n' "${links[@]}" | fx_symlinks || return
	for i in "$@"; do
		ip link add "${P}v$i" type veth peer name "v$i" netns "$FX_SW" &&
			ip -n "$FX_SW" link set "v$i" master br0 up || return
		FX_VF_IF[i]=${P}v$i
		FX_VF_IDX[i]=$(cat "/sys/class/net/${P}v$i/ifindex")
		FX_VF_MAC[i]=$(cat "/sys/class/net/${P}v$i/address")
	done
	FX_VF_RDMA[0]=rxe0 FX_VF_RDMA[1]=siw0
}

kfx_teardown() {
	local i
	for i in "${FX_STANDINS[@]}"; do ip link del "${P}v$i" 2>/dev/null; done
	netns_del "$FX_SW"
	rdma link delete rxepf
	echo 1 >"$NSIM_BUS/del_device"
	rm -rf "$FX"
	FX=
}

# fx_sync (run.sh calls it before each plugin run): sysfs is netns-tagged,
# so a stand-in's net/<name> shows while it is in this netns under its
# current name, and infiniband/<dev> while this netns sees the device.
fx_sync() {
	[ -n "$FX" ] || return 0
	local i dir name
	for i in "${FX_STANDINS[@]}"; do
		dir=$SYSFS_PATH/devices/pci${FX_VF_BDF[i]%:*}/${FX_VF_BDF[i]}
		rm -rf "$dir/net" "$dir/infiniband"
		name=$(ip -j link show | jq -r --argjson x "${FX_VF_IDX[i]}" '.[] | select(.ifindex == $x) | .ifname')
		mkdir -p "$dir/net"
		[ -z "$name" ] || { mkdir -p "$dir/net/$name" && echo "${FX_VF_IDX[i]}" >"$dir/net/$name/ifindex"; }
		[ -n "${FX_VF_RDMA[i]:-}" ] || continue
		mkdir -p "$dir/infiniband"
		[ ! -e "/sys/class/infiniband/${FX_VF_RDMA[i]}" ] || mkdir -p "$dir/infiniband/${FX_VF_RDMA[i]}"
	done
}

# rdma_visible NETNS|"": the RDMA devices a netns sees, sorted, one line.
rdma_visible() {
	if [ -n "$1" ]; then
		ip netns exec "$1" rdma -j dev show
	else
		rdma -j dev show
	fi | jq -r '[.[].ifname] | sort | join(" ")'
}

# pf_vfs: every VF of the PF as iproute2 reads the VF list (vf, mac, vlan,
# qos, spoofchk, trust, link state, rates), one line each.
pf_vfs() {
	ip -j -d link show "$FX_PF" | jq -r '.[0].vfinfo_list[]? | "vf \(.vf) \(.address) vlan=\(.vlan_list // [] | tostring)"
		+ " spoofchk=\(.spoofchk) trust=\(.trust) link_state=\(.link_state) rate=\(.rate | tostring)"'
}

# vf_read I: VF I as the plugin's own parser (common/linkvf.c) reads it.
vf_read() {
	"$PROBE" vf "$FX_PF" "$1"
}

# host_state: what an undone ADD must leave as it was: each stand-in
# (where, name, MAC, alias, up, addresses), the RDMA devices the host sees,
# the PF's VFs through both readers, IPAM's hold on $CID. Without a VLAN the
# protocol means nothing, and one cannot be put back as netdevsim starts:
# it reports 0 until a VLAN is set, the kernel takes only 802.1Q or 802.1ad.
host_state() {
	local i
	for i in "${FX_STANDINS[@]}"; do
		ip -d -j addr show | jq -r --argjson x "${FX_VF_IDX[i]}" --arg i "$i" '
			[.[] | select(.ifindex == $x)][0]
			| if . == null then "vf\($i): not in host" else
				"vf\($i): \(.ifname) \(.address) alias=\(.ifalias // "")"
				+ " up=\(.flags | index("UP") != null)"
				+ " addrs=\([.addr_info[]? | select(.scope == "global") | .local] | join(","))"
			  end'
		vf_read "$i" | sed 's/ vlan=0 qos=0 proto=0x8100 / vlan=0 qos=0 proto=0 /'
	done
	echo "rdma in host: $(rdma_visible "")"
	pf_vfs 2>/dev/null
	[ -n "${CID:-}" ] && ipam_holds "$CID" && echo "ipam holds $CID"
	return 0
}

# doctor_check CHECK SUBJECT: "STATUS seen" of that check in `doctor node --json`.
doctor_check() {
	jq -r --arg c "$1" --arg s "$2" '.checks[] | select(.check == $c and .subject == $s)
		| "\(.status) \(.seen)"' <<<"$DOCTOR_OUT"
}

doctor_node() {
	fx_sync
	DOCTOR_OUT=$(timeout 60 "$SRIOV_RDMA_DOCTOR" node --json --conf-dir "$TMP/net.d" \
		--data-dir "$TMP/state" --cni-bin-dir /opt/cni/bin 2>"$TMP/doctor.err")
}

# fixture DESC CMD...: a fixture step; the script ends at once when it fails.
fixture() {
	local desc=$1
	shift
	"$@" && return
	t_result 1 "$desc"
	done_testing
}

mkdir -p "$TMP/net.d"

# rxe0's and siw0's own netdevs
if ! mod_load veth || ! ip link add "${P}r0" type veth peer name "${P}q0" ||
	! ip link add "${P}r1" type veth peer name "${P}q1" || ! ip link set "${P}r0" up ||
	! ip link set "${P}r1" up; then
	skip_all "no veth"
fi

# ==== shared mode (ib_core's default) ===============================================
rdma_core 1 || skip_all "cannot load the RDMA core and rdma_rxe/siw"
is "$(rdma system show | awk '{print $2}')" shared "shared: the kernel says shared (rdma system show)"
is "$("$PROBE" rdmanl)" "mode shared" "shared: the plugin's rdmanl reads shared"
fixture "shared: netdevsim PF with 4 VFs, stand-ins, fake sysfs" kfx_setup 4 0 1 2 3
VF=0
cni STATUS "$(conf 1.1.0 '.rdma = true')" CNI_CONTAINERID= CNI_NETNS= CNI_IFNAME=
is "$RC/$(jout .code)" 1/50 'shared: STATUS with "rdma": true fails with code 50'
like "$(jout .msg)" "exclusive" "shared: STATUS says exclusive mode is needed"
cni STATUS "$(conf 1.1.0)" CNI_CONTAINERID= CNI_NETNS= CNI_IFNAME=
is "$RC" 0 'shared: STATUS without "rdma": ready'
pod_new
add_fails 102 "rdma system set netns exclusive" 'shared: "rdma": true' "$(conf 1.0.0 '.rdma = true')"
like "$(jout .msg)" "shared netns mode" 'shared: "rdma": true: the message names the mode'
is "$(rdma_visible "$POD")" "rxe0 rxepf siw0" "shared: the pod sees every RDMA device"
netns_del "$POD"
# A NAD written for sriov-cni (no "rdma"): rxe0 stays in the host, seen
# from the pod too. (No CHECK: it looks for the device by its netdev in the
# pod, and rxe0's netdev is not VF 0's stand-in; see the top of this file.)
pod_new
before=$(host_state)
c=$(conf 1.0.0)
cni ADD "$c"
is "$RC" 0 "shared, no rdma key: ADD succeeds" || diag "$(cat "$TMP/stderr")"
is "$(vf_link 0 "$POD" | jq -r .ifname)" net1 "shared, no rdma key: the VF is net1 in the pod"
is "$(rdma_visible "$POD")/$(rdma_visible "")" "rxe0 rxepf siw0/rxe0 rxepf siw0" \
	"shared, no rdma key: rxe0 stays in the host, seen from the pod and the host"
c=$(with_prev "$c" "$OUT")
cni DEL "$c"
is "$RC" 0 "shared, no rdma key: DEL succeeds"
is "$(host_state)" "$before" "shared, no rdma key: DEL puts the VF back as it was and releases the IP"
cni DEL "$c"
is "$RC" 0 "shared, no rdma key: second DEL succeeds"
netns_del "$POD"
doctor_node
like "$(doctor_check rdma-mode node)" "WARN shared: RDMA devices stay in the host netns" \
	"shared: the doctor reports the mode"
kfx_teardown

# ==== exclusive mode (ib_core netns_mode=0) =========================================
fixture "exclusive: ib_core netns_mode=0 loads, rxe0 and siw0 come back" rdma_core 0
is "$(rdma system show | awk '{print $2}')" exclusive "exclusive: the kernel says exclusive"
is "$(rdma -j dev show | jq -r '.[] | "\(.ifindex) \(.ifname)"' | paste -sd ' ')" "0 rxe0 1 siw0" \
	"exclusive: rxe0 is RDMA device index 0, siw0 index 1"
is "$("$PROBE" rdmanl rxe0 | paste -sd ' ')" "mode exclusive dev rxe0 index 0 ndev ${P}r0" \
	"exclusive: the plugin's rdmanl reads the mode, finds rxe0 (index 0) by name and its netdev (PORT_GET)"
is "$("$PROBE" rdmanl siw0 | paste -sd ' ')" "mode exclusive dev siw0 index 1 ndev ${P}r1" \
	"exclusive: the plugin's rdmanl finds siw0 (index 1) and its netdev"
# the probe's RDMA transcript, with no netns but this one (SYS_SET is EBUSY otherwise)
echo "== rdma" >&3
"$PROBE" rdma >&3

fixture "exclusive: netdevsim PF with 4 VFs, stand-ins, fake sysfs" kfx_setup 4 0 1 2 3
cni STATUS "$(conf 1.1.0 '.rdma = true')" CNI_CONTAINERID= CNI_NETNS= CNI_IFNAME=
is "$RC" 0 'exclusive: STATUS with "rdma": true is ready'
doctor_node
is "$(doctor_check rdma-mode node)" "OK exclusive" "exclusive: the doctor reports the mode"
is "$(doctor_check vf-rdma "${FX_VF_BDF[0]}")" "OK rxe0" "exclusive: the doctor finds rxe0 (index 0) for VF 0" ||
	diag "$(jq -c '.checks[]' <<<"$DOCTOR_OUT" | grep -v '"vf-sysfs"' | head -n 30)"
is "$(doctor_check vf-rdma "${FX_VF_BDF[1]}")" "OK siw0" "exclusive: the doctor finds siw0 for VF 1"
like "$(doctor_check pf-vfs "$FX_PF_BDF")" "OK 4 VFs" "exclusive: the doctor counts the PF's 4 VFs"

# ---- the kernel refuses the RDMA move: everything undone -------------------------------
all='.vlan = 100 | .vlanQoS = 3 | .mac = "02:11:22:33:44:55" | .spoofchk = "off" | .trust = "on" | .link_state = "enable" | .min_tx_rate = 10 | .max_tx_rate = 1000'
for v in 0 1; do
	VF=$v
	pod_new
	add_fails 105 "failed to move RDMA device ${FX_VF_RDMA[v]} of VF ${FX_VF_BDF[v]} into the pod netns: its driver cannot move it to another network namespace (as Soft-RoCE and siw cannot): Operation not supported" \
		"exclusive: ${FX_VF_RDMA[v]} cannot change netns" "$(conf 1.0.0 "$all")"
	is "$(rdma_visible "$POD")" "" "exclusive, ${FX_VF_RDMA[v]} refused: the pod sees no RDMA device"
	netns_del "$POD"
done

# settings_case DESC JQ-SETTINGS CHECKS: in a new pod, ADD of VF $VF with
# "rdma": false and the settings; the function CHECKS asserts them on the PF
# (DESC its argument); then CHECK passes, DEL puts the VF and every setting
# back, and a second DEL succeeds.
settings_case() {
	local desc=$1 c before
	pod_new
	before=$(host_state)
	c=$(conf 1.0.0 ".rdma = false | $2")
	cni ADD "$c"
	if is "$RC" 0 "$desc: ADD succeeds"; then
		is "$(vf_link "$VF" "$POD" | jq -r .ifname)" net1 "$desc: the VF is net1 in the pod"
		"$3" "$desc"
		c=$(with_prev "$c" "$OUT")
		cni CHECK "$c"
		is "$RC" 0 "$desc: CHECK passes"
		cni DEL "$c"
		is "$RC" 0 "$desc: DEL succeeds"
		is "$(host_state)" "$before" "$desc: DEL puts the VF and every setting back"
		cni DEL "$c"
		is "$RC" 0 "$desc: second DEL succeeds"
	fi
	netns_del "$POD"
}

# ---- rdma: false, every VF setting: set as asked, read back twice, undone ---------------
# shellcheck disable=SC2317 # called by settings_case
every_setting() {
	local line
	is "$(vf_read 2)" "vf 2 mac=02:11:22:33:44:55 vlan=100 qos=3 proto=0x8100 spoofchk=0 trust=1 link_state=1 min_tx_rate=10 max_tx_rate=1000" \
		"$1: the PF has every setting on VF 2 (the plugin's parser)"
	line=$(ip link show "$FX_PF" | grep -E '^ +vf 2 ')
	like "$line" "vf 2     link/ether 02:11:22:33:44:55 brd ff:ff:ff:ff:ff:ff, vlan 100, qos 3," \
		"$1: ip link show has the MAC, VLAN and QoS on vf 2"
	like "$line" "spoof checking off, link-state enable, trust on" \
		"$1: ip link show has spoof checking, link state and trust on vf 2"
	like "$line" "max_tx_rate 1000Mbps, min_tx_rate 10Mbps" "$1: ip link show has the rates on vf 2"
}
VF=2
settings_case "rdma false" "$all" every_setting

# ---- a PF refusing a setting part-way: netdevsim in switchdev mode has no rates --------------
devlink dev eswitch set netdevsim/netdevsim1 mode switchdev
pod_new
add_fails 104 "Operation not supported" "switchdev: rates refused after vlan, spoofchk, trust" \
	"$(conf 1.0.0 ".rdma = false | .vlan = 100 | .spoofchk = \"off\" | .trust = \"on\" | .max_tx_rate = 1000")"
like "$(jout .msg)" "rate" "switchdev: the error names the rate"
netns_del "$POD"
devlink dev eswitch set netdevsim/netdevsim1 mode legacy
kfx_teardown

# ---- 400 VFs, settings on the last --------------------------------------------------
fixture "400 VFs: netdevsim PF, a stand-in for VF 399, fake sysfs" kfx_setup 400 399
# shellcheck disable=SC2317 # called by settings_case
last_of_400() {
	like "$(vf_read 399)" "vf 399 mac=00:00:00:00:00:00 vlan=399 qos=0 proto=0x8100 " \
		"$1: the PF has VLAN 399 on VF 399 (the plugin's parser, past the wrapped list length)"
	like "$(vf_read 399)" " trust=1 " "$1: the PF has trust on VF 399 (the plugin's parser)"
	# iproute2 reads the list only as far as its wrapped length reaches
	like "$(ip -s link show "$FX_PF" 2>&1 >/dev/null)" "Truncated VF list: $FX_PF" \
		"$1: ip -s link show finds the VF list's length wrapped"
}
VF=399
settings_case "400 VFs, VF 399" '.vlan = 399 | .trust = "on"' last_of_400
kfx_teardown

# ---- the probe's VF transcript at 4, 334, 335, 400 VFs -------------------------------
pf=$(nsim_new 3 4)
for n in 4 334 335 400; do
	nsim_vfs 3 "$n"
	echo "== vfs $n" >&3
	"$PROBE" vfs "$(cat "/sys/class/net/$pf/ifindex")" "$n" >&3
done
echo 3 >"$NSIM_BUS/del_device"
ip link del "${P}r0"
ip link del "${P}r1"
done_testing
