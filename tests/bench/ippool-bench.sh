#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ippool vs host-local: ADD/DEL wall (median, p99) and CPU (median) on empty and prefilled pools.
# usage: tests/bench/ippool-bench.sh [BUILD_DIR] (default ./build); RUNS=N per cell (default 200),
# TMPDIR=where the stores live (default /run, or /run/user/UID when not root: a dataDir must
# lie under an allowed root).
# Prints a table; never fails on numbers. Addresses are bookkeeping only (198.18.0.0/16 is the
# RFC 2544 benchmark range, 2001:db8::/64 documentation): nothing is configured anywhere.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$SRC/build}
IPPOOL=$BUILD/ipam/ippool/ippool
HOSTLOCAL=${HOSTLOCAL:-/usr/lib/cni/host-local}
RUNS=${RUNS:-200}
RUN=/run
[ "$(id -u)" -eq 0 ] || RUN=/run/user/$(id -u)
TMP=$(mktemp -d "${TMPDIR:-$RUN}/ippool-bench.$$.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

[ -x "$IPPOOL" ] || { echo "build ippool first: $IPPOOL" >&2; exit 1; }
[ -x "$HOSTLOCAL" ] || { echo "host-local not found at $HOSTLOCAL" >&2; exit 1; }
cc -O2 -o "$TMP/runner" "$SRC/tests/bench/runner.c"
cc -O2 -Wall -Wextra -Werror -o "$TMP/durable-floor" "$SRC/tests/bench/durable-floor.c"

# shellcheck source-path=SCRIPTDIR source=stats.sh
. "$SRC/tests/bench/stats.sh"

# measure PLUGIN CONF_FILE TAG: RUNS ADDs then RUNS DELs of fresh containerIDs.
measure() {
	CNI_PATH=$(dirname "$1")
	export CNI_NETNS=/var/run/netns/ippool-bench CNI_IFNAME=net1 CNI_PATH
	CNI_COMMAND=ADD "$TMP/runner" "$RUNS" bench "$2" "$1" >"$TMP/$3.add"
	CNI_COMMAND=DEL "$TMP/runner" "$RUNS" bench "$2" "$1" >"$TMP/$3.del"
	echo "$(stats "$TMP/$3.add") $(stats "$TMP/$3.del")"
}

ippool_conf() { # DIR RANGE
	printf '{"cniVersion":"1.0.0","name":"bench","type":"x","ipam":{"type":"ippool","dataDir":"%s","range":"%s"}}' "$1" "$2"
}

hostlocal_conf() { # DIR SUBNET
	printf '{"cniVersion":"1.0.0","name":"bench","type":"x","ipam":{"type":"host-local","dataDir":"%s","ranges":[[{"subnet":"%s"}]]}}' "$1" "$2"
}

# host-local's own on-disk reservations (one file per address holding
# "<containerID>\r\n<ifname>", plus last_reserved_ip.0), written directly:
# its ADD costs milliseconds each, too slow for 100k.
hostlocal_fill() { # DIR COUNT FAMILY
	mkdir -p "$1/bench"
	python3 - "$1/bench" "$2" "$3" <<'PY'
import ipaddress, os, sys
d, n, fam = sys.argv[1], int(sys.argv[2]), sys.argv[3]
base = ipaddress.ip_address("198.18.0.0" if fam == "4" else "2001:db8::")
last = None
for i in range(1, n + 1):
    a = str(base + i)
    with open(os.path.join(d, a), "w") as f:
        f.write(f"fill-{i}\r\nnet1")
    last = a
if last:
    with open(os.path.join(d, "last_reserved_ip.0"), "w") as f:
        f.write(last)
PY
}

sizes=("empty 0 4" "1k 1000 4" "10k 10000 4" "50k 50000 4" "100k 100000 6")
printf '# %s, %s, %d runs per cell, %s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" "$(uname -r)" "$RUNS" \
	"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') x$(nproc)"
printf '%-6s %-10s | %-22s %-9s | %-22s %-9s\n' pool plugin "ADD wall med/p99 ms" "ADD cpu" \
	"DEL wall med/p99 ms" "DEL cpu"
for s in "${sizes[@]}"; do
	read -r name count fam <<<"$s"
	if [ "$fam" = 4 ]; then range=198.18.0.0/16; else range=2001:db8::/64; fi
	ip_dir=$TMP/ippool-$name
	hl_dir=$TMP/hostlocal-$name
	mkdir -p "$ip_dir" "$hl_dir"
	[ "$count" -eq 0 ] || "$IPPOOL" fill --data-dir "$ip_dir" --range "$range" --count "$count"
	[ "$count" -eq 0 ] || hostlocal_fill "$hl_dir" "$count" "$fam"
	ippool_conf "$ip_dir" "$range" >"$TMP/ippool-$name.json"
	hostlocal_conf "$hl_dir" "$range" >"$TMP/hostlocal-$name.json"
	for p in ippool host-local; do
		if [ $p = ippool ]; then bin=$IPPOOL; cf=$TMP/ippool-$name.json; else bin=$HOSTLOCAL; cf=$TMP/hostlocal-$name.json; fi
		read -r aw ap ac dw dp dc <<<"$(measure "$bin" "$cf" "$p-$name")"
		printf '%-6s %-10s | %6s / %-13s %-9s | %6s / %-13s %-9s\n' "$name" "$p" "$aw" "$ap" "$ac" "$dw" "$dp" "$dc"
		eval "cpu_${p//-/_}_$name=$ac"
	done
done
# shellcheck disable=SC2154
awk -v a="$cpu_ippool_empty" -v b="$cpu_host_local_empty" \
	'BEGIN {printf "empty-pool ADD CPU ratio ippool/host-local: %.2fx (target <= 0.30x)\n", a / b}'

# The same on fresh empty pools with the two plugins alternating ADD by ADD,
# so that drift on a shared machine falls on both alike; and the floors: an
# empty C program that needs only libc.so.6 (as ippool does), static, and
# the same committing one record durably (an fsync'd temp file renamed).
mkdir -p "$TMP/il-ippool" "$TMP/il-hostlocal"
ippool_conf "$TMP/il-ippool" 198.18.0.0/16 >"$TMP/il-ippool.json"
hostlocal_conf "$TMP/il-hostlocal" 198.18.0.0/16 >"$TMP/il-hostlocal.json"
export CNI_NETNS=/var/run/netns/ippool-bench CNI_IFNAME=net1 CNI_COMMAND=ADD
for ((i = 0; i < RUNS; i++)); do
	CNI_PATH=$(dirname "$IPPOOL") "$TMP/runner" 1 "il$i-" "$TMP/il-ippool.json" "$IPPOOL" >>"$TMP/il-ippool.add"
	CNI_PATH=$(dirname "$HOSTLOCAL") "$TMP/runner" 1 "il$i-" "$TMP/il-hostlocal.json" "$HOSTLOCAL" >>"$TMP/il-hostlocal.add"
done
floor_programs "$TMP"
"$TMP/runner" "$RUNS" x /dev/null "$TMP/empty-dynamic" >"$TMP/floor-dynamic"
"$TMP/runner" "$RUNS" x /dev/null "$TMP/empty-static" >"$TMP/floor-static"
mkdir "$TMP/durable"
FLOOR_DIR=$TMP/durable "$TMP/runner" "$RUNS" d /dev/null "$TMP/durable-floor" >"$TMP/floor-durable"
printf '\nempty pools, ADDs alternating (%d each), and the floors | %-22s %-9s\n' "$RUNS" "wall med/p99 ms" "cpu"
for t in il-ippool.add:ippool il-hostlocal.add:host-local floor-dynamic:"empty C program, libc.so" \
	floor-static:"empty C program, static" floor-durable:"libc.so program + one fsync'd record"; do
	read -r aw ap ac <<<"$(stats "$TMP/${t%%:*}")"
	printf '  %-51s | %6s / %-13s %-9s\n' "${t#*:}" "$aw" "$ap" "$ac"
done
read -r _ _ a <<<"$(stats "$TMP/il-ippool.add")"
read -r _ _ b <<<"$(stats "$TMP/il-hostlocal.add")"
read -r _ _ d <<<"$(stats "$TMP/floor-durable")"
awk -v a="$a" -v b="$b" -v d="$d" \
	'BEGIN {printf "alternating empty-pool ADD CPU ratio ippool/host-local: %.2fx (target <= 0.30x); durable floor %.2fx\n",
		a / b, d / b}'
