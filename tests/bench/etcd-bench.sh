#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ippool on etcd vs the local store: ADD/DEL wall (median, p99) and CPU (median),
# then 1, 8 and 32 parallel allocators on one pool: adds/s, retries per add,
# duplicates. etcd runs on loopback (private instance, or $IPPOOL_TEST_ETCD).
# usage: tests/bench/etcd-bench.sh [BUILD_DIR]; RUNS=N per latency cell (200),
# PER=N ADDs per parallel allocator (40), NS="1 8 32" allocator counts.
# Prints numbers; never fails on them.
set -uo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$SRC/build}
IPPOOL=$BUILD/ipam/ippool/ippool
RUNS=${RUNS:-200}
PER=${PER:-40}
. "$SRC/tests/integration/etcd/etcd-env.sh"
# the local store's dataDir must lie under an allowed root
RUN=/run
[ "$(id -u)" -eq 0 ] || RUN=/run/user/$(id -u)
TMP=$(mktemp -d "$RUN/etcd-bench.$$.XXXXXX")
trap 'etcd_stop; rm -rf "$TMP"' EXIT

[ -x "$IPPOOL" ] || { echo "build ippool first: $IPPOOL" >&2; exit 1; }
etcd_use_env || exit 1
EP=$IPPOOL_TEST_ETCD
cc -O2 -o "$TMP/runner" "$SRC/tests/bench/runner.c" || exit 1
CNI_PATH=$(dirname "$IPPOOL")
export CNI_NETNS=/var/run/netns/etcd-bench CNI_IFNAME=net1 CNI_PATH

# shellcheck source-path=SCRIPTDIR source=stats.sh
. "$SRC/tests/bench/stats.sh"

# cf FILE STORE_KEYS: a config with the given ipam keys for the store.
cf() {
	printf '{"cniVersion":"1.0.0","name":"bench","type":"x","ipam":{"type":"ippool","range":"198.18.0.0/16",%s}}' "$2" >"$1"
}

cf "$TMP/local.conf" "\"dataDir\":\"$TMP/local\""
cf "$TMP/etcd.conf" "\"store\":{\"type\":\"etcd\",\"endpoints\":[\"$EP\"],\"prefix\":\"/bench-$$/lat\"}"

echo "ADD/DEL, one at a time, $RUNS each (ms)    wall p50  wall p99   cpu p50"
for s in local etcd; do
	CNI_COMMAND=ADD "$TMP/runner" "$RUNS" "lat-" "$TMP/$s.conf" "$IPPOOL" >"$TMP/$s.add"
	CNI_COMMAND=DEL "$TMP/runner" "$RUNS" "lat-" "$TMP/$s.conf" "$IPPOOL" >"$TMP/$s.del"
	printf '  %-5s ADD %33s\n  %-5s DEL %33s\n' "$s" "$(stats "$TMP/$s.add")" "$s" "$(stats "$TMP/$s.del")"
done

echo "parallel allocators on one /16 pool, $PER ADDs each:"
echo "  allocators   adds    wall s   adds/s  retries/add  duplicates  failed"
for n in ${NS:-1 8 32}; do
	cf "$TMP/par$n.conf" "\"store\":{\"type\":\"etcd\",\"endpoints\":[\"$EP\"],\"prefix\":\"/bench-$$/par$n\",\"timeout_ms\":30000}"
	pids=()
	t0=$(date +%s%N)
	for i in $(seq "$n"); do
		IPPOOL_ETCD_STATS=1 CNI_COMMAND=ADD "$TMP/runner" "$PER" "a$i-" "$TMP/par$n.conf" "$IPPOOL" \
			>"$TMP/par$n.out.$i" 2>"$TMP/par$n.err.$i" &
		pids+=($!)
	done
	wait "${pids[@]}"
	t1=$(date +%s%N)
	total=$((n * PER))
	failed=$(cat "$TMP/par$n".out.* | awk '$3 != 0' | wc -l)
	retries=$(cat "$TMP/par$n".err.* | sed -n 's/^ippool etcd stats: conflicts=//p' | awk '{s += $1} END {print s + 0}')
	# Every address key held once by construction; count the leases' addresses against them.
	p=/bench-$$/par$n/
	held=$(curl -sf -X POST "$EP/v3/kv/range" -d "{\"key\":\"$(printf %s "${p}n/" | base64 -w0)\",\"range_end\":\"$(printf %s "${p}n0" | base64 -w0)\",\"keys_only\":true}" |
		jq '.kvs | length')
	leased=$(curl -sf -X POST "$EP/v3/kv/range" -d "{\"key\":\"$(printf %s "${p}o/" | base64 -w0)\",\"range_end\":\"$(printf %s "${p}o0" | base64 -w0)\"}" |
		jq -r '[.kvs[].value | @base64d | fromjson | .addrs[].address] | (length - (unique | length))')
	awk -v n="$n" -v t="$total" -v ns=$((t1 - t0)) -v r="$retries" -v d="$leased" -v h="$held" -v f="$failed" \
		'BEGIN {s = ns / 1e9; printf "  %10d %6d %9.2f %8.0f %12.2f %11d %7d  (%d addresses held)\n", n, t, s, t / s, r / t, d, f, h}'
done
