#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sriov-rdma-doctor node on a healthy fake node (every check OK, exit 0), then
# each fault made and undone in turn: the check that finds it fails or warns
# with its fix, in the JSON and in the table.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ok "a fake node with 2 VFs" fx_setup --vfs 2 --vf-info || done_testing
fx_uverbs
mkdir -p "$TMP/net.d" "$TMP/state"
NODE=(node --json --conf-dir "$TMP/net.d" --data-dir "$TMP/state" --cni-bin-dir "$(dirname "$IPPOOL")")

# Not OK: what is not OK about this fixture. The VF lock dir is node-wide:
# locks that other test runs hold now (their own PCI domains) are left out;
# so are VFs other runs left parked in the host (their names and container
# IDs start with their own prefix, not $P).
not_ok() {
	jq -c --arg pci "$FX_PCI:" --arg p "sriov-rdma:$P" '.checks[] | select(.status != "OK")
		| select(.check != "vf-lock" or (.subject | startswith($pci)))
		| select(.check != "vf-parked" or .subject == "node" or (.seen | contains($p)))' <<<"$OUT"
}

# What the doctor must leave as it is (it is read-only): the fixture's links
# (name, MAC, alias, up), VF settings and RDMA devices (host_state), the PF,
# the state files, this run's lock files and the conf files, down to their mtimes.
node_snapshot() {
	host_state
	ip -j link show "$FX_PF" | jq -c '.[] | [.ifname, .flags]'
	find "$TMP/state" "$TMP/net.d" -printf '%p %y %s %m %T@\n' | sort
	find "$T_LOCK_DIR" -name "$FX_PCI:*" -printf '%p %y %s %m %T@\n' | sort
}

healthy() {
	local c=$1
	doctor "${NODE[@]}"
	is "$(not_ok)" "" "$c: every check of this node OK"
}

# ---- healthy ----------------------------------------------------------------
healthy "healthy node"
json_shape "healthy node"
is "$(jout .command)" node "the document names the command"
is "$(jq -r '.ok + .warn + .fail' <<<"$OUT")" "$(jq -r '.checks | length' <<<"$OUT")" \
	"ok, warn and fail add up to the checks"
is "$(jq -r '[.checks[] | select(.status == "FAIL")] | length' <<<"$OUT")" "$(jq -r .fail <<<"$OUT")" \
	"fail counts the FAIL checks"
is "$RC" 0 "healthy node: exit 0"
expect "healthy" rdma-mode node OK "exclusive"
expect "healthy" pf-vfs "$FX_PF_BDF" OK "2 VFs (sriov_totalvfs 2)"
expect "healthy" pf-link "$FX_PF_BDF" OK "$FX_PF up, carrier"
for i in 0 1; do
	b=${FX_VF_BDF[i]}
	expect "healthy vf$i" vf-driver "$b" OK "mlx5_core"
	expect "healthy vf$i" vf-netdev "$b" OK "${FX_VF_IF[i]} in the host"
	expect "healthy vf$i" vf-rdma "$b" OK "${FX_VF_RDMA[i]}"
	expect "healthy vf$i" vf-uverbs "$b" OK "/dev/infiniband/uverbs$((i + 1)) for ${FX_VF_RDMA[i]}"
	expect "healthy vf$i" vf-settings "$b" OK "VLAN 0, trust off"
done
if jq -e '[.checks[] | select(.check == "vf-parked" and .subject != "node")] | length == 0' \
	<<<"$OUT" >/dev/null; then
	expect "healthy" vf-parked node OK "no VF in the host under a pod name"
else
	skip "healthy: vf-parked OK (another test run has a VF parked in the host now)"
fi
expect "healthy" attach node OK "no attachment state"
expect "healthy" vf-locks node OK "VF lock files"
expect "healthy" ippool node OK "no config in $TMP/net.d uses ippool"
doctor node --conf-dir "$TMP/net.d" --data-dir "$TMP/state"
is "$RC" 0 "the table: exit 0"
like "$(tail -n 1 <<<"$OUT")" " OK, " "the table ends with its counts"
like "$OUT" "OK    vf-rdma            ${FX_VF_BDF[0]}" "the table: one line per check"

# ---- RDMA shared mode ---------------------------------------------------------
sim set-mode shared
doctor "${NODE[@]}"
# what a NAD without "rdma" works with (the RDMA device stays in the host)
is "$RC" 0 "shared mode: exit 0 (a warning)"
expect "shared mode" rdma-mode node WARN "shared: RDMA devices stay in the host netns, visible from every pod" \
	"rdma system set netns exclusive"
like "$(jq -r '.checks[] | select(.check == "rdma-mode") | .seen' <<<"$OUT")" \
	'one with "rdma": true (or rdmaIsolation: true) is refused' "shared mode: says which networks are refused"
like "$(jq -r '.checks[] | select(.check == "rdma-mode") | .seen' <<<"$OUT")" \
	"refused while other network namespaces exist" "shared mode: says a change is refused now, and why"
doctor node --conf-dir "$TMP/net.d" --data-dir "$TMP/state"
like "$OUT" "WARN  rdma-mode" "shared mode: the table has the WARN line"
like "$OUT" "fix: run \`rdma system set netns exclusive\` while no pod runs, or load ib_core with netns_mode=0" \
	"shared mode: the table names the fix"
# A node without pods: alone in a PID namespace of its own with nothing bound
# under /run/netns, the doctor sees no netns but the host's.
T_LAST="sriov-rdma-doctor ${NODE[*]} (alone)"
OUT=$(timeout -k 5 "$T_TIMEOUT" unshare -m -p -f --mount-proc --propagation private \
	sh -c 'mount -t tmpfs none /run/netns && exec "$@"' sh \
	env -u LD_LIBRARY_PATH LD_PRELOAD="$RDMASIM_LIB" "${DOCTOR_ENV[@]}" "$SRIOV_RDMA_DOCTOR" \
	"${NODE[@]}" 2>"$TMP/stderr")
RC=$?
expect "shared mode, no pods" rdma-mode node WARN "a change to exclusive is possible now" \
	"rdma system set netns exclusive"
sim set-mode exclusive

# ---- numVfs over total, PF down -------------------------------------------------
pf_dir=$FX_DEVICES/$FX_PF_BDF
echo 1 >"$pf_dir/sriov_totalvfs"
doctor "${NODE[@]}"
expect "numVfs over total" pf-vfs "$FX_PF_BDF" FAIL "sriov_numvfs 2 is above sriov_totalvfs 1" \
	"ask for at most 1 VFs (numVfs in the SriovNetworkNodePolicy)"
is "$RC" 1 "numVfs over total: exit 1"
echo 2 >"$pf_dir/sriov_totalvfs"
echo 0 >"$pf_dir/sriov_numvfs"
doctor "${NODE[@]}"
expect "no VFs" pf-vfs "$FX_PF_BDF" WARN "no VFs (sriov_totalvfs 2)" "numVfs"
echo 2 >"$pf_dir/sriov_numvfs"

ip link set "$FX_PF" down
doctor "${NODE[@]}"
expect "PF down" pf-link "$FX_PF_BDF" FAIL "$FX_PF is down: its VFs have no link" "ip link set $FX_PF up"
ip link set "$FX_PF" up
ip -n "$FX_SW" link set pf down
doctor "${NODE[@]}"
expect "PF without carrier" pf-link "$FX_PF_BDF" FAIL "$FX_PF is up but has no carrier" "the cable"
ip -n "$FX_SW" link set pf up

# ---- uverbs -------------------------------------------------------------------
DOCTOR_DEV=(--no-uverbs)
doctor "${NODE[@]}"
expect "no /dev/infiniband/uverbsN" vf-uverbs "${FX_VF_BDF[0]}" FAIL \
	"${FX_VF_RDMA[0]}: no char device /dev/infiniband/uverbs1" "devtmpfs"
DOCTOR_DEV=()
mv "$FX_DEVICES/${FX_VF_BDF[1]}/infiniband_verbs" "$TMP/verbs-away"
doctor "${NODE[@]}"
expect "ib_uverbs not loaded" vf-uverbs "${FX_VF_BDF[1]}" FAIL "${FX_VF_RDMA[1]} has no uverbs char device" \
	"modprobe ib_uverbs"
mv "$TMP/verbs-away" "$FX_DEVICES/${FX_VF_BDF[1]}/infiniband_verbs"

# ---- a leaked VLAN on a free VF -------------------------------------------------
sim_vf 1 '.vlan = 100 | .trust = true'
doctor "${NODE[@]}"
expect "leaked VLAN on a free VF" vf-settings "${FX_VF_BDF[1]}" WARN \
	"free VF with VLAN 100, trust on: no attachment holds it" "ip link set $FX_PF vf 1 vlan 0 trust off"
sim_vf 1 '.vlan = 0 | .trust = false'

# ---- a pod: attached, then its netns deleted without DEL ---------------------------
healthy "before the pod"
pod_new
VF=0
c=$(conf 1.0.0 '.vlan = 100 | .trust = "on"')
cni ADD "$c"
is "$RC" 0 "ADD of VF 0 with a VLAN into a pod" || diag "$OUT"
doctor "${NODE[@]}"
is "$(not_ok)" "" "a live pod: every check OK"
expect "a live pod" attach "$CID:$IFNAME" OK "VF ${FX_VF_BDF[0]} in pod netns $NETNS"
expect "a live pod" vf-netdev "${FX_VF_BDF[0]}" OK "in a pod: attachment $CID:$IFNAME"
expect "a live pod" vf-rdma "${FX_VF_BDF[0]}" OK "${FX_VF_RDMA[0]} (not in the host: in a pod)"

pod_die "$POD"
before=$(node_snapshot)
doctor "${NODE[@]}"
is "$(node_snapshot)" "$before" \
	"pod netns gone: the doctor changes nothing (VF parked with its pod name and VLAN, state file kept)"
json_shape "pod netns gone"
expect "pod netns gone" attach "$CID:$IFNAME" WARN "pod netns $NETNS is gone but its state (VF ${FX_VF_BDF[0]})" \
	"the runtime's DEL (or CNI GC) of container $CID"
expect "pod netns gone" vf-settings "$CID:$IFNAME" WARN "VLAN 100 qos 0 (was VLAN 0 qos 0), trust on (was trust off)" \
	"DEL of $CID:$IFNAME restores them"
# the kernel names the VF dev<ifindex> when another run holds net1 in the host
parked=$(jq -r '.checks[] | select(.check == "vf-parked" and (.seen | contains($cid))) | .subject' \
	--arg cid "$CID" <<<"$OUT")
like_any "$parked" "pod netns gone: the VF is reported parked under its pod-side name" "$IFNAME" "dev"
expect "pod netns gone" vf-parked "$parked" WARN "alias sriov-rdma:${FX_VF_IF[0]}:$CID" \
	"puts it back as ${FX_VF_IF[0]}"
doctor node --conf-dir "$TMP/net.d" --data-dir "$TMP/state"
like "$OUT" "WARN  vf-parked" "pod netns gone: the table has the vf-parked line"
like "$OUT" "fix: DEL of $CID:$IFNAME restores them" "pod netns gone: the table names the fix for the VLAN"
cni DEL "$c"
is "$RC" 0 "DEL of the dead pod"
healthy "after DEL"

# ---- a VF lock held ------------------------------------------------------------------
mkdir -p "$T_LOCK_DIR"
printf '%s' "$TMP/state/someone:net1.json" >"$T_LOCK_DIR/${FX_VF_BDF[1]}.lock"
# one process holds it, as an ADD does (flock(1) would leave its child holding it)
python3 -c 'import fcntl, sys, time
f = open(sys.argv[1], "r+")
fcntl.flock(f, fcntl.LOCK_EX)
print("locked", flush=True)
time.sleep(600)' "$T_LOCK_DIR/${FX_VF_BDF[1]}.lock" >"$TMP/holder.out" &
holder=$!
T_AT_EXIT+=("pid_kill $holder")
for _ in $(seq 100); do
	[ -s "$TMP/holder.out" ] && break
	sleep 0.05
done
before=$(node_snapshot)
doctor "${NODE[@]}"
is "$(node_snapshot)" "$before" "a held VF lock: the doctor changes nothing (the lock file kept as it is)"
expect "a held VF lock" vf-lock "${FX_VF_BDF[1]}" WARN "for someone:net1 (state in $TMP/state)" "that process is stuck"
like "$(check vf-lock "${FX_VF_BDF[1]}")" "held by pid $holder (python3)" "a held VF lock: names the holder's pid"
is "$(not_ok | jq -r .check)" vf-lock "a held VF lock: the only finding"
# the same inode, still held, its record damaged (an earlier version's bare name)
printf '%s' "someone:net1.json" >"$T_LOCK_DIR/${FX_VF_BDF[1]}.lock"
doctor "${NODE[@]}"
expect "a held VF lock, damaged record" vf-lock "${FX_VF_BDF[1]}" WARN "for (damaged record)" \
	"that process is stuck"
pid_kill "$holder"
healthy "the lock released"

# ---- ippool stores named by the conf files -------------------------------------------
if [ -x "$IPPOOL" ]; then
	jq -n --arg d "$TMP/ipam-ok" '{cniVersion: "1.0.0", name: "good-net", plugins: [{type: "sriov-rdma",
		ipam: {type: "ippool", range: "192.0.2.0/24", dataDir: $d}}]}' >"$TMP/net.d/10-good.conflist"
	touch "$TMP/not-a-dir"
	jq -n --arg d "$TMP/not-a-dir/store" '{cniVersion: "1.0.0", name: "bad-net", type: "sriov-rdma",
		ipam: {type: "ippool", range: "198.51.100.0/24", dataDir: $d}}' >"$TMP/net.d/20-bad.conf"
	doctor "${NODE[@]}"
	expect "ippool store usable" ippool good-net OK "STATUS ready"
	expect "ippool store unusable" ippool bad-net FAIL "STATUS failed with 50" "permissions"
	is "$RC" 1 "an unusable store: exit 1"
	rm "$TMP/net.d/20-bad.conf"
	healthy "only the usable store left"
else
	skip "ippool not built"
fi

# ---- usage --------------------------------------------------------------------------
doctor nodes
is "$RC" 2 "an unknown command: exit 2"
doctor node --netns /run/netns/x
is "$RC" 2 "a pod option to node: exit 2"
doctor node extra
is "$RC" 2 "an extra argument: exit 2"

done_testing
