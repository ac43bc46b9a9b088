#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A GPU node's shape: 8 PFs x 128 VFs, an RDMA device each (1,032 in the host); ADD/CHECK/DEL on the last PF, 32 concurrent ADDs and DELs over all PFs.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

NPFS=8 NVFS=128 BURST=32

start=$(date +%s%N)
fx_setup --pfs "$NPFS" --vfs "$NVFS"
built=$(date +%s%N)
fx_sync
synced=$(date +%s%N)
diag "fixture built in $(((built - start) / 1000000)) ms, fx_sync in $(((synced - built) / 1000000)) ms"

is "$(jq '.devices | length' "$RDMA_SIM_STATE")" $((NPFS * NVFS + NPFS)) \
	"the simulator holds every PF's and VF's RDMA device"
is "$(find "$SYSFS_PATH/bus/pci/devices" -mindepth 1 -maxdepth 1 | wc -l)" $((NPFS * NVFS + NPFS)) "sysfs lists every PF and VF"
last=$((FX_NVFS - 1))
is "$(basename "$(readlink "$(fx_dir "${FX_PF_BDFS[NPFS - 1]}")/virtfn$((NVFS - 1))")")" \
	"${FX_VF_BDF[last]}" "the last PF's virtfn$((NVFS - 1)) is the last VF"
is "$(ls "$(fx_dir "${FX_VF_BDF[last]}")/infiniband")" "${FX_VF_RDMA[last]}" \
	"the last VF's infiniband/ names its RDMA device"
is "$(rdma_visible "" | wc -w)" $((NPFS * NVFS + NPFS)) "the host sees all of them through the simulator"

# ---- one VF of the last PF, on its rail's own bridge ---------------------------
VF=$last
IPAM_SUBNETS=(203.0.113.0/24)
ip -n "$FX_SW" addr add 203.0.113.254/24 dev "br$((NPFS - 1))"
T_CTX="last PF" round_trip 1.0.0 yes "$(conf 1.0.0)"
pod_new
cni ADD "$(conf 1.0.0)"
is "$RC" 0 "last PF: ADD again succeeds"
ok "last PF: the pod reaches its rail's bridge through VF $last" \
	pod_pings 203.0.113.254
cni DEL "$(conf 1.0.0)"
is "$RC" 0 "last PF: DEL succeeds"
netns_del "$POD"
IPAM_SUBNETS=(192.0.2.0/24)

# ---- 32 concurrent ADDs, then their DELs ------------------------------------
# 4 VFs on each PF, spread over its VFs; each pod its own netns.
B_VF=() B_POD=() B_CID=()
for ((j = 0; j < BURST; j++)); do
	B_VF[j]=$(((j % NPFS) * NVFS + (j / NPFS) * 37 + 5))
	pod_new
	B_POD[j]=$POD B_CID[j]=$CID
	VF=${B_VF[j]} conf 1.0.0 >"$TMP/burst$j.json"
done

# burst VERB: every attachment's VERB at once; B_RC[j], $TMP/burst<j>.<verb>.out.
burst() {
	local j pids=()
	for ((j = 0; j < BURST; j++)); do
		timeout -k 5 "$T_TIMEOUT" env CNI_COMMAND="$1" CNI_CONTAINERID="${B_CID[j]}" \
			CNI_NETNS="/run/netns/${B_POD[j]}" CNI_IFNAME=net1 CNI_PATH="$(cni_path)" \
			CNI_ARGS="IgnoreUnknown=true;K8S_POD_NAMESPACE=default;K8S_POD_NAME=${B_POD[j]}" \
			LD_PRELOAD="$RDMASIM_LIB" "$SRIOV_RDMA" <"$TMP/burst$j.json" \
			>"$TMP/burst$j.$1.out" 2>"$TMP/burst$j.$1.err" &
		pids[j]=$!
	done
	for ((j = 0; j < BURST; j++)); do
		wait "${pids[j]}"
		B_RC[j]=$?
	done
}

fx_sync
before=$(host_state)
burst ADD
fx_sync
addrs=()
for ((j = 0; j < BURST; j++)); do
	k=${B_VF[j]} c="burst ADD $j (VF $k, PF ${FX_VF_PF[k]})"
	out=$TMP/burst$j.ADD.out
	is "${B_RC[j]}" 0 "$c: exit 0" || diag "$(cat "$out" "$TMP/burst$j.ADD.err")"
	is "$(jq -r '.interfaces[0].name + " " + .interfaces[0].sandbox' "$out")" \
		"net1 /run/netns/${B_POD[j]}" "$c: the result names net1 in its pod"
	addr=$(jq -r '.ips[0].address' "$out")
	addrs+=("$addr")
	l=$(vf_link "$k" "${B_POD[j]}")
	is "$(link_field "$l" .ifname) $(link_addrs "$l")" "net1 $addr" \
		"$c: VF $k is net1 in its pod with $addr"
	is "$(rdma_visible "${B_POD[j]}")" "${FX_VF_RDMA[k]}" "$c: the pod sees ${FX_VF_RDMA[k]} alone"
done
is "$(printf '%s\n' "${addrs[@]}" | sort -u | wc -l)" "$BURST" "the $BURST pods have $BURST different addresses"
is "$(jq '[.devices[] | select(.netns != "host")] | length' "$RDMA_SIM_STATE")" "$BURST" \
	"exactly $BURST RDMA devices left the host"

burst DEL
fx_sync
for ((j = 0; j < BURST; j++)); do
	is "${B_RC[j]} $(cat "$TMP/burst$j.DEL.out")" "0 " "burst DEL $j: exit 0, no output" ||
		diag "$(cat "$TMP/burst$j.DEL.err")"
done
is "$(host_state)" "$before" "after the DELs every VF, RDMA device and address is back as it was"

done_testing
