#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# reconcile on a GPU node's shape: 8 PFs x 128 VFs, 16 pods with one attachment per rail (8 networks, two dataDirs); 8 pods die: one reconcile undoes their 64 attachments and keeps the 64 live ones; its time is printed beside the 64 DELs a runtime would run.
# shellcheck source-path=SCRIPTDIR source=../lib/own-node.sh
. "$(dirname "$0")/../lib/own-node.sh"
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
[ -x "$IPPOOL" ] || skip_all "ippool not built"
own_node
IPAM=ippool
NPFS=8 NVFS=128 NPODS=16
fx_setup --pfs "$NPFS" --vfs "$NVFS"

# railconf R K: rail R's network for VF K, a /27 of its own; rails 0-3 keep
# their state in the default dataDir, 4-7 in $TMP/state.
railconf() {
	local IPAM_SUBNETS=("192.0.2.$(($1 * 32))/27")
	VF=$2 conf 1.1.0 ".name = \"rail$1\"" |
		if [ "$1" -lt 4 ]; then jq -c 'del(.dataDir)'; else cat; fi
}

# vf_of POD R: the VF pod P has on rail R (PF R's VF P).
vf_of() {
	echo $(($2 * NVFS + $1))
}

# plugin VERB P R: sriov-rdma VERB of pod P's rail R, as the runtime runs
# it (no sysfs sync: one VF's entry changes, which no later call reads).
plugin() {
	env CNI_COMMAND="$1" CNI_CONTAINERID="${cids[$2]}" CNI_NETNS="/run/netns/${pods[$2]}" \
		CNI_IFNAME="net$3" CNI_PATH="$(cni_path)" LD_PRELOAD="$RDMASIM_LIB" \
		CNI_ARGS="IgnoreUnknown=true;K8S_POD_NAMESPACE=default;K8S_POD_NAME=${pods[$2]}" \
		"$SRIOV_RDMA" <"$TMP/conf-$2-$3.json" >"$TMP/plugin.out" 2>&1 ||
		{ diag "$1 of pod $2 rail $3: $(cat "$TMP/plugin.out")"; return 1; }
}

pods=() cids=() failed=0
for ((p = 0; p < NPODS; p++)); do
	pod_new
	pods[p]=$POD cids[p]=$CID
	for ((r = 0; r < NPFS; r++)); do
		railconf "$r" "$(vf_of "$p" "$r")" >"$TMP/conf-$p-$r.json"
	done
done
fx_sync
for ((p = 0; p < NPODS; p++)); do
	for ((r = 0; r < NPFS; r++)); do
		plugin ADD "$p" "$r" || failed=$((failed + 1))
	done
done
is "$failed" 0 "$((NPODS * NPFS)) ADDs (16 pods x 8 rails) succeed"
find "$DEFAULT_DIR" "$TMP/state" -name '*.json' -exec sh -c \
	'for f; do jq -c ".created -= 3600" "$f" >"$f.t" && cat "$f.t" >"$f" && rm "$f.t"; done' sh {} +

# pods 0-7 die: reconcile; pods 8-15 die: their DELs, as a runtime sends them
for ((p = 0; p < NPODS; p++)); do
	pod_die "${pods[p]}"
	[ "$p" -eq 7 ] && break
done
start=$(date +%s%N)
reconcile --json
took=$((($(date +%s%N) - start) / 1000000))
is "$RC/$(counts)" "0/64 0 128 False 60" "reconcile: 64 undone, none failed, 128 listed"
is "$(jq -r '[.attachments[] | "\(.verdict)/\(.action)"] | group_by(.) | map("\(.[0]) \(length)") | join(", ")' <<<"$OUT")" \
	"gone/undone 64, live/kept 64" "reconcile: the dead pods' attachments undone, the live ones' kept"
back=0 held=0 inpod=0
for ((p = 0; p < NPODS; p++)); do
	for ((r = 0; r < NPFS; r++)); do
		k=$(vf_of "$p" "$r")
		if [ "$p" -lt 8 ]; then
			[ "$(link_field "$(vf_link "$k")" .ifname)" = "${FX_VF_IF[k]}" ] && back=$((back + 1))
		else
			[ "$(link_field "$(vf_link "$k" "${pods[p]}")" .ifname)" = "net$r" ] && inpod=$((inpod + 1))
		fi
	done
done
held=$("$IPPOOL" list --data-dir "$TMP/ipam" 2>/dev/null | grep -c '^  ')
is "$back" 64 "reconcile: the 64 VFs of the dead pods are back under their host names"
is "$inpod" 64 "reconcile: the 64 VFs of the live pods are still in them"
is "$held" 64 "reconcile: 64 addresses are held (the live pods'), the dead pods' 64 are free"
is "$(find "$DEFAULT_DIR" "$TMP/state" -name '*.json' | wc -l)" 64 "reconcile: 64 state files left"

for ((p = 8; p < NPODS; p++)); do
	pod_die "${pods[p]}"
done
fx_sync
failed=0
start=$(date +%s%N)
for ((p = 8; p < NPODS; p++)); do
	for ((r = 0; r < NPFS; r++)); do
		plugin DEL "$p" "$r" || failed=$((failed + 1))
	done
done
dels=$((($(date +%s%N) - start) / 1000000))
is "$failed" 0 "the other 64 attachments' DELs succeed"
diag "one reconcile undoing 64 attachments (128 judged): $took ms; 64 DELs of the same kind, one after the other: $dels ms"
reconcile --json
is "$RC/$(counts)" "0/0 0 0 False 60" "after them, reconcile finds nothing"

done_testing
