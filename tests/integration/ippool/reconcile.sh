#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `ippool reconcile`: pods whose netns went away without a DEL (ip netns del,
# a process's /proc/PID/ns/net after it died, a reboot) have their addresses
# freed once the grace has passed, and only those: live pods, pods inside
# the grace, a path a new netns took, leases of older versions are kept.
# --dry-run changes nothing, a second run nothing more, usage errors exit 2.
# Real netns (ip netns add), real ADDs with CNI_NETNS naming them. Local
# store, or etcd through etcd/with-etcd.sh; etcd's own cases (other nodes,
# an unreachable etcd) are in etcd/reconcile.sh.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "ip netns add and a bind mount over the boot id need root"
command -v python3 >/dev/null || skip_all "no python3 to read --json"
ip netns list >/dev/null 2>&1 || skip_all "no ip netns"

# shellcheck source-path=SCRIPTDIR source=reconcile-lib.sh
. "$(dirname "$0")/reconcile-lib.sh"
trap rc_cleanup EXIT

IPAM='{"type":"ippool",'$(store r)',"range":"192.0.2.0/24"}'
C=$(conf rc "$IPAM")
printf '{%s}' "$(store r)" >"$TMP/rc.conf"

# pod CID NETNS_PATH ADDRESS: an ADD for CID in that netns gets ADDRESS.
pod() {
	add_in "$2" "$C" "$1" "$3/24"
}

held() { reserved r | tr '\n' ' '; }

ns_add a
ns_add b
ns_add c
ok "ADD of a live pod (netns a)" pod pa "$(ns_path a)" 192.0.2.1
ok "ADD of a pod whose netns goes away (b)" pod pb "$(ns_path b)" 192.0.2.2
ok "ADD of another (c)" pod pc "$(ns_path c)" 192.0.2.3
ok "list shows each lease's netns" grep -q "^  192\.0\.2\.1 .* $(ns_path a)$" <(list r)
ns_del b
ns_del c

reconcile --json
ok "within the grace (default 60 s) reconcile exits 0" test "$RRC" -eq 0
is "$(j "d['grace'], d['freed'], d['failed'], d['dryRun']")" "(60, 0, 0, False)" "it freed nothing, grace 60"
is "$(what pb)" "grace kept" "the pod whose netns is gone is kept within the grace"
is "$(what pa)" "live kept" "the live pod is kept"
is "$(held)" "192.0.2.1 192.0.2.2 192.0.2.3 " "all three addresses still held"

list r >"$TMP/before"
reconcile --grace 0 --dry-run --json
ok "--dry-run exits 0" test "$RRC" -eq 0
is "$(j "d['dryRun'], d['freed'], d['failed']")" "(True, 0, 0)" "--dry-run counts nothing freed"
is "$(what pb) / $(what pc) / $(what pa)" "gone would-free / gone would-free / live kept" \
	"--dry-run says what it would free"
list r >"$TMP/after"
ok "--dry-run changed nothing (ippool list before and after)" cmp -s "$TMP/before" "$TMP/after"

reconcile --grace 0 --json
ok "reconcile --grace 0 exits 0" test "$RRC" -eq 0
is "$(j "d['freed'], d['failed'], d['slicesReturned'], len(d['leases'])")" "(2, 0, 0, 3)" \
	"it freed the two pods whose netns is gone"
is "$(what pb) / $(what pc) / $(what pa)" "gone freed / gone freed / live kept" "and kept the live one"
is "$(j "[l for l in d['leases'] if l['containerID'] == 'pb'][0]['addresses'], [l for l in d['leases'] if l['containerID'] == 'pb'][0]['netns'], [l for l in d['leases'] if l['containerID'] == 'pb'][0]['network']")" \
	"(['192.0.2.2/24'], '$(ns_path b)', 'rc')" "the JSON names its addresses, netns and network"
is "$(held)" "192.0.2.1 " "only the live pod's address is held"
ns_add d
ok "a new pod gets a freed address again" pod pd "$(ns_path d)" 192.0.2.2

list r >"$TMP/before"
reconcile --grace 0 --json
is "$RRC $(j "d['freed'], d['failed']")" "0 (0, 0)" "a second run frees nothing"
list r >"$TMP/after"
ok "and changes nothing" cmp -s "$TMP/before" "$TMP/after"

# the grace counts from the lease's creation
ns_add e
ok "ADD of pod e" pod pe "$(ns_path e)" 192.0.2.3
ns_del e
reconcile --grace 3 --json
is "$(what pe)" "grace kept" "a gone pod younger than --grace 3 is kept"
sleep 4
reconcile --grace 3 --json
is "$(what pe)" "gone freed" "once 3 s old it is freed"

# a path a new netns took: another inode there is another pod's
ns_add f
ok "ADD of pod f" pod pf "$(ns_path f)" 192.0.2.3
ino=$(stat -L -c %i "$(ns_path f)")
for try in 1 2 3 4 5; do
	ns_del f
	ns_add "hold$try"	# the kernel hands a freed inode out again: take it first
	ns_add f
	[ "$(stat -L -c %i "$(ns_path f)")" != "$ino" ] && break
done
ok "the path names another netns now" test "$(stat -L -c %i "$(ns_path f)")" != "$ino"
reconcile --grace 0 --json
is "$(what pf)" "gone freed" "a netns path reused by another netns counts as gone"
is "$(what pa) / $(what pd)" "live kept / live kept" "live pods stay"

# a process's netns: gone when the process is
unshare -n sleep 600 &
PIDS+=($!)
dead=$!
unshare -n sleep 600 &
PIDS+=($!)
alive=$!
for _ in $(seq 50); do
	[ "$(readlink /proc/$dead/ns/net)" != "$(readlink /proc/$$/ns/net)" ] &&
		[ "$(readlink /proc/$alive/ns/net)" != "$(readlink /proc/$$/ns/net)" ] && break
	sleep 0.1
done
ok "ADD of pod pg in /proc/$dead/ns/net" pod pg "/proc/$dead/ns/net" 192.0.2.3
ok "ADD of pod ph in /proc/$alive/ns/net" pod ph "/proc/$alive/ns/net" 192.0.2.4
kill "$dead" && wait "$dead" 2>/dev/null
reconcile --grace 0 --json
is "$(what pg)" "gone freed" "a dead process's /proc/PID/ns/net is gone"
is "$(what ph)" "live kept" "a live process's is live"
is "$(held)" "192.0.2.1 192.0.2.2 192.0.2.4 " "held: pa, pd, ph"

# the table: one line per lease, and the counts
reconcile
ok "the table run exits 0" test "$RRC" -eq 0
ok "the table names each lease with its verdict and action" \
	grep -Eq "^pa +net1 +rc +192\.0\.2\.1/24 +[0-9]+ live +kept +$(ns_path a)$" <<<"$ROUT"
like "$ROUT" "0 freed, 0 failed, 3 kept (grace 60 s)" "and ends with the counts"

# usage errors
for args in "--grace -1" "--grace 1x" "--grace" "--bogus" "extra" "--grace 99999999999"; do
	# shellcheck disable=SC2086 # the words are the arguments
	reconcile $args
	ok "reconcile $args exits 2 with the usage" test "$RRC" -eq 2 -a -z "$ROUT" \
		-a -n "$(grep -F 'usage: ippool reconcile' <<<"$RERR")"
done

# a release that cannot be done now: failed, named, left for the next run
if local_store; then
	L=$TMP/locked
	LC=$(conf lk '{"type":"ippool","dataDir":"'"$L"'","store":{"type":"local","timeout_ms":100},"range":"192.0.2.0/24"}')
	ns_add l
	ok "ADD of a pod whose netns goes away" add_in "$(ns_path l)" "$LC" pl 192.0.2.1/24
	ns_del l
	printf '{"dataDir":"%s","store":{"type":"local","timeout_ms":100}}' "$L" >"$TMP/locked.conf"
	flock -x "$L/state" sleep 5 &
	locker=$!
	PIDS+=("$locker")
	sleep 0.5
	ROUT=$("$IPPOOL" reconcile --conf "$TMP/locked.conf" --grace 0 --json)
	is "$? $(j "d['freed'], d['failed']") $(what pl)" "1 (0, 1) gone failed" \
		"a release that cannot take the store's lock: exit 1, counted as failed"
	like "$(j "[l['error'] for l in d['leases'] if l['containerID'] == 'pl'][0]")" \
		"local store $L: waited" "the lease names the store's error"
	ROUT=$("$IPPOOL" reconcile --conf "$TMP/locked.conf" --grace 0)
	like "$ROUT" "  error: local store $L: waited" "the table shows it under the lease"
	wait "$locker"
	ROUT=$("$IPPOOL" reconcile --conf "$TMP/locked.conf" --grace 0 --json)
	is "$? $(j "d['freed'], d['failed']") $(what pl)" "0 (1, 0) gone freed" "the next run frees it"
fi

# a reboot: another boot id, every netns of the old boot gone with it
if local_store; then
	# a lease an ippool before netns recording wrote (a fuzz seed kept from
	# then): never freed, marked in list
	O=$TMP/old
	mkdir -p "$O/leases" && chmod 700 "$O" "$O/leases"
	install -m 600 "$(dirname "$0")/../../fuzz/corpus/local/lease-v4-before-netns" "$O/leases/c1:net1"
	OC=$(conf seed '{"type":"ippool","dataDir":"'"$O"'","range":"192.0.2.0/24","network_name":"rdma-net"}')
	ok "ADD next to the old lease gets the lowest address" add_in "$(ns_path a)" "$OC" n1 192.0.2.1/24
	ok "the next one skips the old lease's 192.0.2.2 (its netns is not there)" add_is "$OC" n2 "192.0.2.3/24"
	printf '{"dataDir":"%s"}' "$O" >"$TMP/old.conf"
	ok "list marks the old lease: no netns recorded" \
		grep -Eq '^  192\.0\.2\.2 +c1 net1 .* seed \(none\)$' <("$IPPOOL" list --conf "$TMP/old.conf")
	ROUT=$("$IPPOOL" reconcile --conf "$TMP/old.conf" --grace 0 --json)
	is "$? $(what c1) $(what n2) $(j "d['freed']")" "0 unknown kept unknown kept 0" \
		"reconcile never frees the old lease, nor one whose netns was not there at ADD"
	ROUT=$("$IPPOOL" reconcile --data-dir "$O" --grace 0 --json)
	is "$? $(what c1) $(j "len(d['leases'])")" "0 unknown kept 3" "--data-dir names the local store as list's does"
	ok "list marks that one too" grep -Eq '^  192\.0\.2\.3 +n2 net1 .* seed \(none\)$' \
		<("$IPPOOL" list --conf "$TMP/old.conf")
fi
rebooted --conf "$TMP/rc.conf" --grace 0 --json
is "$RRC $(j "d['freed'], d['failed']")" "0 (3, 0)" "after a reboot every lease of the old boot is freed"
is "$(what pa) / $(what ph)" "gone freed / gone freed" "live-looking ones too: their netns were the old boot's"
is "$(held)" "" "nothing is held"
ok "the boot id outside is the real one still" test "$(cat /proc/sys/kernel/random/boot_id)" != "$(cat "$TMP/boot_id")"
if local_store; then
	rebooted --conf "$TMP/old.conf" --grace 0 --json
	is "$(what c1) / $(what n1) / $(what n2)" "unknown kept / gone freed / unknown kept" \
		"after a reboot the old lease, and one whose netns was not there at ADD, are still kept"
fi

done_testing
