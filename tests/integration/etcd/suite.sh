#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The local-store cases of ippool, run against etcd: same answers, same codes.
. "$(dirname "$0")/lib.sh"

etcd_use_env || exit 1
EP=$IPPOOL_TEST_ETCD
S=$(estore "[\"$EP\"]" "$PFX/a")
V4='{"type":"ippool","store":'$S',"range":"192.0.2.0/28","exclude":["192.0.2.1","192.0.2.4/31"],"gateway":"192.0.2.14"}'
C=$(conf net-a "$V4")

check "first ADD gets the lowest free address" add_is "$C" c1 "192.0.2.2/28"
check "ADD again for the same attachment returns the same address" add_is "$C" c1 "192.0.2.2/28"
check "another ifname of the same container gets its own address" add_is "$C" c1 "192.0.2.3/28" net2
check "excluded addresses are skipped" add_is "$C" c2 "192.0.2.6/28"
check "etcd holds the three reservations" test "$(held "$EP" "$PFX/a" | tr '\n' ' ')" = "192.0.2.2 192.0.2.3 192.0.2.6 "
run ADD "$C" c3 net1 "IgnoreUnknown=1;K8S_POD_NAMESPACE=ns1;K8S_POD_NAME=pod-3;K8S_POD_UID=uid-3"
check "the lease records the pod" test "$(dump "$EP" "$PFX/a" | jq -r '.[] | select(.k | endswith("/o/c3/net1")) | .v.podName')" = pod-3

P=$(jq -c '{cniVersion:"1.0.0",ips:.ips}' <<<"$(run ADD "$C" c1 && echo "$OUT")")
CK=$(jq -c --argjson p "$P" '. + {prevResult:$p}' <<<"$C")
run CHECK "$CK" c1
check "CHECK passes when prevResult matches" test "$RC" -eq 0
run CHECK "$CK" c2
check "CHECK fails (107) when the reservation differs" failed_with 107

run DEL "$C" c2
check "DEL releases" test "$RC" -eq 0 -a -z "$OUT"
run DEL "$C" c2
check "DEL again succeeds" test "$RC" -eq 0
run DEL "$C" never-added
check "DEL of an unknown attachment succeeds" test "$RC" -eq 0
check "the released address is handed out again" add_is "$C" c4 "192.0.2.6/28"
check "CNI_ARGS IP= reserves a free address" add_is "$C" c5 "192.0.2.10/28" net1 "IP=192.0.2.10"
run ADD "$C" c7 net1 "IP=192.0.2.10"
check "a taken requested address fails with 111 naming it" test "$(code)" = 111 -a -n "$(msg | grep -F 192.0.2.10)"
for i in 6 8 9 10 11; do run ADD "$C" "c$i"; done
run ADD "$C" c12
check "exhaustion fails with 110 naming the range" \
	test "$(code)" = 110 -a "$(msg)" = "no free address in 192.0.2.0/28 (192.0.2.1..192.0.2.14, 4 excluded)"
check "nothing was reserved for the failed ADD" test "$(held "$EP" "$PFX/a" | wc -l)" -eq 10
check "the store is consistent" consistent "$EP" "$PFX/a"

# dual stack: all or nothing
S=$(estore "[\"$EP\"]" "$PFX/ds")
DS=$(conf ds '{"type":"ippool","store":'$S',"ipRanges":[{"range":"192.0.2.0/30"},{"range":"2001:db8::/64","gateway":"2001:db8::1"}]}')
check "dual stack ADD gets one address per range" add_is "$DS" d1 "192.0.2.1/30 2001:db8::2/64"
check "second dual stack ADD" add_is "$DS" d2 "192.0.2.2/30 2001:db8::3/64"
run ADD "$DS" d3
check "IPv4 exhausted: ADD fails with 110" failed_with 110
check "and no IPv6 address was taken for it" \
	test "$(held "$EP" "$PFX/ds" | tr '\n' ' ')" = "192.0.2.1 192.0.2.2 2001:db8::2 2001:db8::3 "
run DEL "$DS" d1
check "after a DEL the next ADD reuses both freed addresses" add_is "$DS" d3 "192.0.2.1/30 2001:db8::2/64"

# overlapping ranges
S=$(estore "[\"$EP\"]" "$PFX/ov")
O1=$(conf o1 '{"type":"ippool","store":'$S',"network_name":"rdma","range":"198.51.100.0/24"}')
O2=$(conf o2 '{"type":"ippool","store":'$S',"network_name":"rdma","range":"198.51.100.0/25","range_start":"198.51.100.1"}')
check "pool A hands out .1" add_is "$O1" p1 "198.51.100.1/24"
check "pool B (same network, overlapping) skips .1" add_is "$O2" p2 "198.51.100.2/25"
check "pool A skips .2" add_is "$O1" p3 "198.51.100.3/24"
run DEL "$O1" p1
check "a DEL in pool A frees .1 for pool B" add_is "$O2" p5 "198.51.100.1/25"
O3=$(conf o3 '{"type":"ippool","store":'$S',"network_name":"other","range":"198.51.100.0/24"}')
check "another network_name hands out .1 again" add_is "$O3" p4 "198.51.100.1/24"
N1=$(conf n1 '{"type":"ippool","store":'$S',"network_name":"loose","range":"203.0.113.0/24","enable_overlapping_ranges":false}')
N2=$(conf n2 '{"type":"ippool","store":'$S',"network_name":"loose","range":"203.0.113.0/25","enable_overlapping_ranges":false}')
check "loose pool A hands out .1" add_is "$N1" q1 "203.0.113.1/24"
check "loose pool B hands out .1 too" add_is "$N2" q2 "203.0.113.1/25"
check "but one pool never twice" add_is "$N1" q3 "203.0.113.2/24"

# IPv6 near the top
T64=$(conf t64 '{"type":"ippool","store":'$S',"range":"2001:db8::/64","range_start":"2001:db8::ffff:ffff:ffff:fffd"}')
check "/64 near the top: fffd" add_is "$T64" v1 "2001:db8::ffff:ffff:ffff:fffd/64"
check "/64 near the top: fffe" add_is "$T64" v2 "2001:db8::ffff:ffff:ffff:fffe/64"
run ADD "$T64" v3
check "/64: the all-ones address is never handed out (110)" failed_with 110

# GC keeps exactly the valid attachments of its own network
S=$(estore "[\"$EP\"]" "$PFX/gc")
A='{"type":"ippool","store":'$S',"range":"198.51.100.0/24","network_name":"a"}'
B='{"type":"ippool","store":'$S',"range":"198.51.100.0/24","network_name":"b"}'
for i in 1 2 3; do run ADD "$(conf na "$A")" "g$i"; run ADD "$(conf nb "$B")" "h$i"; done
GC=$(jq -c '. + {"cni.dev/valid-attachments":[{"containerID":"g2","ifname":"net1"}]}' <<<"$(conf na "$A" 1.1.0)")
run GC "$GC" unused
check "GC succeeds" test "$RC" -eq 0
check "GC kept g2 and network b" test "$(dump "$EP" "$PFX/gc" | jq -r '.[] | select(.k | test("/o/")) | .v.containerID' | sort | tr '\n' ' ')" = "g2 h1 h2 h3 "
check "the store is consistent after GC" consistent "$EP" "$PFX/gc"

# an attachment whose lease no longer fits the config moves, strictly lowest
S=$(estore "[\"$EP\"]" "$PFX/refit")
RA=$(conf rf '{"type":"ippool","store":'$S',"range":"192.0.2.0/24"}')
RB=$(conf rf '{"type":"ippool","store":'$S',"range":"198.51.100.0/24"}')
check "ADD in range A" add_is "$RA" m1 "192.0.2.1/24"
check "ADD of the same attachment after a range change moves it to B's lowest" add_is "$RB" m1 "198.51.100.1/24"
check "its old address is released" test "$(held "$EP" "$PFX/refit" | tr '\n' ' ')" = "198.51.100.1 "

# release_hold_seconds
S=$(estore "[\"$EP\"]" "$PFX/hold")
H=$(conf nh '{"type":"ippool","store":'$S',"range":"192.0.2.0/29","release_hold_seconds":2}')
run ADD "$H" k1
run DEL "$H" k1
check "an address on hold is skipped" add_is "$H" k2 "192.0.2.2/29"
sleep 3
check "after the hold it is handed out again" add_is "$H" k3 "192.0.2.1/29"

# the store block in the configuration file, not in the NetworkAttachmentDefinition
echo '{"store":'"$(estore "[\"$EP\"]" "$PFX/file")"'}' >"$TMP/store.conf"
check "a store block from configuration_path" \
	add_is "$(conf nf '{"type":"ippool","configuration_path":"'$TMP/store.conf'","range":"203.0.113.0/24"}')" f1 "203.0.113.1/24"
check "it went to etcd" test "$(held "$EP" "$PFX/file")" = "203.0.113.1"

# STATUS, a store that is not there, config errors
run STATUS "$(conf na "$A" 1.1.0)" unused
check "STATUS succeeds with etcd up" test "$RC" -eq 0
DEAD='{"type":"ippool","store":'$(estore '["http://127.0.0.1:1"]' "$PFX/x" '"timeout_ms":500')',"range":"192.0.2.0/24"}'
run ADD "$(conf nd "$DEAD")" x1
check "ADD with etcd unreachable fails with 11 naming the endpoint" \
	test "$(code)" = 11 -a -n "$(msg | grep -F http://127.0.0.1:1)"
run STATUS "$(conf nd "$DEAD" 1.1.0)" unused
check "STATUS with etcd unreachable fails with 11" failed_with 11
run ADD "$(conf ne '{"type":"ippool","store":{"type":"etcd","endpoints":["127.0.0.1:2379"]},"range":"192.0.2.0/24"}')" e1
check "an endpoint without scheme is a config error (7) naming it" \
	test "$(code)" = 7 -a -n "$(msg | grep -F 127.0.0.1:2379)"

# ippool list against etcd, through a configuration file holding the store
echo '{"store":'"$(estore "[\"$EP\"]" "$PFX/a")"'}' >"$TMP/ippool.conf"
"$IPPOOL" list --conf "$TMP/ippool.conf" >"$TMP/list" 2>"$TMP/stderr"
ok $? "ippool list --conf reads the etcd store"
check "ippool list shows the etcd pool" grep -q "pool 192.0.2.0/28 (192.0.2.1..192.0.2.14): 10 reserved, 0 free of 10" "$TMP/list"
check "ippool list names the reservations' owners" grep -q "net1" "$TMP/list"

finish
