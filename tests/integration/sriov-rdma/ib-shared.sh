#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# InfiniBand in shared RDMA netns mode: an ib-sriov-cni NAD (no rdmaIsolation) gets its IPoIB netdev and GUID, the RDMA device stays in the host; rdmaIsolation: true is refused.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source-path=SCRIPTDIR source=../libib.sh
. "$(dirname "$0")/../libib.sh"
[ -x "$RDMASIM_DRV" ] || skip_all "rdmasim-drv not built"
ib_guid_locks_go 00112233445599

fx_setup_ib --vfs 2
sim set-mode shared
G=00:11:22:33:44:55:99:01
GX=0011223344559901

for where in host dev; do
	drv ipoib-netns "$where"
	W="ipoib in $where"
	# an ib-sriov-cni NAD with only type changed
	c=$(conf 1.0.0 ".guid = \"$G\" | .logLevel = \"warning\"")
	pod_new
	before=$(ib_state)
	cni ADD "$c"
	is "$RC" 0 "$W: ib-sriov-cni NAD: ADD succeeds" || diag "$OUT"
	l=$(ip -n "$POD" -d -j addr show dev "$IFNAME" 2>/dev/null | jq -c '.[0]')
	is "$(link_field "$l" .link_type)" infiniband "$W: the pod has $IFNAME, an IPoIB link"
	is "$(ib_link 0)" "" "$W: the host has no netdev of the VF"
	ok "$W: the PF gave VF 0 GUID $G" pf_guid_is 0 "$GX"
	dev=$(ib_rdma 0)
	like " $(rdma_visible "") " " $dev " "$W: the host still sees the VF's RDMA device $dev"
	like " $(rdma_visible "$POD") " " $dev " "$W: the pod sees it too (shared mode)"
	is "$(jq -r --arg d "$dev" '.devices[] | select(.name == $d) | .netns' "$RDMA_SIM_STATE")" \
		host "$W: $dev was not moved"
	like "$(cat "$TMP/stderr")" "shared netns mode: RDMA device $dev of VF ${FX_VF_BDF[0]} stays in the host netns" \
		"$W: a warning names the mode and the device"
	cp=$(with_prev "$c" "$OUT")
	cni CHECK "$cp"
	is "$RC" 0 "$W: CHECK passes" || diag "$OUT"
	cni DEL "$cp"
	is "$RC" 0 "$W: DEL succeeds" || diag "$OUT"
	is "$(ib_state)" "$before" "$W: DEL gives the VF its old GUIDs, host name and netdev back"
	cni DEL "$cp"
	is "$RC" 0 "$W: second DEL succeeds"
	netns_del "$POD"
done
drv ipoib-netns host

ib_add_fails 102 "rdma system set netns exclusive" "rdmaIsolation: true" \
	"$(conf 1.0.0 ".guid = \"$G\" | .rdmaIsolation = true")"
like "$(jout .msg)" 'as "rdmaIsolation": true asks' "rdmaIsolation: true: the message names the key"

done_testing
