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
	[ -z "${FX_PCI:-}" ] || rm -f "$T_LOCK_DIR/${FX_PCI%:*}:"*.lock
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
# fx_setup [--pfs N] [--vfs N] [--vfio I] [--no-rdma I] [--shared] [--vf-info]
# A "switch" netns holds a bridge per PF (br0 of PF 0: 192.0.2.254/24,
# 2001:db8::fe/64) and the peer ends; the host gets the PF (${P}pf, then
# ${P}pf1 ...) and VF (${P}v<K>) stand-ins, a fake sysfs tree in $SYSFS_PATH
# and an RDMA simulator world in $RDMA_SIM_STATE (PF 0's device mlx5_0, VF
# K's device mlx5_<K+1>, PF p's (p > 0) mlx5_<FX_NVFS+p>; device indexes in
# the order a node registers them, from 0 as ib_core numbers: the PFs' first
# (PF 0's is 0), then the VFs' that have one, so a name's number need not be
# its index).
# --pfs N: N PFs (rails, default 1), each with --vfs VFs (default 2): PF p
# is <bus>:00.0 on bus FX_PCI's bus + p, its VFs <bus>:00.2 on (sriov_offset
# 2, sriov_stride 1). VFs are numbered K over all PFs, PF 0's first, so the
# FX_VF_* arrays of a one-PF fixture are what they always were; FX_VF_PF[K]
# is K's PF, FX_PF_IF[p] / FX_PF_BDFS[p] the PFs, FX_NVFS the total.
# Every VF gets a real veth stand-in, an RDMA device in the simulator and
# its full sysfs entry: 8 PFs x 128 VFs take about 1.5 s to build (measured;
# veth pairs are cheap; past 64 VFs the tree is on a tmpfs) and nothing is
# faked by half. What is not modelled:
# the PCI topology above the PFs (devices/pci<domain:bus>/<bdf> directly),
# and VF info (--vf-info) on PFs other than PF 0 (a veth PF reports none).
# --vfio I: VF I is bound to vfio-pci (no netdev, no RDMA device).
# --no-rdma I: VF I has no RDMA device.  --shared: RDMA netns mode shared.
# --vf-info: PF 0 reports its VFs' settings and takes new ones (IFLA_VFINFO_LIST,
# answered by the simulator: `sim lacks` takes ops away); without it the PF
# reports no VF info, as a veth does.

FX=
# The VF locks are node-wide (T_LOCK_DIR, named by PCI address): each run
# has a PCI domain of its own, from its pid, so parallel runs never share a
# lock; cleanup removes the run's lock files.
T_LOCK_DIR=/run/sriov-rdma/locks
FX_PCI=$(printf '%04x:3b' $((0x1000 + $$ % 0xefff)))
# fx_bus P [VAR]: "domain:bus" of PF P (FX_PCI's bus + P), printed or put in VAR.
fx_bus() {
	printf -v "${2:-REPLY}" '%s:%02x' "${FX_PCI%:*}" $(((16#${FX_PCI#*:} + $1) % 256))
	[ -n "${2:-}" ] || echo "$REPLY"
}

# fx_bdf I: VF I of PF 0.  fx_vf_bdf P I [VAR]: VF I of PF P.
fx_bdf() {
	fx_vf_bdf 0 "$1"
}

fx_vf_bdf() {
	local bus
	fx_bus "$1" bus
	printf -v "${3:-REPLY}" '%s:%02x.%x' "$bus" $(((2 + $2) / 8)) $(((2 + $2) % 8))
	[ -n "${3:-}" ] || echo "$REPLY"
}

# fx_dir BDF: the device's directory in the fake sysfs.
fx_dir() {
	echo "$SYSFS_PATH/devices/pci${1%:*}/$1"
}

fx_ifindex() {
	cat "/sys/class/net/$1/ifindex"
}

# pci_links BDF DRIVER: "target link" lines for perl's symlink(): the bus/
# link and the driver links of a device.
pci_links() {
	local dir=devices/pci${1%:*}/$1
	echo "../../../$dir $SYSFS_PATH/bus/pci/devices/$1"
	echo "../../../bus/pci/drivers/$2 $SYSFS_PATH/$dir/driver"
	echo "../../../../$dir $SYSFS_PATH/bus/pci/drivers/$2/$1"
}

# fx_symlinks: "target link" lines on stdin, one process for all of them.
fx_symlinks() {
	perl -ne 'chomp; my ($t, $l) = split / /; symlink($t, $l) or die "symlink $l: $!\n"'
}

# fx_plan NVFS NPFS VFIO NORDMA: the FX_* arrays, nothing made yet.
fx_plan() {
	local nvfs=$1 npfs=$2 vfio=$3 nordma=$4 p i k bus
	FX_NPFS=$npfs
	FX_NVFS=$((nvfs * npfs))
	FX_PF_IF=() FX_PF_BDFS=()
	FX_VF_IF=() FX_VF_IDX=() FX_VF_MAC=() FX_VF_BDF=() FX_VF_RDMA=() FX_VF_PF=()
	for ((p = 0; p < npfs; p++)); do
		fx_bus "$p" bus
		FX_PF_BDFS[p]=$bus:00.0
		FX_PF_IF[p]=${P}pf
		[ "$p" -eq 0 ] || FX_PF_IF[p]=${P}pf$p
		for ((i = 0; i < nvfs; i++)); do
			k=$((p * nvfs + i))
			fx_vf_bdf "$p" "$i" 'FX_VF_BDF[k]'
			FX_VF_PF[k]=$p FX_VF_IF[k]='' FX_VF_IDX[k]=0 FX_VF_MAC[k]='' FX_VF_RDMA[k]=''
			[ "$k" -eq "$vfio" ] && continue
			FX_VF_IF[k]=${P}v$k
			[ "$k" -eq "$nordma" ] || FX_VF_RDMA[k]=mlx5_$((k + 1))
		done
	done
	FX_PF=${FX_PF_IF[0]}
	FX_PF_BDF=${FX_PF_BDFS[0]}
}

# fx_pf_peer P: the switch side of PF P's stand-in (pf, pf1, ...).
fx_pf_peer() {
	if [ "$1" -eq 0 ]; then echo pf; else echo "pf$1"; fi
}

# fx_netdevs: the switch's bridges, every PF and VF stand-in (two ip -batch
# runs), their ifindexes and MACs (one ip -j).
fx_netdevs() {
	local p k host=() sw=() links line name idx mac
	declare -A by_name
	netns_add "$FX_SW" || return
	for ((p = 0; p < FX_NPFS; p++)); do
		sw+=("link add br$p type bridge" "link set br$p up")
		host+=("link add ${FX_PF_IF[p]} type veth peer name $(fx_pf_peer "$p") netns $FX_SW"
			"link set ${FX_PF_IF[p]} up")
	done
	sw+=("addr add 192.0.2.254/24 dev br0" "addr add 2001:db8::fe/64 dev br0 nodad")
	for ((k = 0; k < FX_NVFS; k++)); do
		[ -n "${FX_VF_IF[k]}" ] || continue
		host+=("link add ${FX_VF_IF[k]} type veth peer name v$k netns $FX_SW")
	done
	printf '%s\n' "${sw[@]:0:$((2 * FX_NPFS))}" | ip -n "$FX_SW" -batch - || return
	printf '%s\n' "${host[@]}" | ip -batch - || return
	sw=("${sw[@]:$((2 * FX_NPFS))}")
	for ((p = 0; p < FX_NPFS; p++)); do
		sw+=("link set $(fx_pf_peer "$p") master br$p up")
	done
	for ((k = 0; k < FX_NVFS; k++)); do
		[ -n "${FX_VF_IF[k]}" ] && sw+=("link set v$k master br${FX_VF_PF[k]} up")
	done
	printf '%s\n' "${sw[@]}" | ip -n "$FX_SW" -batch - || return
	links=$(ip -j link show | jq -r '.[] | "\(.ifname) \(.ifindex) \(.address)"') || return
	while read -r name idx mac; do
		by_name[$name]="$idx $mac"
	done <<<"$links"
	for ((k = 0; k < FX_NVFS; k++)); do
		[ -n "${FX_VF_IF[k]}" ] || continue
		read -r 'FX_VF_IDX[k]' 'FX_VF_MAC[k]' <<<"${by_name[${FX_VF_IF[k]}]}"
	done
}

# fx_tree: the fake sysfs of every PF and VF (one mkdir, one perl for the links).
fx_tree() {
	local p k i dir pfdir bdf drv dirs=() links=() sim_args=() index=0
	for ((p = 0; p < FX_NPFS; p++)); do
		pfdir=$(fx_dir "${FX_PF_BDFS[p]}")
		dirs+=("$pfdir/net/${FX_PF_IF[p]}" "$pfdir/infiniband/$(fx_pf_rdma "$p")")
	done
	for ((k = 0; k < FX_NVFS; k++)); do
		dir=$SYSFS_PATH/devices/pci${FX_VF_BDF[k]%:*}/${FX_VF_BDF[k]}
		dirs+=("$dir")
		[ -n "${FX_VF_IF[k]}" ] && dirs+=("$dir/net")
		[ -n "${FX_VF_RDMA[k]}" ] && dirs+=("$dir/infiniband")
	done
	mkdir -p "$SYSFS_PATH/bus/pci/devices" "$SYSFS_PATH/bus/pci/drivers/mlx5_core" \
		"$SYSFS_PATH/bus/pci/drivers/vfio-pci" "${dirs[@]}" || return
	for ((p = 0; p < FX_NPFS; p++)); do
		pfdir=$(fx_dir "${FX_PF_BDFS[p]}")
		links+=("$(pci_links "${FX_PF_BDFS[p]}" mlx5_core)")
		fx_ifindex "${FX_PF_IF[p]}" >"$pfdir/net/${FX_PF_IF[p]}/ifindex"
		echo "$FX_VFS_PER_PF" >"$pfdir/sriov_numvfs"
		echo "$FX_VFS_PER_PF" >"$pfdir/sriov_totalvfs"
		echo 2 >"$pfdir/sriov_offset"
		echo 1 >"$pfdir/sriov_stride"
		sim_args+=("$(fx_pf_rdma "$p")" $((index++)) "${FX_PF_BDFS[p]}" "${FX_PF_IF[p]}")
	done
	for ((k = 0; k < FX_NVFS; k++)); do
		p=${FX_VF_PF[k]} i=$((k - FX_VF_PF[k] * FX_VFS_PER_PF)) drv=mlx5_core
		[ -n "${FX_VF_IF[k]}" ] || drv="vfio-pci"
		bdf=${FX_VF_BDF[k]} pfdir=devices/pci${FX_PF_BDFS[p]%:*}/${FX_PF_BDFS[p]}
		dir=devices/pci${bdf%:*}/$bdf
		links+=("../$bdf $SYSFS_PATH/$pfdir/virtfn$i" "../${FX_PF_BDFS[p]} $SYSFS_PATH/$dir/physfn"
			"../../../$dir $SYSFS_PATH/bus/pci/devices/$bdf"
			"../../../bus/pci/drivers/$drv $SYSFS_PATH/$dir/driver"
			"../../../../$dir $SYSFS_PATH/bus/pci/drivers/$drv/$bdf")
		[ -n "${FX_VF_RDMA[k]}" ] &&
			sim_args+=("${FX_VF_RDMA[k]}" $((index++)) "${FX_VF_BDF[k]}" "${FX_VF_IF[k]}")
	done
	printf '%s\n' "${links[@]}" | fx_symlinks || return
	sim add "${sim_args[@]}"
}

# fx_pf_rdma P: the RDMA device name of PF P; fx_pf_rdma_num P its number.
fx_pf_rdma_num() {
	if [ "$1" -eq 0 ]; then echo 0; else echo $((FX_NVFS + $1)); fi
}
fx_pf_rdma() {
	echo "mlx5_$(fx_pf_rdma_num "$1")"
}

fx_setup() {
	local nvfs=2 npfs=1 vfio=-1 nordma=-1 mode=exclusive vfinfo=""
	while [ $# -gt 0 ]; do
		case $1 in
		--pfs) npfs=$2; shift ;;
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
	FX_VFS_PER_PF=$nvfs
	export SYSFS_PATH=$FX/sys
	export RDMA_SIM_STATE=$FX/rdmasim.json
	FX_DEVICES=$SYSFS_PATH/devices/pci$FX_PCI
	fx_plan "$nvfs" "$npfs" "$vfio" "$nordma"
	mkdir -p "$FX" || return
	# sysfs lives in memory: a tmpfs builds a thousand VFs' tree in a
	# quarter of what the disk's filesystem takes; small fixtures stay
	# plain directories (tests that bind-mount $TMP see them)
	[ "$FX_NVFS" -le 64 ] || { mount -t tmpfs -o mode=0755 "${P}fx" "$FX" && T_AT_EXIT+=("umount $FX"); } ||
		return
	fx_netdevs || return
	sim init "$mode" || return
	fx_tree || return
	[ -z "$vfinfo" ] || sim pf "$FX_PF" "$nvfs" || return
	fx_vfs_json >"$FX/vfs.json" || return
	fx_sync
}

# fx_vfs_json: the VFs fx_sync mirrors: [{dir, bdf, ifindex (0: no netdev), rdma}].
fx_vfs_json() {
	local k
	for ((k = 0; k < FX_NVFS; k++)); do
		printf '%s %s %s %s\n' "$SYSFS_PATH/devices/pci${FX_VF_BDF[k]%:*}/${FX_VF_BDF[k]}" \
			"${FX_VF_BDF[k]}" "${FX_VF_IDX[k]}" "${FX_VF_RDMA[k]:--}"
	done | jq -Rn '[inputs | split(" ") | {dir: .[0], bdf: .[1], ifindex: (.[2] | tonumber),
		rdma: (.[3] != "-")}]'
}

# ip_dump ARGS...: `ip -j ARGS`, again while the kernel says the dump was
# interrupted (links changed under it, e.g. a dying netns giving VFs back).
ip_dump() {
	local out try
	for try in 1 2 3 4 5; do
		out=$(ip -j "$@" 2>"$TMP/ip_dump.err") || return
		grep -q "Dump was interrupted" "$TMP/ip_dump.err" || break
	done
	echo "$out"
}

# fx_sync: sysfs is netns-tagged, so each VF's net/<ifname> shows only while
# its netdev is in the host netns (under its current name), and infiniband/<dev>
# only while the RDMA device is (shared mode: always). One ip and one jq for
# every VF; only the VFs whose entries changed since the last sync are
# rewritten ($FX/synced), so a thousand VFs sync in a tenth of a second.
fx_sync() {
	[ -n "$FX" ] || return 0
	local want dir ifindex name rdma ib clear=() dirs=() files=() values=() d i
	declare -A had=()
	want=$(ip_dump link show | jq -r --slurpfile vfs "$FX/vfs.json" --slurpfile st "$RDMA_SIM_STATE" '
		(map({key: (.ifindex | tostring), value: .ifname}) | from_entries) as $names
		| $st[0] as $s
		| ($s.devices | map(select(.netns == "host" or $s.mode == "shared"))
			| group_by(.pci) | map({key: .[0].pci, value: map(.name) | join(",")})
			| from_entries) as $ib
		| $vfs[0][]
		| "\(.dir) \(.ifindex) \($names[.ifindex | tostring] // "-") \(.rdma) \($ib[.bdf] // "-")"'
	) || return
	[ -f "$FX/synced" ] && while read -r dir ifindex name rdma ib; do
		had[$dir]="$ifindex $name $rdma $ib"
	done <"$FX/synced"
	while read -r dir ifindex name rdma ib; do
		[ "${had[$dir]:-}" = "$ifindex $name $rdma $ib" ] && continue
		if [ "$ifindex" -gt 0 ]; then
			clear+=("$dir/net") dirs+=("$dir/net")
			if [ "$name" != - ]; then
				dirs+=("$dir/net/$name") files+=("$dir/net/$name/ifindex") values+=("$ifindex")
			fi
		fi
		if [ "$rdma" = true ]; then
			clear+=("$dir/infiniband") dirs+=("$dir/infiniband")
			[ "$ib" = - ] || for d in ${ib//,/ }; do dirs+=("$dir/infiniband/$d"); done
		fi
	done <<<"$want"
	[ ${#clear[@]} -eq 0 ] || rm -rf "${clear[@]}" || return
	[ ${#dirs[@]} -eq 0 ] || mkdir -p "${dirs[@]}" || return
	for i in "${!files[@]}"; do
		echo "${values[i]}" >"${files[i]}" || return
	done
	echo "$want" >"$FX/synced"
	# IB VFs (libib.sh): rdmasim-drv keeps their entries
	[ -z "${FX_IB:-}" ] || "$RDMASIM_DRV" "$RDMA_SIM_STATE" sync
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
	# iproute2's rdma keeps a socket per device: a thousand need the fds
	if [ -n "$ns" ]; then
		(ulimit -n 16384; ip netns exec "$ns" env LD_PRELOAD="$RDMASIM_LIB" \
			RDMA_SIM_STATE="$RDMA_SIM_STATE" rdma "$@")
	else
		(ulimit -n 16384; env LD_PRELOAD="$RDMASIM_LIB" rdma "$@")
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

# vf_is I JQ-CHECK: VF I's PF (fx_setup --vf-info) reports VF I's settings as
# JQ-CHECK wants (e.g. '.vlan == 100 and .trust == true'). A VF the fixture
# did not make is PF 0's (`sim pf` can give it more VFs).
vf_is() {
	local p=${FX_VF_PF[$1]:-0}
	jq -e ".pfs[$p].vfs[$(($1 - p * FX_VFS_PER_PF))] | $2" "$RDMA_SIM_STATE" >/dev/null
}

# host_state: what a failed or undone ADD must leave as it was, one line per
# item: each VF's netdev (where, name, MAC, alias, up, addresses), each RDMA
# device's netns, each VF's settings on the PF (--vf-info), and whether IPAM
# holds an address for $CID.
host_state() {
	ip_dump -d addr show | jq -r --slurpfile vfs "$FX/vfs.json" '
		(map({key: (.ifindex | tostring), value: .}) | from_entries) as $links
		| $vfs[0] | to_entries[] | select(.value.ifindex > 0) | .key as $i
		| $links[.value.ifindex | tostring]
		| if . == null then "vf\($i): not in host" else
			"vf\($i): \(.ifname) \(.address) alias=\(.ifalias // "")"
			+ " up=\(.flags | index("UP") != null)"
			+ " addrs=\([.addr_info[]? | select(.scope == "global") | .local] | join(","))"
		  end' || return
	jq -r '.devices[] | "rdma \(.name): \(.netns)"' "$RDMA_SIM_STATE"
	jq -r '.pfs[0].vfs // [] | to_entries[] | "pf vf\(.key): \(.value | tostring)"' "$RDMA_SIM_STATE"
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
	local pns=$1 k name
	while read -r k name; do
		if ! ip -n "$pns" link set dev "$name" netns $$ 2>/dev/null; then
			ip -n "$pns" link set dev "$name" name "dev${FX_VF_IDX[k]}" || return
			name=dev${FX_VF_IDX[k]}
			ip -n "$pns" link set dev "$name" netns $$ || return
		fi
		ip link set dev "$name" down || return
	done < <(ip -n "$pns" -j link show | jq -r --slurpfile vfs "$FX/vfs.json" '
		(map({key: (.ifindex | tostring), value: .ifname}) | from_entries) as $in_pod
		| $vfs[0] | to_entries[] | select(.value.ifindex > 0)
		| $in_pod[.value.ifindex | tostring] as $name | select($name) | "\(.key) \($name)"')
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

# chained_after_sriov_cni I: what sriov-cni leaves for a chained sriov-rdma:
# VF I in $POD as net1 (vf_to_pod); sets PREV, sriov-cni's result, and
# CHAINED, the 1.0.0 config of sriov-rdma after it (prevResult PREV).
chained_after_sriov_cni() {
	vf_to_pod "$1" "$POD" net1 || return
	PREV=$(jq -nc --arg ns "$NETNS" --arg mac "${FX_VF_MAC[$1]}" '{cniVersion: "1.0.0",
		interfaces: [{name: "net1", mac: $mac, sandbox: $ns}],
		ips: [{address: "192.0.2.77/24", interface: 0}]}')
	CHAINED=$(jq -nc --arg bdf "${FX_VF_BDF[$1]}" --arg d "$TMP/state" --argjson r "$PREV" \
		'{cniVersion: "1.0.0", name: "rdma-net", type: "sriov-rdma", deviceID: $bdf,
		  dataDir: $d, prevResult: $r}')
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
