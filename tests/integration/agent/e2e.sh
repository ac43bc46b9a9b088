#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The agent at work under a loop of ADDs, DELs and pods dying without DEL (two rails, sriov-rdma with ippool, and ippool leases of their own): it never touches a live attachment or lease, undoes every dead one (VF back under its host name, address free), its metrics file parses every time and its counters never go down; SIGTERM in the middle of a run leaves nothing half-done.
# shellcheck source-path=SCRIPTDIR source=agent-lib.sh
. "$(dirname "$0")/agent-lib.sh"

IPAM=ippool
fx_setup --pfs 2 --vfs 4
jq -n --arg d "$TMP/ipam" '{dataDir: $d}' >"$TMP/ippool.conf"
AGENT_ARGS=(--reconcile-grace 1 --ippool-conf "$TMP/ippool.conf")
LEASES='{"cniVersion":"1.0.0","name":"leases","ipam":{"type":"ippool","range":"198.51.100.0/24","dataDir":"'$TMP'/ipam"}}'

# Each VF k: "" free, else "live POD CID" or "dead POD CID" (died without DEL).
declare -a vf=()
declare -a lease=()	# ippool-only leases: "live POD CID" / "dead POD CID"
killed=0 leases_killed=0

vf_add() {
	VF=$1
	pod_new
	cni ADD "$(conf 1.0.0)"
	if [ "$RC" -eq 0 ]; then vf[$1]="live $POD $CID"; else diag "ADD of VF $1 failed: $OUT"; fi
}
lease_add() {
	pod_new
	PLUGIN=$IPPOOL cni ADD "$LEASES"
	if [ "$RC" -eq 0 ]; then lease[$1]="live $POD $CID"; else diag "ippool ADD failed: $OUT"; fi
}

# every live attachment is whole: its VF in its pod as net1 with its address,
# the address held; every live lease held. Prints what is not.
check_live() {
	local k s pod cid l
	for k in "${!vf[@]}"; do
		read -r s pod cid <<<"${vf[k]}"
		[ "$s" = live ] || continue
		l=$(vf_link "$k" "$pod")
		[ "$(link_field "$l" .ifname)" = net1 ] || echo "VF $k of live pod $pod is not in it"
		[ -n "$(link_addrs "$l")" ] || echo "VF $k of live pod $pod lost its address"
		ipam_holds "$cid" || echo "the lease of live pod $pod ($cid) is gone"
	done
	for k in "${!lease[@]}"; do
		read -r s pod cid <<<"${lease[k]}"
		[ "$s" = live ] && ! ipam_holds "$cid" && echo "the ippool lease of live pod $pod ($cid) is gone"
	done
}

SRIOV_RDMA_RECONCILE_INTERVAL=1 "$INSTALLER" --from "$AGENT_FROM" --to "$AGENT_BIN" --dev "$TMP/nodev" \
	--metrics-file "$METRICS" "${AGENT_ARGS[@]}" >"$TMP/serve.out" 2>"$TMP/serve.err" &
SERVE=$!
stop_serve() { kill -TERM "$SERVE" 2>/dev/null; }
T_AT_EXIT+=(stop_serve)

: >"$TMP/broken"
"$PY" "$HERE/promcheck.py" "$METRICS" --dump "$TMP/prev.json" >/dev/null 2>&1 || echo '{"types":{},"samples":{}}' >"$TMP/prev.json"
for round in $(seq 40); do
	k=$((RANDOM % FX_NVFS))
	read -r s pod cid <<<"${vf[k]:-}"
	case "${s:-}:$((RANDOM % 3))" in
	:*) vf_add "$k" ;;
	live:0)	VF=$k POD=$pod CID=$cid NETNS=/run/netns/$pod cni DEL "$(VF=$k conf 1.0.0)"
		[ "$RC" -eq 0 ] || echo "round $round: DEL of VF $k failed: $OUT" >>"$TMP/broken"
		netns_del "$pod"
		vf[k]= ;;
	live:1) pod_die "$pod" && vf[k]="dead $pod $cid" && killed=$((killed + 1))
		fx_sync ;;	# the fake sysfs follows, as the kernel's would
	live:2) ;;	# it lives on
	dead:*)	# the agent gives it back (after the grace): then the VF is free again
		fx_sync
		[ "$(link_field "$(vf_link "$k")" .ifname)" = "${FX_VF_IF[k]}" ] && vf[k]= ;;
	esac
	j=$((RANDOM % 4))
	read -r s pod cid <<<"${lease[j]:-}"
	case "${s:-}:$((RANDOM % 3))" in
	:*) lease_add "$j" ;;
	live:1) netns_del "$pod" && lease[j]="dead $pod $cid" && leases_killed=$((leases_killed + 1)) ;;
	dead:*) ipam_holds "$cid" || lease[j]= ;;
	esac
	check_live | sed "s/^/round $round: /" >>"$TMP/broken"
	if [ -f "$METRICS" ]; then
		"$PY" "$HERE/promcheck.py" "$METRICS" --not-below "$TMP/prev.json" --dump "$TMP/next.json" \
			| sed "s/^/round $round: metrics: /" >>"$TMP/broken"
		mv "$TMP/next.json" "$TMP/prev.json"
	fi
	sleep 0.$((RANDOM % 5))
done
is "$(cat "$TMP/broken")" "" "40 rounds of ADD, DEL and pods dying: no live attachment or lease touched, every metrics file read parses, no counter went down"
ok "pods died without DEL meanwhile ($killed VFs, $leases_killed leases)" test $((killed + leases_killed)) -gt 0

# SIGTERM, whenever it comes, then runs until every dead pod is undone
kill -TERM "$SERVE"
wait "$SERVE"
is "$?" 0 "SIGTERM: the agent exits 0"
sleep 1.5	# the grace of the last deaths
for _ in 1 2; do
	fx_sync
	agent_once "${AGENT_ARGS[@]}"
done
is "$AGENT_RC" 0 "a last run succeeds" || diag "$AGENT_ERR"
is "$(check_live)" "" "the live pods are untouched"
bad=()
for k in "${!vf[@]}"; do
	read -r s pod cid <<<"${vf[k]}"
	[ "$s" = dead ] || continue
	[ "$(link_field "$(vf_link "$k")" .ifname)" = "${FX_VF_IF[k]}" ] || bad+=("VF $k not back as ${FX_VF_IF[k]}")
	ipam_holds "$cid" && bad+=("VF $k's pod $cid still holds its address")
	state_holds "$cid" && bad+=("VF $k's pod $cid still has its state")
done
for k in "${!lease[@]}"; do
	read -r s pod cid <<<"${lease[k]}"
	[ "$s" = dead ] && ipam_holds "$cid" && bad+=("lease of dead pod $cid still held")
done
is "${bad[*]}" "" "every dead pod's VF is back under its host name, its state and addresses gone"
is "$(metric sriov_rdma_reconciled_total)" "$killed" "sriov_rdma_reconciled_total counts the $killed attachments undone"
# ippool reconcile frees the leases of dead ippool-only pods, and may free a
# dead attachment's before sriov-rdma reconcile's IPAM DEL does (it found
# the VF busy that run): each lease once either way
freed=$(metric ippool_reconciled_total)
ok "ippool_reconciled_total counts the $leases_killed leases freed, at most $killed more ($freed)" \
	test "$freed" -ge "$leases_killed" -a "$freed" -le $((leases_killed + killed))
like "$(cat "$TMP/serve.out")" "agent: sriov-rdma reconcile: undone" "the agent logged what it undid"
metrics_ok "the last metrics file parses" --not-below "$TMP/prev.json"
is "$(metric "sriov_rdma_vfs{pf=\"$FX_PF\",state=\"parked\"}")" 0 "no VF is left parked"

done_testing
