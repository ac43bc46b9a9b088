#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sriov-rdma reconcile: what pods that died without DEL left is undone as DEL would (several networks, separate and shared dataDirs); live pods, busy VFs, young and unknown attachments are left; --dry-run and a second run change nothing; a failed undo is named and retried; after a simulated reboot the node is as before the pods.
# shellcheck source-path=SCRIPTDIR source=../lib/own-node.sh
. "$(dirname "$0")/../lib/own-node.sh"
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
[ -x "$IPPOOL" ] || skip_all "ippool not built"
own_node
IPAM=ippool
fx_setup --vfs 6 --vf-info

# netconf NAME DIR VF [JQ]: network NAME's config for VF, its state in DIR
# ("" the default); each network has a subnet of its own.
netconf() {
	local IPAM_SUBNETS
	case $1 in
	rail-a) IPAM_SUBNETS=(192.0.2.0/24) ;;
	rail-b) IPAM_SUBNETS=(198.51.100.0/24) ;;
	*) IPAM_SUBNETS=(203.0.113.0/24) ;;
	esac
	VF=$3 conf 1.1.0 ".name = \"$1\" | ${4:-.}" |
		if [ -n "$2" ]; then jq -c --arg d "$2" '.dataDir = $d'; else jq -c 'del(.dataDir)'; fi
}

# attach NAME DIR VF IFNAME [JQ]: ADD of VF into the current pod as IFNAME.
attach() {
	IFNAME=$4 VF=$3 cni ADD "$(netconf "$1" "$2" "$3" "${5:-.}")"
	is "$RC" 0 "ADD of VF $3 ($1) as $4" || diag "$OUT"
}

# state_file DIR CID IFNAME
state_file() {
	echo "${1:-$DEFAULT_DIR}/$2:$3.json"
}

# vf_line I STATE: VF I's lines of a host_state (its netdev, RDMA device, PF settings).
vf_line() {
	grep -E "^(vf$1:|rdma ${FX_VF_RDMA[$1]}:|pf vf$1:)" <<<"$2"
}

# matches TEXT REGEX: a line of TEXT matches the extended REGEX.
matches() {
	grep -qE "$2" <<<"$1"
}

# holds CID IFNAME: ippool holds an address for the attachment.
holds() {
	ipam_holds "$1" "$2"
}

A_DIR=$TMP/state-a
before=$(host_state)

# pod 1: two networks, rail-a (own dataDir) on VF 0, rail-b (default) on VF 1
pod_new; p1=$POD c1=$CID
attach rail-a "$A_DIR" 0 net1 '.vlan = 100 | .trust = "on"'
addr_a=$(jout '.ips[0].address')
attach rail-b "" 1 net2 '.vlan = 200 | .mac = "02:00:00:00:01:01"'
# pod 2 (alive): rail-a on VF 2, sharing pod 1's dataDir
pod_new; p2=$POD c2=$CID
attach rail-a "$A_DIR" 2 net1 '.vlan = 100'
# pod 3: rail-b on VF 3, its VF lock held (an ADD at work)
pod_new; p3=$POD c3=$CID
attach rail-b "" 3 net1
# pod 4: rail-a on VF 4, made just now
pod_new; p4=$POD c4=$CID
attach rail-a "$A_DIR" 4 net1
# pod 5: VF 5, a state an earlier version wrote (no request saved)
pod_new; p5=$POD c5=$CID
attach rail-b "" 5 net1
s5=$(state_file "" "$c5" net1)
jq -c 'del(.netnsDev, .netnsIno, .bootId, .created, .conf, .cniArgs, .cniPath)' "$s5" >"$TMP/old" &&
	cat "$TMP/old" >"$s5"

s1=$(state_file "$A_DIR" "$c1" net1)
is "$(jq -r '.netnsIno' "$s1")" "$(stat -L -c %i "/run/netns/$p1")" "ADD saved the netns's inode"
is "$(jq -r '.bootId' "$s1")" "$(cat /proc/sys/kernel/random/boot_id)" "ADD saved the boot id"
# the runtime's stdin (cni gives it a trailing newline), CNI_ARGS and CNI_PATH as they came
is "$(jq -r '.conf' "$s1")" "$(netconf rail-a "$A_DIR" 0 '.vlan = 100 | .trust = "on"')" \
	"ADD saved the config exactly as it came on stdin"
is "$(jq -r '.conf | endswith("\n")' "$s1")" true "with the newline it ended in"
is "$(jq -r '.cniArgs' "$s1")" "IgnoreUnknown=true;K8S_POD_NAMESPACE=default;K8S_POD_NAME=$p1" \
	"ADD saved CNI_ARGS"
is "$(jq -r '.cniPath' "$s1")" "$(cni_path)" "ADD saved CNI_PATH"
is "$(jq -r '.created | . > now - 60 and . <= now' "$s1")" true "ADD saved when"
for f in "$(state_file "$A_DIR" "$c1" net1)" "$(state_file "" "$c1" net2)" \
	"$(state_file "$A_DIR" "$c2" net1)" "$(state_file "" "$c3" net1)"; do
	aged "$f"
done
pod_die "$p1"
pod_die "$p3"
pod_die "$p4"
pod_die "$p5"
lock3=$T_LOCK_DIR/${FX_VF_BDF[3]}.lock
(exec 9>"$lock3" && flock 9 && exec sleep 60) &
holder=$!
until ! flock -n "$lock3" true; do sleep 0.05; done

after_die=$(host_state)
reconcile --dry-run --json
is "$RC" 0 "--dry-run: exit 0"
is "$(counts)" "0 0 6 True 60" "--dry-run: nothing undone, nothing failed, 6 attachments listed, grace 60"
is "$(item "$c1" net1)" gone/would-undo "--dry-run: pod 1's rail-a would be undone"
is "$(item "$c1" net2)" gone/would-undo "--dry-run: pod 1's rail-b (default dataDir) would be undone"
is "$(item "$c2" net1)" live/kept "--dry-run: the live pod is kept"
is "$(item "$c3" net1)" busy/kept "--dry-run: the busy VF is kept"
is "$(item "$c4" net1)" grace/kept "--dry-run: the attachment inside the grace is kept"
is "$(item "$c5" net1)" unknown/kept "--dry-run: an earlier version's state is unknown, kept"
is "$(host_state)" "$after_die" "--dry-run: the host is unchanged"
ok "--dry-run: pod 1's state files stay" test -e "$(state_file "$A_DIR" "$c1" net1)" -a \
	-e "$(state_file "" "$c1" net2)"
ok "--dry-run: pod 1's addresses stay held" holds "$c1" net1

reconcile --json
is "$RC" 0 "reconcile: exit 0"
is "$(counts)" "2 0 6 False 60" "reconcile: 2 undone, none failed, 6 listed"
is "$(item "$c1" net1)/$(item "$c1" net2)" gone/undone/gone/undone "reconcile: pod 1's two attachments undone"
now=$(host_state)
for k in 0 1; do
	is "$(vf_line "$k" "$now")" "$(vf_line "$k" "$before")" \
		"reconcile: VF $k is back with its host name, MAC, no alias, its RDMA device, the PF's settings as before the ADD"
done
nok "reconcile: pod 1's rail-a address is free" holds "$c1" net1
nok "reconcile: pod 1's rail-b address is free" holds "$c1" net2
nok "reconcile: pod 1's state in its own dataDir is gone" test -e "$(state_file "$A_DIR" "$c1" net1)"
nok "reconcile: pod 1's state in the default dataDir is gone" test -e "$(state_file "" "$c1" net2)"
is "$(cat "$T_LOCK_DIR/${FX_VF_BDF[0]}.lock")$(cat "$T_LOCK_DIR/${FX_VF_BDF[1]}.lock")" "" \
	"reconcile: the VF locks name no holder"
is "$(link_field "$(vf_link 2 "$p2")" .ifname)" net1 "reconcile: the live pod keeps its VF"
ok "reconcile: the live pod keeps its address" holds "$c2" net1
ok "reconcile: the live pod keeps its VLAN" vf_is 2 '.vlan == 100'
for c in "$c3" "$c4" "$c5"; do
	ok "reconcile: $c (busy, young or unknown) keeps its address" holds "$c" net1
done
ok "reconcile: the busy attachment keeps its state" test -e "$(state_file "" "$c3" net1)"
ok "reconcile: the young attachment keeps its state" test -e "$(state_file "$A_DIR" "$c4" net1)"

now=$(host_state)
reconcile --json
is "$RC/$(counts)" "0/0 0 4 False 60" "a second reconcile: exit 0, nothing undone, 4 listed"
is "$(host_state)" "$now" "a second reconcile changes nothing"

kill "$holder"
wait "$holder" 2>/dev/null
reconcile --json --grace 0
is "$RC/$(counts)" "0/2 0 4 False 0" "once the VF is free, --grace 0: 2 undone (busy and young), 4 listed"
is "$(item "$c3" net1)/$(item "$c4" net1)" gone/undone/gone/undone "the busy and young attachments are undone now"
is "$(item "$c5" net1)" unknown/kept "the earlier version's state is still kept"
nok "pod 3's address is free" holds "$c3" net1
for k in 3 4; do
	is "$(vf_line "$k" "$(host_state)")" "$(vf_line "$k" "$before")" "VF $k is back as before its ADD"
done

# the freed address is handed out again: the lowest free of rail-a is pod 1's
pod_new
attach rail-a "$A_DIR" 0 net1
is "$(jout '.ips[0].address')" "$addr_a" "a new ADD on rail-a gets pod 1's address $addr_a"
IFNAME=net1 VF=0 cni DEL "$(with_prev "$(netconf rail-a "$A_DIR" 0)" "$OUT")"
netns_del "$POD"

# the table
reconcile
is "$RC" 0 "table: exit 0"
ok "table: a header" matches "$(head -n 1 <<<"$OUT")" "^CONTAINER +IFNAME +NETWORK +DEVICE +NETNS +AGE +VERDICT +ACTION$"
ok "table: the live pod's row" matches "$OUT" "^$c2 +net1 +rail-a +${FX_VF_BDF[2]} +/run/netns/$p2 +[0-9]+ +live +kept$"
ok "table: the earlier version's row, its age unknown" matches "$OUT" "^$c5 +net1 +rail-b .* -1 +unknown +kept$"
like "$(tail -n 1 <<<"$OUT")" "0 undone, 0 failed" "table: the totals"

# ---- a failed undo -------------------------------------------------------------
# The PF refuses VLANs now: the VF's settings cannot be put back. reconcile
# exits 1 naming it, keeps the state; once the PF takes VLANs again the
# next run finishes the job.
pod_new; p6=$POD c6=$CID
attach rail-a "$A_DIR" 0 net1 '.vlan = 300'
aged "$(state_file "$A_DIR" "$c6" net1)"
pod_die "$p6"
sim lacks vlan
reconcile --json
is "$RC" 1 "PF refusing: exit 1"
is "$(counts)" "0 1 3 False 60" "PF refusing: 1 failed, none undone"
is "$(item "$c6" net1)" gone/failed "PF refusing: the attachment is named failed"
like "$(jq -r --arg c "$c6" '.attachments[] | select(.containerID == $c) | .error' <<<"$OUT")" \
	"the undo of $c6:net1 (VF ${FX_VF_BDF[0]}, state in $A_DIR) failed: failed to set vlan 0 on VF 0 of PF $FX_PF" \
	"PF refusing: the error names the attachment, the VF, what failed"
ok "PF refusing: the state is kept for the next run" test -e "$(state_file "$A_DIR" "$c6" net1)"
reconcile
is "$RC" 1 "PF refusing, table: exit 1"
ok "PF refusing, table: the row says failed" matches "$OUT" "^$c6 .* gone +failed$"
ok "PF refusing, table: the error under it" matches "$OUT" "^  error: .*${FX_VF_BDF[0]}.*vlan"
sim lacks
reconcile --json
is "$RC/$(counts)" "0/1 0 3 False 60" "PF taking VLANs again: the next run undoes it"
ok "the VF's VLAN is back to 0" vf_is 0 '.vlan == 0'
nok "its address is free" holds "$c6" net1
nok "its state is gone" test -e "$(state_file "$A_DIR" "$c6" net1)"

# ---- usage ---------------------------------------------------------------------
for args in "--grace" "--grace -1" "--grace 1x" "--bogus" "--dry-run extra"; do
	# shellcheck disable=SC2086 # the words are the arguments
	reconcile $args
	is "$RC" 2 "usage: reconcile $args exits 2"
	like "$(cat "$TMP/stderr")" "usage: sriov-rdma reconcile" "usage: reconcile $args prints the usage"
done
OUT=$(env -u CNI_COMMAND "$SRIOV_RDMA" reconsile 2>&1)
is "$?" 2 "usage: an unknown argv command exits 2"
like "$OUT" "usage: sriov-rdma reconcile" "usage: an unknown argv command prints the usage"

# other_boot ARGS...: reconcile as after a reboot: another boot id
# (a file bind-mounted over the kernel's, in a mount namespace of its own).
NEW_BOOT=0f0e0d0c-0b0a-4908-8706-050403020100
other_boot() {
	echo "$NEW_BOOT" >"$TMP/boot_id"
	fx_sync
	T_LAST="sriov-rdma reconcile $* (another boot id)"
	OUT=$(timeout -k 5 "$T_TIMEOUT" env -u CNI_COMMAND LD_PRELOAD="$RDMASIM_LIB" unshare -m \
		sh -c 'mount --bind "$1" /proc/sys/kernel/random/boot_id && shift && exec "$@"' \
		sh "$TMP/boot_id" "$SRIOV_RDMA" reconcile "$@" 2>"$TMP/stderr")
	RC=$?
}

# a netns recorded in another boot is gone, whatever its path names now
other_boot --dry-run --json
is "$RC/$(item "$c2" net1)" 0/gone/would-undo "another boot: the pod alive in this one is judged gone"
reconcile --dry-run --json
is "$(item "$c2" net1)" live/kept "this boot: it is live"

# ---- reboot ------------------------------------------------------------------
# All netns gone, /run as a reboot leaves it (no VF locks; the NIC as after
# boot: each VF under its host name, no alias, its RDMA device in the host,
# the PF's VF settings as the firmware gives them) and another boot id. The
# attachments in the default dataDir are found and undone: state gone,
# addresses free, the host as before the pods.
CID=$c5 NETNS='' IFNAME=net1 VF=5 cni DEL "$(netconf rail-b "" 5)"
is "$RC" 0 "the earlier version's attachment goes by its DEL"
CID=$c2 NETNS=/run/netns/$p2 IFNAME=net1 VF=2 cni DEL "$(netconf rail-a "$A_DIR" 2)"
is "$RC" 0 "the live pod's DEL"
netns_del "$p2"
before=$(host_state)
cp "$RDMA_SIM_STATE" "$TMP/sim-at-boot"
rcids=()
for k in 0 1 2; do
	pod_new
	attach rail-b "" "$k" net1 '.vlan = 100 | .trust = "on"'
	[ "$k" -eq 2 ] && attach rail-c "" 3 net2 '.vlan = 300'
	rcids+=("$CID")
	pod_die "$POD"
done
# what the kernel and firmware give after boot
for k in 0 1 2 3; do
	l=$(vf_link "$k")
	if ! ip link set dev "$(link_field "$l" .ifname)" name "${FX_VF_IF[k]}" ||
		! ip link set dev "${FX_VF_IF[k]}" alias ""; then
		break
	fi
done
cp "$TMP/sim-at-boot" "$RDMA_SIM_STATE.new" && mv "$RDMA_SIM_STATE.new" "$RDMA_SIM_STATE"
rm -f "$T_LOCK_DIR"/*.lock
# a pod of the new boot got VF 0 before the first reconcile (its state says
# the new boot): reconcile undoes the dead attachment of VF 0 and leaves it
pod_new
attach rail-a "$A_DIR" 0 net1 '.vlan = 500'
fresh=$CID fresh_pod=$POD fresh_del=$(with_prev "$(netconf rail-a "$A_DIR" 0 '.vlan = 500')" "$OUT")
jq -c --arg b "$NEW_BOOT" '.bootId = $b' "$(state_file "$A_DIR" "$fresh" net1)" >"$TMP/fresh" &&
	cat "$TMP/fresh" >"$(state_file "$A_DIR" "$fresh" net1)"
other_boot --json --grace 0
is "$RC" 0 "reboot: exit 0"
is "$(counts)" "4 0 5 False 0" "reboot: the 4 attachments of the default dataDir undone, 5 listed"
is "$(item "$fresh" net1)" live/kept "reboot: the new boot's pod is live, kept"
is "$(link_field "$(vf_link 0 "$fresh_pod")" .ifname)" net1 "reboot: the new pod keeps VF 0"
ok "reboot: the new pod keeps its VLAN" vf_is 0 '.vlan == 500'
ok "reboot: the new pod keeps its address" holds "$fresh" net1
CID=$fresh NETNS=/run/netns/$fresh_pod IFNAME=net1 VF=0 cni DEL "$fresh_del"
is "$RC" 0 "reboot: the new pod's DEL"
netns_del "$fresh_pod"
is "$(find "$DEFAULT_DIR" -name '*.json' | wc -l)" 0 "reboot: no state file left in the default dataDir"
for c in "${rcids[@]}"; do
	nok "reboot: $c's address is free" holds "$c" net1
done
nok "reboot: the rail-c address is free" holds "${rcids[2]}" net2
is "$(host_state)" "$before" "reboot: the host is as before the pods"

done_testing
