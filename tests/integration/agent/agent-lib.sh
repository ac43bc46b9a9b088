# SPDX-License-Identifier: Apache-2.0
# What the agent tests share: their own mount namespace (isolate.sh), the harness (lib.sh), the agent's directory, one run of it, its metrics read back.
# shellcheck shell=bash
# shellcheck disable=SC2034 # AGENT_* are read by the tests
#
# Sets:  SRIOV_RDMA_AGENT_DIR (exported: the plugins, the agent and the doctor read it)
#        AGENT_FROM  what the installer copies (links to the built plugins)
#        AGENT_BIN   the --to directory it copies them into, and the agent runs them from
#        METRICS     the metrics file      AGENT_OUT, AGENT_ERR, AGENT_RC  the last run
#        HERE        this directory
# Reads: INSTALLER, SRIOV_RDMA, IPPOOL, TMP

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=isolate.sh
. "$HERE/isolate.sh"
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$HERE/../lib.sh"
PY=/usr/bin/python3
"$PY" -c 'import prometheus_client' 2>/dev/null || skip_all "no python3-prometheus-client"
[ -x "${INSTALLER:-}" ] || skip_all "INSTALLER not set to sriov-rdma-install"
export SRIOV_RDMA_AGENT_DIR=$TMP/agent
AGENT_FROM=$TMP/image-bin AGENT_BIN=$TMP/cni-bin
mkdir -p "$AGENT_FROM" "$AGENT_BIN" "$TMP/textfile"
ln -sf "$SRIOV_RDMA" "$AGENT_FROM/sriov-rdma"
ln -sf "$IPPOOL" "$AGENT_FROM/ippool"
if ! "$INSTALLER" --from "$AGENT_FROM" --to "$AGENT_BIN" --dev "$TMP/nodev" >"$TMP/install.log" 2>&1; then
	t_result 1 "the installer installs the plugins into $AGENT_BIN"
	diag "$(cat "$TMP/install.log")"
	done_testing
fi
METRICS=$TMP/textfile/sriov-rdma.prom

# records [FILE]: the call records of the agent dir's FILE (calls), one JSON line each.
# shellcheck disable=SC2120 # FILE is optional
records() {
	"$PY" "$HERE/callrec.py" "$SRIOV_RDMA_AGENT_DIR/${1:-calls}"
}

# agent_once [ARGS...]: one run of the agent as the systemd timer does it.
# shellcheck disable=SC2120 # ARGS are optional
agent_once() {
	AGENT_OUT=$("$INSTALLER" --once --to "$AGENT_BIN" --reconcile-interval 60 --metrics-file "$METRICS" \
		"$@" 2>"$TMP/agent.err")
	AGENT_RC=$?
	AGENT_ERR=$(cat "$TMP/agent.err")
}

# metric 'NAME{LABELS}': its value in the metrics file (labels sorted by name), "" when absent.
metric() {
	local key=$1
	[[ $key == *"{"* ]] || key="$key{}"
	"$PY" "$HERE/promcheck.py" "$METRICS" --dump "$TMP/dump.json" >/dev/null
	jq -r --arg k "$key" '.samples[$k] // empty | if . == (. | floor) then floor else . end' "$TMP/dump.json"
}

# metrics_ok DESC [--not-below PREV.json]: the file parses, strictly; what is wrong is the diagnostic.
metrics_ok() {
	local desc=$1 out
	shift
	out=$("$PY" "$HERE/promcheck.py" "$METRICS" "$@" 2>&1)
	is "$?" 0 "$desc" || diag "$out"
}

# matches TEXT REGEX DESC: passes when TEXT matches the extended REGEX.
matches() {
	if [[ $1 =~ $2 ]]; then
		t_result 0 "$3"
		return
	fi
	t_result 1 "$3"
	diag "got:  $1"
	diag "want a match of: $2"
	return 1
}
