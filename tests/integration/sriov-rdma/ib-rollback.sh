#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# InfiniBand: an ADD whose rollback cannot give the VF its GUIDs back keeps its state and says so; the DEL that follows restores the VF.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source-path=SCRIPTDIR source=../libib.sh
. "$(dirname "$0")/../libib.sh"
[ -x "$RDMASIM_DRV" ] || skip_all "rdmasim-drv not built"
ib_guid_locks_go 00112233445588

fx_setup_ib --vfs 2
G=00:11:22:33:44:55:88:01
GX=0011223344558801
BDF=${FX_VF_BDF[0]}
# what an IPoIB PF lacks (ipoib_netdev_ops_pf has link state and GUIDs only)
IPOIB_LACKS="mac vlan rate spoofchk trust"

# The IPAM plugin fails its ADD after running FAULT (the fault it sets up
# for the rollback, which runs after the GUID write and the rebind); its
# DEL succeeds.
# shellcheck disable=SC2016 # the plugin's shell expands it
fake_ipam faultipam 'if [ "$CNI_COMMAND" = ADD ]; then
	sh -c "$FAULT" >&2
	echo "{\"cniVersion\": \"1.0.0\", \"code\": 11, \"msg\": \"no luck today\"}"
	exit 1
fi
exit 0'

# kept CTX CODE TEXT: the last ADD failed with CODE and TEXT, the rollback
# said it was incomplete, and the state and its record in the lock file are kept.
kept() {
	local state=$TMP/state/$CID:$IFNAME.json
	is "$RC $(jout .code)" "1 $2" "$1: ADD fails with code $2"
	like "$(jout .msg)" "$3" "$1: the message says \"$3\""
	like "$(jout .details)" "rollback incomplete" "$1: the details say the rollback is incomplete"
	like "$(jout .details)" "state $state kept for DEL" "$1: the details name the state kept"
	ok "$1: the state file survives" test -s "$state"
	is "$(cat "$T_LOCK_DIR/$BDF.lock")" "$state" "$1: the lock file still names it"
	like "$(cat "$TMP/stderr")" 'rollback of "set the GUID and rebind the VF" failed' \
		"$1: the log names the undo that failed"
}

# restored CTX CONF: the runtime's DEL succeeds and leaves the VF as before
# the ADD (GUIDs at the PF and in use, host name, RDMA device in the host);
# a second DEL succeeds too.
restored() {
	cni DEL "$2"
	is "$RC" 0 "$1: DEL succeeds" || diag "$OUT"
	is "$(ib_state)" "$before" "$1: DEL gives the VF its GUIDs, host name and RDMA device back"
	nok "$1: DEL removed the state" test -e "$TMP/state/$CID:$IFNAME.json"
	is "$(cat "$T_LOCK_DIR/$BDF.lock")" "" "$1: the lock file names no holder"
	cni DEL "$2"
	is "$RC" 0 "$1: a second DEL succeeds"
	netns_del "$POD"
}

c=$(conf 1.0.0 ".guid = \"$G\"")
cf=$(conf 1.0.0 ".guid = \"$G\" | .ipam = {type: \"faultipam\"}")

# ipam_fails CTX FAULT: in a new pod, an ADD whose IPAM runs FAULT and fails
# keeps its state (kept), before holding what the host had.
ipam_fails() {
	pod_new
	before=$(ib_state)
	cni ADD "$cf" FAULT="$2"
	kept "$1" 11 "no luck today"
}

# ---- the rebind fails, and so does its undo's ---------------------------------
pod_new
before=$(ib_state)
drv fail-probe "$BDF" 2
cni ADD "$c"
kept "rebind and its undo fail" 100 "failed to rebind VF $BDF"
is "$(ib_link 0)" "" "rebind and its undo fail: the VF has no netdev meanwhile"
restored "rebind and its undo fail" "$c"

# ---- IPAM fails after the rebind; the rollback's rebind fails ------------------
ipam_fails "the rollback's rebind fails" "$RDMASIM_DRV $RDMA_SIM_STATE fail-probe $BDF"
is "$(ib_link 0)" "" "the rollback's rebind fails: the VF has no netdev meanwhile"
restored "the rollback's rebind fails" "$cf"

# ---- the rollback's rebound VF never comes back --------------------------------
ipam_fails "the rollback's VF never comes back" "$RDMASIM_DRV $RDMA_SIM_STATE hang-probe $BDF"
like "$(cat "$TMP/stderr")" "did not come back after its driver was rebound" \
	"the rollback's VF never comes back: the log says so"
restored "the rollback's VF never comes back" "$cf"

# ---- the PF refuses the rollback's GUID write ----------------------------------
ipam_fails "the PF refuses the old GUID" "$RDMASIM_CTL lacks $RDMA_SIM_STATE $IPOIB_LACKS guid"
ok "the PF refuses the old GUID: it still gives the VF the pod's" pf_guid_is 0 "$GX"
# shellcheck disable=SC2086 # a list of ops
sim lacks $IPOIB_LACKS
restored "the PF refuses the old GUID" "$cf"

# ---- every undo succeeds: nothing is kept --------------------------------------
pod_new
before=$(ib_state)
cni ADD "$cf" FAULT=true
is "$RC $(jout .code)" "1 11" "clean rollback: ADD fails with IPAM's code"
unlike "$(jout .details)" "rollback incomplete" "clean rollback: nothing said about the rollback"
is "$(ib_state)" "$before" "clean rollback: the VF is as before"
nok "clean rollback: no state is kept" test -e "$TMP/state/$CID:$IFNAME.json"
is "$(cat "$T_LOCK_DIR/$BDF.lock")" "" "clean rollback: the lock file names no holder"
netns_del "$POD"

# ---- a driver that cannot move its RDMA device (as Soft-RoCE, siw) ------------
# the kernel answers EOPNOTSUPP without extack: the message says what it means
drv fail-move "$BDF" 95
ib_add_fails 105 "of VF $BDF into the pod netns: its driver cannot move it to another network namespace" \
	"a device that cannot change netns" "$c"
unlike "$(jout .msg)" ": failed to move" \
	"a device that cannot change netns: the message says it once"

done_testing
