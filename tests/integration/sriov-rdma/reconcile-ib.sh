#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sriov-rdma reconcile on InfiniBand VFs: a pod that died without DEL gets each VF's old GUIDs back through the PF (a rebind), its netdev under its host name, its addresses free; a live pod keeps its GUID; both kernel behaviours.
# shellcheck source-path=SCRIPTDIR source=../lib/own-node.sh
. "$(dirname "$0")/../lib/own-node.sh"
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source-path=SCRIPTDIR source=../libib.sh
. "$(dirname "$0")/../libib.sh"
[ -x "$RDMASIM_DRV" ] || skip_all "rdmasim-drv not built"
[ -x "$IPPOOL" ] || skip_all "ippool not built"
own_node
IPAM=ippool
fx_setup_ib --vfs 3

# ibconf NAME DIR VF GUID: network NAME's config for VF with GUID, its state
# in DIR ("" the default).
ibconf() {
	VF=$3 conf 1.1.0 ".name = \"$1\" | .guid = \"$4\"" |
		if [ -n "$2" ]; then jq -c --arg d "$2" '.dataDir = $d'; else jq -c 'del(.dataDir)'; fi
}

n=0
for where in host dev; do
	drv ipoib-netns "$where"
	W="ipoib in $where"
	before=$(CID='' IB_STATE_VFS="0 1" ib_state)
	pod_new
	dead=$CID dead_pod=$POD
	VF=0 IFNAME=net1 cni ADD "$(ibconf ib-a "$TMP/state-a" 0 00:11:22:33:44:55:66:1$n)"
	is "$RC" 0 "$W: ADD of VF 0 (ib-a, its own dataDir)" || diag "$OUT"
	VF=1 IFNAME=net2 cni ADD "$(ibconf ib-b "" 1 00:11:22:33:44:55:66:2$n)"
	is "$RC" 0 "$W: ADD of VF 1 (ib-b, the default dataDir) into the same pod" || diag "$OUT"
	pod_new
	live=$CID live_pod=$POD
	live_conf=$(ibconf ib-a "$TMP/state-a" 2 00:11:22:33:44:55:66:3$n)
	VF=2 IFNAME=net1 cni ADD "$live_conf"
	is "$RC" 0 "$W: ADD of VF 2 into a live pod" || diag "$OUT"
	live_out=$OUT
	for f in "$TMP/state-a/$dead:net1.json" "$DEFAULT_DIR/$dead:net2.json" "$TMP/state-a/$live:net1.json"; do
		aged "$f"
	done
	ib_pod_die "$dead_pod"

	reconcile --json
	is "$RC/$(counts)" "0/2 0 3 False 60" "$W: reconcile undoes the dead pod's 2 attachments, lists 3"
	is "$(item "$dead" net1)/$(item "$dead" net2)/$(item "$live" net1)" gone/undone/gone/undone/live/kept \
		"$W: the dead pod's undone, the live one's kept"
	is "$(CID='' IB_STATE_VFS="0 1" ib_state)" "$before" \
		"$W: VFs 0 and 1 have their old GUIDs (PF and VF), host names and RDMA devices back"
	nok "$W: the dead pod's ib-a address is free" ipam_holds "$dead" net1
	nok "$W: the dead pod's ib-b address is free" ipam_holds "$dead" net2
	ok "$W: the live pod keeps its GUID" pf_guid_is 2 "001122334455663$n"
	is "$(rdma_visible "$live_pod")" "$(ib_rdma 2)" "$W: the live pod keeps its RDMA device"
	ok "$W: the live pod keeps its address" ipam_holds "$live" net1
	now=$(CID='' ib_state)
	reconcile --json
	is "$RC/$(counts)" "0/0 0 1 False 60" "$W: a second reconcile undoes nothing"
	is "$(CID='' ib_state)" "$now" "$W: and changes nothing"
	ib_del "$W: the live pod" "$live_pod" "$live" 2 "$live_conf" "$live_out"
	n=$((n + 1))
done

done_testing
