# SPDX-License-Identifier: Apache-2.0
# Harness sourced by root integration tests: TAP, unique names, cleanup, a simulated SR-IOV NIC, plugin runs.
# shellcheck shell=bash
# Globals set here are read by the sourcing test scripts:
# shellcheck disable=SC2034
#
# Environment (meson sets it; defaults point at ./build for manual runs):
#   SRIOV_RDMA    the sriov-rdma binary        IPPOOL       the ippool binary (optional)
#   RDMASIM_LIB   librdmasim.so (preloaded)     RDMASIM_CTL  the simulator's CLI
#   CNITOOL       the libcni client (tests/cnitool)
#
# Globals a test reads after calling the functions below:
#   P        unique prefix of every name this run creates      TMP  temp dir of this run
#   FX_*     the fixture (fx_setup)                            POD, NETNS, CID  current pod (pod_new)
#   OUT, RC  stdout and exit status of the last plugin run     IFNAME  CNI_IFNAME (default net1)

set -uo pipefail

T_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
T_BUILD=${T_BUILD:-$T_SRC/build}
SRIOV_RDMA=${SRIOV_RDMA:-$T_BUILD/plugins/sriov-rdma/sriov-rdma}
IPPOOL=${IPPOOL:-$T_BUILD/ipam/ippool/ippool}
RDMASIM_LIB=${RDMASIM_LIB:-$T_BUILD/tests/rdmasim/librdmasim.so}
RDMASIM_CTL=${RDMASIM_CTL:-$T_BUILD/tests/rdmasim/rdmasim-ctl}
CNITOOL=${CNITOOL:-$T_BUILD/tests/cnitool/cnitool}

# The preloaded simulator comes before the sanitizer runtime in an ASan build.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=1"

# ---- TAP ---------------------------------------------------------------

# shellcheck source-path=SCRIPTDIR source=tap.sh
. "$T_SRC/tests/integration/tap.sh"

# ---- names and cleanup -----------------------------------------------------

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
for t_cmd in ip jq; do
	command -v "$t_cmd" >/dev/null || skip_all "$t_cmd not installed"
done

# Interface names are at most 15 bytes: 't' + pid in hex + 2 random hex digits.
P=t$(printf '%x%02x' $$ $((RANDOM % 256)))
# Under /run: the dataDirs and log files the configs name must lie under an
# allowed root (tests do not widen them).
TMP=$(mktemp -d "/run/$P.XXXXXX")
T_NETNS=()

# Commands a script adds here (e.g. removing a trace instance) run first at
# exit, the last added first.
T_AT_EXIT=()

# Every link a test makes has an end in a netns it made (the switch holds
# the peer of each stand-in), so deleting the netns removes the links too.
t_cleanup() {
	local i
	for ((i = ${#T_AT_EXIT[@]} - 1; i >= 0; i--)); do
		${T_AT_EXIT[i]}
	done
	for ((i = ${#T_NETNS[@]} - 1; i >= 0; i--)); do
		ip netns del "${T_NETNS[i]}" 2>/dev/null
	done
	rm -rf "$TMP"
}

t_exit() {
	local rc=$?
	if [ -z "$T_DONE" ]; then
		T_N=$((T_N + 1))
		echo "not ok $T_N - test script ended early (exit $rc)"
		echo "1..$T_N"
		rc=1
	fi
	t_cleanup
	exit "$rc"
}
trap t_exit EXIT
# A signal (a closed output pipe, ^C, a meson timeout) still cleans up.
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 141' PIPE
trap 'exit 143' TERM

# ---- network namespaces --------------------------------------------------

netns_add() {
	ip netns add "$1" || return
	T_NETNS+=("$1")
	ip -n "$1" link set lo up
}

netns_del() {
	local i
	ip netns del "$1" || return
	for i in "${!T_NETNS[@]}"; do
		[ "${T_NETNS[i]}" = "$1" ] && unset 'T_NETNS[i]'
	done
	T_NETNS=("${T_NETNS[@]}")
}

netns_inode() {
	stat -L -c %i "/run/netns/$1"
}

T_PODS=0
# pod_new: a new pod netns; sets POD (name), NETNS (path), CID (container id).
pod_new() {
	T_PODS=$((T_PODS + 1))
	POD=${P}pod$T_PODS
	NETNS=/run/netns/$POD
	CID=${P}-ctr$T_PODS-0123456789abcdef
	netns_add "$POD"
}

# ---- the simulated SR-IOV NIC -------------------------------------------
#
# fx_setup [--vfs N] [--vfio I] [--no-rdma I] [--shared] [--vf-info]
# A "switch" netns holds a bridge (192.0.2.254/24, 2001:db8::fe/64) and the
# peer ends; the host gets the PF (${P}pf) and VF (${P}v<I>) stand-ins, a fake
# sysfs tree in $SYSFS_PATH and an RDMA simulator world in $RDMA_SIM_STATE
# (PF device mlx5_0, VF I's device mlx5_<I+1>).
# --vfio I: VF I is bound to vfio-pci (no netdev, no RDMA device).
# --no-rdma I: VF I has no RDMA device.  --shared: RDMA netns mode shared.
# --vf-info: the PF reports its VFs' settings and takes new ones (IFLA_VFINFO_LIST,
# answered by the simulator: `sim lacks` takes ops away); without it the PF
# reports no VF info, as a veth does.

FX=
FX_PCI=0000:3b
fx_bdf() {
	printf '%s:%02x.%x' "$FX_PCI" $(((2 + $1) / 8)) $(((2 + $1) % 8))
}

fx_ifindex() {
	cat "/sys/class/net/$1/ifindex"
}

# veth_stand_in HOSTNAME PEERNAME: a veth pair, peer on the switch bridge.
veth_stand_in() {
	ip link add "$1" type veth peer name "$2" netns "$FX_SW" &&
		ip -n "$FX_SW" link set "$2" master br0 up
}

# pci_dev BDF DRIVER: the device directory, its bus/ link and driver links.
pci_dev() {
	local dir=$FX_DEVICES/$1
	mkdir -p "$dir"
	ln -s "../../../devices/pci$FX_PCI/$1" "$SYSFS_PATH/bus/pci/devices/$1"
	ln -s "../../../bus/pci/drivers/$2" "$dir/driver"
	ln -s "../../../../devices/pci$FX_PCI/$1" "$SYSFS_PATH/bus/pci/drivers/$2/$1"
}

fx_setup() {
	local nvfs=2 vfio=-1 nordma=-1 mode=exclusive vfinfo="" i bdf
	while [ $# -gt 0 ]; do
		case $1 in
		--vfs) nvfs=$2; shift ;;
		--vfio) vfio=$2; shift ;;
		--no-rdma) nordma=$2; shift ;;
		--shared) mode=shared ;;
		--vf-info) vfinfo=1 ;;
		*) echo "fx_setup: unknown option $1" >&2; return 1 ;;
		esac
		shift
	done

	FX=$TMP/fx
	FX_SW=${P}sw
	FX_PF=${P}pf
	FX_PF_BDF=$FX_PCI:00.0
	FX_NVFS=$nvfs
	export SYSFS_PATH=$FX/sys
	export RDMA_SIM_STATE=$FX/rdmasim.json
	FX_DEVICES=$SYSFS_PATH/devices/pci$FX_PCI
	mkdir -p "$SYSFS_PATH/bus/pci/devices" "$SYSFS_PATH/bus/pci/drivers/mlx5_core" \
		"$SYSFS_PATH/bus/pci/drivers/vfio-pci" "$FX_DEVICES" || return

	netns_add "$FX_SW" || return
	ip -n "$FX_SW" link add br0 type bridge &&
		ip -n "$FX_SW" addr add 192.0.2.254/24 dev br0 &&
		ip -n "$FX_SW" addr add 2001:db8::fe/64 dev br0 nodad &&
		ip -n "$FX_SW" link set br0 up || return

	veth_stand_in "$FX_PF" pf && ip link set "$FX_PF" up || return
	pci_dev "$FX_PF_BDF" mlx5_core
	mkdir -p "$FX_DEVICES/$FX_PF_BDF/net/$FX_PF" "$FX_DEVICES/$FX_PF_BDF/infiniband/mlx5_0"
	fx_ifindex "$FX_PF" >"$FX_DEVICES/$FX_PF_BDF/net/$FX_PF/ifindex"
	echo "$nvfs" >"$FX_DEVICES/$FX_PF_BDF/sriov_numvfs"
	echo "$nvfs" >"$FX_DEVICES/$FX_PF_BDF/sriov_totalvfs"
	sim init "$mode" && sim add mlx5_0 1 "$FX_PF_BDF" "$FX_PF" || return
	[ -z "$vfinfo" ] || sim pf "$FX_PF" "$nvfs" || return

	FX_VF_IF=() FX_VF_IDX=() FX_VF_MAC=() FX_VF_BDF=() FX_VF_RDMA=()
	for ((i = 0; i < nvfs; i++)); do
		bdf=$(fx_bdf "$i")
		FX_VF_BDF[i]=$bdf
		FX_VF_IF[i]='' FX_VF_IDX[i]=0 FX_VF_MAC[i]='' FX_VF_RDMA[i]=''
		ln -s "../$bdf" "$FX_DEVICES/$FX_PF_BDF/virtfn$i"
		if [ "$i" -eq "$vfio" ]; then
			pci_dev "$bdf" vfio-pci
		else
			pci_dev "$bdf" mlx5_core
			FX_VF_IF[i]=${P}v$i
			veth_stand_in "${FX_VF_IF[i]}" "v$i" || return
			FX_VF_IDX[i]=$(fx_ifindex "${FX_VF_IF[i]}")
			FX_VF_MAC[i]=$(cat "/sys/class/net/${FX_VF_IF[i]}/address")
			mkdir "$FX_DEVICES/$bdf/net"
		fi
		ln -s "../$FX_PF_BDF" "$FX_DEVICES/$bdf/physfn"
		if [ "$i" -ne "$vfio" ] && [ "$i" -ne "$nordma" ]; then
			FX_VF_RDMA[i]=mlx5_$((i + 1))
			mkdir "$FX_DEVICES/$bdf/infiniband"
			sim add "${FX_VF_RDMA[i]}" $((i + 2)) "$bdf" "${FX_VF_IF[i]}" || return
		fi
	done
	fx_sync
}

# fx_sync: sysfs is netns-tagged, so each VF's net/<ifname> shows only while
# its netdev is in the host netns (under its current name), and infiniband/<dev>
# only while the RDMA device is (shared mode: always).
fx_sync() {
	[ -n "$FX" ] || return 0
	local links state i dir name dev
	links=$(ip -j link show) || return
	state=$(cat "$RDMA_SIM_STATE") || return
	for ((i = 0; i < FX_NVFS; i++)); do
		dir=$FX_DEVICES/${FX_VF_BDF[i]}
		if [ -n "${FX_VF_IF[i]}" ]; then
			rm -rf "${dir:?}/net" && mkdir "$dir/net"
			name=$(jq -r --argjson idx "${FX_VF_IDX[i]}" \
				'.[] | select(.ifindex == $idx) | .ifname' <<<"$links")
			if [ -n "$name" ]; then
				mkdir "$dir/net/$name"
				echo "${FX_VF_IDX[i]}" >"$dir/net/$name/ifindex"
			fi
		fi
		if [ -n "${FX_VF_RDMA[i]}" ]; then
			rm -rf "${dir:?}/infiniband" && mkdir "$dir/infiniband"
			for dev in $(jq -r --arg pci "${FX_VF_BDF[i]}" '.mode as $m | .devices[]
				| select(.pci == $pci and (.netns == "host" or $m == "shared")) | .name' \
				<<<"$state"); do
				mkdir "$dir/infiniband/$dev"
			done
		fi
	done
}

# ---- looking at the system -----------------------------------------------

# vf_link I [NETNS]: the VF stand-in's `ip -j addr` object in NETNS (default
# host), empty when it is not there. The ifindex identifies it: moving a
# netdev between namespaces keeps its ifindex.
vf_link() {
	local nsarg=()
	[ -n "${2:-}" ] && nsarg=(-n "$2")
	ip "${nsarg[@]}" -d -j addr show 2>/dev/null |
		jq -c --argjson idx "${FX_VF_IDX[$1]}" '.[] | select(.ifindex == $idx)'
}

# link_field JSON JQ-FILTER
link_field() {
	jq -r "$2" <<<"$1"
}

# The addresses (v4 and global v6) on a link object, "a/n a/n".
link_addrs() {
	jq -r '[.addr_info[]? | select(.scope == "global") | "\(.local)/\(.prefixlen)"] | join(" ")' <<<"$1"
}

link_is_up() {
	jq -e '.flags | index("UP")' <<<"$1" >/dev/null
}

# rdma_cmd NETNS|"" ARGS...: iproute2's rdma tool run in a netns (host when ""),
# its RDMA netlink answered by the simulator.
rdma_cmd() {
	local ns=$1
	shift
	if [ -n "$ns" ]; then
		ip netns exec "$ns" env LD_PRELOAD="$RDMASIM_LIB" RDMA_SIM_STATE="$RDMA_SIM_STATE" rdma "$@"
	else
		env LD_PRELOAD="$RDMASIM_LIB" rdma "$@"
	fi
}

# rdma_visible NETNS|"": the RDMA devices seen from a netns, sorted, one line.
rdma_visible() {
	rdma_cmd "$1" -j dev show | jq -r '[.[].ifname] | sort | join(" ")'
}

# host_netns: sets HOST_NETNS, a name for the host netns (a bind mount of
# ours), for `rdma dev set DEV netns NAME`. Not in a subshell: it registers
# the name for cleanup.
host_netns() {
	HOST_NETNS=${P}host
	[ -e "/run/netns/$HOST_NETNS" ] && return 0
	touch "/run/netns/$HOST_NETNS" &&
		mount --bind /proc/$$/ns/net "/run/netns/$HOST_NETNS" || return
	T_NETNS+=("$HOST_NETNS")
}

# rdma_move_by_hand DEV FROM-NETNS|"" TO-NETNS|"": what an admin's
# `rdma dev set DEV netns TO` does ("" is the host).
rdma_move_by_hand() {
	local to=$3
	if [ -z "$to" ]; then
		host_netns || return
		to=$HOST_NETNS
	fi
	rdma_cmd "$2" dev set "$1" netns "$to"
}

# ipam_holds CID [IFNAME]: the IPAM store holds a reservation for CID's
# IFNAME (default $IFNAME), judged by the record itself: host-local's file
# named by the address, holding the container ID and the ifname; an ippool
# lease, as `ippool list` shows it.
ipam_holds() {
	local cid=$1 ifn=${2:-$IFNAME} f
	[ -d "$TMP/ipam" ] || return 1
	case $IPAM in
	ippool)
		"$IPPOOL" list --data-dir "$TMP/ipam" 2>/dev/null |
			awk -v c="$cid" -v i="$ifn" '$2 == c && $3 == i {f = 1} END {exit !f}' ;;
	host-local)
		for f in "$TMP"/ipam/*/*; do
			case ${f##*/} in *.*.*.* | *:*) ;; *) continue ;; esac
			[ "$(sed -n 1p "$f" | tr -d '\r')" = "$cid" ] &&
				[ "$(sed -n 2p "$f" | tr -d '\r')" = "$ifn" ] && return 0
		done
		return 1 ;;
	*) return 1 ;;
	esac
}

# state_holds CID [IFNAME]: the plugin's dataDir has the state file of
# CID's IFNAME (default $IFNAME), and it is that attachment's record.
state_holds() {
	local ifn=${2:-$IFNAME}
	jq -e --arg c "$1" --arg i "$ifn" '.containerID == $c and .ifname == $i' \
		"$TMP/state/$1:$ifn.json" >/dev/null 2>&1
}

# vf_is I JQ-CHECK: the PF (fx_setup --vf-info) reports VF I's settings as
# JQ-CHECK wants (e.g. '.vlan == 100 and .trust == true').
vf_is() {
	jq -e ".pf.vfs[$1] | $2" "$RDMA_SIM_STATE" >/dev/null
}

# host_state: what a failed or undone ADD must leave as it was, one line per
# item: each VF's netdev (where, name, MAC, alias, up, addresses), each RDMA
# device's netns, each VF's settings on the PF (--vf-info), and whether IPAM
# holds an address for $CID.
host_state() {
	local i l
	for ((i = 0; i < FX_NVFS; i++)); do
		[ -n "${FX_VF_IF[i]}" ] || continue
		l=$(vf_link "$i")
		if [ -z "$l" ]; then
			echo "vf$i: not in host"
			continue
		fi
		jq -r --arg i "$i" '"vf\($i): \(.ifname) \(.address) alias=\(.ifalias // "")"
			+ " up=\(.flags | index("UP") != null)"
			+ " addrs=\([.addr_info[]? | select(.scope == "global") | .local] | join(","))"' <<<"$l"
	done
	jq -r '.devices[] | "rdma \(.name): \(.netns)"' "$RDMA_SIM_STATE"
	jq -r '.pf.vfs // [] | to_entries[] | "pf vf\(.key): \(.value | tostring)"' "$RDMA_SIM_STATE"
	[ -n "${CID:-}" ] && ipam_holds "$CID" && echo "ipam holds $CID"
	return 0
}

# ---- configs ---------------------------------------------------------------

IPAM=${IPAM:-host-local}
IPAM_SUBNETS=(192.0.2.0/24)
IFNAME=net1
VF=0

# ipam_conf [SUBNET...]: the ipam block for $IPAM (host-local or ippool).
ipam_conf() {
	local subnets=("$@")
	[ ${#subnets[@]} -gt 0 ] || subnets=(192.0.2.0/24)
	case $IPAM in
	host-local)
		jq -nc --arg d "$TMP/ipam" \
			'{type: "host-local", ranges: [$ARGS.positional[] | [{subnet: .}]], dataDir: $d}' \
			--args "${subnets[@]}" ;;
	ippool)
		jq -nc --arg d "$TMP/ipam" '$ARGS.positional as $s | {type: "ippool", dataDir: $d}
			+ if ($s | length) == 1 then {range: $s[0]} else {ipRanges: [$s[] | {range: .}]} end' \
			--args "${subnets[@]}" ;;
	*)
		jq -nc --arg t "$IPAM" '{type: $t}' ;;
	esac
}

# conf VERSION [JQ-FILTER]: the network config for VF $VF, then JQ-FILTER
# applied (e.g. '.vlan = 100', '.rdma = false').
conf() {
	jq -nc --arg v "$1" --arg bdf "${FX_VF_BDF[$VF]}" --arg d "$TMP/state" \
		--argjson ipam "$(ipam_conf "${IPAM_SUBNETS[@]}")" \
		'{cniVersion: $v, name: "rdma-net", type: "sriov-rdma", deviceID: $bdf,
		  dataDir: $d, ipam: $ipam}' | jq -c "${2:-.}"
}

# with_prev CONF RESULT: CONF carrying RESULT as prevResult (CHECK, DEL,
# chained ADD), as a runtime passes it from 0.4.0 on.
with_prev() {
	jq -c --argjson r "$2" '.prevResult = $r' <<<"$1"
}

version_ge() {
	[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" = "$2" ]
}

# ---- running plugins -------------------------------------------------------

# A hung plugin fails its test (exit 124) instead of holding up the cleanup.
T_TIMEOUT=${T_TIMEOUT:-120}

cni_path() {
	local dirs=()
	dirs+=("$(dirname "$SRIOV_RDMA")")
	[ -x "$IPPOOL" ] && dirs+=("$(dirname "$IPPOOL")")
	[ -n "${CNI_PATH_EXTRA:-}" ] && dirs=("$CNI_PATH_EXTRA" "${dirs[@]}")
	dirs+=(/usr/lib/cni)
	local IFS=:
	echo "${dirs[*]}"
}

# cni VERB CONF [NAME=VALUE...]: runs $PLUGIN (default sriov-rdma) as a
# runtime would, for $CID / $NETNS / $IFNAME, the simulator preloaded and the
# fake sysfs synced first; NAME=VALUE override the CNI_* environment.
# Sets OUT (stdout) and RC.
cni() {
	local verb=$1 conf=$2 preload=
	shift 2
	fx_sync
	[ -f "$RDMASIM_LIB" ] && preload=$RDMASIM_LIB
	T_LAST="$verb $conf (CNI_CONTAINERID=${CID:-} CNI_NETNS=${NETNS:-} CNI_IFNAME=$IFNAME${*:+, then $*})"
	OUT=$(timeout -k 5 "$T_TIMEOUT" env CNI_COMMAND="$verb" CNI_CONTAINERID="${CID:-}" CNI_NETNS="${NETNS:-}" \
		CNI_IFNAME="$IFNAME" CNI_PATH="$(cni_path)" \
		CNI_ARGS="IgnoreUnknown=true;K8S_POD_NAMESPACE=default;K8S_POD_NAME=${POD:-none}" \
		LD_PRELOAD="$preload" "$@" "${PLUGIN:-$SRIOV_RDMA}" <<<"$conf" 2>"$TMP/stderr")
	RC=$?
}

# libcni VERB CONFLIST-FILE [CNITOOL-FLAGS...]: the network list through
# libcni (tests/cnitool) for $CID / $NETNS / $IFNAME, as Multus drives it,
# with the simulator preloaded into the plugins. Sets OUT and RC.
libcni() {
	local verb=$1 list=$2 preload=
	shift 2
	fx_sync
	[ -f "$RDMASIM_LIB" ] && preload=$RDMASIM_LIB
	T_LAST="libcni $verb $(jq -c . "$list") $*"
	OUT=$(timeout -k 5 "$T_TIMEOUT" env LD_PRELOAD="$preload" "$CNITOOL" -conflist "$list" -path "$(cni_path)" \
		-cache "$TMP/libcni" -netns "$NETNS" -ifname "$IFNAME" -id "$CID" \
		-args "IgnoreUnknown=true;K8S_POD_NAMESPACE=default;K8S_POD_NAME=${POD:-none}" \
		"$@" "$verb" 2>"$TMP/stderr")
	RC=$?
}

# jout JQ-FILTER: a field of the last plugin output.
jout() {
	jq -r "$1" <<<"$OUT" 2>/dev/null
}

# ---- kernel behaviour the stand-ins need help with -------------------------

# pod_die NETNS-NAME: what the kernel does when the last process of a pod
# exits: a physical VF goes back to the host netns (down, same ifindex, MAC
# and alias, still named as in the pod, or dev<ifindex> when that name is
# taken), its RDMA device too; veths would die instead, so move them first.
pod_die() {
	local pns=$1 i l name
	for ((i = 0; i < FX_NVFS; i++)); do
		[ -n "${FX_VF_IF[i]}" ] || continue
		l=$(vf_link "$i" "$pns")
		[ -n "$l" ] || continue
		name=$(link_field "$l" .ifname)
		if ! ip -n "$pns" link set dev "$name" netns $$ 2>/dev/null; then
			ip -n "$pns" link set dev "$name" name "dev${FX_VF_IDX[i]}" || return
			name=dev${FX_VF_IDX[i]}
			ip -n "$pns" link set dev "$name" netns $$ || return
		fi
		ip link set dev "$name" down || return
	done
	sim_netns_gone "$(netns_inode "$pns")" || return
	netns_del "$pns"
}

# sim CMD ARGS...: rdmasim-ctl on this run's simulator world.
sim() {
	local cmd=$1
	shift
	"$RDMASIM_CTL" "$cmd" "$RDMA_SIM_STATE" "$@"
}

sim_netns_gone() {
	sim netns-gone "$1"
}

# vf_to_pod I NETNS-NAME IFNAME: what sriov-cni does before a chained
# sriov-rdma: the VF netdev into the pod, renamed, up.
vf_to_pod() {
	ip link set dev "${FX_VF_IF[$1]}" netns "$2" &&
		ip -n "$2" link set dev "${FX_VF_IF[$1]}" name "$3" &&
		ip -n "$2" link set dev "$3" up
}

# vf_from_pod I NETNS-NAME IFNAME: sriov-cni's DEL: down, its host name back
# (renamed in the pod, so no host name can clash), into the host.
vf_from_pod() {
	ip -n "$2" link set dev "$3" down &&
		ip -n "$2" link set dev "$3" name "${FX_VF_IF[$1]}" &&
		ip -n "$2" link set dev "${FX_VF_IF[$1]}" netns $$
}

# ---- assertions shared by the tests ----------------------------------------

# assert_added VERSION RDMA(yes|no) [MAC]: the last ADD of VF $VF into $POD
# succeeded: the pod has the VF named $IFNAME, up, with MAC and the IPAM
# addresses; the host has lost it (and its RDMA device when RDMA=yes); the
# result is a VERSION result describing it. Descriptions start with $T_CTX
# (default: the version).
assert_added() {
	local v=$1 rdma=$2 mac=${3:-} c=${T_CTX:-$1} l want got
	is "$RC" 0 "$c: ADD succeeds" || return
	l=$(vf_link "$VF" "$POD")
	is "$(link_field "$l" .ifname)" "$IFNAME" "$c: the VF is in the pod named $IFNAME"
	ok "$c: the VF is up in the pod" link_is_up "$l"
	[ -n "$mac" ] && is "$(link_field "$l" .address)" "$mac" "$c: the VF has MAC $mac"
	want=$(jout '[.ips[].address] | sort | join(" ")')
	got=$(link_addrs "$l" | tr ' ' '\n' | sort | paste -sd ' ')
	is "$got" "$want" "$c: the VF has the IPAM addresses ($want)"
	is "$(vf_link "$VF")" "" "$c: the host no longer has the VF netdev"
	if [ "$rdma" = yes ]; then
		like " $(rdma_visible "$POD") " " ${FX_VF_RDMA[$VF]} " "$c: the pod sees RDMA device ${FX_VF_RDMA[$VF]}"
		unlike " $(rdma_visible "") " " ${FX_VF_RDMA[$VF]} " \
			"$c: the host no longer sees ${FX_VF_RDMA[$VF]}"
	fi
	assert_result "$v"
}

# assert_result VERSION: the last output is a VERSION result for the VF.
assert_result() {
	local v=$1 c=${T_CTX:-$1}
	is "$(jout .cniVersion)" "$v" "$c: result is in version $v"
	is "$(jout '.interfaces[0].name')" "$IFNAME" "$c: result interface is $IFNAME"
	is "$(jout '.interfaces[0].sandbox')" "$NETNS" "$c: result interface sandbox is the netns path"
	is "$(jout '.ips[0].interface')" 0 "$c: result ips[0] points at interface 0"
	if version_ge "$v" 1.0.0; then
		is "$(jout '[.ips[] | has("version")] | any')" false "$c: result ips have no version"
	else
		is "$(jout '[.ips[] | has("version")] | all')" true "$c: result ips have a version"
	fi
	if version_ge "$v" 1.1.0; then
		is "$(jout '.interfaces[0].pciID')" "${FX_VF_BDF[$VF]}" "$c: result interface has pciID"
		is "$(jout '.interfaces[0].mtu | type')" number "$c: result interface has mtu"
	fi
}

# round_trip VERSION RDMA(yes|no) CONF [MAC] [NAME=VALUE...]: in a new pod,
# ADD (assert_added), CHECK passes and fails once the address is removed in
# the pod (0.4.0+), DEL restores the host exactly, a second DEL succeeds.
# pod_pings ADDRESS: one echo reply from ADDRESS inside the pod netns.
pod_pings() {
	ip netns exec "$POD" ping -c 1 -W 5 "$1" >/dev/null 2>&1
}

# assert_traffic CTX: the pod reaches the switch bridge through the VF it was
# given, in each of the switch's subnets the result has an address in.
assert_traffic() {
	local pair target subnet
	if ! command -v ping >/dev/null; then
		skip "$1: traffic through the VF (no ping installed)"
		return
	fi
	for pair in 192.0.2.254=192.0.2. 2001:db8::fe=2001:db8::; do
		target=${pair%%=*} subnet=${pair#*=}
		jout '.ips[].address' | grep -qF "$subnet" || continue
		ok "$1: the pod reaches $target through the VF" pod_pings "$target"
	done
}

round_trip() {
	local v=$1 rdma=$2 c=$3 mac=${4:-} ctx=${T_CTX:-$1} before addr
	shift 3
	[ $# -gt 0 ] && shift
	pod_new
	before=$(host_state)
	cni ADD "$c" "$@"
	if assert_added "$v" "$rdma" "$mac"; then
		ok "$ctx: IPAM holds an address for the pod" ipam_holds "$CID"
		assert_traffic "$ctx"
		version_ge "$v" 0.4.0 && c=$(with_prev "$c" "$OUT")
		addr=$(jout '.ips[0].address')
		if version_ge "$v" 0.4.0; then
			cni CHECK "$c" "$@"
			is "$RC" 0 "$ctx: CHECK passes"
			ip -n "$POD" addr del "$addr" dev "$IFNAME"
			cni CHECK "$c" "$@"
			is "$RC/$(jout .code)" 1/107 "$ctx: CHECK fails with 107 once $addr is removed in the pod"
			like "$(jout .msg)" "$IFNAME in netns $NETNS lacks address $addr" \
				"$ctx: CHECK names the missing address"
		fi
		cni DEL "$c" "$@"
		is "$RC" 0 "$ctx: DEL succeeds"
		is "$(host_state)" "$before" "$ctx: DEL puts the VF back as it was and releases the IP"
		cni DEL "$c" "$@"
		is "$RC" 0 "$ctx: second DEL succeeds"
	fi
	netns_del "$POD"
}

# add_fails CODES TEXT DESC CONF [NAME=VALUE...]: ADD fails with one of CODES
# (space separated), a message containing TEXT, and changes nothing.
add_fails() {
	local codes=$1 text=$2 desc=$3 conf=$4 before got
	shift 4
	before=$(host_state)
	cni ADD "$conf" "$@"
	got=$(jq -sr 'if length == 1 then "\(.[0].code)" else "\(length) documents" end' <<<"$OUT" 2>/dev/null)
	if [ "$RC" -eq 1 ] && [[ " $codes " == *" $got "* ]]; then
		like "$(jout .msg)" "$text" "$desc: error $got names \"$text\""
	else
		t_result 1 "$desc: exit 1 with one error document, code in ($codes)"
	fi
	is "$(host_state)" "$before" "$desc: host unchanged"
}

# fake_ipam NAME SCRIPT-BODY: an IPAM plugin in $TMP/bin (found through
# CNI_PATH_EXTRA).
fake_ipam() {
	mkdir -p "$TMP/bin"
	printf '#!/bin/sh\n%s\n' "$2" >"$TMP/bin/$1"
	chmod +x "$TMP/bin/$1"
	CNI_PATH_EXTRA=$TMP/bin
}
