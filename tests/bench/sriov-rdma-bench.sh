#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sriov-rdma vs Debian's host-device: ADD+DEL cycles on one veth stand-in, with the floor and the kernel's move cost.
# usage: tests/bench/sriov-rdma-bench.sh [BUILD_DIR] (default ./build); CYCLES=N (default 200).
# Needs root. Prints a table; never fails on numbers. Only 192.0.2.0/24 inside its own netns is used.
set -uo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
export T_BUILD=${1:-$SRC/build}
CYCLES=${CYCLES:-200}
HOSTDEVICE=/usr/lib/cni/host-device
HOSTLOCAL=/usr/lib/cni/host-local

# The test harness gives the simulated NIC, the pod netns, fx_sync and cleanup.
# shellcheck source-path=SCRIPTDIR source=../integration/lib.sh
. "$SRC/tests/integration/lib.sh"
T_DONE=1

for bin in "$SRIOV_RDMA" "$IPPOOL" "$HOSTDEVICE" "$HOSTLOCAL"; do
	[ -x "$bin" ] || { echo "bench: $bin not found (build first)" >&2; exit 1; }
done
cc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$TMP/runner" "$SRC/tests/bench/runner.c" &&
	cc -std=gnu11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -o "$TMP/netns-move" "$SRC/tests/bench/netns-move.c" ||
	exit 1

# shellcheck source-path=SCRIPTDIR source=stats.sh
. "$SRC/tests/bench/stats.sh"

row() { # LABEL ADD-FILE [DEL-FILE]
	local a d='- - -'
	a=$(stats "$2")
	[ -n "${3:-}" ] && d=$(stats "$3")
	# shellcheck disable=SC2086
	printf '%-34s | %8s %8s %8s | %8s %8s %8s\n' "$1" $a $d
}

# once VERB CONF-FILE PLUGIN OUT-FILE: one timed run (runner: wall + child rusage).
once() {
	CNI_COMMAND=$1 "$TMP/runner" 1 "$CID" "$2" "$3" >>"$4" || exit 1
}

# The kernel's netns move inside each ADD, from tracefs: the longest
# sendmsg/sendto of the plugin's own process (its IPAM child has another
# name) is the RTM_NEWLINK that moves the netdev. A trace instance of our
# own, so the global one is left alone; without tracefs the rows are left out.
TRACE=/sys/kernel/tracing/instances/$P
SEND_EVENTS="sys_enter_sendmsg sys_exit_sendmsg sys_enter_sendto sys_exit_sendto"
trace_start() {
	local e
	mkdir "$TRACE" 2>/dev/null || { TRACE=; return 0; }
	T_AT_EXIT+=(trace_stop)
	for e in $SEND_EVENTS; do
		echo 1 >"$TRACE/events/syscalls/$e/enable" 2>/dev/null || { trace_stop; return 0; }
	done
	echo 0 >"$TRACE/tracing_on"
}
trace_stop() {
	[ -n "$TRACE" ] && rmdir "$TRACE"
	TRACE=
}

# longest_send COMM < trace: the longest send (us) of any thread named COMM.
longest_send() {
	awk -v comm="$1" '
		$1 !~ "^" comm "-[0-9]+$" { next }
		{ tid = $1; sub(".*-", "", tid)
		  for (i = 2; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) break
		  ts = substr($i, 1, length($i) - 1) }
		$(i + 2) == "->" { if (tid in start && ts - start[tid] > max) max = ts - start[tid]; next }
		{ start[tid] = ts }
		END { printf "%d\n", max * 1e6 }'
}

# add_traced TAG PRELOAD PLUGIN: one ADD (config $TMP/TAG.json), and its
# move into $TMP/TAG.move.
add_traced() {
	[ -n "$TRACE" ] && : >"$TRACE/trace" && echo 1 >"$TRACE/tracing_on"
	LD_PRELOAD=$2 once ADD "$TMP/$1.json" "$3" "$TMP/$1.add"
	[ -n "$TRACE" ] || return 0
	echo 0 >"$TRACE/tracing_on"
	longest_send "$(basename "$3" | cut -c1-15)" <"$TRACE/trace" >>"$TMP/$1.move"
}

# run_cycles: CYCLES rounds; in each, every plugin of $plugins ("TAG PRELOAD
# PLUGIN", config in $TMP/TAG.json) does one ADD and one DEL of the same
# attachment. Rounds interleave the plugins so that drift on a shared machine
# falls on all of them alike. The fake sysfs is synced before every run of
# every plugin (only sriov-rdma reads it), so each starts from the same kernel
# state: the processes fx_sync runs leave RCU callbacks that the next netns
# move's rcu_barrier() waits for.
run_cycles() {
	local i p tag pre plugin
	for ((i = 0; i < CYCLES; i++)); do
		for p in "${plugins[@]}"; do
			read -r tag pre plugin <<<"$p"
			[ "$pre" = - ] && pre=
			fx_sync
			add_traced "$tag" "$pre" "$plugin"
			fx_sync
			LD_PRELOAD=$pre once DEL "$TMP/$tag.json" "$plugin" "$TMP/$tag.del"
		done
	done
	# runner appends the containerID index; these runs all used "${CID}0".
}

# own_cpu "TAG PLUGIN"...: OWN_RUNS rounds of ADD+DEL of each plugin (config
# in $TMP/TAG.json), each ADD under perf stat --no-inherit: the plugin's own
# task-clock (exec included), not its IPAM child's. One ms value per line in
# $TMP/TAG.own.
own_cpu() {
	local i p tag plugin
	for ((i = 0; i < OWN_RUNS; i++)); do
		for p in "$@"; do
			read -r tag plugin <<<"$p"
			fx_sync
			CNI_COMMAND=ADD CNI_CONTAINERID="${CID}0" perf stat --no-inherit -x, \
				-e task-clock -o "$TMP/perf.out" "$plugin" <"$TMP/$tag.json" >/dev/null ||
				exit 1
			awk -F, '$3 == "task-clock" {print $1}' "$TMP/perf.out" >>"$TMP/$tag.own"
			fx_sync
			once DEL "$TMP/$tag.json" "$plugin" /dev/null
		done
	done
}

median() { sort -n "$1" | awk '{v[NR] = $1} END {printf "%.3f", v[int((NR + 1) / 2)]}'; }

fx_setup --vfs 1
pod_new
vf=${FX_VF_IF[0]}
export CNI_NETNS=$NETNS CNI_IFNAME=$IFNAME CNI_PATH
CNI_PATH=$(cni_path)
hostlocal=$(jq -nc --arg d "$TMP/ipam" \
	'{type: "host-local", ranges: [[{subnet: "192.0.2.0/24"}]], dataDir: $d}')

"$TMP/runner" "$CYCLES" x /dev/null /bin/true >"$TMP/floor" || exit 1
# The floor of any C plugin: an empty program needing only libc (what the
# plugins need now), and the same linked static (no loader at all).
floor_programs "$TMP"
"$TMP/runner" "$CYCLES" x /dev/null "$TMP/empty-dynamic" >"$TMP/floor-dynamic" || exit 1
"$TMP/runner" "$CYCLES" x /dev/null "$TMP/empty-static" >"$TMP/floor-static" || exit 1
"$TMP/netns-move" "$CYCLES" "$vf" "$NETNS" >"$TMP/moves" || exit 1
awk 'NR % 2 == 1' "$TMP/moves" >"$TMP/move.in"
awk 'NR % 2 == 0' "$TMP/moves" >"$TMP/move.out"

jq -nc --argjson i "$hostlocal" '{cniVersion: "1.0.0", name: "bench", type: "host-local", ipam: $i}' \
	>"$TMP/host-local.json"
jq -nc --argjson i "$hostlocal" --arg dev "$vf" \
	'{cniVersion: "1.0.0", name: "bench", type: "host-device", device: $dev, ipam: $i}' \
	>"$TMP/host-device.json"
base=$(jq -nc --argjson i "$hostlocal" --arg bdf "${FX_VF_BDF[0]}" --arg d "$TMP/state" \
	'{cniVersion: "1.0.0", name: "bench", type: "sriov-rdma", deviceID: $bdf, dataDir: $d, ipam: $i}')
jq -c '.rdma = false' <<<"$base" >"$TMP/sriov-rdma.json"
jq -c '.rdma = true' <<<"$base" >"$TMP/sriov-rdma-sim.json"
jq -c --arg d "$TMP/ippool" '.rdma = false | .ipam = {type: "ippool", range: "192.0.2.0/24", dataDir: $d}' \
	<<<"$base" >"$TMP/sriov-rdma-ippool.json"
plugins=(
	"host-local - $HOSTLOCAL"
	"host-device - $HOSTDEVICE"
	"sriov-rdma - $SRIOV_RDMA"
	"sriov-rdma-sim $RDMASIM_LIB $SRIOV_RDMA"
	"sriov-rdma-ippool - $SRIOV_RDMA"
)
trace_start
run_cycles
trace_stop
OWN_RUNS=$(( CYCLES / 4 > 20 ? CYCLES / 4 : 20 ))
if command -v perf >/dev/null; then
	own_cpu "host-device $HOSTDEVICE" "sriov-rdma $SRIOV_RDMA"
	for ((i = 0; i < OWN_RUNS; i++)); do
		perf stat --no-inherit -x, -e task-clock -o "$TMP/perf.out" /bin/true
		awk -F, '$3 == "task-clock" {print $1}' "$TMP/perf.out" >>"$TMP/true.own"
	done
fi

printf '# %s, kernel %s, %s x%d, %d cycles, CNI 1.0.0, DEL without prevResult\n' \
	"$(date -u +%Y-%m-%dT%H:%MZ)" "$(uname -r)" \
	"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" "$(nproc)" "$CYCLES"
printf '%-34s | %26s | %26s\n' "" "ADD (ms)" "DEL (ms)"
printf '%-34s | %8s %8s %8s | %8s %8s %8s\n' "" "wall med" "p99" "cpu med" "wall med" "p99" "cpu med"
row "floor: fork/exec /bin/true" "$TMP/floor"
row "floor: empty C program, libc.so" "$TMP/floor-dynamic"
row "floor: empty C program, static" "$TMP/floor-static"
row "kernel: RTM_NEWLINK netns move" "$TMP/move.in" "$TMP/move.out"
row "host-local alone (Go)" "$TMP/host-local.add" "$TMP/host-local.del"
row "host-device + host-local (Go)" "$TMP/host-device.add" "$TMP/host-device.del"
row "sriov-rdma rdma:false + host-local" "$TMP/sriov-rdma.add" "$TMP/sriov-rdma.del"
row "sriov-rdma rdma:true (simulated)" "$TMP/sriov-rdma-sim.add" "$TMP/sriov-rdma-sim.del"
row "sriov-rdma rdma:false + ippool" "$TMP/sriov-rdma-ippool.add" "$TMP/sriov-rdma-ippool.del"

if [ -s "$TMP/sriov-rdma.own" ]; then
	printf '\nown CPU per ADD, IPAM child excluded (perf task-clock --no-inherit, median of %d):\n' "$OWN_RUNS"
	printf '  %-32s %s ms\n' "floor: /bin/true" "$(median "$TMP/true.own")" \
		"host-device (Go)" "$(median "$TMP/host-device.own")" \
		"sriov-rdma rdma:false" "$(median "$TMP/sriov-rdma.own")"
	printf 'sriov-rdma own CPU per ADD: %s ms (target <= 1.5 ms)\n' "$(median "$TMP/sriov-rdma.own")"
else
	echo "own CPU per ADD: install linux-perf to measure it"
fi
# split_move TAG: per ADD, the move and the rest of the wall (ms), one line each.
split_move() {
	cut -d' ' -f1 "$TMP/$1.add" | paste -d' ' - "$TMP/$1.move" >"$TMP/$1.pair"
	awk '{print $2 / 1000}' "$TMP/$1.pair" >"$TMP/$1.move_ms"
	awk '{print ($1 - $2) / 1000}' "$TMP/$1.pair" >"$TMP/$1.rest_ms"
}
if [ -s "$TMP/sriov-rdma.move" ]; then
	printf '\nthe netns move inside each ADD (tracefs: the plugin process'"'"'s longest netlink send)\n'
	printf 'and the rest of the ADD'"'"'s wall, medians over %d ADDs:\n' "$CYCLES"
	for p in "host-device host-device + host-local (Go)" "sriov-rdma sriov-rdma rdma:false + host-local"; do
		read -r tag label <<<"$p"
		split_move "$tag"
		printf '  %-36s move %7s ms   rest %7s ms\n' "$label" \
			"$(median "$TMP/$tag.move_ms")" "$(median "$TMP/$tag.rest_ms")"
	done
	awk -v hm="$(median "$TMP/host-device.move_ms")" -v hr="$(median "$TMP/host-device.rest_ms")" \
		-v sm="$(median "$TMP/sriov-rdma.move_ms")" 'BEGIN {
		printf "0.75x host-device at these medians leaves sriov-rdma %.3f ms outside its move\n",
			0.75 * (hm + hr) - sm }'
fi
# Each plugin's own CPU per ADD, IPAM child excluded: the child rusage of the
# round's ADD (plugin and host-local together, every thread) minus that of
# host-local alone in the same round; the median over the rounds.
own_rusage() {
	paste -d' ' "$TMP/$1.add" "$TMP/host-local.add" | awk '{print ($2 - $5) / 1000}' |
		sort -n | awk '{v[NR] = $1} END {printf "%.3f", v[int((NR + 1) / 2)]}'
}
own_sr=$(own_rusage sriov-rdma)
own_hd=$(own_rusage host-device)
read -r wall_sr _ _ <<<"$(stats "$TMP/sriov-rdma.add")"
read -r wall_hd _ _ <<<"$(stats "$TMP/host-device.add")"
printf '\nown CPU per ADD, IPAM child excluded (child rusage minus host-local alone, same round, median):\n'
printf '  %-32s %s ms\n' "host-device (Go)" "$own_hd" "sriov-rdma rdma:false" "$own_sr"
awk -v s="$own_sr" -v h="$own_hd" -v ws="$wall_sr" -v wh="$wall_hd" 'BEGIN {
	printf "sriov-rdma / host-device own CPU per ADD: %.2fx (target <= 0.33x)\n", s / h
	printf "sriov-rdma / host-device wall per ADD: %.2fx (target <= 0.75x)\n", ws / wh }'
