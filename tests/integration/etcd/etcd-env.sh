#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A throw-away etcd on 127.0.0.1 (free ports, temp data dir) for the etcd tests.
#
# Sourced: defines etcd_start / etcd_stop / etcd_pause / etcd_resume and, when
# IPPOOL_TEST_ETCD is unset, etcd_use_env starts a private instance and points
# IPPOOL_TEST_ETCD at it. Executed: `etcd-env.sh cmd args...` runs cmd with
# IPPOOL_TEST_ETCD set and stops the instance it started on exit.

ETCD_BIN=${ETCD_BIN:-etcd}
ETCD_PIDS=()
ETCD_DIRS=()
# For a TLS instance: ETCD_SCHEME=https, ETCD_ARGS the etcd TLS flags,
# ETCD_CURL_ARGS what curl needs to ask its health.
ETCD_SCHEME=http
ETCD_ARGS=()
ETCD_CURL_ARGS=()

# free_port VAR: a port for VAR, below the ephemeral range (32768+), used by
# no socket and not handed out before in this run (a cluster's ports are
# all picked before any member listens).
PORTS_HANDED=' '
free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 12000))
		[[ $PORTS_HANDED == *" $p "* ]] && continue
		ss -Htan "sport = :$p" | grep -q . && continue
		PORTS_HANDED+="$p "
		printf -v "$1" '%s' "$p"
		return
	done
}

etcd_run() {
	local dir=$1 url=$2 peer=$3
	"$ETCD_BIN" --name "n$$" --data-dir "$dir/data" \
		--listen-client-urls "$url" --advertise-client-urls "$url" \
		--listen-peer-urls "$peer" --initial-advertise-peer-urls "$peer" \
		--initial-cluster "n$$=$peer" "${ETCD_ARGS[@]}" \
		--log-level error --logger zap >>"$dir/log" 2>&1 &
	ETCD_PIDS+=($!)
}

# etcd_wait URL DIR [PID]: until URL says healthy (it has a leader), 20 s at
# most, or until PID is gone.
etcd_wait() {
	local url=$1 dir=$2 pid=${3:-} i
	for i in $(seq 200); do
		curl -sf -m 1 "${ETCD_CURL_ARGS[@]}" "$url/health" 2>/dev/null | grep -q '"true"' && return 0
		[ -z "$pid" ] || kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "etcd on $url did not start: $(tail -5 "$dir/log")" >&2
	return 1
}

# etcd_start VAR: starts an instance, sets VAR to its client URL, VAR_PID to
# its pid, VAR_DIR to its temp dir. Returns 1 if not healthy within 20 s
# (three tries: a port can be taken between the check and the bind).
etcd_start() {
	local var=$1 dir url peer port
	for _ in 1 2 3; do
		dir=$(mktemp -d "${TMPDIR:-/tmp}/ippool-etcd.$$.XXXXXX")
		ETCD_DIRS+=("$dir")
		free_port port && url=$ETCD_SCHEME://127.0.0.1:$port
		free_port port && peer=http://127.0.0.1:$port
		echo "$peer" >"$dir/peer"
		etcd_run "$dir" "$url" "$peer"
		printf -v "$var" '%s' "$url"
		printf -v "${var}_PID" '%s' "$!"
		printf -v "${var}_DIR" '%s' "$dir"
		etcd_wait "$url" "$dir" "$!" && return 0
		kill "$!" 2>/dev/null
	done
	return 1
}

# etcd_restart VAR: starts the instance of VAR again (after a kill), same
# URLs and data.
etcd_restart() {
	local var=$1 dir_var=${1}_DIR
	local url=${!var} dir=${!dir_var}
	etcd_run "$dir" "$url" "$(cat "$dir/peer")"
	printf -v "${var}_PID" '%s' "$!"
	etcd_wait "$url" "$dir" "$!"
}

# etcd_cluster VAR: three members on loopback, one temp dir (VAR_DIR);
# VAR_1..VAR_3 hold the client URLs and VAR_PID_1..3 the pids.
etcd_cluster() {
	local var=$1 dir i init='' url=() peer=() port
	dir=$(mktemp -d "${TMPDIR:-/tmp}/ippool-etcd.$$.XXXXXX")
	ETCD_DIRS+=("$dir")
	for i in 1 2 3; do
		free_port port && url[i]=http://127.0.0.1:$port
		free_port port && peer[i]=http://127.0.0.1:$port
		init+="m$i=${peer[i]},"
	done
	for i in 1 2 3; do
		"$ETCD_BIN" --name "m$i" --data-dir "$dir/m$i" \
			--listen-client-urls "${url[i]}" --advertise-client-urls "${url[i]}" \
			--listen-peer-urls "${peer[i]}" --initial-advertise-peer-urls "${peer[i]}" \
			--initial-cluster "${init%,}" --log-level error --logger zap >>"$dir/log" 2>&1 &
		ETCD_PIDS+=($!)
		printf -v "${var}_$i" '%s' "${url[i]}"
		printf -v "${var}_PID_$i" '%s' "$!"
	done
	printf -v "${var}_DIR" '%s' "$dir"
	for i in 1 2 3; do
		etcd_wait "${url[i]}" "$dir" || return 1
	done
}

etcd_pause() { kill -STOP "$1"; }
etcd_resume() { kill -CONT "$1"; }

etcd_stop() {
	local p d
	for p in "${ETCD_PIDS[@]}"; do
		kill -CONT "$p" 2>/dev/null
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	for d in "${ETCD_DIRS[@]}"; do
		rm -rf "$d"
	done
	ETCD_PIDS=()
	ETCD_DIRS=()
}

# Uses $IPPOOL_TEST_ETCD when set, a private instance otherwise.
etcd_use_env() {
	[ -n "${IPPOOL_TEST_ETCD:-}" ] && return 0
	etcd_start IPPOOL_TEST_ETCD || return 1
	export IPPOOL_TEST_ETCD
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	[ $# -gt 0 ] || { echo "usage: $0 cmd [args...]" >&2; exit 2; }
	trap etcd_stop EXIT
	etcd_use_env || exit 1
	"$@"
	exit $?
fi
