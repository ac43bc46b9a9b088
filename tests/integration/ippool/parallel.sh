#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 64 simultaneous ADDs on a /26 (62 usable): 62 distinct addresses, the other two fail cleanly.
. "$(dirname "$0")/lib.sh"

D=store
C=$(conf par '{"type":"ippool",'"$(store "$D")"',"range":"192.0.2.0/26"}')
pids=()
for i in $(seq 1 64); do
	printf '%s' "$C" | CNI_COMMAND=ADD CNI_CONTAINERID="par$i" CNI_NETNS=/var/run/netns/x CNI_IFNAME=net1 \
		CNI_PATH=/nonexistent "$IPPOOL" >"$TMP/out.$i" 2>"$TMP/err.$i" &
	pids+=($!)
done
good=0
bad=0
for i in $(seq 1 64); do
	if wait "${pids[$((i - 1))]}"; then
		good=$((good + 1))
		jq -r '.ips[0].address' "$TMP/out.$i" >>"$TMP/addrs"
	elif [ "$(jq -r .code "$TMP/out.$i")" = 110 ]; then
		bad=$((bad + 1))
	fi
done
OUT="$good succeeded, $bad exhausted"
RC=0
ok "62 ADDs succeed" test "$good" -eq 62
ok "2 ADDs fail with 110 (no free address)" test "$bad" -eq 2
ok "the 62 addresses are distinct" test "$(sort -u "$TMP/addrs" | wc -l)" -eq 62
ok "the store holds exactly those 62" test "$(reserved "$D" | sed 's|$|/26|')" = "$(sort "$TMP/addrs")"

# the same again while half of them are being deleted: still never a duplicate
for i in $(seq 1 31); do
	printf '%s' "$C" | CNI_COMMAND=DEL CNI_CONTAINERID="par$i" CNI_NETNS=/var/run/netns/x CNI_IFNAME=net1 \
		CNI_PATH=/nonexistent "$IPPOOL" >/dev/null 2>&1 &
	printf '%s' "$C" | CNI_COMMAND=ADD CNI_CONTAINERID="new$i" CNI_NETNS=/var/run/netns/x CNI_IFNAME=net1 \
		CNI_PATH=/nonexistent "$IPPOOL" >/dev/null 2>&1 &
done
wait
ok "no address is held twice after concurrent DELs and ADDs" \
	test "$(reserved "$D" | sort | uniq -d | wc -l)" -eq 0
ok "the pool is not over-committed" test "$(reserved "$D" | wc -l)" -le 62

done_testing
