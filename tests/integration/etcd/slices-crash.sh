#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ippool SIGKILLed at each step of a slice claim (an ADD's) and of a slice
# give-back (a DEL's): strace kills it at call N of a syscall (each etcd
# request is one sendto, each record write a renameat, a record's removal an
# unlinkat). Afterwards no slice has two owners, no address is held twice,
# and the next ADDs succeed. Also: damaged slice records.
. "$(dirname "$0")/lib.sh"

command -v "$ETCD_BIN" >/dev/null || { echo "1..0 # SKIP needs its own etcd: no $ETCD_BIN"; exit 77; }
command -v strace >/dev/null || skip_all "strace not installed (it places the kills)"
command -v unshare >/dev/null || skip_all "unshare missing (it simulates nodes)"
etcd_start S || exit 1

# sconf TAG NODE: node NODE's config of pool TAG, a /28 in /30 slices.
sconf() {
	conf crash '{"type":"ippool","dataDir":"'"$TMP/$1/$2"'","store":'"$(estore "[\"$S\"]" "$PFX/$1" '"timeout_ms":1500')"',"range":"192.0.2.0/28","node_slice_size":"/30"}'
}

# nrun NODE COMMAND CONFIG CONTAINERID [WRAPPER...]: as NODE into OUT and RC.
nrun() {
	local node=$1 cmd=$2 c=$3 id=$4
	shift 4
	T_LAST="$cmd on $node ($id)"
	OUT=$(printf '%s' "$c" | unshare -u bash -c 'hostname "$0" && exec "$@"' "$node" \
		env CNI_COMMAND="$cmd" CNI_CONTAINERID="$id" CNI_NETNS=/var/run/netns/x CNI_IFNAME=net1 \
		CNI_PATH=/nonexistent "$@" "$IPPOOL" 2>"$TMP/stderr")
	RC=$?
}

# killed NODE COMMAND CONFIG ID SYSCALL N: killed at call N of SYSCALL.
killed() {
	nrun "$1" "$2" "$3" "$4" strace -f -qq -o /dev/null -e trace="$5" -e inject="$5":signal=KILL:when="$6"
}

# owners TAG: "block node" of every slice key in etcd.
owners() {
	dump "$S" "$PFX/$1" | jq -r --arg p "$PFX/$1/s/" '.[] | select(.k | startswith($p)) | "\(.v.first) \(.v.node)"' | sort
}

# records TAG NODE: "block node" of NODE's own records it allocates from.
records() {
	local f
	for f in "$TMP/$1/$2"/etcd-slices/*/owned/*; do
		[ -f "$f" ] && jq -r 'select(.state == "owned") | "\(.first) \(.node)"' "$f" 2>/dev/null
	done | sort
}

# check TAG: what is wrong after a kill and the recovery, "" when nothing:
# each node allocates only from slices etcd says are its own, and node-a
# then node-b fill the pool with distinct addresses.
check() {
	local t=$1 n i addrs=()
	for n in node-a node-b; do
		[ -z "$(comm -23 <(records "$t" "$n") <(owners "$t"))" ] ||
			{ echo "$n records a slice etcd does not give it"; return; }
	done
	for n in node-a node-b; do
		for i in 1 2 3 4 5 6 7 8; do
			nrun "$n" ADD "$(sconf "$t" "$n")" "fill-$n-$i"
			[ "$RC" -eq 0 ] && addrs+=("$(ips)")
			[ "$RC" -eq 0 ] || [ "$(code)" = 110 ] || { echo "ADD on $n: $OUT"; return; }
		done
	done
	[ "$(printf '%s\n' "${addrs[@]}" | sort | uniq -d | wc -l)" -eq 0 ] || { echo "an address twice: ${addrs[*]}"; return; }
	[ "$(owners "$t" | cut -d' ' -f1 | uniq -d | wc -l)" -eq 0 ] || echo "a slice twice"
}

# crash_case VERB SYSCALL: node-a's VERB killed at call 1, 2, ... of
# SYSCALL, each on a pool of its own where node-b holds a slice; then
# node-a's ADD (or DEL) again and check.
crash_case() {
	local verb=$1 sc=$2 n t bad=()
	for ((n = 1; n < 40; n++)); do
		t=$verb-$sc-$n
		nrun node-b ADD "$(sconf "$t" node-b)" b-0
		[ "$RC" -eq 0 ] || { bad+=("node-b's ADD failed: $OUT"); break; }
		if [ "$verb" = DEL ]; then
			nrun node-a ADD "$(sconf "$t" node-a)" a-1
			[ "$RC" -eq 0 ] || { bad+=("ADD before the kill failed: $OUT"); break; }
		fi
		killed node-a "$verb" "$(sconf "$t" node-a)" a-1 "$sc" "$n"
		[ "$RC" -eq 137 ] || break
		nrun node-a "$verb" "$(sconf "$t" node-a)" a-1
		[ "$RC" -eq 0 ] || { bad+=("kill $n: $verb again failed: $OUT"); continue; }
		why=$(check "$t")
		[ -z "$why" ] || bad+=("kill $n: $why")
	done
	if [ "$n" -gt 1 ] && [ ${#bad[@]} -eq 0 ]; then
		t_result 0 "$verb killed at each of its $((n - 1)) $sc calls: one owner per slice, no address twice, next ADDs succeed"
	else
		t_result 1 "$verb killed at each of its $((n - 1)) $sc calls: one owner per slice, no address twice, next ADDs succeed"
		diag "$(printf '%s\n' "${bad[@]:-no call was killed}")"
	fi
}

# A claim: the node's index read, the scan, the transaction (sendto), the
# record and the lease (renameat, fsync). A give-back: the record marked
# releasing (renameat, fsync), the slice key read and deleted (sendto), the
# lease and the record removed (unlinkat).
declare -A syscalls=([ADD]="sendto renameat fsync" [DEL]="sendto renameat unlinkat fsync")
for verb in ADD DEL; do
	for sc in ${syscalls[$verb]}; do
		crash_case "$verb" "$sc"
	done
done

# Damaged records. A local record: left out (no allocation from it), named
# in the log; the next claim adopts the slice again from etcd.
nrun node-a ADD "$(sconf dmg node-a)" d-1
first=$(ips)
own=$(echo "$TMP"/dmg/node-a/etcd-slices/*/owned)
rec=$(ls "$own")
printf '{"node":"node-a","state":' >"$own/$rec"
nrun node-a ADD "$(sconf dmg node-a)" d-2
ok "an ADD after its slice record was damaged succeeds" test "$RC" -eq 0
like "$(cat "$TMP/stderr")" "$rec is damaged" "the log names the damaged record"
is "$(jq -r .state "$own/$rec" 2>&1)" owned "the slice is adopted again from etcd (its record parses)"
ok "and the address is another than the first ADD's" test "$(ips)" != "$first"
# A slice key in etcd: ippool list refuses it naming the key, and no node
# claims over it.
key=$(dump "$S" "$PFX/dmg" | jq -r --arg p "$PFX/dmg/s/" '.[] | select(.k | startswith($p)) | .k' | head -1)
put "$S" "$key" '{"node":'
printf '{"dataDir":"%s","store":%s}' "$TMP/dmg/node-b" "$(estore "[\"$S\"]" "$PFX/dmg")" >"$TMP/l.conf"
"$IPPOOL" list --conf "$TMP/l.conf" >/dev/null 2>"$TMP/list.err"
ok "ippool list refuses a damaged slice key" test $? -eq 1
like "$(cat "$TMP/list.err")" "damaged node slice at key $key (code 112)" "naming the key"
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14; do
	nrun node-b ADD "$(sconf dmg node-b)" "db-$i"
	[ "$RC" -eq 0 ] || break
	echo "$(ips)" >>"$TMP/dmg.b"
done
ok "node-b fills the rest of the pool until 110" failed_with 110
ok "node-b got addresses, none of them node-a's" test -s "$TMP/dmg.b" -a -z "$(grep -Fx "$first" "$TMP/dmg.b")"

done_testing
