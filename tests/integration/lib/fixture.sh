# SPDX-License-Identifier: Apache-2.0
# The simulated SR-IOV NIC: veth stand-ins, the fake sysfs tree and the RDMA simulator's world.
# shellcheck shell=bash
# shellcheck disable=SC2034 # the FX_* are read by the other parts and the tests
#
# Sets:  FX             the fixture's directory ($TMP/fx), empty until fx_setup
#        FX_PCI         this run's "domain:bus" of PF 0 (from the pid)
#        T_LOCK_DIR     where sriov-rdma keeps its node-wide VF locks
#        FX_SW          the switch netns        FX_DEVICES  PF 0's bus directory in the fake sysfs
#        FX_NPFS, FX_NVFS, FX_VFS_PER_PF      counts (FX_NVFS: VFs over all PFs)
#        FX_PF, FX_PF_BDF                     PF 0's netdev and PCI address
#        FX_PF_IF[p], FX_PF_BDFS[p]           every PF's
#        FX_VF_IF[k], FX_VF_IDX[k], FX_VF_MAC[k], FX_VF_BDF[k], FX_VF_RDMA[k], FX_VF_PF[k]
#                       VF k's host netdev, ifindex, MAC, PCI address, RDMA device, PF
#        SYSFS_PATH, RDMA_SIM_STATE (exported: the plugins read them)
#        REPLY          fx_bus / fx_vf_bdf without VAR
#        T_NETNS, T_AT_EXIT  appended (the switch netns; a tmpfs unmounted at exit)
#        $FX/vfs.json, $FX/synced  what fx_sync mirrors and what it last wrote
# Reads: P, TMP (cleanup.sh); RDMASIM_CTL (lib.sh); FX_IB, RDMASIM_DRV (libib.sh)
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

# sim CMD ARGS...: rdmasim-ctl on this run's simulator world.
sim() {
	local cmd=$1
	shift
	"$RDMASIM_CTL" "$cmd" "$RDMA_SIM_STATE" "$@"
}

sim_netns_gone() {
	sim netns-gone "$1"
}
