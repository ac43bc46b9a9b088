#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ippool on etcd vs the local store: ADD/DEL wall (median, p99) and CPU (median),
# then 1, 8 and 32 parallel allocators on one pool: adds/s, retries per add,
# duplicates; then node slices against the per-address path (ALLOC allocators
# over as many node names, root: unshare -u), a slice ADD against a local-store
# ADD, and slice ADDs while etcd is SIGSTOPped. etcd runs on loopback (private instance, or $IPPOOL_TEST_ETCD).
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

# Node slices (node_slice_size /24 of the /16) against the per-address
# transaction path, same run: ALLOC allocators (32), each a node of its own
# (a UTS namespace with its hostname, its own dataDir), PER ADDs each.
ALLOC=${ALLOC:-32}
# par_run TAG SLICE: ALLOC allocators in parallel; runner lines in $TMP/TAG.out.*
par_run() {
	local tag=$1 slice=$2 i pids=() keys
	for i in $(seq "$ALLOC"); do
		keys="\"dataDir\":\"$TMP/$tag-node$i\",\"store\":{\"type\":\"etcd\",\"endpoints\":[\"$EP\"],\"prefix\":\"/bench-$$/$tag\",\"timeout_ms\":30000}"
		[ -n "$slice" ] && keys+=",\"node_slice_size\":\"$slice\""
		cf "$TMP/$tag.conf.$i" "$keys"
	done
	t0=$(date +%s%N)
	for i in $(seq "$ALLOC"); do
		CNI_COMMAND=ADD unshare -u sh -c 'hostname "$0" && exec "$@"' "node$i" \
			"$TMP/runner" "$PER" "$tag$i-" "$TMP/$tag.conf.$i" "$IPPOOL" >"$TMP/$tag.out.$i" &
		pids+=($!)
	done
	wait "${pids[@]}"
	t1=$(date +%s%N)
	cat "$TMP/$tag".out.* >"$TMP/$tag.all"
	printf '  %-22s %8.0f %32s %7d\n' "$3" "$(awk -v n=$((ALLOC * PER)) -v ns=$((t1 - t0)) 'BEGIN {print n / (ns / 1e9)}')" \
		"$(stats "$TMP/$tag.all")" "$(awk '$3 != 0' "$TMP/$tag.all" | wc -l)"
}

if [ "$(id -u)" -ne 0 ]; then
	echo "node slices: skipped (simulated nodes need root: unshare -u)"
	exit 0
fi
echo "$ALLOC allocators over $ALLOC node names, one /16, $PER ADDs each:"
echo "                            adds/s   wall p50  wall p99   cpu p50  failed (ms)"
par_run peraddr "" "per-address txn"
par_run slices /24 "node slices /24"
echo "one node, one ADD at a time, $RUNS each (ms)  wall p50  wall p99   cpu p50"
cf "$TMP/seq-slice.conf" "\"dataDir\":\"$TMP/slices-node1\",\"store\":{\"type\":\"etcd\",\"endpoints\":[\"$EP\"],\"prefix\":\"/bench-$$/slices\"},\"node_slice_size\":\"/24\""
cf "$TMP/seq-local.conf" "\"dataDir\":\"$TMP/seq-local\""
# interleaved, so that drift falls on both alike
for r in $(seq "$RUNS"); do
	for s in local slice; do
		CNI_COMMAND=ADD unshare -u sh -c 'hostname node1 && exec "$@"' sh "$TMP/runner" 1 "seq$r-" \
			"$TMP/seq-$s.conf" "$IPPOOL" >>"$TMP/seq-$s.add"
		CNI_COMMAND=DEL unshare -u sh -c 'hostname node1 && exec "$@"' sh "$TMP/runner" 1 "seq$r-" \
			"$TMP/seq-$s.conf" "$IPPOOL" >/dev/null
	done
done
printf '  local store ADD %31s\n  node slice ADD  %31s\n' "$(stats "$TMP/seq-local.add")" "$(stats "$TMP/seq-slice.add")"
# etcd frozen (only one this script started): the node's slice still has room
pid=${IPPOOL_TEST_ETCD_PID:-}
if [ -z "$pid" ]; then
	echo "  (etcd SIGSTOPped: skipped, $EP is not ours to stop)"
else
	kill -STOP "$pid"
	CNI_COMMAND=ADD unshare -u sh -c 'hostname node1 && exec "$@"' sh "$TMP/runner" 100 "stop-" \
		"$TMP/seq-slice.conf" "$IPPOOL" >"$TMP/stop.add"
	kill -CONT "$pid"
	printf '  node slice ADD, etcd SIGSTOPped (100) %8s\n' "$(stats "$TMP/stop.add")"
fi
