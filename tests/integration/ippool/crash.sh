#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kill -9 of ADDs and DELs at random moments, then GC: exactly the live reservations remain.
. "$(dirname "$0")/lib.sh"

D=$TMP/store
C=$(conf crash '{"type":"ippool","dataDir":"'$D'","ipRanges":[{"range":"192.0.2.0/24"},{"range":"2001:db8::/64"}]}')
declare -A live=()

printf '%s' "$C" >"$TMP/conf"

start() { # COMMAND ID: runs in the background, sets PID
	CNI_COMMAND=$1 CNI_CONTAINERID=$2 CNI_NETNS=/var/run/netns/x CNI_IFNAME=net1 \
		CNI_PATH=/nonexistent "$IPPOOL" <"$TMP/conf" >"$TMP/out.$2" 2>/dev/null &
	PID=$!
}

# bash reports killed jobs on stderr when reaping them: not news here
reap() { wait "$PID" 2>/dev/null; }

# Kill delays spread over one ADD's duration on this machine (a sanitizer
# build is slower), so kills land before, inside and after the critical part.
t0=$(date +%s%N)
start ADD warmup
reap
t1=$(date +%s%N)
read -r -a delays <<<"$(awk -v ns=$((t1 - t0)) 'BEGIN {for (f = 0; f <= 1.5; f += 0.25) printf "%.6f ", ns * f / 1e9}')"
run DEL "$C" warmup

for i in $(seq 1 150); do
	start ADD "k$i"
	sleep "${delays[$((RANDOM % ${#delays[@]}))]}"
	kill -9 "$PID" 2>/dev/null
	# an ADD that printed its result is live, whatever the kill did
	if reap && [ -n "$(jq -r '.ips[1].address // empty' "$TMP/out.k$i" 2>/dev/null)" ]; then
		live[k$i]=$(jq -r '[.ips[].address] | join(" ")' "$TMP/out.k$i")
	fi
	# now and then a DEL of a live one is killed too, then finished
	if [ $((i % 10)) -eq 0 ] && [ ${#live[@]} -gt 0 ]; then
		victim=$(printf '%s\n' "${!live[@]}" | head -n 1)
		start DEL "$victim"
		sleep "${delays[$((RANDOM % ${#delays[@]}))]}"
		kill -9 "$PID" 2>/dev/null
		reap
		run DEL "$C" "$victim"
		unset "live[$victim]"
	fi
done
echo "# ${#live[@]} ADDs completed out of 150"

valid=$(for id in "${!live[@]}"; do printf '{"containerID":"%s","ifname":"net1"},' "$id"; done)
run GC "$(jq -c ". + {\"cni.dev/valid-attachments\":[${valid%,}]}" <<<"$(conf crash "$(jq -c .ipam <<<"$C")" 1.1.0)")" unused
ok "GC succeeds after the kills" test "$RC" -eq 0

"$IPPOOL" list --data-dir "$D" >"$TMP/list"
owners=$(awk '/^  /{print $2}' "$TMP/list" | sort -u | tr '\n' ' ')
want=$(for id in "${!live[@]}"; do echo "$id"; done | sort | tr '\n' ' ')
ok "exactly the live attachments hold reservations" test "$owners" = "$want"
ok "no address is held twice" test "$(awk '/^  /{print $1}' "$TMP/list" | sort | uniq -d | wc -l)" -eq 0
bad=0
for id in "${!live[@]}"; do
	run ADD "$C" "$id"
	[ "$(ips)" = "${live[$id]}" ] || bad=$((bad + 1))
done
ok "every live attachment still has the addresses it was given" test "$bad" -eq 0
run ADD "$C" fresh
ok "a fresh ADD gets an address no one holds" \
	test "$RC" -eq 0 -a -z "$(awk '/^  /{print $1}' "$TMP/list" | grep -Fx "$(ips | cut -d/ -f1 | cut -d' ' -f1)")"

done_testing
