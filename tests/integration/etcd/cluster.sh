#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Four simulated nodes (own processes, own dataDir) share one etcd: 16
# concurrent ADDs each on one /24, then DEL and GC from other nodes.
. "$(dirname "$0")/lib.sh"

etcd_use_env || exit 1
EP=$IPPOOL_TEST_ETCD
S=$(estore "[\"$EP\"]" "$PFX")

# nodecf NODE [CNI_VERSION]: the config a node's kubelet would pass.
nodecf() {
	conf cluster '{"type":"ippool","dataDir":"'$TMP/node$1'","store":'$S',"range":"198.51.100.0/24"}' "${2:-1.0.0}"
}

# node N: 16 ADDs at once, results in $TMP/add.N.I
node() {
	local n=$1 i pids=()
	for i in $(seq 16); do
		(run ADD "$(nodecf "$n")" "n$n-c$i" && echo "$RC $OUT" >"$TMP/add.$n.$i") &
		pids+=($!)
	done
	wait "${pids[@]}"
}

npids=()
for n in 1 2 3 4; do node "$n" & npids+=($!); done
wait "${npids[@]}"

check "all 64 ADDs succeeded" test "$(cat "$TMP"/add.* | grep -c '^0 ')" -eq 64
addrs=$(cat "$TMP"/add.* | sed 's/^0 //' | jq -r '.ips[0].address')
check "64 distinct addresses" test "$(sort -u <<<"$addrs" | wc -l)" -eq 64
check "all in the /24" test "$(grep -c '^198\.51\.100\.[0-9]*/24$' <<<"$addrs")" -eq 64
check "etcd holds exactly those 64" test "$(held "$EP" "$PFX" | tr '\n' ' ')" = "$(sed 's|/24||' <<<"$addrs" | sort | tr '\n' ' ')"
check "the store is consistent" consistent "$EP" "$PFX"
echo "# highest address handed out: $(sed 's|/24||' <<<"$addrs" | sort -t. -k4 -n | tail -1)"

# node 2 deletes half of node 1's attachments (a rescheduled pod's DEL)
for i in $(seq 8); do run DEL "$(nodecf 2)" "n1-c$i"; done
check "DEL from another node releases" test "$(held "$EP" "$PFX" | wc -l)" -eq 56
check "a DEL'd address is reused from yet another node" \
	test "$(run ADD "$(nodecf 3)" n3-new && sed 's|/24||' <<<"$(ips)")" = "$(sed 's|/24||' <<<"$addrs" | grep -Fx -f <(for i in $(seq 8); do sed 's/^0 //' "$TMP/add.1.$i" | jq -r '.ips[0].address' | sed 's|/24||'; done) | sort -t. -k4 -n | head -1)"

# node 3 runs GC: only node 3's and node 4's attachments are valid
valid=$(for n in 3 4; do for i in $(seq 16); do printf '{"containerID":"n%s-c%s","ifname":"net1"},' "$n" "$i"; done; done)
GC=$(jq -c --argjson v "[${valid%,}]" '. + {"cni.dev/valid-attachments":$v}' <<<"$(nodecf 3 1.1.0)")
run GC "$GC" unused
check "GC from another node succeeds" test "$RC" -eq 0
check "GC kept exactly nodes 3 and 4" \
	test "$(dump "$EP" "$PFX" | jq -r '.[] | select(.k | test("/o/")) | .v.containerID' | sed 's/-.*//' | sort -u | tr '\n' ' ')" = "n3 n4 "
check "32 addresses held after GC" test "$(held "$EP" "$PFX" | wc -l)" -eq 32
check "the store is consistent after GC" consistent "$EP" "$PFX"

finish
