#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A hostile etcd endpoint (hostile-etcd.py on 127.0.0.1) answering in every
# broken way a network peer can: overflowing and negative chunk sizes and
# lengths, truncated bodies, endless headers, a slow drip, silence, deep or
# wrongly typed JSON, bad base64, wrong revisions, txn answers that do not
# match the request, a lease naming keys outside the prefix, every token
# refused (the authentication's own answer too). Every verb
# (ADD, DEL, CHECK, GC, STATUS, list) must end by itself within its
# timeout_ms with exactly one error (code 11 or 112) naming the endpoint:
# a crash, a sanitizer report or a kill by the harness's own timeout fails.
# Then a proxy in front of the real etcd damages every other transaction
# answer after etcd carried the transaction out: afterwards nothing is held
# twice and every attachment holds exactly one lease.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip_all "no python3 for the fake etcd"
etcd_use_env || exit 1
FAKE_PY=$(dirname "$0")/hostile-etcd.py
BUDGET=600
# What a verb may take past its budget, on the store's own clock (from
# etcd_open to the end, IPPOOL_ETCD_STATS): the last request's cut-off, the
# error's way out, a CPU shared by a loaded machine. Start-up (a sanitizer
# build's is seconds under load) is not the store's to bound.
SLACK=1000
START_MS=2000
FAKE_PID=
trap 'forget_keys; [ -n "$FAKE_PID" ] && kill "$FAKE_PID"; etcd_stop; rm -rf "$TMP"' EXIT

# The fake etcd; its URL is FAKE/<mode>.
python3 "$FAKE_PY" "$TMP/port" "$TMP/requests" "$IPPOOL_TEST_ETCD" 2>"$TMP/fake.log" &
FAKE_PID=$!
for _ in $(seq 200); do
	[ -s "$TMP/port" ] && break
	sleep 0.05
done
[ -s "$TMP/port" ] || { echo "Bail out! the fake etcd did not start: $(cat "$TMP/fake.log")"; exit 1; }
FAKE=http://127.0.0.1:$(cat "$TMP/port")

# store_extra ENDPOINT: the store keys besides endpoints and prefix; a user
# for the mode that refuses every token (the authentication's own answer
# must not be taken as a token to renew).
store_extra() {
	local x="\"timeout_ms\":$BUDGET"
	[[ $1 == */unauthenticated ]] && x+=',"username":"ippool","password":"pw"'
	printf '%s' "$x"
}

ipam() {
	printf '{"type":"ippool","store":%s,"range":"192.0.2.0/24"}' \
		"$(estore "[\"$1\"]" "$PFX/$2" "$(store_extra "$1")")"
}

# verb_conf VERB ENDPOINT: the network config VERB is run with.
verb_conf() {
	local c
	case $1 in
	ADD | DEL) conf hostile "$(ipam "$2" h)" ;;
	CHECK) c=$(conf hostile "$(ipam "$2" h)")
		jq -c '. + {prevResult: {cniVersion: "1.0.0", ips: [{address: "192.0.2.1/24"}]}}' <<<"$c" ;;
	GC) c=$(conf hostile "$(ipam "$2" h)" 1.1.0)
		jq -c '. + {"cni.dev/valid-attachments": []}' <<<"$c" ;;
	STATUS) conf hostile "$(ipam "$2" h)" 1.1.0 ;;
	esac
}

# timed VERB ENDPOINT DIR: one run of VERB (list: `ippool list`), its stdout,
# stderr, exit status and milliseconds into DIR; a hard limit far past the
# budget catches a hang.
timed() {
	local t0 t1 rc
	mkdir -p "$3"
	t0=$(date +%s%N)
	if [ "$1" = list ]; then
		printf '{"store":%s}' "$(estore "[\"$2\"]" "$PFX/h" "$(store_extra "$2")")" >"$3/conf"
		IPPOOL_ETCD_STATS=1 timeout -s KILL 60 "$IPPOOL" list --conf "$3/conf" >"$3/out" 2>"$3/err"
	else
		verb_conf "$1" "$2" >"$3/conf"
		IPPOOL_ETCD_STATS=1 CNI_COMMAND=$1 CNI_CONTAINERID=h1 CNI_IFNAME=net1 CNI_NETNS=/var/run/netns/hostile \
			CNI_PATH=/nonexistent timeout -s KILL 60 "$IPPOOL" <"$3/conf" >"$3/out" 2>"$3/err"
	fi
	rc=$?
	t1=$(date +%s%N)
	echo "$rc $(((t1 - t0) / 1000000))" >"$3/status"
}

# result DIR: the run timed left in DIR into OUT, ERR (without the stats
# line), RC, MS (wall) and STORE_MS (the store's own clock, -1 without it).
result() {
	OUT=$(<"$1/out")
	ERR=$(grep -v '^ippool etcd stats: ' "$1/err")
	STORE_MS=$(sed -n 's/^ippool etcd stats: .*elapsed_ms=//p' "$1/err")
	STORE_MS=${STORE_MS:--1}
	read -r RC MS <"$1/status"
	printf '%s\n' "$ERR" >"$TMP/stderr"
}

# clean_error EP VERB: the last run failed cleanly: exit 1 (not a signal,
# not the harness's kill), within the budget, one error of code 11 or 112
# (STATUS: 11 or 50, its "not ready") naming EP (`ippool list`: one line on
# stderr), no sanitizer report.
clean_error() {
	local why= codes='[11, 112]' took=$STORE_MS
	[ "$2" = STATUS ] && codes='[11, 50]'
	# a store whose authentication never succeeds never opens, so it has no
	# clock of its own: the wall time is held to the budget instead, with
	# START_MS for the start-up the store's clock leaves out
	[[ $took -lt 0 && $1 == */unauthenticated ]] && took=$((MS > START_MS ? MS - START_MS : 0))
	if [ "$RC" -ne 1 ]; then
		why="exit $RC (a signal or a kill is above 128)"
	elif [ "$took" -lt 0 ] || [ "$took" -gt $((BUDGET + SLACK)) ]; then
		why="the store took $took ms, budget $BUDGET"
	elif [[ $ERR == *Sanitizer* || $ERR == *"runtime error"* ]]; then
		why="sanitizer report"
	elif [ "$2" = list ]; then
		[ -z "$OUT" ] && [ "$(wc -l <<<"$ERR")" -eq 1 ] && [[ $ERR == *"$1"* ]] &&
			[[ $ERR == *"(code 11)" || $ERR == *"(code 112)" ]] || why="not one error line naming $1"
	elif ! jq -se --arg ep "$1" --argjson c "$codes" \
		'length == 1 and (.[0] | (.code as $x | $c | index($x)) and (.msg | contains($ep)))' \
		<<<"$OUT" >/dev/null 2>&1; then
		why="stdout is not one error JSON of code $codes naming $1"
	fi
	[ -z "$why" ] && return 0
	diag "$why"
	return 1
}

# ippool sends no key outside its prefix, whatever it was told.
keys_ours() {
	[ -s "$TMP/requests" ] || return 0
	! jq -r '.req | .. | objects | (.key?, .range_end?) | strings | @base64d' "$TMP/requests" |
		grep -v "^$PFX/h/"
}

MODES="chunk-overflow chunk-wrap chunk-negative length-overflow length-negative length-huge
truncated truncated-chunk not-http close-at-once status-500 unavailable silence endless-headers
slow-drip deep-json wrong-types bad-base64 bad-revisions huge-numbers too-many-keys
txn-wrong-responses foreign-lease unauthenticated"

VERBS="ADD DEL CHECK GC STATUS list"
# The verbs of one mode run side by side: they mostly wait on the fake.
for mode in ${HOSTILE_MODES:-$MODES}; do
	pids=()
	for verb in $VERBS; do
		timed "$verb" "$FAKE/$mode" "$TMP/$mode/$verb" &
		pids+=($!)
	done
	wait "${pids[@]}"
	for verb in $VERBS; do
		result "$TMP/$mode/$verb"
		T_LAST="$verb against $FAKE/$mode"
		# A fake that answers plausibly lets STATUS pass: it only asks
		# whether a read and a refused write get through.
		if [ "$mode" = foreign-lease ] && [ "$verb" = STATUS ] && [ "$RC" -eq 0 ]; then
			ok "$mode: STATUS passes on plausible answers" test -z "$OUT"
			continue
		fi
		ok "$mode: $verb ends in $STORE_MS ms ($MS ms wall) with a clean error" \
			clean_error "$FAKE/$mode" "$verb"
	done
done
ok "every key ippool sent is under its prefix" keys_ours

# A proxy to the real etcd that damages every other transaction answer after
# etcd carried the transaction out: ADD and DEL fail or succeed, nothing more.
EP=$IPPOOL_TEST_ETCD
: >"$TMP/requests"
S=$(estore "[\"$FAKE/proxy-damage\"]" "$PFX/p" '"timeout_ms":2000')
C=$(conf prox '{"type":"ippool","store":'"$S"',"range":"192.0.2.0/28"}')
bad=0
for i in 1 2 3 4 5 6 7 8; do
	run ADD "$C" "p$i"
	[ "$RC" -eq 0 ] || failed_with 11 || failed_with 112 || { bad=1; last_run; }
done
ok "ADDs through the damaging proxy succeed or fail with 11 or 112" test "$bad" -eq 0
ok "the proxy damaged some answers" test "$(grep -c '/v3/kv/txn' "$TMP/requests")" -ge 4
D=$(conf prox '{"type":"ippool","store":'"$(estore "[\"$EP\"]" "$PFX/p")"',"range":"192.0.2.0/28"}')
for i in 1 2 3 4 5 6 7 8; do
	run ADD "$D" "p$i"
	ok "ADD p$i against etcd itself succeeds" test "$RC" -eq 0
done
ok "eight addresses held, none twice" test "$(held "$EP" "$PFX/p" | sort -u | wc -l)" -eq 8
ok "every held address is its lease's, each lease held once" consistent "$EP" "$PFX/p"
for i in 1 2 3 4; do
	run DEL "$C" "p$i"
	[ "$RC" -eq 0 ] || failed_with 11 || failed_with 112 || { diag "DEL p$i"; last_run; }
done
for i in 1 2 3 4; do run DEL "$D" "p$i"; done
ok "after DELs (through the proxy, then direct) four addresses are held" \
	test "$(held "$EP" "$PFX/p" | wc -l)" -eq 4
ok "and the store is consistent" consistent "$EP" "$PFX/p"
done_testing
