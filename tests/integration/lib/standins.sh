# SPDX-License-Identifier: Apache-2.0
# What the kernel and sriov-cni do to a real VF, done by hand to its veth stand-in.
# shellcheck shell=bash
# shellcheck disable=SC2034 # PREV and CHAINED are read by the tests
#
# Sets:  PREV, CHAINED  sriov-cni's result and the chained config after it (chained_after_sriov_cni)
# Reads: FX, FX_VF_IF, FX_VF_IDX, FX_VF_MAC, FX_VF_BDF (fixture.sh); POD, NETNS (netns.sh); TMP

# pod_die NETNS-NAME: what the kernel does when the last process of a pod
# exits: a physical VF goes back to the host netns (down, same ifindex, MAC
# and alias, still named as in the pod, or dev<ifindex> when that name is
# taken), its RDMA device too; veths would die instead, so move them first.
pod_die() {
	local pns=$1 k name
	while read -r k name; do
		if ! ip -n "$pns" link set dev "$name" netns $$ 2>/dev/null; then
			ip -n "$pns" link set dev "$name" name "dev${FX_VF_IDX[k]}" || return
			name=dev${FX_VF_IDX[k]}
			ip -n "$pns" link set dev "$name" netns $$ || return
		fi
		ip link set dev "$name" down || return
	done < <(ip -n "$pns" -j link show | jq -r --slurpfile vfs "$FX/vfs.json" '
		(map({key: (.ifindex | tostring), value: .ifname}) | from_entries) as $in_pod
		| $vfs[0] | to_entries[] | select(.value.ifindex > 0)
		| $in_pod[.value.ifindex | tostring] as $name | select($name) | "\(.key) \($name)"')
	sim_netns_gone "$(netns_inode "$pns")" || return
	netns_del "$pns"
}

# vf_to_pod I NETNS-NAME IFNAME: what sriov-cni does before a chained
# sriov-rdma: the VF netdev into the pod, renamed, up.
vf_to_pod() {
	ip link set dev "${FX_VF_IF[$1]}" netns "$2" &&
		ip -n "$2" link set dev "${FX_VF_IF[$1]}" name "$3" &&
		ip -n "$2" link set dev "$3" up
}

# chained_after_sriov_cni I: what sriov-cni leaves for a chained sriov-rdma:
# VF I in $POD as net1 (vf_to_pod); sets PREV, sriov-cni's result, and
# CHAINED, the 1.0.0 config of sriov-rdma after it (prevResult PREV).
chained_after_sriov_cni() {
	vf_to_pod "$1" "$POD" net1 || return
	PREV=$(jq -nc --arg ns "$NETNS" --arg mac "${FX_VF_MAC[$1]}" '{cniVersion: "1.0.0",
		interfaces: [{name: "net1", mac: $mac, sandbox: $ns}],
		ips: [{address: "192.0.2.77/24", interface: 0}]}')
	CHAINED=$(jq -nc --arg bdf "${FX_VF_BDF[$1]}" --arg d "$TMP/state" --argjson r "$PREV" \
		'{cniVersion: "1.0.0", name: "rdma-net", type: "sriov-rdma", deviceID: $bdf,
		  dataDir: $d, prevResult: $r}')
}

# vf_from_pod I NETNS-NAME IFNAME: sriov-cni's DEL: down, its host name back
# (renamed in the pod, so no host name can clash), into the host.
vf_from_pod() {
	ip -n "$2" link set dev "$3" down &&
		ip -n "$2" link set dev "$3" name "${FX_VF_IF[$1]}" &&
		ip -n "$2" link set dev "${FX_VF_IF[$1]}" netns $$
}
