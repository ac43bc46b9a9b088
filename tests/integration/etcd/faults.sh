#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Faults on a private etcd: a dead endpoint, etcd frozen (SIGSTOP) and killed
# during a run of ADDs. Failed commands say 11 and name the endpoint; after
# DEL and GC of the failed attachments no address is held twice or by nobody.
. "$(dirname "$0")/lib.sh"

command -v "$ETCD_BIN" >/dev/null || { echo "1..0 # SKIP needs its own etcd: no $ETCD_BIN"; exit 77; }

etcd_start F || exit 1
free_port dead_port
DEAD=http://127.0.0.1:$dead_port

# cf PREFIX ENDPOINTS_JSON [CNI_VERSION]
cf() {
	conf faults '{"type":"ippool","store":'"$(estore "$2" "$1" '"timeout_ms":2000')"',"range":"198.51.100.0/24"}' "${3:-1.0.0}"
}

# Two endpoints, one dead: both orders work.
two=0
for eps in "[\"$DEAD\",\"$F\"]" "[\"$F\",\"$DEAD\"]"; do
	ok "ADD with a dead endpoint in $eps succeeds" add_is "$(cf "$PFX/two" "$eps")" "t-$RANDOM" "198.51.100.$((++two))/24"
done
run DEL "$(cf "$PFX/two" "[\"$DEAD\",\"$F\"]")" t-none
ok "DEL with a dead endpoint succeeds" test "$RC" -eq 0

# burst PREFIX TAG: 8 workers, 6 ADDs each one after the other, results in
# $TMP/TAG.W-I; returns once 8 have answered, the rest still running (BURST).
burst() {
	local w
	BURST=()
	for w in $(seq 8); do
		(for i in $(seq 6); do
			run ADD "$(cf "$1" "[\"$F\"]")" "$2-$w-$i"
			echo "$RC $OUT" >"$TMP/$2.$w-$i"
		done) &
		BURST+=($!)
	done
	while [ "$(ls "$TMP" | grep -c "^$2\.")" -lt 8 ]; do sleep 0.05; done
}

# settle PREFIX TAG: DEL every failed attachment, GC all but the good ones,
# then check what etcd holds is exactly what the good ones were given.
settle() {
	local p=$1 tag=$2 f id good=0 valid='' want=''
	for f in "$TMP/$tag".*; do
		id=$tag-${f##*.}
		if [ "$(cut -d' ' -f1 "$f")" = 0 ]; then
			good=$((good + 1))
			valid+="{\"containerID\":\"$id\",\"ifname\":\"net1\"},"
			want+="$(sed 's/^0 //' "$f" | jq -r '.ips[0].address' | sed 's|/24||')"$'\n'
		fi
	done
	is "$(ls "$TMP/$tag".* | wc -l)" 48 "$tag: each of the 48 ADDs answered"
	ok "$tag: each ADD that succeeded has one address in the /24" \
		test "$(grep -h '^0 ' "$TMP/$tag".* | sed 's/^0 //' | jq -r 'select((.ips | length) != 1 or (.ips[0].address | test("^198\\.51\\.100\\.[0-9]+/24$") | not)) | 1' | wc -l)" -eq 0
	ok "$tag: failed ADDs said 11 and named the endpoint" \
		test "$(grep -hv '^0 ' "$TMP/$tag".* | sed 's/^[^ ]* //' | jq -r 'select(.code != 11 or (.msg | contains("'"$F"'") | not)) | .code' | wc -l)" -eq 0
	ok "$tag: no address held twice, every one by its lease" consistent "$F" "$p"
	for f in "$TMP/$tag".*; do
		[ "$(cut -d' ' -f1 "$f")" = 0 ] || run DEL "$(cf "$p" "[\"$F\"]")" "$tag-${f##*.}"
	done
	run GC "$(jq -c --argjson v "[${valid%,}]" '. + {"cni.dev/valid-attachments":$v}' <<<"$(cf "$p" "[\"$F\"]" 1.1.0)")" unused
	ok "$tag: GC succeeds" test "$RC" -eq 0
	ok "$tag: held addresses are exactly those of the $good good ADDs" \
		test "$(held "$F" "$p" | tr '\n' ' ')" = "$(sort <<<"${want%$'\n'}" | grep . | tr '\n' ' ')"
	ok "$tag: consistent after DEL and GC" consistent "$F" "$p"
	echo "# $tag: $good of 48 ADDs succeeded"
}

# Frozen etcd (SIGSTOP): a hung member, no answer at all.
burst "$PFX/stop" stop
etcd_pause "$F_PID"
run ADD "$(cf "$PFX/stop" "[\"$F\"]")" stop-probe
ok "ADD while etcd is frozen fails with 11" failed_with 11
ok "the message names the endpoint" grep -qF "$F" <<<"$(msg)"
wait "${BURST[@]}"
etcd_resume "$F_PID"
etcd_wait "$F" "$F_DIR" || true
run DEL "$(cf "$PFX/stop" "[\"$F\"]")" stop-probe
settle "$PFX/stop" stop

# Killed etcd (SIGKILL), restarted on the same data.
burst "$PFX/kill" kill
{ kill -9 "$F_PID"; wait "$F_PID"; } 2>/dev/null
wait "${BURST[@]}"
run ADD "$(cf "$PFX/kill" "[\"$F\"]")" kill-probe
ok "ADD while etcd is down fails with 11 naming the endpoint" \
	test "$(code)" = 11 -a -n "$(msg | grep -F "$F")"
etcd_restart F || exit 1
run DEL "$(cf "$PFX/kill" "[\"$F\"]")" kill-probe
settle "$PFX/kill" kill

# Quorum lost: two of three members frozen, the third still answers TCP.
etcd_cluster Q || exit 1
QA="[\"$Q_1\",\"$Q_2\",\"$Q_3\"]"
ok "ADD on a three-member cluster" add_is "$(cf "$PFX/q" "$QA")" q-1 "198.51.100.1/24"
etcd_pause "$Q_PID_2"
etcd_pause "$Q_PID_3"
run ADD "$(cf "$PFX/q" "[\"$Q_1\"]")" q-2
echo "# $(msg)"
ok "ADD without quorum fails with 11" failed_with 11
ok "the message names the member asked" grep -qF "$Q_1" <<<"$(msg)"
run DEL "$(cf "$PFX/q" "[\"$Q_1\"]")" q-1
ok "DEL without quorum fails with 11 too" failed_with 11
etcd_resume "$Q_PID_2"
etcd_resume "$Q_PID_3"
# A new leader takes a moment: wait for health, then retry as a runtime would.
for u in "$Q_1" "$Q_2" "$Q_3"; do etcd_wait "$u" "$Q_DIR" || true; done
for _ in 1 2 3 4 5; do
	run DEL "$(cf "$PFX/q" "$QA")" q-2
	[ "$RC" -eq 0 ] && break
done
ok "with quorum back, DEL of the failed ADD succeeds" test "$RC" -eq 0
ok "and the store holds just the first lease" \
	test "$(held "$Q_1" "$PFX/q" | tr '\n' ' ')" = "198.51.100.1 "
ok "consistent after quorum loss" consistent "$Q_1" "$PFX/q"

done_testing
