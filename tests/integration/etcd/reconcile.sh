#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `ippool reconcile` on what only the etcd store has: one store for many
# nodes (simulated with unshare -u and another hostname), whose dead-looking
# leases a node never touches; a lease as an older version wrote it; damaged
# lease values; an etcd that does not answer. The cases every store shares
# run here too, through with-etcd.sh (ippool/reconcile.sh).
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "ip netns add and unshare -u need root"
command -v python3 >/dev/null || skip_all "no python3 to read --json"
# shellcheck source-path=SCRIPTDIR source=../ippool/reconcile-lib.sh
. "$(dirname "$0")/../ippool/reconcile-lib.sh"
trap 'forget_keys; etcd_stop; rc_cleanup' EXIT

etcd_use_env || exit 1
EP=$IPPOOL_TEST_ETCD
S=$(estore "[\"$EP\"]" "$PFX/r")
C=$(conf rc '{"type":"ippool","store":'"$S"',"range":"192.0.2.0/24","network_name":"rdma-net"}')
printf '{"store":%s}' "$S" >"$TMP/rc.conf"
OTHER=rc-other-$$

# on NODE CMD...: CMD with NODE as the hostname (its own UTS namespace).
on() {
	unshare -u sh -c 'hostname "$1" && shift && exec "$@"' sh "$@"
}

# add_on NODE CID NETNS_PATH: an ADD on NODE; its address into OUT.
add_on() {
	OUT=$(printf '%s' "$C" | on "$1" env CNI_COMMAND=ADD CNI_CONTAINERID="$2" CNI_IFNAME=net1 \
		CNI_NETNS="$3" CNI_PATH=/nonexistent "$IPPOOL" 2>"$TMP/stderr")
}

list_refuses() {
	local e
	e=$("$IPPOOL" list --conf "$TMP/rc.conf" 2>&1 >/dev/null)
	[ $? -eq 1 ] && [[ $e == *"corrupt value at key $PFX/r/o/pg/net1 (code 112)" ]]
}

lease_of() {
	dump "$EP" "$PFX/r" | jq -c --arg k "$PFX/r/o/$1/net1" '.[] | select(.k == $k) | .v'
}

ns_add a
ns_add b
ns_add x
ok "ADD of a live pod on this node" add_in "$(ns_path a)" "$C" pa 192.0.2.1/24
ok "ADD of a pod on this node whose netns goes away" add_in "$(ns_path b)" "$C" pb 192.0.2.2/24
add_on "$OTHER" px "$(ns_path x)"
is "$(ips)" "192.0.2.3/24" "ADD of a pod on node $OTHER"
is "$(lease_of px | jq -r '.node, .netns')" "$OTHER
$(ns_path x)" "its lease records its node and its netns"
ok "and the netns's identity" test "$(lease_of px | jq -r '.netnsIno')" = "$(stat -L -c %i "$(ns_path x)")" -a \
	"$(lease_of px | jq -r '.bootID')" = "$(cat /proc/sys/kernel/random/boot_id)"
ns_del b
ns_del x

reconcile --grace 0 --json
is "$RRC $(j "d['freed'], d['failed']")" "0 (1, 0)" "reconcile on this node frees its one gone pod"
is "$(what pb) / $(what pa)" "gone freed / live kept" "and keeps its live one"
is "$(j "sorted(l['containerID'] for l in d['leases'])")" "['pa', 'pb']" \
	"another node's leases are not this node's to judge: not listed"
is "$(held "$EP" "$PFX/r" | tr '\n' ' ')" "192.0.2.1 192.0.2.3 " "node $OTHER's dead-looking lease is untouched"
ok "the store is consistent" consistent "$EP" "$PFX/r"
ROUT=$(on "$OTHER" "$IPPOOL" reconcile --conf "$TMP/rc.conf" --grace 0 --json)
is "$? $(what px) $(j "len(d['leases'])")" "0 gone freed 1" "reconcile on node $OTHER frees it, and sees only its own"
is "$(held "$EP" "$PFX/r" | tr '\n' ' ')" "192.0.2.1 " "only the live pod's address is held"

# a lease as a version before netns recording wrote it (a fuzz seed kept from
# then, moved under this prefix and onto this node): never freed, marked
old=$(jq -c --arg p "$PFX/r/" --arg n "$(hostname)" '.node = $n | .addrs[].key |= sub("^/seed/"; $p)' \
	"$(dirname "$0")/../../fuzz/corpus/etcd-layout/o_c1_net1-before-netns")
put "$EP" "$PFX/r/o/c1/net1" "$old"
put "$EP" "$(jq -r '.addrs[0].key' <<<"$old")" '{"address":"192.0.2.3","pool":"192.0.2.0/24","containerID":"c1","ifname":"net1"}'
ok "the old lease is consistent with the store" consistent "$EP" "$PFX/r"
reconcile --grace 0 --json
is "$RRC $(what c1) $(j "d['freed']")" "0 unknown kept 0" "reconcile never frees the old lease"
ok "list marks it: no netns recorded" grep -Eq '^  192\.0\.2\.3 +c1 net1 .* \(none\) \(none\)$' \
	<("$IPPOOL" list --conf "$TMP/rc.conf")
rebooted --conf "$TMP/rc.conf" --grace 0 --json
is "$RRC $(what c1) / $(what pa)" "0 unknown kept / gone freed" "after a reboot too; the live pod of the old boot goes"
is "$(held "$EP" "$PFX/r" | tr '\n' ' ')" "192.0.2.3 " "only the old lease's address is held"

# damaged lease values: the whole run stops before releasing anything
ns_add g
ok "ADD of a pod whose netns goes away" add_in "$(ns_path g)" "$C" pg 192.0.2.1/24
ns_del g
good=$(lease_of pg)
for damage in '.netns = "var/run/netns/x"' '.bootID = "6c1d0e2f"' '.netnsIno = -1' '.netnsIno = 0' \
	'.netnsDev = 1e300' '.netns = 7' 'del(.netns)' 'del(.netnsDev)' '.bootID = "6C1D0E2F-0000-4000-8000-000000000001"'; do
	put "$EP" "$PFX/r/o/pg/net1" "$(jq -c "$damage" <<<"$good")"
	reconcile --grace 0 --json
	ok "lease $damage: reconcile exits 1 naming the key, prints nothing" test "$RRC" -eq 1 -a -z "$ROUT" -a \
		"$RERR" = "ippool reconcile: etcd $EP: corrupt value at key $PFX/r/o/pg/net1 (code 112)"
	ok "lease $damage: list refuses it too" list_refuses
	ok "lease $damage: nothing was released" test "$(held "$EP" "$PFX/r" | tr '\n' ' ')" = "192.0.2.1 192.0.2.3 "
done
put "$EP" "$PFX/r/o/pg/net1" "$good"
reconcile --grace 0 --json
is "$RRC $(what pg)" "0 gone freed" "with the value repaired the next run frees it"

# an etcd that does not answer: nothing half-done, a clear message
DEAD=$(estore '["http://127.0.0.1:1"]' "$PFX/r" '"timeout_ms":500')
printf '{"store":%s}' "$DEAD" >"$TMP/dead.conf"
ROUT=$("$IPPOOL" reconcile --conf "$TMP/dead.conf" --grace 0 --json 2>"$TMP/rc.err")
RRC=$?
ok "etcd unreachable: reconcile exits 1 with nothing on stdout" test "$RRC" -eq 1 -a -z "$ROUT"
like "$(cat "$TMP/rc.err")" "ippool reconcile: etcd http://127.0.0.1:1" "the message names the endpoint"
like "$(cat "$TMP/rc.err")" "(code 11)" "and the code"

done_testing
