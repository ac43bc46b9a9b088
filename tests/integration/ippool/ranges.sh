#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ippool across ranges: dual stack all or nothing, overlapping ranges within and across
# networks; on the local store, or on etcd through etcd/with-etcd.sh.
. "$(dirname "$0")/lib.sh"

# dual stack: one address from each ipRanges entry, all or nothing
D=dual
DS=$(conf ds '{"type":"ippool",'"$(store "$D")"',"ipRanges":[{"range":"192.0.2.0/30"},{"range":"2001:db8::/64","gateway":"2001:db8::1"}]}')
ok "dual stack ADD gets one address per range" add_is "$DS" d1 "192.0.2.1/30 2001:db8::2/64"
ok "per-entry gateway in the result" test "$(jq -r '.ips[1].gateway' <<<"$OUT")" = "2001:db8::1"
ok "second dual stack ADD" add_is "$DS" d2 "192.0.2.2/30 2001:db8::3/64"
run ADD "$DS" d3
ok "IPv4 exhausted: ADD fails with 110" failed_with 110
ok "the IPv6 address taken before the failure was released" \
	test "$(reserved "$D" | tr '\n' ' ')" = "192.0.2.1 192.0.2.2 2001:db8::2 2001:db8::3 "
run DEL "$DS" d1
ok "after a DEL the next ADD reuses both freed addresses" add_is "$DS" d3 "192.0.2.1/30 2001:db8::2/64"
run ADD "$DS" d4 net1 "IP=2001:db8::99"
ok "a requested IPv6 address with the IPv4 range exhausted fails whole (110)" failed_with 110
ok "and 2001:db8::99 stays free" add_is "$(conf ds '{"type":"ippool",'"$(store "$D")"',"range":"2001:db8::/64"}')" d5 \
	"2001:db8::99/64" net1 "IP=2001:db8::99"

# overlapping ranges in one network never hand out the same address
D=overlap
O1=$(conf o1 '{"type":"ippool",'"$(store "$D")"',"network_name":"rdma","range":"198.51.100.0/24"}')
O2=$(conf o2 '{"type":"ippool",'"$(store "$D")"',"network_name":"rdma","range":"198.51.100.0/25","range_start":"198.51.100.1"}')
ok "pool A hands out .1" add_is "$O1" p1 "198.51.100.1/24"
ok "pool B (same network, overlapping) skips .1" add_is "$O2" p2 "198.51.100.2/25"
ok "pool A skips .2" add_is "$O1" p3 "198.51.100.3/24"

# another network is another address space
O3=$(conf o3 '{"type":"ippool",'"$(store "$D")"',"network_name":"other","range":"198.51.100.0/24"}')
ok "another network_name hands out .1 again" add_is "$O3" p4 "198.51.100.1/24"

# enable_overlapping_ranges false: pools of one network stop guarding each other
N1=$(conf n1 '{"type":"ippool",'"$(store "$D")"',"network_name":"loose","range":"203.0.113.0/24","enable_overlapping_ranges":false}')
N2=$(conf n2 '{"type":"ippool",'"$(store "$D")"',"network_name":"loose","range":"203.0.113.0/25","enable_overlapping_ranges":false}')
ok "loose pool A hands out .1" add_is "$N1" q1 "203.0.113.1/24"
ok "loose pool B hands out .1 too" add_is "$N2" q2 "203.0.113.1/25"
ok "but one pool never twice" add_is "$N1" q3 "203.0.113.2/24"

# no network_name: every such config shares one space, as whereabouts does
U1=$(conf u1 '{"type":"ippool",'"$(store "$D")"',"range":"192.0.2.0/24"}')
U2=$(conf u2 '{"type":"ippool",'"$(store "$D")"',"range":"192.0.2.0/25"}')
ok "unnamed network A hands out .1" add_is "$U1" s1 "192.0.2.1/24"
ok "unnamed network B, overlapping, skips .1" add_is "$U2" s2 "192.0.2.2/25"

# a /64 and a /48 near the top, in real processes
D=v6
T64=$(conf t64 '{"type":"ippool",'"$(store "$D")"',"range":"2001:db8::/64","range_start":"2001:db8::ffff:ffff:ffff:fffd"}')
ok "/64 near the top: fffd" add_is "$T64" v1 "2001:db8::ffff:ffff:ffff:fffd/64"
ok "/64 near the top: fffe" add_is "$T64" v2 "2001:db8::ffff:ffff:ffff:fffe/64"
run ADD "$T64" v3
ok "/64: the all-ones address is never handed out (110)" failed_with 110
T48=$(conf t48 '{"type":"ippool",'"$(store "$D")"',"range":"2001:db8:1::/48","range_start":"2001:db8:1:0:ffff:ffff:ffff:ffff"}')
ok "/48 carry across the 64-bit half" add_is "$T48" w1 "2001:db8:1:0:ffff:ffff:ffff:ffff/48"
ok "/48 next address after the carry" add_is "$T48" w2 "2001:db8:1:1::/48"

# first-last/nn: both ends in the one /nn network (whereabouts refuses it too)
D=dash
ok "first-last/nn hands out from first" \
	add_is "$(conf dash '{"type":"ippool",'"$(store "$D")"',"range":"192.0.2.10-192.0.2.20/24"}')" x1 "192.0.2.10/24"
run ADD "$(conf dash '{"type":"ippool",'"$(store "$D")"',"range":"192.0.2.10-192.0.3.20/24"}')" x2
ok "first-last/nn across two /24 networks is refused (7), naming both ends" \
	test "$(code)" = 7 -a "$(msg)" = 'invalid range "192.0.2.10-192.0.3.20/24": 192.0.2.10 and 192.0.3.20 are not in the same /24 network'
ok "and reserves nothing" test "$(reserved "$D" | tr '\n' ' ')" = "192.0.2.10 "

done_testing
