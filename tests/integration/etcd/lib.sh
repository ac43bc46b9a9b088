# SPDX-License-Identifier: Apache-2.0
# Harness for the ippool-on-etcd tests: the ippool TAP harness, an etcd, store
# blocks and a reader of what the store holds (the operator's view).
# shellcheck shell=bash

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../ippool/lib.sh"
. "$HERE/etcd-env.sh"
# An etcd we did not start (CI's) keeps running: take our keys out of it.
forget_keys() {
	[ -n "${IPPOOL_TEST_ETCD:-}" ] || return 0
	curl -sf -m 5 -X POST "$IPPOOL_TEST_ETCD/v3/kv/deleterange" \
		-d "{\"key\":\"$(b64 "$PFX/")\",\"range_end\":\"$(b64 "${PFX}0")\"}" >/dev/null
}
trap 'forget_keys; etcd_stop; rm -rf "$TMP"' EXIT

command -v "$ETCD_BIN" >/dev/null || [ -n "${IPPOOL_TEST_ETCD:-}" ] || {
	echo "1..0 # SKIP no etcd binary and IPPOOL_TEST_ETCD unset"
	exit 0	# TAP skip plan: see skip_all in tap.sh
}

# A key prefix of its own per test run.
PFX=/ippool-it-$$-$(basename "$0" .sh)

# estore ENDPOINTS_JSON PREFIX [EXTRA_KEYS]: a "store" block.
estore() {
	printf '{"type":"etcd","endpoints":%s,"prefix":"%s"%s}' "$1" "$2" "${3:+,$3}"
}

b64() { printf '%s' "$1" | base64 -w0; }

# dump ENDPOINT PREFIX: every key under PREFIX/ as [{k, v}] (values parsed).
dump() {
	local p=$2/
	curl -sf -m 10 -X POST "$1/v3/kv/range" \
		-d "{\"key\":\"$(b64 "$p")\",\"range_end\":\"$(b64 "${p%/}0")\"}" |
		jq -c '[.kvs[]? | {k: (.key | @base64d), v: (.value | @base64d | fromjson)}]'
}

# put ENDPOINT KEY VALUE: one key written as an operator (or another version) would.
put() {
	curl -sf -m 10 -X POST "$1/v3/kv/put" -d "{\"key\":\"$(b64 "$2")\",\"value\":\"$(b64 "$3")\"}" >/dev/null
}

# index ENDPOINT PREFIX: GC's index keys under PREFIX/g/, sorted, space-separated.
index() {
	dump "$1" "$2" | jq -r --arg p "$2/g/" '.[] | select(.k | startswith($p)) | .k' | sort | tr '\n' ' '
}

# held ENDPOINT PREFIX: the addresses held by an attachment, sorted.
held() {
	dump "$1" "$2" | jq -r '.[] | select(.k | test("/n/")) | select(.v.containerID) | .v.address' | sort
}

# consistent ENDPOINT PREFIX: every held address belongs to the lease of its
# holder, every lease's addresses are held by it, no address in two leases,
# and GC's index has exactly one entry per lease that records its network.
consistent() {
	dump "$1" "$2" | jq -e --arg p "$2" '
		(map(select(.k | test("/o/"))) | map({key: .k, value: .v}) | from_entries) as $leases |
		([$leases[] | select(.cniNetwork) | "\($p)/g/\(.node)/\(.cniNetwork)/\(.containerID)/\(.ifname)"] | sort) ==
		(map(select(.k | startswith($p + "/g/")) | .k) | sort) and
		map(select((.k | test("/n/")) and .v.containerID)) as $held |
		([$held[] | . as $h | $leases[$p + "/o/" + $h.v.containerID + "/" + $h.v.ifname] |
		  select(. == null or ([.addrs[].key] | index($h.k) | not))] | length == 0) and
		([$leases[] | .containerID as $c | .ifname as $i | .addrs[].key as $k |
		  ($held | map(select(.k == $k and .v.containerID == $c and .v.ifname == $i)) | length)
		  | select(. != 1)] | length == 0) and
		([$leases[] | .addrs[].key] | (length == (unique | length)))' >/dev/null
}
