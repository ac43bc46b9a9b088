#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The local store's files damaged the ways a crash, a full disk or a person
# damages them: cut short, emptied, grown past any record, overwritten with
# garbage, replaced by a FIFO (index: also removed or grown sparse past 1 GiB).
# A lease or a hold is the truth: every verb that reads it fails with 112
# naming the file, and no other attachment is affected. A pool file, the
# indexes and the state file are derived: the next ADD rebuilds them and
# hands out no address twice.
. "$(dirname "$0")/lib.sh"

D=$TMP/d
IPAM='{"type":"ippool","dataDir":"'$D'","range":"192.0.2.0/24","release_hold_seconds":600}'
C=$(conf dn "$IPAM")
C11=$(conf dn "$IPAM" 1.1.0)
CHECK=$(jq -c '. + {prevResult: {cniVersion: "1.0.0", ips: [{address: "192.0.2.1/24"}]}}' <<<"$C")
GC=$(jq -c '. + {"cni.dev/valid-attachments": []}' <<<"$C11")
printf '{"dataDir":"%s"}' "$D" >"$TMP/list.conf"

# A store holding c1 (192.0.2.1) and a hold on 192.0.2.2 (c2's, released).
fresh() {
	rm -rf "$D"
	run ADD "$C" c1 && run ADD "$C" c2 && run DEL "$C" c2
}

# damage FILE KIND
damage() {
	case $2 in
	cut) truncate -s $(($(stat -c %s "$1") / 2 + 3)) "$1" ;;
	empty) : >"$1" ;;
	grown) head -c 17000 /dev/zero | tr '\0' 'x' >>"$1" ;;
	garbage) printf 'ippool\x01\xff\xfe garbage\n\0\0 more' >"$1" ;;
	fifo) rm -f "$1" && mkfifo "$1" ;;
	removed) rm -f "$1" ;;
	sparse) truncate -s $((16 + (1 << 30) + 16)) "$1" ;;
	esac
}

# fails_naming WHAT: the last run failed with 112 (by itself: exit 1) and the
# message names WHAT.
fails_naming() {
	[ "$RC" -eq 1 ] && [ "$(code)" = 112 ] && [[ $(msg) == *"$1"* ]]
}

# reconcile_fails_naming WHAT: `ippool reconcile` fails with 112 naming WHAT,
# having printed nothing (it releases nothing unless it read every lease).
reconcile_fails_naming() {
	local out err
	out=$(timeout -s KILL 30 "$IPPOOL" reconcile --conf "$TMP/list.conf" --grace 0 --json 2>"$TMP/rc.err")
	[ $? -eq 1 ] && [ -z "$out" ] && err=$(cat "$TMP/rc.err") && [[ $err == *"$1"*"(code 112)" ]]
}

# list_fails_naming WHAT: `ippool list` fails with 112 naming WHAT.
list_fails_naming() {
	local err
	err=$(timeout -s KILL 30 "$IPPOOL" list --conf "$TMP/list.conf" 2>&1 >/dev/null)
	[ $? -eq 1 ] && [[ $err == *"$1"*"(code 112)" ]]
}

list_works() {
	timeout -s KILL 30 "$IPPOOL" list --conf "$TMP/list.conf" >/dev/null
}

# ADD of a new attachment gets 192.0.2.3: .1 is held, .2 on hold.
add_c3_gets_3() {
	add_is "$C" c3 "192.0.2.3/24"
}

KINDS="cut empty grown garbage fifo"
for kind in $KINDS; do
	fresh
	damage "$D/leases/c1:net1" "$kind"
	run ADD "$C" c1
	ok "lease $kind: ADD of its attachment fails with 112 naming it" fails_naming "lease c1:net1"
	run DEL "$C" c1
	ok "lease $kind: DEL fails with 112 naming it" fails_naming "lease c1:net1"
	run CHECK "$CHECK" c1
	ok "lease $kind: CHECK fails with 112 naming it" fails_naming "lease c1:net1"
	ok "lease $kind: list fails with 112 naming it" list_fails_naming "lease c1:net1"
	ok "lease $kind: reconcile fails with 112 naming it" reconcile_fails_naming "lease c1:net1"
	ok "lease $kind: another attachment's ADD gets the next free address" add_c3_gets_3
	run GC "$GC" unused
	ok "lease $kind: GC fails with 112 naming it" fails_naming "lease c1:net1"
	# GC had begun a change: the indexes are rebuilt next, and a rebuild
	# cannot tell what the damaged lease holds.
	run ADD "$C" c4
	ok "lease $kind: then every change fails naming it, rather than guess" \
		fails_naming "lease c1:net1"
	rm -f "$D/leases/c1:net1"
	ok "lease $kind: with the file removed, c1's address is free again" \
		add_is "$C" c4 "192.0.2.1/24"
done

# The netns lines, damaged as a person editing the file may: every verb that
# reads the lease refuses it. The lease records this shell's netns (its
# identity readable without root).
for edit in 's|^netns /|netns |' 's|^boot_id \(.*\).$|boot_id \1|' 's|^netns_ino .*|netns_ino 0|' \
	's|^netns_dev .*|netns_dev 9007199254740992|' '/^netns /d' '/^netns_dev/d' \
	's|^netns \(.*\)|netns \1\nnetns \1|' 's|^boot_id \(.*\)|boot_id \U\1|'; do
	rm -rf "$D"
	NETNS=/proc/$$/ns/net run ADD "$C" c1
	ok "netns '$edit': the lease records the netns" grep -q "^netns_ino $(stat -L -c %i /proc/$$/ns/net)$" "$D/leases/c1:net1"
	sed -i "$edit" "$D/leases/c1:net1"
	run ADD "$C" c1
	ok "netns '$edit': ADD of its attachment fails with 112 naming it" fails_naming "lease c1:net1"
	ok "netns '$edit': list fails with 112 naming it" list_fails_naming "lease c1:net1"
	ok "netns '$edit': reconcile fails with 112 naming it" reconcile_fails_naming "lease c1:net1"
done

for kind in $KINDS; do
	fresh
	f=$(ls "$D"/holds/*@*)
	damage "$f" "$kind"
	run ADD "$C" c3
	ok "hold $kind: ADD fails with 112 naming it" fails_naming "hold $(basename "$f")"
	run DEL "$C" c1
	ok "hold $kind: so does DEL (the failed ADD left the indexes to rebuild)" \
		fails_naming "hold $(basename "$f")"
	rm -f "$f"
	ok "hold $kind: with the file removed, as the message asks, ADD gets its address" \
		add_is "$C" c3 "192.0.2.2/24"
done

for kind in $KINDS; do
	fresh
	f=$(ls "$D"/pools/*)
	damage "$f" "$kind"
	ok "pool $kind: list fails with 112 naming it" list_fails_naming "pool $(basename "$f")"
	ok "pool $kind: ADD succeeds with the next free address" add_c3_gets_3
	ok "pool $kind: which wrote it anew: list works again" list_works
done

for kind in $KINDS removed sparse; do
	fresh
	f=$(ls "$D"/index/*.idx)
	damage "$f" "$kind"
	ok "index $kind: ADD rebuilds it and gets the next free address" add_c3_gets_3
	ok "index $kind: a second ADD gets the one after" add_is "$C" c4 "192.0.2.4/24"
	ok "index $kind: list shows the three holders" \
		test "$(reserved d | tr '\n' ' ')" = "192.0.2.1 192.0.2.3 192.0.2.4 "
done

for kind in $KINDS; do
	fresh
	damage "$D/state" "$kind"
	run ADD "$C" c3
	if [ "$kind" = fifo ]; then
		ok "state fifo: ADD fails with 112 naming it" fails_naming "state"
		continue
	fi
	ok "state $kind: ADD rebuilds the indexes and gets the next free address" \
		test "$RC" -eq 0 -a "$(ips)" = "192.0.2.3/24"
	ok "state $kind: the state is clean again" \
		test "$(cat "$D/state")" = "$(cat /proc/sys/kernel/random/boot_id) clean"
done
done_testing
