#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A runtime timeout SIGKILLs ADD or DEL at any point: the next DEL still puts the node back as it was, VF settings included.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

command -v strace >/dev/null || skip_all "strace not installed (it places the kills)"
fx_setup --vfs 1 --vf-info

# The kill points: strace delivers SIGKILL on entry to the Nth call of one
# syscall. Before and after every netlink request (the netdev and RDMA
# moves, renames, VF and address settings), at the IPAM plugin's start and
# at the wait for it; in ADD at every write (the state file's, the IPAM
# plugin's stdin, the result) and the state file's commit, in DEL at
# its removal.
declare -A syscalls=(
	[ADD]="sendto recvmsg write renameat clone3 wait4"
	[DEL]="sendto recvmsg clone3 wait4 unlinkat"
)

# killed VERB CONF SYSCALL N: VERB under strace, killed at call N of SYSCALL.
killed() {
	cni "$1" "$2" strace -qq -o /dev/null -e trace="$3" -e inject="$3":signal=KILL:when="$4"
}

# after_kill DESC CONF BEFORE: DEL (twice) undoes all; "" when so, else what is wrong.
after_kill() {
	cni DEL "$2"
	[ "$RC" -eq 0 ] || { echo "$1: DEL failed ($RC): $OUT"; return; }
	[ "$(host_state)" = "$3" ] || { echo "$1: host after DEL: $(host_state | paste -sd ';') (was: $(paste -sd ';' <<<"$3"))"; return; }
	state_holds "$CID" && { echo "$1: DEL left state for $CID"; return; }
	cni DEL "$2"
	[ "$RC" -eq 0 ] || echo "$1: second DEL failed ($RC): $OUT"
}

# crash_case VERB SYSCALL CONF: kills VERB at call 1, 2, ... of SYSCALL until
# VERB makes fewer calls than that; each time DEL must restore the host.
# One test result: how many kill points, and every one that went wrong.
crash_case() {
	local verb=$1 sc=$2 c=$3 n before bad=() why
	for ((n = 1; ; n++)); do
		pod_new
		ip link set dev "${FX_VF_IF[0]}" up
		before=$(host_state)
		if [ "$verb" = DEL ]; then
			cni ADD "$c"
			[ "$RC" -eq 0 ] || { bad+=("ADD failed before the kill: $OUT"); netns_del "$POD"; break; }
		fi
		killed "$verb" "$c" "$sc" "$n"
		[ "$RC" -eq 137 ] || { cni DEL "$c"; netns_del "$POD"; break; }
		why=$(after_kill "kill $n" "$c" "$before")
		[ -z "$why" ] || bad+=("$why")
		netns_del "$POD"
	done
	ip link set dev "${FX_VF_IF[0]}" down
	if [ "$n" -gt 1 ] && [ ${#bad[@]} -eq 0 ]; then
		t_result 0 "$T_CTX: $verb killed at each of its $((n - 1)) $sc calls, then DEL: host as before"
	else
		t_result 1 "$T_CTX: $verb killed at each of its $((n - 1)) $sc calls, then DEL: host as before"
		diag "$(printf "%s\n" "${bad[@]:-no call was killed}")"
	fi
}

for rdma in false true; do
	c=$(conf 1.0.0 ".rdma = $rdma | .vlan = 100 | .spoofchk = \"off\"")
	for verb in ADD DEL; do
		for sc in ${syscalls[$verb]}; do
			T_CTX="rdma $rdma" crash_case "$verb" "$sc" "$c"
		done
	done
done

done_testing
