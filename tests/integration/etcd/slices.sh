#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Node slices (node_slice_size): simulated nodes (unshare -u, hostname) claim
# slices of one etcd and allocate inside them; etcd killed and restarted;
# small ranges exhausted; release-node judged by the heartbeat.
. "$(dirname "$0")/lib.sh"

command -v "$ETCD_BIN" >/dev/null || { echo "1..0 # SKIP needs its own etcd: no $ETCD_BIN"; exit 77; }
command -v unshare >/dev/null || skip_all "unshare missing (it simulates nodes)"
command -v python3 >/dev/null || skip_all "no python3 to read reconcile's --json"
# shellcheck source-path=SCRIPTDIR source=../ippool/reconcile-lib.sh
. "$(dirname "$0")/../ippool/reconcile-lib.sh"
trap 'forget_keys; etcd_stop; rc_cleanup' EXIT
etcd_start S || exit 1

# sconf TAG NODE RANGE SLICE [EXTRA|CNI_VERSION]: the config of node NODE (its own dataDir).
sconf() {
	local extra=${5:-} v=1.0.0
	[[ $extra == [0-9].* ]] && { v=$extra; extra=''; }
	conf slices '{"type":"ippool","dataDir":"'"$TMP/$2"'","store":'"$(estore "[\"$S\"]" "$PFX/$1" '"timeout_ms":1500')"',"range":"'"$3"'","node_slice_size":"'"$4"'"'"${extra:+,$extra}"'}' "$v"
}

# on NODE CMD...: CMD with the hostname NODE (a UTS namespace of its own).
on() {
	local node=$1
	shift
	unshare -u bash -c 'hostname "$0" && exec "$@"' "$node" "$@"
}

# nrun NODE COMMAND CONFIG CONTAINERID: run as NODE into OUT and RC.
nrun() {
	T_LAST="$2 on $1 ($4)"
	OUT=$(printf '%s' "$3" | on "$1" env CNI_COMMAND="$2" CNI_CONTAINERID="$4" \
		CNI_NETNS="${NETNS:-/var/run/netns/x}" CNI_IFNAME=net1 CNI_PATH=/nonexistent "$IPPOOL" 2>"$TMP/stderr")
	RC=$?
}

# slices_of TAG NODE: the slices `ippool list` shows for NODE, as "first/len".
slices_of() {
	printf '{"dataDir":"%s","store":%s}' "$TMP/$2" "$(estore "[\"$S\"]" "$PFX/$1")" >"$TMP/l.conf"
	on "$2" "$IPPOOL" list --conf "$TMP/l.conf" | awk -v n="$2" '$1 == "slice" && $NF == n {print $2}'
}

# in_slices ADDR SLICES...: ADDR (IPv4) lies in one of them.
in_slices() {
	python3 -c 'import ipaddress,sys; a=ipaddress.ip_address(sys.argv[1]); sys.exit(0 if any(a in ipaddress.ip_network(s) for s in sys.argv[2:]) else 1)' "$@"
}

# Four nodes x 16 ADDs, /24 in /27 slices.
declare -A got=()
for n in node-a node-b node-c node-d; do
	for i in $(seq 16); do
		nrun "$n" ADD "$(sconf four "$n" 198.51.100.0/24 /27)" "$n-$i"
		[ "$RC" -eq 0 ] && got[$n-$i]=$(ips | cut -d/ -f1)
	done
done
is "${#got[@]}" 64 "4 nodes x 16 ADDs with /27 slices all succeed"
is "$(printf '%s\n' "${got[@]}" | sort | uniq -d | wc -l)" 0 "every address is distinct"
bad=0
for n in node-a node-b node-c node-d; do
	mapfile -t sl < <(slices_of four "$n")
	for i in $(seq 16); do in_slices "${got[$n-$i]}" "${sl[@]}" || bad=$((bad + 1)); done
done
is "$bad" 0 "each node's addresses lie in its own slices (ippool list)"
is "$(slices_of four node-a | wc -l)" 1 "16 addresses fit node-a's one /27 slice"
all=$(for n in node-a node-b node-c node-d; do slices_of four "$n"; done | sort)
is "$(uniq -d <<<"$all" | wc -l)" 0 "no slice has two owners"

# etcd SIGKILLed: room in slices is enough; a new slice is not.
nrun node-e ADD "$(sconf four node-e 198.51.100.0/24 /27)" node-e-1
e1=$(ips)
{ kill -9 "$S_PID"; wait "$S_PID"; } 2>/dev/null
nrun node-e DEL "$(sconf four node-e 198.51.100.0/24 /27)" node-e-1
ok "with etcd down, DEL of the only address in node-e's slice succeeds" test "$RC" -eq 0
nrun node-e ADD "$(sconf four node-e 198.51.100.0/24 /27)" node-e-2
ok "and the slice it left empty stays usable: the next ADD gets its address" \
	test "$RC" -eq 0 -a "$(ips)" = "$e1"
got[node-e-2]=$(ips | cut -d/ -f1)
down=0
for i in $(seq 17 60); do
	nrun node-a ADD "$(sconf four node-a 198.51.100.0/24 /27)" "node-a-$i"
	[ "$RC" -eq 0 ] || break
	got[node-a-$i]=$(ips | cut -d/ -f1)
	down=$((down + 1))
done
ok "with etcd down, ADDs from the room left in node-a's slice succeed ($down)" test "$down" -ge 1
ok "the ADD that needs a new slice fails with 11" failed_with 11
like "$(msg)" "$S" "its message names etcd's endpoint"
like "$(msg)" "0 free addresses" "and the 0 addresses node-a's slices still have"
freed=${got[node-a-1]}
nrun node-a DEL "$(sconf four node-a 198.51.100.0/24 /27)" node-a-1
ok "DEL works while etcd is down" test "$RC" -eq 0
unset 'got[node-a-1]'
nrun node-a STATUS "$(sconf four node-a 198.51.100.0/24 /27 1.1.0)" status
ok "STATUS is ready while node-a's slices have room (etcd down)" test "$RC" -eq 0
nrun node-a ADD "$(sconf four node-a 198.51.100.0/24 /27)" node-a-61
ok "an ADD takes the address the DEL freed, etcd still down" test "$RC" -eq 0 -a "$(ips | cut -d/ -f1)" = "$freed"
got[node-a-61]=$(ips | cut -d/ -f1)
etcd_restart S || exit 1
nrun node-a ADD "$(sconf four node-a 198.51.100.0/24 /27)" node-a-62
ok "with etcd back, the ADD that needs a slice succeeds" test "$RC" -eq 0
got[node-a-62]=$(ips | cut -d/ -f1)
is "$(printf '%s\n' "${got[@]}" | sort | uniq -d | wc -l)" 0 "after the restart nothing is held twice"
all=$(for n in node-a node-b node-c node-d node-e; do slices_of four "$n"; done | sort)
is "$(uniq -d <<<"$all" | wc -l)" 0 "and no slice has two owners"
is "$(slices_of four node-a | wc -l)" 2 "node-a holds 2 slices now"
bad=0
mapfile -t sl < <(slices_of four node-a)
for k in "${!got[@]}"; do
	[[ $k == node-a-* ]] && { in_slices "${got[$k]}" "${sl[@]}" || bad=$((bad + 1)); }
done
is "$bad" 0 "node-a's addresses all lie in its 2 slices"

# etcd frozen (SIGSTOP): an ADD that needs a slice waits for etcd until its
# budget is spent; meanwhile ADDs from the node's slices with room do not
# wait behind it.
slow=$(conf slices '{"type":"ippool","dataDir":"'"$TMP/node-a"'","store":'"$(estore "[\"$S\"]" "$PFX/four" '"timeout_ms":6000')"',"range":"203.0.113.0/24","node_slice_size":"/27"}')
nrun node-a DEL "$(sconf four node-a 198.51.100.0/24 /27)" node-a-2
unset 'got[node-a-2]'
etcd_pause "$S_PID"
(nrun node-a ADD "$slow" slow-1; echo "$RC $OUT" >"$TMP/slow") &
slow_pid=$!
sleep 0.5
nrun node-a ADD "$(sconf four node-a 198.51.100.0/24 /27)" node-a-63
ok "with etcd frozen, an ADD from node-a's slice with room succeeds" test "$RC" -eq 0
got[node-a-63]=$(ips | cut -d/ -f1)
ok "while node-a's ADD that needs a new slice is still waiting for etcd" kill -0 "$slow_pid"
wait "$slow_pid"
ok "which then fails with 11" test "$(cut -d' ' -f1 "$TMP/slow")" = 1 -a "$(sed 's/^[^ ]* //' "$TMP/slow" | jq -r .code)" = 11
etcd_resume "$S_PID"
etcd_wait "$S" "$S_DIR" || true

# A /28 in /30 slices over 4 nodes, one ADD per node per round: 4 slices,
# 14 usable addresses, then 110 for the nodes whose slice is full.
declare -A small=()
fails=()
for round in 1 2 3 4 5; do
	for n in node-a node-b node-c node-d; do
		nrun "$n" ADD "$(sconf small "$n" 192.0.2.0/28 /30)" "s-$n-$round"
		if [ "$RC" -eq 0 ]; then small[s-$n-$round]=$(ips); else fails+=("$(code) $(msg)"); fi
	done
done
is "${#small[@]}" 14 "a /28 in /30 slices hands out its 14 usable addresses"
is "$(printf '%s\n' "${small[@]}" | sort | uniq -d | wc -l)" 0 "each once"
is "$(printf '%s\n' "${fails[@]}" | grep -vc '^110 ')" 0 "every other ADD fails with 110"
like "${fails[0]}" "192.0.2.0/28" "the exhaustion names the range"
like "${fails[0]}" "every /30 node slice" "the slice size"
for n in node-a node-b node-c node-d; do
	like "${fails[0]}" "$n 1" "and that $n holds 1 slice"
done
echo "# ${fails[0]}"

# Drained: DEL everything of node-b; with release_hold_seconds its slice
# goes back only after the hold, at a later DEL.
H='"release_hold_seconds":2'
for i in 1 2 3 4 5; do nrun node-b DEL "$(sconf small node-b 192.0.2.0/28 /30 "$H")" "s-node-b-$i"; done
ok "node-b's DELs succeed" test "$RC" -eq 0
is "$(slices_of small node-b | wc -l)" 1 "a drained node keeps its slice during the release hold"
sleep 2.5
nrun node-b DEL "$(sconf small node-b 192.0.2.0/28 /30 "$H")" none
ok "a DEL after the hold succeeds" test "$RC" -eq 0
is "$(slices_of small node-b | wc -l)" 0 "and gives node-b's empty slice back"
nrun node-d ADD "$(sconf small node-d 192.0.2.0/28 /30)" s-node-d-9
ok "another node can claim it then" test "$RC" -eq 0
is "$(slices_of small node-d | wc -l)" 2 "node-d holds 2 slices"

# ippool reconcile gives back a drained node's empty slice (tidy) and
# refreshes its heartbeat.
H2='"release_hold_seconds":1'
nrun node-r ADD "$(sconf rec node-r 192.0.2.0/28 /30 "$H2")" r-1
nrun node-r DEL "$(sconf rec node-r 192.0.2.0/28 /30 "$H2")" r-1
is "$(slices_of rec node-r | wc -l)" 1 "node-r keeps its emptied slice during the hold"
sleep 1.5
printf '{"dataDir":"%s","store":%s}' "$TMP/node-r" "$(estore "[\"$S\"]" "$PFX/rec")" >"$TMP/rec.conf"
on node-r "$IPPOOL" reconcile --conf "$TMP/rec.conf" --json >"$TMP/rec.json" 2>"$TMP/rec.err"
ok "ippool reconcile on node-r succeeds" test $? -eq 0
is "$(jq -r .slicesReturned "$TMP/rec.json")" 1 "and reports 1 slice returned"
is "$(slices_of rec node-r | wc -l)" 0 "node-r holds no slice after it"
ok "its heartbeat is fresh" test "$(( $(date +%s) - $(dump "$S" "$PFX/rec" | jq -r --arg k "$PFX/rec/h/node-r" '.[] | select(.k == $k) | .v.time') ))" -lt 60
"$IPPOOL" release-node node-r --conf "$TMP/rec.conf" >/dev/null 2>&1
ok "so release-node node-r is refused" test $? -eq 1

# ippool reconcile frees a dead pod's lease in a node's slice, keeps a live one.
ns_add live && ns_add dead
c=$(sconf rcl node-s 192.0.2.0/24 /26)
NETNS=$(ns_path live) nrun node-s ADD "$c" s-live
NETNS=$(ns_path dead) nrun node-s ADD "$c" s-dead
dead_addr=$(ips)
ns_del dead
printf '{"dataDir":"%s","store":%s}' "$TMP/node-s" "$(estore "[\"$S\"]" "$PFX/rcl")" >"$TMP/rcl.conf"
on node-s "$IPPOOL" reconcile --conf "$TMP/rcl.conf" --grace 0 --json >"$TMP/rcl.json" 2>"$TMP/rcl.err"
ok "ippool reconcile in node slices succeeds" test $? -eq 0
is "$(jq -r '[.freed, (.leases[] | select(.containerID == "s-dead") | .action)] | join(" ")' "$TMP/rcl.json")" \
	"1 freed" "it frees the dead pod's lease in the slice"
is "$(on node-s "$IPPOOL" list --conf "$TMP/rcl.conf" | awk '/^  /{print $2}' | tr '\n' ' ')" "s-live " \
	"and keeps the live one"
NETNS=$(ns_path live) nrun node-s ADD "$c" s-next
ok "the freed address is handed out again" test "$RC" -eq 0 -a "$(ips)" = "$dead_addr"

# IPv6: a /64 in /120 slices.
declare -A v6=()
for n in node-a node-b; do
	for i in 1 2 3; do nrun "$n" ADD "$(sconf six "$n" 2001:db8::/64 /120)" "v6-$n-$i"; v6[$n$i]=$(ips); done
done
is "$(printf '%s\n' "${v6[@]}" | grep -c /64)" 6 "IPv6 ADDs in /120 slices succeed"
is "$(printf '%s\n' "${v6[@]}" | sort | uniq -d | wc -l)" 0 "with distinct addresses"
is "$(slices_of six node-a | grep -c '/120$')" 1 "node-a holds one /120 slice"

# Config errors.
run ADD "$(conf slices '{"type":"ippool","dataDir":"'"$TMP/x"'","range":"192.0.2.0/24","node_slice_size":"/26"}')" c1
ok "node_slice_size on the local store: code 7" failed_with 7 'node_slice_size" "/26"'
nrun node-a ADD "$(sconf err node-a 192.0.2.0/24 /20)" c2
ok "a slice shorter than the range's prefix: code 7" failed_with 7 '"/20" is shorter'
nrun node-a ADD "$(sconf err node-a 192.0.2.0/24 /33)" c3
ok "a slice longer than an address: code 7" failed_with 7 '"/33" is longer'
nrun node-a ADD "$(sconf err node-a 192.0.2.0/24 x26)" c4
ok "a slice size that is no prefix length: code 7" failed_with 7 '"x26"'
nrun node-a ADD "$(sconf spell node-a 192.0.2.0/24 26 '"fast_ipam":true,"leader_lease_duration":1500')" c5
ok "\"26\" (whereabouts takes it without the slash) and fast_ipam are accepted" test "$RC" -eq 0

# CHECK and GC through slices.
c=$(sconf vrb node-a 192.0.2.0/24 /26)
nrun node-a ADD "$c" v-1
p1=$OUT
nrun node-a ADD "$c" v-2
p2=$OUT
nrun node-a CHECK "$(jq -c --argjson p "$p1" '. + {prevResult:$p}' <<<"$c")" v-1
ok "CHECK finds a lease in a slice" test "$RC" -eq 0
nrun node-a CHECK "$(jq -c --argjson p "$p2" '. + {prevResult:$p}' <<<"$c")" v-1
ok "and fails when prevResult holds another address" failed_with 107
nrun node-a GC "$(jq -c '.cniVersion = "1.1.0" | . + {"cni.dev/valid-attachments":[{"containerID":"v-1","ifname":"net1"}]}' <<<"$c")" gc
ok "GC with v-1 valid succeeds" test "$RC" -eq 0
printf '{"dataDir":"%s","store":%s}' "$TMP/node-a" "$(estore "[\"$S\"]" "$PFX/vrb")" >"$TMP/v.conf"
is "$(on node-a "$IPPOOL" list --conf "$TMP/v.conf" | awk '/^  /{print $2}' | tr '\n' ' ')" "v-1 " \
	"GC released v-2 in node-a's slice; ippool list shows v-1 alone"

# One address space is sliced with one size throughout, or not at all.
nrun node-a ADD "$(sconf len node-a 192.0.2.0/28 /30)" len-1
nrun node-b ADD "$(sconf len node-b 192.0.2.0/28 /29)" len-2
ok "a slice size other than the address space's: code 7" failed_with 7 "already divided into /30 slices"
for i in $(seq 14); do
	run ADD "$(conf slices '{"type":"ippool","store":'"$(estore "[\"$S\"]" "$PFX/mixed")"',"range":"192.0.2.0/28"}')" "pa-$i"
done
ok "the per-address path fills a /28" test "$(ips)" = 192.0.2.14/28
nrun node-a ADD "$(sconf mixed node-a 192.0.2.0/28 /30)" mixed-1
ok "then a slice of it is refused: code 7" failed_with 7 "holds addresses of the per-address path"
# The other way round: a config without node_slice_size on a sliced space.
run ADD "$(conf slices '{"type":"ippool","store":'"$(estore "[\"$S\"]" "$PFX/len")"',"range":"192.0.2.0/28"}')" pa-len
ok "the per-address path on a sliced address space is refused: code 7" \
	failed_with 7 "is divided into node slices"
like "$(msg)" "has no node_slice_size" "naming the missing key"
is "$(held "$S" "$PFX/len" | wc -l)" 0 "and holds no address of node-a's slice"

# release-node: refused while the heartbeat is fresh, then --force; stale accepted.
printf '{"dataDir":"%s","store":%s}' "$TMP/node-c" "$(estore "[\"$S\"]" "$PFX/four")" >"$TMP/r.conf"
"$IPPOOL" release-node node-c --conf "$TMP/r.conf" >"$TMP/rn.out" 2>"$TMP/rn.err"
ok "release-node of a node with a fresh heartbeat is refused" test $? -eq 1
like "$(cat "$TMP/rn.err")" "heartbeat is" "naming the heartbeat's age"
"$IPPOOL" release-node node-c --conf "$TMP/r.conf" --force >"$TMP/rn.out" 2>"$TMP/rn.err"
ok "--force releases it" test $? -eq 0
like "$(cat "$TMP/rn.out")" "freed slice 198.51.100." "and prints the slice it freed"
is "$(slices_of four node-c | wc -l)" 0 "node-c holds no slice now"
put "$S" "$PFX/four/h/node-d" '{"node":"node-d","time":1000}'
"$IPPOOL" release-node node-d --conf "$TMP/r.conf" >"$TMP/rn.out" 2>"$TMP/rn.err"
ok "release-node of a node with a stale heartbeat succeeds" test $? -eq 0
is "$(grep -c '^freed slice' "$TMP/rn.out")" 1 "freeing its one slice"
put "$S" "$PFX/four/h/node-z" '{"node":"node-z","time":"yesterday"}'
"$IPPOOL" release-node node-z --conf "$TMP/r.conf" >"$TMP/rn.out" 2>"$TMP/rn.err"
ok "release-node refuses a damaged heartbeat" test $? -eq 1
like "$(cat "$TMP/rn.err")" "damaged heartbeat at key $PFX/four/h/node-z (code 112)" "naming its key"
# A node's leases of the per-address path go too (GC's index finds them).
pa=$(conf slices '{"type":"ippool","network_name":"pa","store":'"$(estore "[\"$S\"]" "$PFX/four")"',"range":"192.0.2.0/24"}')
nrun node-g ADD "$pa" pa-1
nrun node-h ADD "$pa" pa-2
"$IPPOOL" release-node node-g --conf "$TMP/r.conf" >"$TMP/rn.out" 2>"$TMP/rn.err"
ok "release-node of a node that never had a heartbeat succeeds" test $? -eq 0
is "$(cat "$TMP/rn.out")" "freed lease pa-1 net1: 192.0.2.1" "and prints the lease it freed"
is "$(held "$S" "$PFX/four" | grep '^192\.0\.2\.' | tr '\n' ' ')" "192.0.2.2 " "only node-h's lease is held now"

done_testing
