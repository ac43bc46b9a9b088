#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ippool verbs as real processes: ADD, DEL, CHECK, GC, STATUS, list; on the local
# store, or on etcd through etcd/with-etcd.sh (local-store-only cases are marked).
. "$(dirname "$0")/lib.sh"

D=store
V4='{"type":"ippool",'"$(store "$D")"',"range":"192.0.2.0/28","exclude":["192.0.2.1","192.0.2.4/31"],"gateway":"192.0.2.14","routes":[{"dst":"0.0.0.0/0"}],"dns":{"nameservers":["192.0.2.53"]}}'
C=$(conf net-a "$V4")

# idempotent ADD, the same answer for the same (containerID, ifname)
ok "first ADD gets the lowest free address" add_is "$C" c1 "192.0.2.2/28"
ok "result carries gateway, routes, dns" \
	test "$(jq -c '[.ips[0].gateway, .routes[0].dst, .dns.nameservers[0]]' <<<"$OUT")" = '["192.0.2.14","0.0.0.0/0","192.0.2.53"]'
ok "ADD again for the same attachment returns the same address" add_is "$C" c1 "192.0.2.2/28"
ok "another ifname of the same container gets its own address" add_is "$C" c1 "192.0.2.3/28" net2
ok "excluded addresses are skipped" add_is "$C" c2 "192.0.2.6/28"
ok "list shows the three reservations" test "$(reserved "$D" | tr '\n' ' ')" = "192.0.2.2 192.0.2.3 192.0.2.6 "
list "$D" >"$TMP/list"
ok "list prints the free count" grep -q "pool 192.0.2.0/28 (192.0.2.1..192.0.2.14): 3 reserved, 7 free of 10" "$TMP/list"

# CNI_ARGS metadata lands in the reservation
run ADD "$C" c3 net1 "IgnoreUnknown=1;K8S_POD_NAMESPACE=ns1;K8S_POD_NAME=pod-3;K8S_POD_UID=uid-3"
ok "ADD with pod metadata" test "$RC" -eq 0
ok "list names the pod" grep -q "c3 net1 ns1/pod-3 uid-3" <(list "$D")

# CHECK against prevResult
P=$(jq -c '{cniVersion:"1.0.0",ips:.ips}' <<<"$(run ADD "$C" c1 && echo "$OUT")")
CK=$(jq -c --argjson p "$P" '. + {prevResult:$p}' <<<"$C")
run CHECK "$CK" c1
ok "CHECK passes when prevResult matches" test "$RC" -eq 0
run CHECK "$(jq -c '.prevResult.ips += [{"address":"198.51.100.9/24"}]' <<<"$CK")" c1
ok "CHECK ignores prevResult addresses outside our ranges" test "$RC" -eq 0
run CHECK "$(jq -c '.prevResult.ips += [{"address":"192.0.2.9/28"}]' <<<"$CK")" c1
ok "CHECK fails (107) on an address of our range not reserved for it" \
	failed_with 107 "prevResult address 192.0.2.9 is not reserved for this attachment"
run CHECK "$CK" c2
ok "CHECK fails (107) when the reservation differs" failed_with 107 "is not in prevResult"
run CHECK "$CK" nosuch
ok "CHECK fails (107) without a reservation" failed_with 107 "no reservation for container nosuch interface net1"

# DEL twice
run DEL "$C" c2
ok "DEL releases" test "$RC" -eq 0 -a -z "$OUT"
run DEL "$C" c2
ok "DEL again succeeds" test "$RC" -eq 0
run DEL "$C" never-added
ok "DEL of an unknown attachment succeeds" test "$RC" -eq 0
ok "the released address is handed out again" add_is "$C" c4 "192.0.2.6/28"

# requested addresses
ok "CNI_ARGS IP= reserves a free address" add_is "$C" c5 "192.0.2.10/28" net1 "IP=192.0.2.10"
run ADD "$(jq -c '. + {runtimeConfig:{ips:["192.0.2.11/28"]}}' <<<"$C")" c6
ok "runtimeConfig.ips reserves a free address" test "$RC" -eq 0 -a "$(ips)" = "192.0.2.11/28"
run ADD "$C" c7 net1 "IP=192.0.2.10"
ok "a taken requested address fails with 111" failed_with 111
ok "the message names the address" grep -q "192.0.2.10" <<<"$(msg)"
run ADD "$C" c7 net1 "IP=198.51.100.7"
ok "a requested address out of range fails with 111" failed_with 111 "requested address 198.51.100.7 is not in any range"
run ADD "$C" c7 net1 "IP=192.0.2.14"
ok "the gateway cannot be requested (111)" failed_with 111

# exhaustion
for i in 8 9 10 11; do run ADD "$C" "c$i"; done
run ADD "$C" c12
ok "exhaustion fails with 110" failed_with 110
ok "the exhaustion message names the range" \
	test "$(msg)" = "no free address in 192.0.2.0/28 (192.0.2.1..192.0.2.14, 4 excluded)"
ok "nothing was reserved for the failed ADD" test "$(reserved "$D" | wc -l)" -eq 10

# every CNI version prints its result shape
for v in 0.3.0 0.3.1 0.4.0 1.0.0 1.1.0; do
	D6=v$v
	run ADD "$(conf net-v '{"type":"ippool",'"$(store "$D6")"',"range":"2001:db8::/64"}' "$v")" cv
	case $v in 0.*) want='"6"' ;; *) want=null ;; esac
	ok "ADD in $v: 2001:db8::1, ips[].version $want" \
		test "$RC" -eq 0 -a "$(ips)" = "2001:db8::1/64" -a "$(jq -c '.ips[0].version' <<<"$OUT")" = "$want" \
		-a "$(jq -r .cniVersion <<<"$OUT")" = "$v"
done

# GC keeps exactly the valid attachments of its own network
D2=gc
A='{"type":"ippool",'"$(store "$D2")"',"range":"198.51.100.0/24","network_name":"a"}'
B='{"type":"ippool",'"$(store "$D2")"',"range":"198.51.100.0/24","network_name":"b"}'
for i in 1 2 3; do run ADD "$(conf na "$A")" "g$i"; run ADD "$(conf nb "$B")" "h$i"; done
GC=$(jq -c '. + {"cni.dev/valid-attachments":[{"containerID":"g2","ifname":"net1"}]}' <<<"$(conf na "$A" 1.1.0)")
run GC "$GC" unused
ok "GC succeeds" test "$RC" -eq 0
ok "GC kept g2 and network b" test "$(list "$D2" | awk '/^  /{print $2}' | sort | tr '\n' ' ')" = "g2 h1 h2 h3 "

# an ipam-only config, as host-local and whereabouts take it by hand: no top-level type
B='{"cniVersion":"1.1.0","name":"bare","ipam":{"type":"ippool",'"$(store bare)"',"range":"203.0.113.0/24"}}'
ok "ADD of a config without top-level type" add_is "$B" b1 "203.0.113.1/24"
run CHECK "$(jq -c --argjson p "$(jq -c '{cniVersion, ips}' <<<"$OUT")" '. + {prevResult: $p}' <<<"$B")" b1
ok "CHECK of it" test "$RC" -eq 0 -a -z "$OUT"
run STATUS "$B" unused
ok "STATUS of it" test "$RC" -eq 0
run GC "$(jq -c '. + {"cni.dev/valid-attachments": []}' <<<"$B")" unused
ok "GC of it releases its attachment" test "$RC" -eq 0 -a -z "$(reserved bare)"
ok "ADD of it again" add_is "$B" b2 "203.0.113.1/24"
run DEL "$B" b2
ok "DEL of it" test "$RC" -eq 0 -a -z "$(reserved bare)"
run ADD '{"cniVersion":"1.0.0","name":"bare"}' b3
ok "without an ipam block: 7 naming it" test "$(code)" = 7 -a "$(msg)" = "ipam block is missing"

# the local store waits for its lock at most store.timeout_ms, then says 11
if local_store; then
	DL=$TMP/locked
	L=$(conf nl '{"type":"ippool","dataDir":"'$DL'","store":{"type":"local","timeout_ms":1000},"range":"192.0.2.0/24"}')
	ok "ADD on the store before it is locked" add_is "$L" l1 "192.0.2.1/24"
	(exec 9>>"$DL/state" && flock -x 9 && touch "$TMP/holding" && exec sleep 60) &
	holder=$!
	while [ ! -e "$TMP/holding" ]; do sleep 0.05; done
	t0=$(date +%s%N)
	run ADD "$L" l2
	took=$((($(date +%s%N) - t0) / 1000000))
	ok "ADD with the lock held elsewhere fails with 11" failed_with 11
	ok "naming the store and how long it waited" \
		grep -Eqx "local store $DL: waited [0-9]+ ms for its lock, try again" <<<"$(msg)"
	ok "after the bound, not much later (took $took ms)" test "$took" -ge 1000 -a "$took" -lt 10000
	run DEL "$L" l1
	ok "DEL with the lock held elsewhere fails with 11 too" failed_with 11
	kill "$holder"
	wait "$holder" 2>/dev/null
	ok "the lock released, ADD succeeds" add_is "$L" l2 "192.0.2.2/24"
	ok "and l1 kept its address" test "$("$IPPOOL" list --data-dir "$DL" | awk '/^  /{print $1}' | tr '\n' ' ')" = "192.0.2.1 192.0.2.2 "
fi

# STATUS
run STATUS "$(conf na "$A" 1.1.0)" unused
ok "STATUS succeeds on a usable store" test "$RC" -eq 0
if local_store; then
	touch "$TMP/file"
	run STATUS "$(conf na '{"type":"ippool","dataDir":"'$TMP/file/sub'","range":"198.51.100.0/24"}' 1.1.0)" unused
	ok "STATUS on an unusable store fails with 50" failed_with 50
	run ADD "$(conf na '{"type":"ippool","dataDir":"'$TMP/file/sub'","range":"198.51.100.0/24"}')" x
	ok "ADD on an unusable store fails with 112" failed_with 112
fi

# configuration file fills what the block lacks; a named missing one is an error
echo '{"range":"203.0.113.0/24","exclude":["203.0.113.1"],"dataDir":"'$TMP/fromfile'"}' >"$TMP/ippool.conf"
ok "configuration_path supplies range and dataDir" \
	add_is "$(conf nf '{"type":"ippool","configuration_path":"'$TMP/ippool.conf'"}')" f1 "203.0.113.2/24"
run ADD "$(conf nf '{"type":"ippool","configuration_path":"'$TMP/missing.conf'"}')" f2
ok "a missing configuration_path fails with 7" failed_with 7 "cannot read configuration file $TMP/missing.conf: No such file or directory"

# config errors name the value
run ADD "$(conf ne '{"type":"ippool",'"$(store "$D")"',"range":"192.0.2.0/31"}')" e1
ok "a /31 is refused (7)" failed_with 7 'invalid range "192.0.2.0/31": a /31 has no usable address'
run ADD "$(conf ne '{"type":"ippool",'"$(store "$D")"',"range":"192.0.2.0/24","range_start":"192.0.2.50","range_end":"192.0.2.40"}')" e1
ok "an empty interval is refused (7)" failed_with 7 "range_end 192.0.2.40 is before range_start 192.0.2.50"
run ADD "$(conf ne '{"type":"ippool",'"$(store "$D")"',"range":"192.0.2.0/24","exclude":["192.0.2.300"]}')" e1
ok "a bad exclude is refused, naming it" test "$(code)" = 7 -a -n "$(msg | grep -F 192.0.2.300)"

# release_hold_seconds: a released address waits before it is handed out again
DH=hold
H=$(conf nh '{"type":"ippool",'"$(store "$DH")"',"range":"192.0.2.0/29","release_hold_seconds":2}')
run ADD "$H" k1
run DEL "$H" k1
ok "an address on hold is skipped" add_is "$H" k2 "192.0.2.2/29"
sleep 3
ok "after the hold it is handed out again" add_is "$H" k3 "192.0.2.1/29"

# a corrupt index is rebuilt from the lease files (local store)
if local_store; then
	DC=$TMP/corrupt
	CC=$(conf nc '{"type":"ippool","dataDir":"'$DC'","range":"192.0.2.0/29"}')
	run ADD "$CC" r1
	echo garbage >"$DC/index/_:v4.idx"
	ok "ADD after index corruption does not reuse a reserved address" add_is "$CC" r2 "192.0.2.2/29"
	echo garbage >"$DC/leases/r1:net1"
	sed -i 's/clean/dirty/' "$DC/state"
	run ADD "$CC" r3
	ok "a corrupt lease file is a store error (112) naming it" test "$(code)" = 112 -a -n "$(msg | grep -F r1:net1)"
fi

done_testing
