#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# InfiniBand on a GPU node's shape, 8 IPoIB PFs x 128 VFs: the node-wide duplicate-GUID check finds a GUID on the first PF from the last one; ADD and DEL with a GUID work there.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source-path=SCRIPTDIR source=../libib.sh
. "$(dirname "$0")/../libib.sh"
[ -x "$RDMASIM_DRV" ] || skip_all "rdmasim-drv not built"
# the GUIDs this test gives: their lock files go at exit
ib_guid_locks_go 0011223344559

NPFS=8 NVFS=128

start=$(date +%s%N)
fx_setup_ib --pfs "$NPFS" --vfs "$NVFS"
diag "fixture built in $((($(date +%s%N) - start) / 1000000)) ms"
last=$((FX_NVFS - 1))
is "$(jq '[.devices[] | select(.pci | IN($ARGS.positional[]))] | length' --args "${FX_VF_BDF[@]}" \
	<"$RDMA_SIM_STATE")" "$FX_NVFS" "every VF has its RDMA device"
ok "the last VF has its IPoIB netdev in the host" test -n "$(ib_link "$last")"

# what each case below must leave as it was: the VFs it names
export IB_STATE_VFS="0 1 $((last - 1)) $last"
first=$(CID='' ib_state)
colons() {
	sed 's/../&:/g; s/:$//' <<<"$1"
}

# timed: its wall time is the check over 1,024 VFs plus two rebinds and the moves
timed_add() { # CONF
	local t0
	t0=$(date +%s%N)
	cni ADD "$1"
	diag "ADD on VF $VF: $((($(date +%s%N) - t0) / 1000000)) ms"
}

G1=00:11:22:33:44:55:99:01
VF=0
pod_new
c0=$(conf 1.0.0 ".guid = \"$G1\"")
timed_add "$c0"
ib_added "VF 0 of the first PF takes $G1" 0011223344559901
pod0=$POD cid0=$CID out0=$OUT

VF=$last
ib_add_fails 7 "guid $G1 is already held by VF ${FX_VF_BDF[0]} (VF 0 of PF ${FX_PF_IF[0]})" \
	"the last PF's last VF, with the first PF's GUID" "$(conf 1.0.0 ".guid = \"$G1\"")"
ib_add_fails 7 "is already held by VF ${FX_VF_BDF[1]} (VF 1 of PF ${FX_PF_IF[0]})" \
	"the same, with a GUID the first PF never set (VF 1's firmware port GUID)" \
	"$(conf 1.0.0 ".guid = \"$(colons "${FX_VF_PORT_GUID[1]}")\"")"
ib_add_fails 7 "is already held by VF ${FX_VF_BDF[last - 1]} (VF $((NVFS - 2)) of PF ${FX_PF_IF[NPFS - 1]})" \
	"the same, with its neighbour's firmware node GUID" \
	"$(conf 1.0.0 ".guid = \"$(colons "${FX_VF_NODE_GUID[last - 1]}")\"")"

# the check alone: an ADD refused by it has changed nothing and moved nothing
pod_new
walls=()
for i in 1 2 3 4 5; do
	t0=$(date +%s%N)
	cni ADD "$(conf 1.0.0 ".guid = \"$G1\"")"
	walls+=($((($(date +%s%N) - t0) / 1000000)))
	is "$RC $(jout .code)" "1 7" "refused ADD $i on the last VF: code 7"
done
diag "refused ADDs (the node-wide check over $FX_NVFS VFs), wall ms: ${walls[*]}"
netns_del "$POD"

G2=00:11:22:33:44:55:99:02
pod_new
c1=$(conf 1.0.0 ".guid = \"$G2\"")
timed_add "$c1"
ib_added "the last VF takes a GUID no VF holds" 0011223344559902
ib_del "the last VF" "$POD" "$CID" "$last" "$c1" "$OUT"
ib_del "VF 0" "$pod0" "$cid0" 0 "$c0" "$out0"
is "$(CID='' ib_state)" "$first" "both VFs and their neighbours have their first GUIDs and names"

done_testing
