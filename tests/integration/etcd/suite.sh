#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What only the etcd store has: its keys, their consistency, refits, the store
# block in a configuration file, unreachable endpoints, list. The local-store
# suites themselves run against etcd through with-etcd.sh.
. "$(dirname "$0")/lib.sh"

etcd_use_env || exit 1
EP=$IPPOOL_TEST_ETCD
S=$(estore "[\"$EP\"]" "$PFX/a")
V4='{"type":"ippool","store":'$S',"range":"192.0.2.0/28","exclude":["192.0.2.1","192.0.2.4/31"],"gateway":"192.0.2.14"}'
C=$(conf net-a "$V4")

ok "first ADD gets the lowest free address" add_is "$C" c1 "192.0.2.2/28"
ok "ADD again for the same attachment returns the same address" add_is "$C" c1 "192.0.2.2/28"
ok "another ifname of the same container gets its own address" add_is "$C" c1 "192.0.2.3/28" net2
ok "excluded addresses are skipped" add_is "$C" c2 "192.0.2.6/28"
ok "etcd holds the three reservations" test "$(held "$EP" "$PFX/a" | tr '\n' ' ')" = "192.0.2.2 192.0.2.3 192.0.2.6 "
run ADD "$C" c3 net1 "IgnoreUnknown=1;K8S_POD_NAMESPACE=ns1;K8S_POD_NAME=pod-3;K8S_POD_UID=uid-3"
ok "the lease records the pod" test "$(dump "$EP" "$PFX/a" | jq -r '.[] | select(.k | endswith("/o/c3/net1")) | .v.podName')" = pod-3

# fill the pool: exhaustion leaves nothing half-written in etcd
for i in 4 5 6 7 8 9; do run ADD "$C" "c$i"; done
ok "the pool is full" test "$(held "$EP" "$PFX/a" | wc -l)" -eq 10
run ADD "$C" c12
ok "exhaustion fails with 110 naming the range" \
	test "$(code)" = 110 -a "$(msg)" = "no free address in 192.0.2.0/28 (192.0.2.1..192.0.2.14, 4 excluded)"
ok "nothing was reserved for the failed ADD" test "$(held "$EP" "$PFX/a" | wc -l)" -eq 10
ok "the store is consistent" consistent "$EP" "$PFX/a"
valid='[{"containerID":"c1","ifname":"net1"},{"containerID":"c1","ifname":"net2"},{"containerID":"c2","ifname":"net1"}]'
run GC "$(jq -c --argjson v "$valid" '. + {"cni.dev/valid-attachments": $v}' <<<"$(conf net-a "$V4" 1.1.0)")" unused
ok "GC succeeds" test "$RC" -eq 0
ok "GC kept exactly the valid attachments" test "$(held "$EP" "$PFX/a" | tr '\n' ' ')" = "192.0.2.2 192.0.2.3 192.0.2.6 "
ok "the store is consistent after GC" consistent "$EP" "$PFX/a"

# an attachment whose lease no longer fits the config moves, strictly lowest
S=$(estore "[\"$EP\"]" "$PFX/refit")
RA=$(conf rf '{"type":"ippool","store":'$S',"range":"192.0.2.0/24"}')
RB=$(conf rf '{"type":"ippool","store":'$S',"range":"198.51.100.0/24"}')
ok "ADD in range A" add_is "$RA" m1 "192.0.2.1/24"
ok "ADD of the same attachment after a range change moves it to B's lowest" add_is "$RB" m1 "198.51.100.1/24"
ok "its old address is released" test "$(held "$EP" "$PFX/refit" | tr '\n' ' ')" = "198.51.100.1 "

# the store block in the configuration file, not in the NetworkAttachmentDefinition
echo '{"store":'"$(estore "[\"$EP\"]" "$PFX/file")"'}' >"$TMP/store.conf"
ok "a store block from configuration_path" \
	add_is "$(conf nf '{"type":"ippool","configuration_path":"'$TMP/store.conf'","range":"203.0.113.0/24"}')" f1 "203.0.113.1/24"
ok "it went to etcd" test "$(held "$EP" "$PFX/file")" = "203.0.113.1"

# STATUS, a store that is not there, config errors
run STATUS "$(conf net-a "$V4" 1.1.0)" unused
ok "STATUS succeeds with etcd up" test "$RC" -eq 0
DEAD='{"type":"ippool","store":'$(estore '["http://127.0.0.1:1"]' "$PFX/x" '"timeout_ms":500')',"range":"192.0.2.0/24"}'
run ADD "$(conf nd "$DEAD")" x1
ok "ADD with etcd unreachable fails with 11 naming the endpoint" \
	test "$(code)" = 11 -a -n "$(msg | grep -F http://127.0.0.1:1)"
run STATUS "$(conf nd "$DEAD" 1.1.0)" unused
ok "STATUS with etcd unreachable fails with 11" failed_with 11
run ADD "$(conf ne '{"type":"ippool","store":{"type":"etcd","endpoints":["127.0.0.1:2379"]},"range":"192.0.2.0/24"}')" e1
ok "an endpoint without scheme is a config error (7) naming it" \
	test "$(code)" = 7 -a -n "$(msg | grep -F 127.0.0.1:2379)"

# GC's index: one entry per lease, written and removed with it
S=$(estore "[\"$EP\"]" "$PFX/idx")
R1=$(conf rail-1 '{"type":"ippool","store":'$S',"range":"198.51.100.0/24"}')
R2=$(conf rail-2 '{"type":"ippool","store":'$S',"range":"198.51.100.0/24"}')
G=$PFX/idx/g/$(hostname)
run ADD "$R1" i1
ok "ADD writes the lease and its index entry" test "$RC" -eq 0 -a "$(index "$EP" "$PFX/idx")" = "$G/rail-1/i1/net1 "
run DEL "$R1" i1
ok "DEL removes both" test "$RC" -eq 0 -a -z "$(index "$EP" "$PFX/idx")" -a -z "$(held "$EP" "$PFX/idx")"

# stale entries (a version without the index released or remade the lease) go at GC
run ADD "$R1" i2
run ADD "$R2" i3
put "$EP" "$G/rail-1/gone/net1" '{}'
put "$EP" "$G/rail-1/i3/net1" '{}'
run GC "$(jq -c '. + {"cni.dev/valid-attachments": [{"containerID":"i2","ifname":"net1"}]}' <<<"$(conf rail-1 "$(jq -c .ipam <<<"$R1")" 1.1.0)")" unused
ok "GC with stale index entries succeeds" test "$RC" -eq 0
ok "it dropped them and kept the valid lease and rail-2's" \
	test "$(index "$EP" "$PFX/idx")" = "$G/rail-1/i2/net1 $G/rail-2/i3/net1 " -a \
	"$(held "$EP" "$PFX/idx" | tr '\n' ' ')" = "198.51.100.1 198.51.100.2 "
ok "the store is consistent after it" consistent "$EP" "$PFX/idx"
put "$EP" "$G/rail-1/no-ifname" '{}'
run GC "$(jq -c '. + {"cni.dev/valid-attachments": []}' <<<"$(conf rail-1 "$(jq -c .ipam <<<"$R1")" 1.1.0)")" unused
ok "a malformed index entry is 112 naming it" \
	test "$(code)" = 112 -a "$(msg)" = "etcd $EP: malformed GC index key $G/rail-1/no-ifname"

# ippool list against etcd, through a configuration file holding the store
echo '{"store":'"$(estore "[\"$EP\"]" "$PFX/a")"'}' >"$TMP/ippool.conf"
"$IPPOOL" list --conf "$TMP/ippool.conf" >"$TMP/list" 2>"$TMP/stderr"
t_result $? "ippool list --conf reads the etcd store"
ok "ippool list shows the etcd pool" grep -q "pool 192.0.2.0/28 (192.0.2.1..192.0.2.14): 3 reserved, 7 free of 10" "$TMP/list"
ok "ippool list names the reservations' owners" grep -q "net1" "$TMP/list"

done_testing
