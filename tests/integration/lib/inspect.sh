# SPDX-License-Identifier: Apache-2.0
# Reading what a test judges: the VF links, the RDMA devices a netns sees, the PF's VF settings, the host as a whole.
# shellcheck shell=bash
#
# Sets:  nothing (host_netns, through rdma_move_by_hand, sets HOST_NETNS)
# Reads: FX, FX_VF_IDX, FX_VF_PF, FX_VFS_PER_PF, RDMA_SIM_STATE (fixture.sh); RDMASIM_LIB (lib.sh);
#        TMP; IFNAME (run.sh); CID (netns.sh), whose IPAM hold host_state reports

# vf_link I [NETNS]: the VF stand-in's `ip -j addr` object in NETNS (default
# host), empty when it is not there. The ifindex identifies it: moving a
# netdev between namespaces keeps its ifindex.
vf_link() {
	local nsarg=()
	[ -n "${2:-}" ] && nsarg=(-n "$2")
	ip "${nsarg[@]}" -d -j addr show 2>/dev/null |
		jq -c --argjson idx "${FX_VF_IDX[$1]}" '.[] | select(.ifindex == $idx)'
}

# link_field JSON JQ-FILTER
link_field() {
	jq -r "$2" <<<"$1"
}

# The addresses (v4 and global v6) on a link object, "a/n a/n".
link_addrs() {
	jq -r '[.addr_info[]? | select(.scope == "global") | "\(.local)/\(.prefixlen)"] | join(" ")' <<<"$1"
}

link_is_up() {
	jq -e '.flags | index("UP")' <<<"$1" >/dev/null
}

# rdma_cmd NETNS|"" ARGS...: iproute2's rdma tool run in a netns (host when ""),
# its RDMA netlink answered by the simulator.
rdma_cmd() {
	local ns=$1
	shift
	# iproute2's rdma keeps a socket per device: a thousand need the fds
	if [ -n "$ns" ]; then
		(ulimit -n 16384; ip netns exec "$ns" env LD_PRELOAD="$RDMASIM_LIB" \
			RDMA_SIM_STATE="$RDMA_SIM_STATE" rdma "$@")
	else
		(ulimit -n 16384; env LD_PRELOAD="$RDMASIM_LIB" rdma "$@")
	fi
}

# rdma_visible NETNS|"": the RDMA devices seen from a netns, sorted, one line.
rdma_visible() {
	rdma_cmd "$1" -j dev show | jq -r '[.[].ifname] | sort | join(" ")'
}

# rdma_move_by_hand DEV FROM-NETNS|"" TO-NETNS|"": what an admin's
# `rdma dev set DEV netns TO` does ("" is the host).
rdma_move_by_hand() {
	local to=$3
	if [ -z "$to" ]; then
		host_netns || return
		to=$HOST_NETNS
	fi
	rdma_cmd "$2" dev set "$1" netns "$to"
}

# state_holds CID [IFNAME]: the plugin's dataDir has the state file of
# CID's IFNAME (default $IFNAME), and it is that attachment's record.
state_holds() {
	local ifn=${2:-$IFNAME}
	jq -e --arg c "$1" --arg i "$ifn" '.containerID == $c and .ifname == $i' \
		"$TMP/state/$1:$ifn.json" >/dev/null 2>&1
}

# vf_is I JQ-CHECK: VF I's PF (fx_setup --vf-info) reports VF I's settings as
# JQ-CHECK wants (e.g. '.vlan == 100 and .trust == true'). A VF the fixture
# did not make is PF 0's (`sim pf` can give it more VFs).
vf_is() {
	local p=${FX_VF_PF[$1]:-0}
	jq -e ".pfs[$p].vfs[$(($1 - p * FX_VFS_PER_PF))] | $2" "$RDMA_SIM_STATE" >/dev/null
}

# host_state: what a failed or undone ADD must leave as it was, one line per
# item: each VF's netdev (where, name, MAC, alias, up, addresses), each RDMA
# device's netns, each VF's settings on the PF (--vf-info), and whether IPAM
# holds an address for $CID.
host_state() {
	ip_dump -d addr show | jq -r --slurpfile vfs "$FX/vfs.json" '
		(map({key: (.ifindex | tostring), value: .}) | from_entries) as $links
		| $vfs[0] | to_entries[] | select(.value.ifindex > 0) | .key as $i
		| $links[.value.ifindex | tostring]
		| if . == null then "vf\($i): not in host" else
			"vf\($i): \(.ifname) \(.address) alias=\(.ifalias // "")"
			+ " up=\(.flags | index("UP") != null)"
			+ " addrs=\([.addr_info[]? | select(.scope == "global") | .local] | join(","))"
		  end' || return
	jq -r '.devices[] | "rdma \(.name): \(.netns)"' "$RDMA_SIM_STATE"
	jq -r '.pfs[0].vfs // [] | to_entries[] | "pf vf\(.key): \(.value | tostring)"' "$RDMA_SIM_STATE"
	[ -n "${CID:-}" ] && ipam_holds "$CID" && echo "ipam holds $CID"
	return 0
}
