#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# RDMA (exclusive mode, simulated): the RDMA device moves with the VF and back, in every DEL path.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

fx_setup --vfs 3 --no-rdma 2

# ib_core numbers RDMA devices from 0 and gives 0 to the first that registers
# (assign_name()): here VF 0's, whose PF's device registered later and took
# the next free index. VF 0 is the VF every case below attaches, so ADD,
# CHECK and each DEL path move index 0; a plugin that took 0 for "no device"
# would lose it.
# shellcheck disable=SC2016 # jq's variables
renumber='([.devices[].index] | max + 1) as $next
	| (.devices[] | select(.name == $pf)).index = $next
	| (.devices[] | select(.name == $vf)).index = 0'
# shellcheck disable=SC2016 # expanded by the inner shell
flock "$RDMA_SIM_STATE.lock" sh -c 'jq --arg pf "$1" --arg vf "$2" "$3" "$0" >"$0.new" &&
	mv "$0.new" "$0"' "$RDMA_SIM_STATE" "$(fx_pf_rdma 0)" "${FX_VF_RDMA[0]}" "$renumber"
is "$(rdma_cmd "" -j dev show | jq -r '.[] | select(.ifindex == 0) | .ifname')" "${FX_VF_RDMA[0]}" \
	"VF 0's RDMA device ${FX_VF_RDMA[0]} has index 0"

# del_case DESC BREAK-COMMAND: ADD with RDMA, break something, DEL restores
# netdev and RDMA device; a second DEL succeeds.
del_case() {
	local desc=$1 c before
	pod_new
	before=$(host_state)
	c=$(conf 1.0.0)
	cni ADD "$c"
	if T_CTX=$desc assert_added 1.0.0 yes; then
		c=$(with_prev "$c" "$OUT")
		"$2"
		cni DEL "$c"
		is "$RC" 0 "$desc: DEL succeeds"
		is "$(host_state)" "$before" "$desc: VF and RDMA device are back, IP released"
		is "$(rdma_visible "")" "mlx5_0 mlx5_1 mlx5_2" "$desc: the host sees the RDMA device again"
		cni DEL "$c"
		is "$RC" 0 "$desc: second DEL succeeds"
	fi
	[ -e "$NETNS" ] && netns_del "$POD"
}

# Run through del_case:
# shellcheck disable=SC2317
nothing() { :; }
# shellcheck disable=SC2317
wipe_state() { rm -rf "$TMP/state"; }
# shellcheck disable=SC2317
kill_pod() { pod_die "$POD"; }

T_CTX="rdma 1.0.0" round_trip 1.0.0 yes "$(conf 1.0.0)"
if [ -x "$IPPOOL" ]; then
	IPAM=ippool T_CTX="rdma 1.1.0" round_trip 1.1.0 yes "$(IPAM=ippool conf 1.1.0)"
else
	skip "rdma 1.1.0: ippool not built"
fi
T_CTX="rdma 0.3.1" round_trip 0.3.1 yes "$(conf 0.3.1 '.rdma = true')"
del_case "DEL" nothing
del_case "DEL without state" wipe_state
del_case "DEL after the pod netns died" kill_pod

# CHECK notices the RDMA device leaving the pod.
pod_new
c=$(conf 1.0.0)
cni ADD "$c"
if is "$RC" 0 "ADD for the CHECK case"; then
	c=$(with_prev "$c" "$OUT")
	cni CHECK "$c"
	is "$RC" 0 "CHECK passes with the RDMA device in the pod"
	rdma_move_by_hand mlx5_1 "$POD" ""
	cni CHECK "$c"
	is "$RC/$(jout .code)" 1/107 "CHECK fails with 107 once mlx5_1 is moved back to the host by hand"
	like "$(jout .msg)" "no RDMA device for $IFNAME in netns $NETNS" "  saying the pod has no RDMA device"
	cni DEL "$c"
	is "$RC" 0 "DEL succeeds with the RDMA device already home"
fi
netns_del "$POD"

# Index 0 in the pod and in the state file, and back.
pod_new
c=$(conf 1.0.0)
cni ADD "$c"
if is "$RC" 0 "index 0: ADD of VF 0"; then
	is "$(rdma_cmd "$POD" -j dev show | jq -c '[.[] | [.ifindex, .ifname]]')" \
		"[[0,\"${FX_VF_RDMA[0]}\"]]" "index 0: the pod has ${FX_VF_RDMA[0]}, index 0"
	is "$(jq -c '[.hasRdma, .rdmaName, .rdmaIndex]' "$TMP/state/$CID:$IFNAME.json")" \
		"[true,\"${FX_VF_RDMA[0]}\",0]" "index 0: the state file records index 0"
	cni DEL "$(with_prev "$c" "$OUT")"
	is "$RC" 0 "index 0: DEL succeeds"
	is "$(rdma_cmd "" -j dev show | jq -r '.[] | select(.ifindex == 0) | .ifname')" \
		"${FX_VF_RDMA[0]}" "index 0: DEL brings ${FX_VF_RDMA[0]} back to the host"
fi
netns_del "$POD"

# Refusals, nothing moved.
pod_new
VF=2
add_fails 103 isRdma "VF without an RDMA device" "$(conf 1.0.0)"
VF=0
fake_ipam failipam 'echo "{\"cniVersion\": \"1.0.0\", \"code\": 11, \"msg\": \"no luck today\"}"; exit 1'
add_fails "106 11" "no luck today" "IPAM failure after the RDMA move" \
	"$(conf 1.0.0 '.ipam = {type: "failipam"}')"
unset CNI_PATH_EXTRA

# Chained after sriov-cni: the netdev is already in the pod as net1.
VF=1
before=$(host_state)
chained_after_sriov_cni 1
c=$CHAINED
cni ADD "$c"
is "$RC" 0 "chained ADD succeeds"
is "$(jq -S . <<<"$OUT")" "$(jq -S . <<<"$PREV")" "chained ADD passes prevResult through"
is "$(rdma_visible "$POD")" mlx5_2 "chained ADD moves only the RDMA device into the pod"
is "$(link_field "$(vf_link 1 "$POD")" .ifname)" net1 "chained ADD leaves the netdev as net1"
cni DEL "$c"
is "$RC" 0 "chained DEL succeeds"
is "$(rdma_visible "")" "mlx5_0 mlx5_1 mlx5_2" "chained DEL returns the RDMA device to the host"
is "$(link_field "$(vf_link 1 "$POD")" .ifname)" net1 "chained DEL leaves the netdev to sriov-cni"
vf_from_pod 1 "$POD" net1
is "$(host_state)" "$before" "after sriov-cni's DEL the host is as before"
VF=0

if [ -x "$IPPOOL" ]; then
	cni STATUS "$(IPAM=ippool conf 1.1.0)" CNI_CONTAINERID= CNI_NETNS= CNI_IFNAME=
	is "$RC" 0 "STATUS succeeds in exclusive mode"
else
	skip "STATUS: ippool not built (host-local stops at 1.0.0)"
fi

done_testing
