#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A late DEL of a dead pod must not touch the VF a new pod holds now; the new pod gets the VF as it was before the dead one.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

fx_setup --vfs 1 --vf-info

for rdma in false true; do
	ctx="rdma: $rdma"
	want_rdma=no
	[ "$rdma" = true ] && want_rdma=yes
	before=$(host_state)
	c=$(conf 1.0.0 ".rdma = $rdma | .vlan = 100 | .trust = \"on\"")

	pod_new
	cni ADD "$c"
	T_CTX="$ctx, pod A" assert_added 1.0.0 "$want_rdma" || break
	a_cid=$CID a_netns=$NETNS a_pod=$POD a_del=$(with_prev "$c" "$OUT")
	pod_die "$a_pod"

	# pod B asks for another VLAN and no trust: A's settings must not stay
	c=$(conf 1.0.0 ".rdma = $rdma | .vlan = 200")
	pod_new
	cni ADD "$c"
	T_CTX="$ctx, pod B with A's VF" assert_added 1.0.0 "$want_rdma" || break
	is "$(jq -c '.pfs[0].vfs[0] | [.vlan, .trust]' "$RDMA_SIM_STATE")" "[200,false]" \
		"$ctx: pod B's VF has B's VLAN and not A's trust"
	b_del=$(with_prev "$c" "$OUT")
	b_link=$(vf_link 0 "$POD")

	CID=$a_cid NETNS=$a_netns cni DEL "$a_del"
	is "$RC" 0 "$ctx: late DEL of pod A succeeds"
	l=$(vf_link 0 "$POD")
	is "$(link_field "$l" .ifname)" "$(link_field "$b_link" .ifname)" "$ctx: pod B keeps its link name"
	is "$(link_addrs "$l")" "$(link_addrs "$b_link")" "$ctx: pod B keeps its address"
	if [ "$rdma" = true ]; then
		is "$(rdma_visible "$POD")" mlx5_1 "$ctx: pod B keeps its RDMA device"
	fi
	nok "$ctx: pod A's IP is released" ipam_holds "$a_cid"
	is "$(jq -c '.pfs[0].vfs[0].vlan' "$RDMA_SIM_STATE")" 200 "$ctx: pod B keeps its VLAN"

	cni DEL "$b_del"
	is "$RC" 0 "$ctx: DEL of pod B succeeds"
	is "$(host_state)" "$before" "$ctx: the host is as before both pods"
	netns_del "$POD"
done

# pod_a_vlan CTX: the host as it is in `before`, then pod A with VLAN 100
# (a_cid, a_netns, a_del), still alive.
pod_a_vlan() {
	local c
	before=$(host_state)
	c=$(conf 1.0.0 '.rdma = false | .vlan = 100')
	pod_new
	cni ADD "$c"
	is "$RC" 0 "$1: pod A's ADD succeeds"
	a_cid=$CID a_netns=$NETNS a_del=$(with_prev "$c" "$OUT")
}

# The dead pod's VLAN cannot be put back (the PF driver refuses VLANs now):
# the new pod's ADD fails naming the dead pod and keeps its state, though
# the VF is back under its host name with no alias. Its retry, once the PF
# takes VLANs again, finishes the undo (the VF's lock file still names the
# dead pod) and gets a clean VF.
pod_a_vlan "PF refusing"
pod_die "$POD"
sim lacks vlan
c=$(conf 1.0.0 '.rdma = false')
pod_new
cni ADD "$c"
is "$(jout .code)" 104 "PF refusing: pod B's ADD fails (104)"
like "$(jout .msg)" "the unfinished undo of $a_cid:$IFNAME (state in $TMP/state) failed" "PF refusing: the error names the dead pod"
ok "PF refusing: the dead pod's state is kept for a retry" state_holds "$a_cid"
is "$(link_field "$(vf_link 0)" '.ifalias // ""')" "" "PF refusing: the VF carries no alias any more"
sim lacks
cni ADD "$c"
is "$RC" 0 "PF refusing: pod B's retry succeeds once the PF takes VLANs again"
is "$(jq -c '.pfs[0].vfs[0].vlan' "$RDMA_SIM_STATE")" 0 "PF refusing: pod B's VF has not the dead pod's VLAN"
nok "PF refusing: the dead pod's state is gone" state_holds "$a_cid"
b_del=$(with_prev "$c" "$OUT")
CID=$a_cid NETNS=$a_netns cni DEL "$a_del"
is "$RC" 0 "PF refusing: pod A's late DEL succeeds"
cni DEL "$b_del"
is "$(host_state)" "$before" "PF refusing: the host is as before both pods"
netns_del "$POD"

# The kernel returns a dead pod's VF as "dev<ifindex>" when its pod name is
# taken in the host (another pod's VF came back first): the new pod still
# finds the dead one's state, by containerID and VF, not by that name.
pod_a_vlan "renamed on return"
ip link add "$IFNAME" type veth peer name "${P}x" netns "$FX_SW"
pod_die "$POD"
unlike "$(link_field "$(vf_link 0)" .ifname)" "$IFNAME" "renamed on return: the VF came back under another name"
c=$(conf 1.0.0 '.rdma = false')
pod_new
cni ADD "$c"
is "$RC" 0 "renamed on return: pod B's ADD succeeds"
is "$(jq -c '.pfs[0].vfs[0].vlan' "$RDMA_SIM_STATE")" 0 "renamed on return: pod B's VF has not the dead pod's VLAN"
b_del=$(with_prev "$c" "$OUT")
CID=$a_cid NETNS=$a_netns cni DEL "$a_del"
cni DEL "$b_del"
ip link del "$IFNAME"
is "$(host_state)" "$before" "renamed on return: the host is as before both pods"
netns_del "$POD"

done_testing
