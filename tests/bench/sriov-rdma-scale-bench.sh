#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sriov-rdma on a GPU node's shape (8 PFs x 128 VFs): ADD CPU with 2 vs 1,032 RDMA devices, and bursts of 32 concurrent ADDs/DELs against host-device and bare netns moves.
# usage: tests/bench/sriov-rdma-scale-bench.sh [BUILD_DIR] (default ./build); CYCLES=N (default 40), ROUNDS=N (default 5).
# Needs root. Prints tables; never fails on numbers. Only 192.0.2.0/24 inside its own netns is used.
set -uo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
export T_BUILD=${1:-$SRC/build}
CYCLES=${CYCLES:-40}
ROUNDS=${ROUNDS:-5}
BURST=32
HOSTDEVICE=/usr/lib/cni/host-device
HOSTLOCAL=/usr/lib/cni/host-local

# shellcheck source-path=SCRIPTDIR source=../integration/lib.sh
. "$SRC/tests/integration/lib.sh"
T_DONE=1

for bin in "$SRIOV_RDMA" "$HOSTDEVICE" "$HOSTLOCAL"; do
	[ -x "$bin" ] || { echo "bench: $bin not found (build first)" >&2; exit 1; }
done
cc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$TMP/runner" "$SRC/tests/bench/runner.c" &&
	cc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$TMP/burst" "$SRC/tests/bench/burst.c" &&
	cc -std=gnu11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -o "$TMP/netns-move" "$SRC/tests/bench/netns-move.c" ||
	exit 1
# shellcheck source-path=SCRIPTDIR source=stats.sh
. "$SRC/tests/bench/stats.sh"

median() { sort -n "$1" | awk '{v[NR] = $1} END {printf "%.3f", v[int((NR + 1) / 2)]}'; }
# pct FILE P: the P-th percentile of a column of ms values.
pct() { sort -n "$1" | awk -v p="$2" '{v[NR] = $1} END {i = int(NR * p / 100 + 0.999); if (i < 1) i = 1; printf "%.1f", v[i]}'; }

fx_setup --pfs 8 --vfs 128
export CNI_IFNAME=$IFNAME CNI_PATH
CNI_PATH=$(cni_path)
FULL=$RDMA_SIM_STATE
SMALL=$FX/rdmasim-small.json
# the fake PF's own devices alone: PF 0's and VF 0's
jq -c --arg pf "$FX_PF_BDF" --arg vf "${FX_VF_BDF[0]}" \
	'.devices |= map(select(.pci == $pf or .pci == $vf))' "$FULL" >"$SMALL"

# ---- ADD CPU: 2 RDMA devices in the host vs 1,032 ----------------------------
# No IPAM: the runner's rusage (the whole process, every thread) is the
# plugin's own, simulator included, as the kernel's work would be.
pod_new
export CNI_NETNS=$NETNS
jq -nc --arg bdf "${FX_VF_BDF[0]}" --arg d "$TMP/state" \
	'{cniVersion: "1.0.0", name: "bench", type: "sriov-rdma", deviceID: $bdf, dataDir: $d, ipam: {}}' \
	>"$TMP/noipam.json"
# The fake sysfs follows the full world (VF 0's device is in the host
# whenever an ADD starts, in both).
for ((i = 0; i < CYCLES; i++)); do
	for w in small full; do
		world=$FULL
		[ "$w" = small ] && world=$SMALL
		fx_sync
		CNI_COMMAND=ADD RDMA_SIM_STATE=$world LD_PRELOAD=$RDMASIM_LIB "$TMP/runner" 1 "$CID" \
			"$TMP/noipam.json" "$SRIOV_RDMA" >>"$TMP/$w.add" || exit 1
		fx_sync
		CNI_COMMAND=DEL RDMA_SIM_STATE=$world LD_PRELOAD=$RDMASIM_LIB "$TMP/runner" 1 "$CID" \
			"$TMP/noipam.json" "$SRIOV_RDMA" >>"$TMP/$w.del" || exit 1
	done
done
fx_sync
netns_del "$POD"

# ---- bursts of 32: sriov-rdma, host-device, bare moves -------------------------
for ((j = 0; j < BURST; j++)); do
	k=$(((j % FX_NPFS) * FX_VFS_PER_PF + (j / FX_NPFS) * 37 + 5))
	netns_add "${P}b$j" || exit 1
	jq -nc --arg bdf "${FX_VF_BDF[k]}" --arg d "$TMP/state" --arg i "$TMP/ipam-sr" \
		'{cniVersion: "1.0.0", name: "bench", type: "sriov-rdma", deviceID: $bdf, dataDir: $d,
		  ipam: {type: "host-local", ranges: [[{subnet: "192.0.2.0/24"}]], dataDir: $i}}' \
		>"$TMP/sr$j.json"
	jq -nc --arg dev "${FX_VF_IF[k]}" --arg i "$TMP/ipam-hd" \
		'{cniVersion: "1.0.0", name: "bench", type: "host-device", device: $dev,
		  ipam: {type: "host-local", ranges: [[{subnet: "192.0.2.0/24"}]], dataDir: $i}}' \
		>"$TMP/hd$j.json"
	echo "${FX_VF_IF[k]}" >>"$TMP/ifnames"
done
# burst_of TAG VERB PRELOAD PLUGIN: 32 concurrent VERBs, one per pod.
burst_of() {
	CNI_COMMAND=$2 LD_PRELOAD=$3 "$TMP/burst" "$BURST" CNI_CONTAINERID="${P}c%d" \
		CNI_NETNS="/run/netns/${P}b%d" "<$TMP/$1%d.json" "$4" >"$TMP/last.burst" || exit 1
	awk '$1 == "makespan" {print $2 / 1000}' "$TMP/last.burst" >>"$TMP/$1.$2.makespan"
	awk '$1 != "makespan" {c += $3} END {print c / 1000}' "$TMP/last.burst" >>"$TMP/$1.$2.cpu"
	awk '$1 != "makespan" {print $2 / 1000; if ($4 != 0) bad++} END {exit bad > 0}' \
		"$TMP/last.burst" >>"$TMP/$1.$2.each" || echo "bench: failed runs in a $1 $2 burst" >&2
}
# moves DIR: 32 concurrent bare RTM_NEWLINK moves (netns-move, one each),
# started as the plugins are.
moves() {
	"$TMP/burst" "$BURST" "$TMP/netns-move" 1 "@$TMP/ifnames" "/run/netns/${P}b%d" "$1" \
		>"$TMP/last.burst" || exit 1
	awk '$1 == "makespan" {print $2 / 1000}' "$TMP/last.burst" >>"$TMP/mv.$1.makespan"
	awk '$1 != "makespan" {c += $3} END {print c / 1000}' "$TMP/last.burst" >>"$TMP/mv.$1.cpu"
	awk '$1 != "makespan" {print $2 / 1000; if ($4 != 0) bad++} END {exit bad > 0}' \
		"$TMP/last.burst" >>"$TMP/mv.$1.each" || echo "bench: a netns move $1 failed" >&2
}
for ((r = 0; r < ROUNDS; r++)); do
	fx_sync
	burst_of sr ADD "$RDMASIM_LIB" "$SRIOV_RDMA"
	fx_sync
	burst_of sr DEL "$RDMASIM_LIB" "$SRIOV_RDMA"
	fx_sync
	burst_of hd ADD "" "$HOSTDEVICE"
	burst_of hd DEL "" "$HOSTDEVICE"
	moves in
	moves out
done
fx_sync

printf '# %s, kernel %s, %s x%d; 8 PFs x 128 VFs (1,024 veth VFs, 1,032 simulated RDMA devices)\n' \
	"$(date -u +%Y-%m-%dT%H:%MZ)" "$(uname -r)" \
	"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" "$(nproc)"
printf '\nADD/DEL of one VF, rdma: true, no IPAM (runner: wall and whole-process CPU, %d cycles):\n' "$CYCLES"
printf '  %-44s | %8s %8s %8s | %8s %8s %8s\n' "" "ADD wall" "p99" "cpu" "DEL wall" "p99" "cpu"
for w in small full; do
	label="2 RDMA devices in the host (PF 0, VF 0)"
	[ "$w" = full ] && label="1,032 RDMA devices in the host"
	# shellcheck disable=SC2046,SC2183
	printf '  %-44s | %8s %8s %8s | %8s %8s %8s\n' "$label" $(stats "$TMP/$w.add") $(stats "$TMP/$w.del")
done
read -r _ _ cs <<<"$(stats "$TMP/small.add")"
read -r _ _ cf <<<"$(stats "$TMP/full.add")"
awk -v s="$cs" -v f="$cf" 'BEGIN {printf "ADD CPU with 1,030 more RDMA devices: %.2fx (target <= 1.2x)\n", f / s}'

printf '\n%d concurrent ADDs, then DELs, on VFs of all 8 PFs, one pod each (%d rounds, host-local IPAM):\n' \
	"$BURST" "$ROUNDS"
printf '  %-34s | %9s %9s %9s %9s | %9s %9s %9s %9s\n' "" "ADD span" "each p50" "p99" "cpu sum" \
	"DEL span" "each p50" "p99" "cpu sum"
brow() { # LABEL ADD-TAG DEL-TAG
	printf '  %-34s | %9s %9s %9s %9s | %9s %9s %9s %9s\n' "$1" "$(median "$TMP/$2.makespan")" \
		"$(pct "$TMP/$2.each" 50)" "$(pct "$TMP/$2.each" 99)" "$(median "$TMP/$2.cpu")" \
		"$(median "$TMP/$3.makespan")" "$(pct "$TMP/$3.each" 50)" "$(pct "$TMP/$3.each" 99)" \
		"$(median "$TMP/$3.cpu")"
}
brow "floor: bare RTM_NEWLINK moves" mv.in mv.out
brow "host-device + host-local (Go)" hd.ADD hd.DEL
brow "sriov-rdma + host-local" sr.ADD sr.DEL
echo "  (ms; span: first start to last end, and cpu sum: all 32 processes' CPU with their children,"
echo "   medians over rounds; each: every process of every round, start to exit)"
awk -v s="$(median "$TMP/sr.ADD.makespan")" -v f="$(median "$TMP/mv.in.makespan")" \
	-v h="$(median "$TMP/hd.ADD.makespan")" 'BEGIN {
	printf "sriov-rdma ADD burst: %.2fx the bare moves (target <= 1.15x), %.2fx host-device (target < 1)\n",
		s / f, s / h }'
