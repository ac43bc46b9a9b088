#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GC is scoped to its CNI network: a pod with one attachment per rail from 8
# networks (4 sharing a dataDir, 4 with their own), ippool on one address
# space, local store or etcd (argument "etcd"). GC of each network in turn
# removes only its own stale attachment; the next ADD never hands out an
# address still in use; a state file of an earlier version (no network) is
# left by GC and removed by DEL.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

[ -x "$IPPOOL" ] || skip_all "ippool not built"
STORE=${1:-local}
if [ "$STORE" = etcd ]; then
	# shellcheck source=../etcd/etcd-env.sh
	. "$T_SRC/tests/integration/etcd/etcd-env.sh"
	command -v "$ETCD_BIN" >/dev/null || [ -n "${IPPOOL_TEST_ETCD:-}" ] ||
		skip_all "no etcd binary and IPPOOL_TEST_ETCD unset"
	T_AT_EXIT+=(etcd_stop)
	etcd_use_env || skip_all "etcd did not start"
	prefix=/sriov-rdma-it-$$
	forget_keys() {
		curl -sf -m 5 -X POST "$IPPOOL_TEST_ETCD/v3/kv/deleterange" -d "{\"key\":\"$(printf '%s/' \
			"$prefix" | base64 -w0)\",\"range_end\":\"$(printf '%s0' "$prefix" | base64 -w0)\"}" >/dev/null
	}
	T_AT_EXIT+=(forget_keys)
	STORE_KEYS=$(jq -nc --arg ep "$IPPOOL_TEST_ETCD" --arg p "$prefix" \
		'{store: {type: "etcd", endpoints: [$ep], prefix: $p}}')
else
	STORE_KEYS=$(jq -nc --arg d "$TMP/ipam" '{dataDir: $d}')
fi
IPAM_BLOCK=$(jq -c '{type: "ippool", range: "192.0.2.0/24"} + .' <<<"$STORE_KEYS")
N=8
fx_setup --vfs $((N + 2)) --vf-info

# rail_dir K: networks 1-4 share a dataDir, 5-8 have one each.
rail_dir() {
	if [ "$1" -le 4 ]; then echo "$TMP/state"; else echo "$TMP/state-$1"; fi
}

# rail K VF [VERSION]: network railK's config on VF (VLAN 100+K).
rail() {
	jq -nc --arg v "${3:-1.1.0}" --arg n "rail$1" --arg bdf "${FX_VF_BDF[$2]}" \
		--arg d "$(rail_dir "$1")" --argjson ipam "$IPAM_BLOCK" --argjson vlan $((100 + $1)) \
		'{cniVersion: $v, name: $n, type: "sriov-rdma", deviceID: $bdf, dataDir: $d,
		  vlan: $vlan, ipam: $ipam}'
}

# held: every address ippool holds, as "containerID:ifname=address", sorted.
held() {
	printf '%s' "$STORE_KEYS" >"$TMP/list.conf"
	"$IPPOOL" list --conf "$TMP/list.conf" | awk '/^  /{print $2 ":" $3 "=" $1}' | sort | tr '\n' ' '
}

# in_use: every address on a link in a pod of this run, one per line.
in_use() {
	local p
	for p in "$A_POD" "$B_POD" "$L_POD"; do
		ip -n "$p" -j addr show | jq -r '.[].addr_info[]? | select(.scope == "global") | .local'
	done
}

# Pod A: netK in network railK on VF K-1. Pod B: net1 in rail1 on VF N.
# Pod L: net1 on VF N+1 in network old-net (no GC here), its state in the
# shared dataDir made an earlier version's: the GCs of rail1-4 see it.
declare -A addr
pod_new
A_POD=$POD A_CID=$CID
for ((k = 1; k <= N; k++)); do
	IFNAME=net$k cni ADD "$(rail "$k" $((k - 1)))"
	is "$RC" 0 "pod A: ADD of net$k in rail$k" || diag "$OUT"
	addr[$k]=$(jout '.ips[0].address')
done
is "$(printf '%s\n' "${addr[@]}" | sort -u | wc -l)" "$N" "pod A: the $N rails have $N different addresses"
pod_new
B_POD=$POD B_CID=$CID B_NETNS=$NETNS
IFNAME=net1 cni ADD "$(rail 1 "$N")"
is "$RC" 0 "pod B: ADD of net1 in rail1"
b_addr=$(jout '.ips[0].address')
pod_new
L_POD=$POD L_CID=$CID L_NETNS=$NETNS
old_net=$(rail 1 $((N + 1)) | jq -c '.name = "old-net"')
IFNAME=net1 cni ADD "$old_net"
is "$RC" 0 "pod L: ADD of net1 in old-net"
l_addr=$(jout '.ips[0].address')
legacy=$TMP/state/$L_CID:net1.json
jq -c 'del(.network)' "$legacy" >"$TMP/legacy" && cat "$TMP/legacy" >"$legacy"
is "$(jq -r '.network // "none"' "$legacy")" none "pod L's state is made an earlier version's (no network)"
is "$(jq -r .network "$TMP/state/$A_CID:net1.json")" rail1 "a state file records its network"

for ((k = 1; k <= N; k++)); do
	ctx="GC of rail$k"
	# the runtime forgot pod A's attachment of rail k; rail1 still has pod B's
	valid=[]
	[ "$k" -eq 1 ] && valid=$(jq -nc --arg c "$B_CID" '[{containerID: $c, ifname: "net1"}]')
	gc=$(rail "$k" 0 | jq -c --argjson v "$valid" 'del(.deviceID) | .["cni.dev/valid-attachments"] = $v')
	CID='' NETNS='' IFNAME='' cni GC "$gc"
	is "$RC" 0 "$ctx succeeds" || diag "$(cat "$TMP/stderr")"
	is "$(vf_link $((k - 1)) "$A_POD")" "" "$ctx: pod A's net$k left the pod"
	l=$(vf_link $((k - 1)))
	is "$(link_field "$l" .ifname)" "${FX_VF_IF[k - 1]}" "$ctx: its VF is back in the host under its old name"
	is "$(link_field "$l" '.ifalias // ""')" "" "$ctx: with no alias"
	ok "$ctx: its VF has its VLAN back" vf_is $((k - 1)) '.vlan == 0'
	nok "$ctx: its state is gone" test -e "$(rail_dir "$k")/$A_CID:net$k.json"
	unlike " $(held) " "$A_CID:net$k=" "$ctx: its address is released"
	bad=""
	for ((j = k + 1; j <= N; j++)); do
		l=$(vf_link $((j - 1)) "$A_POD")
		[ "$(link_field "$l" .ifname)" = "net$j" ] && [ "$(link_addrs "$l")" = "${addr[$j]}" ] &&
			vf_is $((j - 1)) ".vlan == $((100 + j))" && [ -e "$(rail_dir "$j")/$A_CID:net$j.json" ] &&
			[[ " $(held) " == *" $A_CID:net$j=${addr[$j]%/*} "* ]] || bad+=" net$j"
	done
	is "$bad" "" "$ctx: pod A's other attachments keep their VF, address, VLAN, state and lease"
	l=$(vf_link "$N" "$B_POD")
	is "$(link_field "$l" .ifname):$(link_addrs "$l")" "net1:$b_addr" "$ctx: pod B keeps net1 with its address"
	ok "$ctx: the earlier version's state is not collected" test -s "$legacy"
	l=$(vf_link $((N + 1)) "$L_POD")
	is "$(link_field "$l" .ifname):$(link_addrs "$l")" "net1:$l_addr" "$ctx: its pod keeps its VF and address"

	# the next ADD, in another network, on the VF GC freed
	next=$((k % N + 1))
	pod_new
	IFNAME=net1 cni ADD "$(rail "$next" $((k - 1)))"
	is "$RC" 0 "$ctx: then an ADD in rail$next succeeds"
	got=$(jout '.ips[0].address')
	nok "$ctx: it gets an address no pod uses ($got)" grep -qxF "${got%/*}" <(in_use)
	IFNAME=net1 cni DEL "$(rail "$next" $((k - 1)))"
	is "$RC" 0 "$ctx: and its DEL succeeds"
	netns_del "$POD"
done

CID=$L_CID NETNS=$L_NETNS IFNAME=net1 cni DEL "$old_net"
is "$RC" 0 "DEL of the earlier version's attachment"
nok "DEL removed the earlier version's state" test -e "$legacy"
is "$(link_field "$(vf_link $((N + 1)))" .ifname)" "${FX_VF_IF[N + 1]}" "its VF is back in the host"
unlike " $(held) " "$L_CID:" "its address is released"
CID=$B_CID NETNS=$B_NETNS IFNAME=net1 cni DEL "$(rail 1 "$N")"
is "$RC" 0 "DEL of pod B"
is "$(held)" "" "no address is held any more"

done_testing
