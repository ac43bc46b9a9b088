#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GC (CNI 1.1.0) releases the state and IP of attachments not in cni.dev/valid-attachments.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

# Debian's host-local does not speak CNI 1.1.0.
[ -x "$IPPOOL" ] || skip_all "ippool not built"
IPAM=ippool
fx_setup --vfs 2 --vf-info

declare -A cid
for i in 0 1; do
	VF=$i
	pod_new
	cni ADD "$(conf 1.1.0 '.vlan = 100')"
	is "$RC" 0 "ADD of VF $i"
	cid[$i]=$CID
	pods[i]=$POD
done
ok "before GC the stale attachment holds state" state_holds "${cid[0]}"
ok "before GC the stale attachment holds an IP" ipam_holds "${cid[0]}"
is "$(jq -c '[.pfs[0].vfs[].vlan]' "$RDMA_SIM_STATE")" "[100,100]" "before GC both VFs carry VLAN 100"

# The runtime forgot pod 0 (its netns died); pod 1 is alive.
pod_die "${pods[0]}"
gc=$(conf 1.1.0 | jq -c --arg c "${cid[1]}" \
	'.["cni.dev/valid-attachments"] = [{containerID: $c, ifname: "net1"}]')
# An ADD or DEL holding the stale attachment's VF: GC leaves it for later.
lock=$T_LOCK_DIR/${FX_VF_BDF[0]}.lock
(exec 9>"$lock" && flock 9 && exec sleep 30) &
holder=$!
until ! flock -n "$lock" true; do sleep 0.05; done
cni GC "$gc" CNI_CONTAINERID= CNI_NETNS= CNI_IFNAME=
is "$RC" 0 "GC with the stale attachment's VF busy succeeds"
ok "GC left the busy VF's attachment for later" state_holds "${cid[0]}"
kill "$holder"
wait "$holder" 2>/dev/null
cni GC "$gc" CNI_CONTAINERID= CNI_NETNS= CNI_IFNAME=
is "$RC" 0 "GC succeeds"
nok "GC removed the stale attachment's state" state_holds "${cid[0]}"
nok "GC released the stale attachment's IP" ipam_holds "${cid[0]}"
is "$(jq -c '[.pfs[0].vfs[].vlan]' "$RDMA_SIM_STATE")" "[0,100]" \
	"GC put the stale attachment's VF settings back, and left the valid one's"
ok "GC kept the valid attachment's state" state_holds "${cid[1]}"
ok "GC kept the valid attachment's IP" ipam_holds "${cid[1]}"
VF=1
is "$(link_field "$(vf_link 1 "${pods[1]}")" .ifname)" net1 "GC left the valid attachment's VF in its pod"

done_testing
