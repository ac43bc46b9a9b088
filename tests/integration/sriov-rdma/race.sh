#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Two networks with different dataDirs race for one VF: the node-wide VF lock
# lets exactly one hold it; the other fails with 101, and its late DEL changes
# nothing on the winner's attachment.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

fx_setup --vfs 2 --vf-info
VF=0
before=$(host_state)

# net_conf N: network N (net-a, net-b) with a dataDir and IPAM store of its own.
net_conf() {
	conf 1.0.0 ".name = \"net-$1\" | .dataDir = \"$TMP/state-$1\" | .ipam.dataDir = \"$TMP/ipam-$1\"
		| .vlan = $2"
}

# add_bg N: ADD of network N for pod N, in the background; its output and
# exit status land in $TMP/out-N and $TMP/rc-N. The fake sysfs is synced
# once before both (FX= skips cni's sync): a sync rewrites it in place, and
# one running beside the other ADD would show that ADD a half-written tree.
add_bg() {
	# shellcheck disable=SC2030 # the subshell's own pod
	(
		CID=${cid[$1]} NETNS=/run/netns/${pod[$1]} POD=${pod[$1]} FX=
		cni ADD "${c[$1]}"
		printf '%s' "$OUT" >"$TMP/out-$1"
		echo "$RC" >"$TMP/rc-$1"
	) &
}

# field N JQ: a field of network N's ADD output.
field() {
	jq -r "$2" "$TMP/out-$1" 2>/dev/null
}

declare -A c cid pod
c[a]=$(net_conf a 100)
c[b]=$(net_conf b 200)
for round in 1 2 3 4; do
	ctx="round $round"
	for n in a b; do
		pod_new
		# shellcheck disable=SC2031 # set by pod_new here, not in add_bg
		cid[$n]=$CID pod[$n]=$POD
		rm -f "$TMP/out-$n" "$TMP/rc-$n"
	done
	fx_sync
	add_bg a
	add_bg b
	wait
	rcs="$(cat "$TMP/rc-a" 2>/dev/null) $(cat "$TMP/rc-b" 2>/dev/null)"
	case $rcs in
	"0 1") win=a lose=b ;;
	"1 0") win=b lose=a ;;
	*) t_result 1 "$ctx: one ADD succeeds, the other exits 1 (got exit statuses: $rcs)"
	   diag "a: $(cat "$TMP/out-a")" "b: $(cat "$TMP/out-b")"
	   continue ;;
	esac
	t_result 0 "$ctx: one ADD succeeds (net-$win), the other exits 1"
	is "$(field "$win" '.interfaces[0].name')" "$IFNAME" "$ctx: the winner's result names $IFNAME"
	is "$(field "$lose" .code)" 101 "$ctx: the loser fails with 101"
	like "$(field "$lose" .msg)" "VF ${FX_VF_BDF[0]}" "$ctx: the loser's message names the VF"
	like "$(field "$lose" .msg)" "another pod holds it" "$ctx: the loser's message says another pod holds it"
	l=$(vf_link 0 "${pod[$win]}")
	is "$(link_field "$l" .ifname)" "$IFNAME" "$ctx: the VF is in the winner's pod"
	is "$(vf_link 0 "${pod[$lose]}")" "" "$ctx: the loser's pod has no VF"
	addr=$(link_addrs "$l")
	is "$addr" "$(field "$win" '[.ips[].address] | join(" ")')" "$ctx: the winner's VF has its address"
	want_vlan=$([ "$win" = a ] && echo 100 || echo 200)
	ok "$ctx: the VF has the winner's VLAN" vf_is 0 ".vlan == $want_vlan"
	win_state=$TMP/state-$win/${cid[$win]}:$IFNAME.json
	is "$(cat "$T_LOCK_DIR/${FX_VF_BDF[0]}.lock")" "$win_state" "$ctx: the lock file names the winner's state"
	nok "$ctx: the loser left no state" test -e "$TMP/state-$lose/${cid[$lose]}:$IFNAME.json"

	# the runtime's DEL of the failed ADD, late
	CID=${cid[$lose]} NETNS=/run/netns/${pod[$lose]} POD=${pod[$lose]} cni DEL "${c[$lose]}"
	is "$RC" 0 "$ctx: the loser's late DEL succeeds"
	l=$(vf_link 0 "${pod[$win]}")
	is "$(link_field "$l" .ifname)" "$IFNAME" "$ctx: after it the VF is still in the winner's pod"
	is "$(link_addrs "$l")" "$addr" "$ctx: with its address"
	ok "$ctx: and up" link_is_up "$l"
	is "$(rdma_visible "${pod[$win]}")" "${FX_VF_RDMA[0]}" "$ctx: the winner's pod keeps the RDMA device"
	ok "$ctx: the VF keeps the winner's VLAN" vf_is 0 ".vlan == $want_vlan"
	ok "$ctx: the winner's state is kept" test -s "$win_state"
	is "$(cat "$T_LOCK_DIR/${FX_VF_BDF[0]}.lock")" "$win_state" "$ctx: the lock file still names the winner"

	CID=${cid[$win]} NETNS=/run/netns/${pod[$win]} POD=${pod[$win]} cni DEL "${c[$win]}"
	is "$RC" 0 "$ctx: the winner's DEL succeeds"
	is "$(host_state)" "$before" "$ctx: the host is as before"
	netns_del "${pod[a]}"
	netns_del "${pod[b]}"
done

done_testing
