#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Four simulated nodes (own UTS namespace and hostname, own processes, own
# dataDir) share one etcd: 16 concurrent ADDs each on one /24, then DEL from
# another node, GC that judges only its own node's leases, and GC by a node
# whose local state is gone.
. "$(dirname "$0")/lib.sh"

UNSHARE=(unshare -u)
[ "$(id -u)" = 0 ] || UNSHARE=(unshare -r -u)
"${UNSHARE[@]}" true 2>/dev/null || { echo "1..0 # SKIP cannot unshare a UTS namespace"; exit 77; }

etcd_use_env || exit 1
EP=$IPPOOL_TEST_ETCD
S=$(estore "[\"$EP\"]" "$PFX" '"timeout_ms":60000')
REAL=$IPPOOL

# A node: ippool run under the node's own hostname.
for n in 1 2 3 4; do
	printf '#!/bin/sh\nexec %s sh -c '"'"'hostname "$0" && exec "$@"'"'"' ippool-n%s-%s %s\n' \
		"${UNSHARE[*]}" "$n" "$$" "$REAL" >"$TMP/node$n"
	chmod +x "$TMP/node$n"
done

# nodecf NODE [CNI_VERSION]: the config a node's kubelet would pass.
nodecf() {
	conf cluster '{"type":"ippool","dataDir":"'$TMP/data$1'","store":'$S',"range":"198.51.100.0/24"}' "${2:-1.0.0}"
}

# on NODE VERB CONFIG ID: run one verb on a node.
on() {
	IPPOOL=$TMP/node$1 run "$2" "$3" "$4"
}

# node N: 16 ADDs at once, results in $TMP/add.N.I
node() {
	local n=$1 i pids=()
	for i in $(seq 16); do
		(on "$n" ADD "$(nodecf "$n")" "n$n-c$i" && echo "$RC $OUT" >"$TMP/add.$n.$i") &
		pids+=($!)
	done
	wait "${pids[@]}"
}

npids=()
for n in 1 2 3 4; do node "$n" & npids+=($!); done
wait "${npids[@]}"

ok "all 64 ADDs succeeded" test "$(cat "$TMP"/add.* | grep -c '^0 ')" -eq 64
addrs=$(cat "$TMP"/add.* | sed 's/^0 //' | jq -r '.ips[0].address')
ok "64 distinct addresses" test "$(sort -u <<<"$addrs" | wc -l)" -eq 64
ok "all in the /24" test "$(grep -c '^198\.51\.100\.[0-9]*/24$' <<<"$addrs")" -eq 64
ok "etcd holds exactly those 64" test "$(held "$EP" "$PFX" | tr '\n' ' ')" = "$(sed 's|/24||' <<<"$addrs" | sort | tr '\n' ' ')"
ok "the store is consistent" consistent "$EP" "$PFX"
ok "each lease names its node" \
	test "$(dump "$EP" "$PFX" | jq -r '.[] | select(.k | test("/o/")) | "\(.v.containerID | sub("-.*"; "")) \(.v.node)"' | sort -u | awk '{print $2}' | sed 's/-[0-9]*$//' | tr '\n' ' ')" = "ippool-n1 ippool-n2 ippool-n3 ippool-n4 "
echo "# highest address handed out: $(sed 's|/24||' <<<"$addrs" | sort -t. -k4 -n | tail -1)"

# node 2 deletes half of node 1's attachments: DEL needs no local state
freed=$(for i in $(seq 8); do sed 's/^0 //' "$TMP/add.1.$i" | jq -r '.ips[0].address' | sed 's|/24||'; done)
for i in $(seq 8); do on 2 DEL "$(nodecf 2)" "n1-c$i"; done
ok "DEL from another node releases" test "$(held "$EP" "$PFX" | wc -l)" -eq 56
# Lost races in the burst may have left holes below the freed addresses:
# the next ADD takes the lowest free address, wherever it is.
taken=$(held "$EP" "$PFX")
ok "none of the DEL'd addresses is held any more" test -z "$(grep -xF -f <(echo "$freed") <<<"$taken")"
lowest=$(for x in $(seq 1 254); do grep -qx "198.51.100.$x" <<<"$taken" || { echo "198.51.100.$x"; break; }; done)
on 3 ADD "$(nodecf 3)" n3-new
ok "a DEL'd or never-used address is reused from yet another node, the lowest free" \
	test "$(ips | sed 's|/24||')" = "$lowest"

# gcvalid NODE IDS...: a GC config with these valid attachments.
gcvalid() {
	local n=$1 v=
	shift
	for id in "$@"; do v+="{\"containerID\":\"$id\",\"ifname\":\"net1\"},"; done
	jq -c --argjson v "[${v%,}]" '. + {"cni.dev/valid-attachments":$v}' <<<"$(nodecf "$n" 1.1.0)"
}

# node 3's runtime knows only 8 of its 16 pods: GC frees node 3's other 9
on 3 GC "$(gcvalid 3 $(for i in $(seq 8); do echo "n3-c$i"; done))" unused
ok "GC on node 3 succeeds" test "$RC" -eq 0
ok "it released node 3's unknown attachments only" \
	test "$(dump "$EP" "$PFX" | jq -r '.[] | select(.k | test("/o/")) | .v.containerID' | sed 's/-.*//' | sort | uniq -c | awk '{print $2 "=" $1}' | tr '\n' ' ')" = "n1=8 n2=16 n3=8 n4=16 "

# node 1 lost its local state (new dataDir): its GC still finds its leases
on 1 GC "$(jq -c '.ipam.dataDir = "'$TMP/wiped'"' <<<"$(gcvalid 1 n1-c9 n1-c10)")" unused
ok "GC on node 1 with its local state gone succeeds" test "$RC" -eq 0
ok "it kept node 1's two valid attachments and every other node's" \
	test "$(dump "$EP" "$PFX" | jq -r '.[] | select(.k | test("/o/")) | .v.containerID' | sed 's/-.*//' | sort | uniq -c | awk '{print $2 "=" $1}' | tr '\n' ' ')" = "n1=2 n2=16 n3=8 n4=16 "
ok "42 addresses held after GC" test "$(held "$EP" "$PFX" | wc -l)" -eq 42
ok "the store is consistent after GC" consistent "$EP" "$PFX"

done_testing
