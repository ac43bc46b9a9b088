#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The node agent: its metrics file always parses as the text exposition format (prometheus_client and strict checks) and says what the node holds; counters never go down across runs and restarts; SIGTERM mid-run lets the running reconcile finish and leaves every file whole; the doctor reports its last run and a node it has left.
# shellcheck source-path=SCRIPTDIR source=agent-lib.sh
. "$(dirname "$0")/agent-lib.sh"

IPAM=ippool
fx_setup --vfs 4
# ippool's store of these tests, for the agent (its default store is the
# empty tmpfs isolate.sh mounted)
jq -n --arg d "$TMP/ipam" '{dataDir: $d}' >"$TMP/ippool.conf"
POOLS=(--ippool-conf "$TMP/ippool.conf")
ADDRS='{code="0",network="rdma-net",verb="ADD"}'

# add VF: a pod with VF $1 attached (POD, NETNS, CID its).
add() {
	VF=$1
	pod_new
	cni ADD "$(conf 1.0.0)"
}

# ---- the first run: the VFs in each state, the pool, the calls
add 0
is "$RC" 0 "pod A: ADD of VF 0"
A_POD=$POD
add 1
is "$RC" 0 "pod B: ADD of VF 1"
pod_die "$POD"	# its netns deleted without DEL: VF 1 back in the host, still held
fx_sync		# the fake sysfs follows, as the kernel's would
agent_once "${POOLS[@]}"
is "$AGENT_RC" 0 "the agent's run succeeds" || diag "$AGENT_ERR"
metrics_ok "its metrics file parses (prometheus_client, then strictly)"
for state in attached:1 parked:1 free:2; do
	is "$(metric "sriov_rdma_vfs{pf=\"$FX_PF\",state=\"${state%:*}\"}")" "${state#*:}" \
		"sriov_rdma_vfs: ${state#*:} ${state%:*} VF(s) on $FX_PF (A's live, B's inside the grace, two free)"
done
list=$("$IPPOOL" list --json --data-dir "$TMP/ipam")
is "$(metric 'ippool_addresses{network="",pool="192.0.2.0/24",state="used"}')" 2 \
	"ippool_addresses: the two pods' addresses used"
is "$(metric 'ippool_addresses{network="",pool="192.0.2.0/24",state="free"}')" "$(jq '.pools[0].free' <<<"$list")" \
	"ippool_addresses: the rest free, as ippool list counts them"
is "$(metric 'ippool_slices{network="",pool="192.0.2.0/24"}')" 0 "ippool_slices: none on the local store"
is "$(metric "sriov_rdma_calls_total$ADDRS")" 2 "sriov_rdma_calls_total: the two ADDs"
is "$(metric "ippool_calls_total$ADDRS")" 2 "ippool_calls_total: the ADDs ippool answered for them"
is "$(metric 'sriov_rdma_call_duration_seconds_count{verb="ADD"}')" 2 "the ADD duration histogram counts them"
is "$(metric sriov_rdma_reconcile_runs_total)" 1 "sriov_rdma_reconcile_runs_total 1"
is "$(stat -c %a "$METRICS")" 644 "the metrics file is readable by node_exporter's user (0644)"
is "$(jq -r '.interval, (.time > now - 30)' "$SRIOV_RDMA_AGENT_DIR/status.json" | paste -sd' ')" "60 true" \
	"the status file records the run and its interval"
OUT=$("$SRIOV_RDMA_DOCTOR" node --json --conf-dir "$TMP/none" 2>/dev/null)
matches "$(jq -r '.checks[] | select(.check == "agent") | .status + " " + .seen' <<<"$OUT")" \
	"^OK the agent last ran [0-9]+s ago \\(every 60s\\): 0 attachments undone, 0 leases freed, 0 left$" \
	"doctor node: the agent's last run and what it freed"

# ---- counters never go down: runs between calls, each run a new process
"$PY" "$HERE/promcheck.py" "$METRICS" --dump "$TMP/prev.json" >/dev/null
VF=2
for i in 1 2 3 4 5; do
	pod_new
	cni ADD "$(conf 1.0.0)"
	[ $((i % 2)) -eq 0 ] && cni ADD "$(conf 1.0.0 '.deviceID = "0000:00:00.7"')"	# a failure too
	cni DEL "$(conf 1.0.0)"
	netns_del "$POD"
	agent_once "${POOLS[@]}"
	metrics_ok "run $((i + 1)): the file parses and no counter went down" --not-below "$TMP/prev.json"
	"$PY" "$HERE/promcheck.py" "$METRICS" --dump "$TMP/prev.json" >/dev/null
done
is "$(metric sriov_rdma_reconcile_runs_total)" 6 "six runs counted"
is "$(metric "sriov_rdma_calls_total$ADDRS")" 7 "every successful ADD counted once (2 + 5)"
is "$(metric 'sriov_rdma_calls_total{code="100",network="rdma-net",verb="ADD"}')" 2 "the failed ADDs, by code"
is "$(metric 'sriov_rdma_calls_total{code="0",network="rdma-net",verb="DEL"}')" 5 "every DEL counted once"

# ---- the long-running agent: runs every interval, stops on SIGTERM, and a
# new one goes on counting where it stopped
serve() {
	SRIOV_RDMA_RECONCILE_INTERVAL=1 "$INSTALLER" --from "$AGENT_FROM" --to "$AGENT_BIN" \
		--dev "$TMP/nodev" --metrics-file "$METRICS" "${POOLS[@]}" >"$TMP/serve.out" 2>"$TMP/serve.err" &
	SERVE=$!
}
# runs_reach N: waits up to 20 s for runs_total N; meanwhile each read of the file parses.
runs_reach() {
	local bad=0 reads=0
	for _ in $(seq 200); do
		if [ -f "$METRICS" ]; then
			"$PY" "$HERE/promcheck.py" "$METRICS" >>"$TMP/reads.bad" 2>&1 || bad=$((bad + 1))
			reads=$((reads + 1))
			[ "$(metric sriov_rdma_reconcile_runs_total)" -ge "$1" ] && break
		fi
		sleep 0.1
	done
	is "$bad" 0 "every one of $reads reads of the metrics file while the agent writes it parses"
}
serve
runs_reach 9
ok "the agent runs every second (runs_total $(metric sriov_rdma_reconcile_runs_total))" \
	test "$(metric sriov_rdma_reconcile_runs_total)" -ge 9
metrics_ok "no counter went down" --not-below "$TMP/prev.json"
"$PY" "$HERE/promcheck.py" "$METRICS" --dump "$TMP/prev.json" >/dev/null
kill -TERM "$SERVE"
for _ in $(seq 100); do kill -0 "$SERVE" 2>/dev/null || break; sleep 0.1; done
ok "SIGTERM stops it within 10 s" test ! -e "/proc/$SERVE"
wait "$SERVE"
is "$?" 0 "and it exits 0"
like "$(cat "$TMP/serve.out")" "agent: stopped" "saying so"
serve
runs_reach "$(($(jq '.samples["sriov_rdma_reconcile_runs_total{}"]' "$TMP/prev.json") + 2))"
metrics_ok "after a restart no counter went down" --not-below "$TMP/prev.json"
kill -TERM "$SERVE"
wait "$SERVE"

# ---- SIGTERM in the middle of a run: the running reconcile finishes, the
# ones not started are left for the next run, every file is whole
SLOW=$TMP/slow-bin
mkdir -p "$SLOW"
# shellcheck disable=SC2016 # "$@" and $1 are the wrappers' own
{
	printf '#!/bin/sh\ntouch %s/started\nsleep 2\nexec %s "$@"\n' "$TMP" "$AGENT_BIN/sriov-rdma" >"$SLOW/sriov-rdma"
	printf '#!/bin/sh\n[ "$1" = reconcile ] && touch %s/ippool-ran\nexec %s "$@"\n' "$TMP" "$AGENT_BIN/ippool" >"$SLOW/ippool"
}
chmod +x "$SLOW/sriov-rdma" "$SLOW/ippool"
runs=$(metric sriov_rdma_reconcile_runs_total)
"$INSTALLER" --once --to "$SLOW" --reconcile-interval 60 --metrics-file "$METRICS" "${POOLS[@]}" \
	>"$TMP/once.out" 2>"$TMP/once.err" &
pid=$!
for _ in $(seq 50); do [ -e "$TMP/started" ] && break; sleep 0.1; done
kill -TERM "$pid"
sent=$(date +%s)
wait "$pid"
is "$?" 0 "SIGTERM during sriov-rdma reconcile: the agent ends its run and exits 0"
ok "the reconcile it was running finished (the run ended after it, 2 s on)" \
	test "$(jq .time "$SRIOV_RDMA_AGENT_DIR/status.json")" -ge "$sent"
ok "ippool reconcile, not started yet, was not started" test ! -e "$TMP/ippool-ran"
like "$(cat "$TMP/once.out")" "agent: stopping" "the agent says what it left for the next run"
is "$(metric sriov_rdma_reconcile_runs_total)" $((runs + 1)) "the run is counted"
metrics_ok "the metrics file is whole" --not-below "$TMP/prev.json"
is "$(find "$SRIOV_RDMA_AGENT_DIR" "$TMP/textfile" -name '.*' -type f | wc -l)" 0 "no temp file is left"
agent_once "${POOLS[@]}"
unlike "$AGENT_ERR" "counting starts over" "the totals it saved read back"

# ---- the doctor on a node the agent has left, and on a run with errors
agent_once "${POOLS[@]}" --reconcile-interval 1
sleep 4
OUT=$("$SRIOV_RDMA_DOCTOR" node --json --conf-dir "$TMP/none" 2>/dev/null)
matches "$(jq -r '.checks[] | select(.check == "agent") | .status + " " + .seen' <<<"$OUT")" \
	"^WARN the agent last ran [0-9]+s ago, more than 3 intervals of 1s" \
	"doctor node: WARN when the agent missed 3 runs"
agent_once "${POOLS[@]}" --ippool-conf "$TMP/no-such.conf"
is "$AGENT_RC" 1 "a run with a reconcile that fails: exit 1 (--once)"
OUT=$("$SRIOV_RDMA_DOCTOR" node --json --conf-dir "$TMP/none" 2>/dev/null)
matches "$(jq -r '.checks[] | select(.check == "agent-run") | .status + " " + .seen' <<<"$OUT")" \
	"^WARN the agent's last run: .*ippool reconcile --conf $TMP/no-such.conf: exit [0-9]+" \
	"doctor node: WARN naming what failed in the last run"
echo garbage >"$SRIOV_RDMA_AGENT_DIR/status.json"
OUT=$("$SRIOV_RDMA_DOCTOR" node --json --conf-dir "$TMP/none" 2>/dev/null)
matches "$(jq -r '.checks[] | select(.check == "agent") | .status + " " + .seen' <<<"$OUT")" \
	"^WARN the agent's status .* does not read: damaged$" "doctor node: WARN on a damaged status file"
echo garbage >"$SRIOV_RDMA_AGENT_DIR/totals.json"
agent_once "${POOLS[@]}"
like "$AGENT_ERR" "totals.json does not read: counting starts over" "damaged totals: the agent says it starts over"
metrics_ok "and its metrics file parses"

netns_del "$A_POD"
done_testing
