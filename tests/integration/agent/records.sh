#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Call records and trace ids: every call of both plugins leaves its record (verb, code, network, trace id); TRACEPARENT from a libcni caller reaches the log lines and records of that call, a malformed one is ignored; a full, unwritable or damaged record file never fails a call, and the agent reports the gap.
# shellcheck source-path=SCRIPTDIR source=agent-lib.sh
. "$(dirname "$0")/agent-lib.sh"

IPAM=ippool
fx_setup --vfs 2

# ---- each call of either plugin, its record
pod_new
cni ADD "$(conf 1.0.0)"
is "$RC" 0 "ADD succeeds"
recs=$(records | jq -c 'select(.verb)')
is "$(jq -r '[.plugin, .verb, .code, .network] | join(" ")' <<<"$recs" | sort | paste -sd,)" \
	"ippool ADD 0 rdma-net,sriov-rdma ADD 0 rdma-net" \
	"one record per plugin: sriov-rdma's ADD and the ippool ADD it ran, code 0, the network's name"
is "$(jq -r 'select(.durationUs > 0 and .timeMs > 1700000000000) | .plugin' <<<"$recs" | wc -l)" 2 \
	"each with its duration and start time"
is "$(jq -r 'select(.trace != "") | .trace' <<<"$recs" | wc -l)" 0 "no TRACEPARENT: no trace id"
cni DEL "$(conf 1.0.0)"
is "$RC" 0 "DEL succeeds"
VF=1
cni ADD "$(conf 1.0.0 '.deviceID = "0000:00:00.7"')"
is "$(jout .code)" 100 "an ADD of a VF that does not exist fails (code 100)"
is "$(records | jq -r 'select(.verb) | [.plugin, .verb, .code] | join(" ")' | tail -n 1)" \
	"sriov-rdma ADD 100" "its record has the code it failed with"
VF=0
netns_del "$POD"

# ---- TRACEPARENT from the caller, through libcni
if [ -x "${CNITOOL:-}" ] && command -v go >/dev/null; then
	TRACE=4bf92f3577b34da6a3ce929d0e0e4736
	LOGS=$TMP/logs
	mkdir -p "$LOGS"
	conf 1.0.0 | jq --arg l "$LOGS/sriov-rdma.log" --arg i "$LOGS/ippool.log" \
		'{cniVersion, name, plugins: [del(.cniVersion, .name) | .logFile = $l | .logLevel = "info"
		  | .ipam.log_file = $i | .ipam.log_level = "info"]}' >"$TMP/traced.conflist"
	pod_new
	: >"$SRIOV_RDMA_AGENT_DIR/calls"
	TRACEPARENT="00-$TRACE-00f067aa0ba902b7-01" libcni add "$TMP/traced.conflist"
	is "$RC" 0 "libcni ADD with TRACEPARENT succeeds"
	TRACEPARENT="00-$TRACE-00f067aa0ba902b7-01" libcni del "$TMP/traced.conflist"
	is "$RC" 0 "libcni DEL with TRACEPARENT succeeds"
	is "$(records | jq -r 'select(.verb) | [.plugin, .verb, .trace] | join(" ")' | sort | paste -sd,)" \
		"ippool ADD $TRACE,ippool DEL $TRACE,sriov-rdma ADD $TRACE,sriov-rdma DEL $TRACE" \
		"the records of that call, both plugins' (ippool runs in sriov-rdma's environment), keep its trace id"
	like "$(cat "$LOGS/ippool.log")" " trace $TRACE: ADD $CID net1: 192.0.2." \
		"ippool's log line of the ADD carries the trace id"
	like "$(cat "$LOGS/sriov-rdma.log")" " trace $TRACE: VF ${FX_VF_BDF[0]} is back in the host" \
		"sriov-rdma's log line of the DEL carries it"
	is "$(grep -vc " trace $TRACE: " "$LOGS/sriov-rdma.log" "$LOGS/ippool.log" | awk -F: '{s += $2} END {print s}')" 0 \
		"every log line of those calls carries it"
	netns_del "$POD"
	for bad in "00-${TRACE^^}-00f067aa0ba902b7-01" "ff-$TRACE-00f067aa0ba902b7-01" \
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01" "00-$TRACE-00f067aa0ba902b7" "garbage"; do
		pod_new
		: >"$SRIOV_RDMA_AGENT_DIR/calls"
		: >"$LOGS/ippool.log"
		TRACEPARENT=$bad libcni add "$TMP/traced.conflist"
		is "$RC" 0 "TRACEPARENT \"$bad\": ADD succeeds"
		is "$(records | jq -r 'select(.verb) | .trace' | sort -u | paste -sd,)" "" \
			"TRACEPARENT \"$bad\": ignored, no trace id in the records"
		unlike "$(cat "$LOGS/ippool.log")" " trace " "TRACEPARENT \"$bad\": nor in the log lines"
		libcni del "$TMP/traced.conflist"
		netns_del "$POD"
	done
else
	skip "TRACEPARENT through libcni: cnitool not built (go missing)"
fi

# ---- a full file: calls are not recorded, but succeed; the agent counts them
agent_once
sr0=$(metric 'sriov_rdma_calls_total{code="0",network="rdma-net",verb="ADD"}')
ip0=$(metric 'ippool_calls_total{code="0",network="rdma-net",verb="ADD"}')
: >"$SRIOV_RDMA_AGENT_DIR/calls"
pod_new
cni ADD "$(conf 1.0.0)"
fill=$(((1048576 - $(stat -c %s "$SRIOV_RDMA_AGENT_DIR/calls")) / 128))
/usr/bin/python3 "$HERE/callrec.py" --fill "$SRIOV_RDMA_AGENT_DIR/calls" "$fill"
is "$(stat -c %s "$SRIOV_RDMA_AGENT_DIR/calls")" 1048576 "the record file is full (1 MiB)"
cni DEL "$(conf 1.0.0)"
is "$RC" 0 "DEL on a full record file succeeds"
ok "the VF is back in the host" test -n "$(vf_link 0)"
ipam_holds "$CID"
is "$?" 1 "the address is released"
is "$(stat -c %s "$SRIOV_RDMA_AGENT_DIR/calls")" 1048576 "nothing was appended past the cap"
drops=$(stat -c %s "$SRIOV_RDMA_AGENT_DIR/calls.dropped")
ok "the calls of that DEL (sriov-rdma's, the ippool calls it made) are counted as dropped ($drops)" \
	test "$drops" -ge 2
netns_del "$POD"
agent_once
# what the agent's own children called meanwhile (the IPAM DEL of a
# reconcile) is a call too, and dropped as well
drops=$(stat -c %s "$SRIOV_RDMA_AGENT_DIR/calls.dropped")
like "$AGENT_ERR" "$drops CNI calls not recorded: $SRIOV_RDMA_AGENT_DIR/calls was full" "the agent logs the gap"
is "$(metric 'sriov_rdma_call_records_dropped_total{reason="full"}')" "$drops" "and reports it: dropped_total{reason=\"full\"} $drops"
is "$(metric 'sriov_rdma_calls_total{code="0",network="rdma-net",verb="ADD"}')" $((${sr0:-0} + fill + 1)) \
	"every record of the full file is counted: sriov-rdma's ADD and the $fill copies of it"
is "$(metric 'ippool_calls_total{code="0",network="rdma-net",verb="ADD"}')" $((${ip0:-0} + 1)) \
	"and ippool's ADD"
metrics_ok "the metrics file parses"

# ---- an unwritable record file: calls succeed, the agent says they go unrecorded
rm -f "$SRIOV_RDMA_AGENT_DIR/calls" "$SRIOV_RDMA_AGENT_DIR/calls.old"
mkdir "$SRIOV_RDMA_AGENT_DIR/calls"
pod_new
cni ADD "$(conf 1.0.0)"
is "$RC" 0 "ADD with a directory where the record file should be succeeds"
cni DEL "$(conf 1.0.0)"
is "$RC" 0 "and so does its DEL"
agent_once
like "$AGENT_ERR" "CNI calls go unrecorded: $SRIOV_RDMA_AGENT_DIR/calls" "the agent logs that calls go unrecorded"
is "$(metric sriov_rdma_call_records_writable)" 0 "and reports it: call_records_writable 0"
rmdir "$SRIOV_RDMA_AGENT_DIR/calls"
agent_once
is "$(metric sriov_rdma_call_records_writable)" 1 "writable again once the directory is gone"
netns_del "$POD"

# ---- a damaged record file: what reads is counted, the rest reported
pod_new
cni ADD "$(conf 1.0.0)"
printf 'not a record at all' >>"$SRIOV_RDMA_AGENT_DIR/calls"
cni DEL "$(conf 1.0.0)"
before=$(metric 'sriov_rdma_calls_total{code="0",network="rdma-net",verb="DEL"}')
agent_once
like "$AGENT_ERR" "1 damaged call records skipped" "the agent logs the damaged bytes"
is "$(metric 'sriov_rdma_call_records_dropped_total{reason="damaged"}')" 1 "and counts them (damaged 1)"
is "$(metric 'sriov_rdma_calls_total{code="0",network="rdma-net",verb="DEL"}')" $((${before:-0} + 1)) \
	"the DEL after the junk is counted"
metrics_ok "the metrics file still parses"
netns_del "$POD"

done_testing
