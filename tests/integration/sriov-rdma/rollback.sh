#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# An ADD that fails late while an undo of its rollback is refused keeps its
# state file and its lock file's record: the DEL that follows restores the host.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

fx_setup --vfs 2 --vf-info

# The IPAM plugin fails its ADD after running FAULT (the fault in the undo
# path it sets up for the rollback); its DEL succeeds.
# shellcheck disable=SC2016 # the plugin's shell expands it
fake_ipam faultipam 'if [ "$CNI_COMMAND" = ADD ]; then
	sh -c "$FAULT" >&2
	echo "{\"cniVersion\": \"1.0.0\", \"code\": 11, \"msg\": \"no luck today\"}"
	exit 1
fi
exit 0'

# rolled_back CTX: the last ADD failed with IPAM's error, the rollback said it
# was incomplete, and the state and its record in the lock file are kept.
rolled_back() {
	local state=$TMP/state/$CID:$IFNAME.json
	is "$RC" 1 "$1: ADD exits 1"
	like_any "$(jout .code)" "$1: ADD reports the IPAM error's code" 11 106
	like "$(jout .msg)" "no luck today" "$1: the message is the IPAM error"
	like "$(jout .details)" "rollback incomplete" "$1: the details say the rollback is incomplete"
	like "$(jout .details)" "state $state kept for DEL" "$1: the details name the state kept"
	ok "$1: the state file survives" test -s "$state"
	is "$(cat "$T_LOCK_DIR/${FX_VF_BDF[0]}.lock")" "$state" "$1: the lock file still names it"
}

# deleted CTX CONF: DEL succeeds and the host is exactly as before the ADD.
deleted() {
	cni DEL "$2"
	is "$RC" 0 "$1: DEL succeeds"
	is "$(host_state)" "$before" "$1: DEL restores the host (name, MAC, up, VF settings, RDMA)"
	nok "$1: DEL removed the state" test -e "$TMP/state/$CID:$IFNAME.json"
	is "$(cat "$T_LOCK_DIR/${FX_VF_BDF[0]}.lock")" "" "$1: the lock file names no holder"
}

c=$(conf 1.0.0 '.vlan = 100 | .trust = "on" | .mac = "02:00:00:00:00:42" | .ipam = {type: "faultipam"}')
ip link set "${FX_VF_IF[0]}" up

# ---- the PF refuses to restore the VLAN --------------------------------------
# (the driver loses its VLAN op between ADD's set and the rollback's restore)
pod_new
before=$(host_state)
cni ADD "$c" FAULT="$RDMASIM_CTL lacks $RDMA_SIM_STATE vlan"
rolled_back "VLAN restore refused"
ok "VLAN restore refused: the VF still has the pod's VLAN" vf_is 0 '.vlan == 100'
like "$(cat "$TMP/stderr")" 'rollback of "apply VF settings" failed' \
	"VLAN restore refused: the log names the undo that failed"
sim lacks
deleted "VLAN restore refused" "$c"
netns_del "$POD"

# ---- the kernel refuses the move back ------------------------------------------
# (a netdev took the VF's host name while the VF was in the pod: EEXIST)
pod_new
before=$(host_state)
cni ADD "$c" FAULT="ip link add ${FX_VF_IF[0]} type veth peer name ${P}blk"
rolled_back "move back refused"
is "$(link_field "$(vf_link 0 "$POD")" .ifname)" "$IFNAME" "move back refused: the VF is still in the pod"
like "$(cat "$TMP/stderr")" 'rollback of "move the netdev" failed' \
	"move back refused: the log names the undo that failed"
ok "move back refused: the VF's settings were restored meanwhile" vf_is 0 '.vlan == 0 and .trust == false'
ip link del "${FX_VF_IF[0]}"
deleted "move back refused" "$c"
netns_del "$POD"

# ---- every undo succeeds: nothing is kept --------------------------------------
pod_new
before=$(host_state)
cni ADD "$c" FAULT=true
is "$RC" 1 "clean rollback: ADD exits 1"
unlike "$(jout .details)" "rollback incomplete" "clean rollback: nothing said about the rollback"
is "$(host_state)" "$before" "clean rollback: the host is as before"
nok "clean rollback: no state is kept" test -e "$TMP/state/$CID:$IFNAME.json"
is "$(cat "$T_LOCK_DIR/${FX_VF_BDF[0]}.lock")" "" "clean rollback: the lock file names no holder"
netns_del "$POD"

done_testing
