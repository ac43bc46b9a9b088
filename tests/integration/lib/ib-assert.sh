# SPDX-License-Identifier: Apache-2.0
# What the InfiniBand tests judge: the IB host state, an ADD that worked, its DEL, an ADD refused.
# shellcheck shell=bash
#
# Sets:  POD, NETNS, CID, VF  the attachment ib_del takes down; ib_add_fails makes a pod (pod_new)
#        OUT, RC              through cni
# Reads: IB_STATE_VFS  the VFs ib_state reports, when a test sets it (default all)
#        FX_VF_NODE_GUID, FX_VF_PORT_GUID (ib-fixture.sh); FX_NVFS, RDMA_SIM_STATE (fixture.sh);
#        IFNAME (run.sh); VF (conf.sh); POD, NETNS, CID (netns.sh)

# ib_state: what an undone ADD must leave as it was: per VF (numbered over
# all PFs) its host netdev name (not its ifindex: every rebind makes a new
# netdev), the GUIDs it uses, whether the host sees its RDMA device; its
# PF's GUIDs for it; IPAM's hold. IB_STATE_VFS="I ...": only those VFs
# (default all; each VF costs a few processes).
ib_state() {
	local i l fw=() vfs
	read -ra vfs <<<"${IB_STATE_VFS:-$(seq -s ' ' 0 $((FX_NVFS - 1)))}"
	for i in "${vfs[@]}"; do
		l=$(ib_link "$i")
		echo "vf$i: netdev=$(link_field "${l:-{\}}" '.ifname // "none"')" \
			"alias=$(link_field "${l:-{\}}" '.ifalias // ""')" \
			"guid=$(ib_sysfs_guid "$i") rdma-in-host=$(rdma_visible "" | grep -qw "$(ib_rdma "$i")" &&
				echo yes || echo no)"
	done
	# what the PF gives each VF at its next probe: what it last set, else
	# (0, never set) the firmware's GUIDs
	for ((i = 0; i < FX_NVFS; i++)); do
		fw+=("${FX_VF_NODE_GUID[i]}" "${FX_VF_PORT_GUID[i]}")
	done
	jq -r --arg vfs "${vfs[*]}" --args '$ARGS.positional as $fw | [.pfs[].vfs[]] | to_entries[]
		| select(.key | IN($vfs | split(" ")[] | tonumber))
		| def pick(g; f): if g == "0000000000000000" then f else g end;
		"pf vf\(.key): next probe \(pick(.value.node_guid; $fw[.key * 2]))"
		+ " \(pick(.value.port_guid; $fw[.key * 2 + 1])) link_state \(.value.link_state)"' \
		"${fw[@]}" <"$RDMA_SIM_STATE"
	[ -n "${CID:-}" ] && ipam_holds "$CID" && echo "ipam holds $CID"
	return 0
}

# nonames IB_STATE: without the netdev names (the kernel's ib<N> go to
# whichever netdev comes first)
nonames() {
	# shellcheck disable=SC2001 # a pattern, not a fixed string
	sed 's/netdev=[^ ]* //' <<<"$1"
}

# pf_guid_is I GUID16: the PF has set node and port GUID GUID16 for VF I.
pf_guid_is() {
	vf_is "$1" ".node_guid == \"$2\" and .port_guid == \"$2\""
}

# ib_added CTX GUID16: the last ADD of VF $VF into $POD worked: the pod has
# an IPoIB link $IFNAME, up, with the IPAM addresses, the RDMA device; the
# host has neither; the PF gave the VF GUID16 and the VF uses it.
ib_added() {
	local c=$1 l want got port mac
	is "$RC" 0 "$c: ADD succeeds" || { diag "$OUT"; return 1; }
	l=$(ip -n "$POD" -d -j addr show dev "$IFNAME" 2>/dev/null | jq -c '.[0]')
	is "$(link_field "$l" .link_type)" infiniband "$c: the pod has $IFNAME, an IPoIB link"
	ok "$c: it is up" link_is_up "$l"
	want=$(jout '[.ips[].address] | sort | join(" ")')
	got=$(link_addrs "$l" | tr ' ' '\n' | sort | paste -sd ' ')
	is "$got" "$want" "$c: it has the IPAM addresses ($want)"
	is "$(ib_link "$VF")" "" "$c: the host has no netdev of the VF"
	is "$(rdma_visible "$POD")" "$(ib_rdma "$VF")" "$c: the pod sees the VF's RDMA device"
	[ -z "${2:-}" ] || ok "$c: the PF gave VF $VF GUID $2" pf_guid_is "$VF" "$2"
	port=$(sed 's/../&:/g; s/:$//' <<<"${2:-${FX_VF_PORT_GUID[$VF]}}")
	mac=$(jout '.interfaces[0].mac')
	ok "$c: result mac is the 20-byte IPoIB address ($mac)" \
		grep -qxE '([0-9a-f]{2}:){19}[0-9a-f]{2}' <<<"$mac"
	like "$mac" ":fe:80:00:00:00:00:00:00:$port" "$c: it carries the port GID with GUID $port"
	is "$(jout '.interfaces[0].name')" "$IFNAME" "$c: result interface is $IFNAME"
	is "$(jout '.interfaces[0].sandbox')" "$NETNS" "$c: result sandbox is the netns"
}

# ib_del DESC POD CID VF CONF OUT: the DEL of the ADD of VF into POD (CONF,
# its result OUT as prevResult) succeeds; the pod netns goes.
ib_del() {
	POD=$2 NETNS=/run/netns/$2 CID=$3 VF=$4
	cni DEL "$(with_prev "$5" "$6")"
	is "$RC" 0 "$1: DEL succeeds" || diag "$OUT"
	netns_del "$POD"
}

# ib_add_fails CODE TEXT DESC CONF: ADD fails with CODE and TEXT, and leaves ib_state.
ib_add_fails() {
	local before
	pod_new
	before=$(ib_state)
	cni ADD "$4"
	is "$RC $(jout .code)" "1 $1" "$3: ADD fails with code $1"
	like "$(jout .msg)" "$2" "$3: the message says \"$2\""
	is "$(ib_state)" "$before" "$3: the VF keeps its GUIDs, netdev and RDMA device in the host"
	is "$(ip -n "$POD" -j link show | jq -c '[.[].ifname]')" '["lo"]' "$3: the pod has no link of it"
	netns_del "$POD"
}

