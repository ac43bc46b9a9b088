#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GC is scoped to the CNI network it is called for: a pod with one attachment
# per rail from 8 networks that share one store and one network_name; old
# leases (no network recorded) outlive GC. Local store, or etcd through
# etcd/with-etcd.sh.
. "$(dirname "$0")/lib.sh"

D=rails
IPAM='{"type":"ippool",'"$(store "$D")"',"range":"192.0.2.0/24","network_name":"rails"}'
POD=pod-1

# rail K [CNI_VERSION]: the config of network railK.
rail() { conf "rail$1" "$IPAM" "${2:-1.0.0}"; }

# gc K VALID_JSON: GC of network railK with these valid attachments.
gc() {
	run GC "$(jq -c --argjson v "$2" '. + {"cni.dev/valid-attachments": $v}' <<<"$(rail "$1" 1.1.0)")" unused
}

# attachments CID:IFNAME...: a valid-attachments list.
attachments() {
	local a
	for a in "$@"; do printf '{"containerID":"%s","ifname":"%s"}\n' "${a%%:*}" "${a#*:}"; done | jq -sc .
}

# holders: every lease as "containerID:ifname=address", sorted, space-separated.
holders() {
	list "$D" | awk '/^  /{print $2 ":" $3 "=" $1}' | sort | tr '\n' ' '
}

# old_lease CID IFNAME ADDRESS: a lease as an ippool without GC scoping wrote
# it (no CNI network), in the rails address space.
old_lease() {
	if local_store; then
		printf 'ippool-lease 1\ncontainerid %s\nifname %s\npod_namespace \npod_name \npod_uid \ncreated 1\naddr rails 192.0.2.0/24 24 1 %s\n' \
			"$1" "$2" "$3" >"$TMP/$D/leases/$1:$2"
		sed -i 's/clean/dirty/' "$TMP/$D/state"	# the index learns it as after a crash
		return
	fi
	local ep pfx hex akey
	ep=$(jq -r '.endpoints[0]' <<<"$IPPOOL_STORE")
	pfx=$(jq -r '.prefix' <<<"$IPPOOL_STORE")/$D
	hex=$(printf '%02x' ${3//./ })
	akey=$pfx/n/rails/v4/$hex
	etcd_put "$ep" "$akey" "{\"address\":\"$3\",\"pool\":\"192.0.2.0/24\",\"containerID\":\"$1\",\"ifname\":\"$2\"}"
	etcd_put "$ep" "$pfx/o/$1/$2" "{\"containerID\":\"$1\",\"ifname\":\"$2\",\"podNamespace\":\"\",\"podName\":\"\",\"podUID\":\"\",\"created\":1,\"node\":\"$(hostname)\",\"addrs\":[{\"network\":\"rails\",\"pool\":\"192.0.2.0/24\",\"family\":4,\"prefixLength\":24,\"address\":\"$3\",\"key\":\"$akey\"}]}"
}

etcd_put() {
	curl -sf -m 10 -X POST "$1/v3/kv/put" \
		-d "{\"key\":\"$(printf %s "$2" | base64 -w0)\",\"value\":\"$(printf %s "$3" | base64 -w0)\"}" >/dev/null
}

# one pod, one attachment per rail, each from its own network
for k in 1 2 3 4 5 6 7 8; do
	ok "ADD of $POD net$k in rail$k gets 192.0.2.$k" add_is "$(rail $k)" $POD "192.0.2.$k/24" "net$k"
done
old_lease old-1 net1 192.0.2.9
# the last column, the netns, is (none) on both: the old lease recorded none,
# and these ADDs name a netns that is not there
ok "ippool list shows the old lease with no network" \
	grep -Eq '^  192\.0\.2\.9 +old-1 net1 -/- - [0-9TZ:-]+ \(none\) \(none\)$' <(list "$D")
ok "and each rail's lease with its network" \
	grep -Eq '^  192\.0\.2\.3 +pod-1 net3 -/- - [0-9TZ:-]+ rail3 \(none\)$' <(list "$D")

# GC of each rail in turn, the runtime knowing every attachment but that rail's;
# after it an ADD in the next rail takes the freed address, never a held one
for k in 1 2 3 4 5 6 7 8; do
	valid=()
	for j in 1 2 3 4 5 6 7 8; do [ "$j" = "$k" ] || valid+=("$POD:net$j"); done
	for ((j = 1; j < k; j++)); do valid+=("new-$j:net1"); done
	gc "$k" "$(attachments "${valid[@]}")"
	ok "GC of rail$k succeeds" test "$RC" -eq 0 -a -z "$OUT"
	want=$(for ((j = 1; j < k; j++)); do echo "new-$j:net1=192.0.2.$j"; done
		echo "old-1:net1=192.0.2.9"
		for ((j = k + 1; j <= 8; j++)); do echo "$POD:net$j=192.0.2.$j"; done)
	ok "GC of rail$k released $POD net$k and nothing else" test "$(holders)" = "$(sort <<<"$want" | tr '\n' ' ')"
	next=$((k % 8 + 1))
	ok "ADD in rail$next after it gets the freed 192.0.2.$k" add_is "$(rail $next)" "new-$k" "192.0.2.$k/24"
done
ok "the next ADD skips the old lease's 192.0.2.9" add_is "$(rail 1)" new-9 "192.0.2.10/24"
ok "no address is held twice" test -z "$(reserved "$D" | uniq -d)"
ok "10 addresses held: new-1 to new-9 and the old lease" test "$(reserved "$D" | wc -l)" -eq 10

# nothing valid any more: each rail's GC takes its own, the old lease stays
for k in 1 2 3 4 5 6 7 8; do gc "$k" '[]'; done
ok "GC of every rail with nothing valid leaves only the old lease" test "$(holders)" = "old-1:net1=192.0.2.9 "
run DEL "$(rail 4)" old-1 net1
ok "DEL removes the old lease" test "$RC" -eq 0 -a -z "$(holders)"

# two configs without network_name share the default space and still are two networks
D=unnamed
U='{"type":"ippool",'"$(store "$D")"',"range":"198.51.100.0/24"}'
ok "unnamed space, network a" add_is "$(conf a "$U")" c1 "198.51.100.1/24"
ok "unnamed space, network b" add_is "$(conf b "$U")" c1 "198.51.100.2/24" net2
run GC "$(jq -c '. + {"cni.dev/valid-attachments": []}' <<<"$(conf a "$U" 1.1.0)")" unused
ok "GC of a with nothing valid keeps b's lease" test "$RC" -eq 0 -a "$(holders)" = "c1:net2=198.51.100.2 "

done_testing
