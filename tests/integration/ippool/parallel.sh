#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 64 simultaneous ADDs on a /26 (62 usable): 62 distinct addresses, the other two fail cleanly; every process judged by its own exit status and output.
. "$(dirname "$0")/lib.sh"

D=store
C=$(conf par '{"type":"ippool",'"$(store "$D")"',"range":"192.0.2.0/26"}')

# start VERB ID: one ippool in the background, its output in $TMP/ID.{out,err}.
pids=()
start() {
	printf '%s' "$C" | CNI_COMMAND=$1 CNI_CONTAINERID=$2 CNI_NETNS=/var/run/netns/x CNI_IFNAME=net1 \
		CNI_PATH=/nonexistent "$IPPOOL" >"$TMP/$2.out" 2>"$TMP/$2.err" &
	pids+=("$!:$1:$2")
}

# reap: waits for every process started, and writes one verdict line per
# process to $TMP/verdicts: "ID ok ADDR" (exit 0, a result with one address
# in the /26, nothing on stderr), "ID ok" (a DEL: exit 0, no output),
# "ID 110" (exit 1, code 110, "no free address in 192.0.2.0/26"), or
# "ID bad ..." with what it did instead.
reap() {
	local p pid verb id rc out
	: >"$TMP/verdicts"
	for p in "${pids[@]}"; do
		IFS=: read -r pid verb id <<<"$p"
		wait "$pid"
		rc=$?
		out=$(cat "$TMP/$id.out")
		if [ "$rc" -eq 0 ] && [ "$verb" = DEL ] && [ -z "$out" ] && [ ! -s "$TMP/$id.err" ]; then
			echo "$id ok"
		elif [ "$rc" -eq 0 ] && [ ! -s "$TMP/$id.err" ] &&
			jq -e '(.ips | length) == 1 and (.ips[0].address | test("^192\\.0\\.2\\.[0-9]+/26$"))' \
				<<<"$out" >/dev/null 2>&1; then
			echo "$id ok $(jq -r '.ips[0].address' <<<"$out")"
		elif [ "$rc" -eq 1 ] && [ "$verb" = ADD ] &&
			jq -e '.code == 110 and (.msg | contains("no free address in 192.0.2.0/26"))' \
				<<<"$out" >/dev/null 2>&1; then
			echo "$id 110"
		else
			echo "$id bad: $verb exit $rc, stdout $out, stderr $(head -c 300 "$TMP/$id.err")"
		fi
	done >"$TMP/verdicts"
	pids=()
	grep ' bad: ' "$TMP/verdicts" | while IFS= read -r l; do diag "$l"; done
}

for i in $(seq 1 64); do start ADD "par$i"; done
reap
addrs=$(awk '$2 == "ok" {print $3}' "$TMP/verdicts")
is "$(grep -c ' bad: ' "$TMP/verdicts")" 0 "each of the 64 ADDs gave an address or a clean 110"
is "$(wc -l <<<"$addrs")" 62 "62 ADDs succeed"
is "$(grep -c ' 110$' "$TMP/verdicts")" 2 "2 ADDs fail with 110 (no free address)"
is "$(sort -u <<<"$addrs" | wc -l)" 62 "the 62 addresses are distinct"
ok "the store holds exactly those 62" test "$(reserved "$D" | sed 's|$|/26|')" = "$(sort <<<"$addrs")"

# the same again while half of them are being deleted: still never a
# duplicate, every DEL succeeds, every ADD gets an address or a clean 110
kept=$(for i in $(seq 32 64); do awk -v id="par$i" '$1 == id && $2 == "ok" {print $3}' "$TMP/verdicts"; done)
for i in $(seq 1 31); do
	start DEL "par$i"
	start ADD "new$i"
done
reap
is "$(grep -c ' bad: ' "$TMP/verdicts")" 0 "each of 31 DELs and 31 ADDs run side by side ended cleanly"
is "$(grep -c '^par[0-9]* ok$' "$TMP/verdicts")" 31 "the 31 DELs succeed"
new=$(awk '$1 ~ /^new/ && $2 == "ok" {print $3}' "$TMP/verdicts")
echo "# $(grep -c . <<<"$new") of the 31 concurrent ADDs got an address"
is "$(reserved "$D" | sed 's|$|/26|')" "$(sort <<<"$kept"$'\n'"$new" | grep .)" \
	"the store holds exactly the kept and the new addresses"
ok "no address is held twice after concurrent DELs and ADDs" \
	test "$(reserved "$D" | sort | uniq -d | wc -l)" -eq 0

done_testing
