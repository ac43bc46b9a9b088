# SPDX-License-Identifier: Apache-2.0
# The assertions the sriov-rdma tests share: an ADD that worked, a round trip, an ADD that failed and changed nothing.
# shellcheck shell=bash
#
# Sets:  OUT, RC (through cni), POD, NETNS, CID (round_trip makes a pod)
# Reads: VF (conf.sh); IFNAME (run.sh); FX_VF_RDMA, FX_VF_BDF (fixture.sh); POD, NETNS (netns.sh);
#        T_CTX  what descriptions start with, when a test sets it (default: the CNI version)

# assert_added VERSION RDMA(yes|no) [MAC]: the last ADD of VF $VF into $POD
# succeeded: the pod has the VF named $IFNAME, up, with MAC and the IPAM
# addresses; the host has lost it (and its RDMA device when RDMA=yes); the
# result is a VERSION result describing it. Descriptions start with $T_CTX
# (default: the version).
assert_added() {
	local v=$1 rdma=$2 mac=${3:-} c=${T_CTX:-$1} l want got
	is "$RC" 0 "$c: ADD succeeds" || return
	l=$(vf_link "$VF" "$POD")
	is "$(link_field "$l" .ifname)" "$IFNAME" "$c: the VF is in the pod named $IFNAME"
	ok "$c: the VF is up in the pod" link_is_up "$l"
	[ -n "$mac" ] && is "$(link_field "$l" .address)" "$mac" "$c: the VF has MAC $mac"
	want=$(jout '[.ips[].address] | sort | join(" ")')
	got=$(link_addrs "$l" | tr ' ' '\n' | sort | paste -sd ' ')
	is "$got" "$want" "$c: the VF has the IPAM addresses ($want)"
	is "$(vf_link "$VF")" "" "$c: the host no longer has the VF netdev"
	if [ "$rdma" = yes ]; then
		like " $(rdma_visible "$POD") " " ${FX_VF_RDMA[$VF]} " "$c: the pod sees RDMA device ${FX_VF_RDMA[$VF]}"
		unlike " $(rdma_visible "") " " ${FX_VF_RDMA[$VF]} " \
			"$c: the host no longer sees ${FX_VF_RDMA[$VF]}"
	fi
	assert_result "$v"
}

# assert_result VERSION: the last output is a VERSION result for the VF.
assert_result() {
	local v=$1 c=${T_CTX:-$1}
	is "$(jout .cniVersion)" "$v" "$c: result is in version $v"
	is "$(jout '.interfaces[0].name')" "$IFNAME" "$c: result interface is $IFNAME"
	is "$(jout '.interfaces[0].sandbox')" "$NETNS" "$c: result interface sandbox is the netns path"
	is "$(jout '.ips[0].interface')" 0 "$c: result ips[0] points at interface 0"
	if version_ge "$v" 1.0.0; then
		is "$(jout '[.ips[] | has("version")] | any')" false "$c: result ips have no version"
	else
		is "$(jout '[.ips[] | has("version")] | all')" true "$c: result ips have a version"
	fi
	if version_ge "$v" 1.1.0; then
		is "$(jout '.interfaces[0].pciID')" "${FX_VF_BDF[$VF]}" "$c: result interface has pciID"
		is "$(jout '.interfaces[0].mtu | type')" number "$c: result interface has mtu"
	fi
}

# pod_pings ADDRESS: one echo reply from ADDRESS inside the pod netns.
pod_pings() {
	ip netns exec "$POD" ping -c 1 -W 5 "$1" >/dev/null 2>&1
}

# assert_traffic CTX: the pod reaches the switch bridge through the VF it was
# given, in each of the switch's subnets the result has an address in.
assert_traffic() {
	local pair target subnet
	if ! command -v ping >/dev/null; then
		skip "$1: traffic through the VF (no ping installed)"
		return
	fi
	for pair in 192.0.2.254=192.0.2. 2001:db8::fe=2001:db8::; do
		target=${pair%%=*} subnet=${pair#*=}
		jout '.ips[].address' | grep -qF "$subnet" || continue
		ok "$1: the pod reaches $target through the VF" pod_pings "$target"
	done
}

# round_trip VERSION RDMA(yes|no) CONF [MAC] [NAME=VALUE...]: in a new pod,
# ADD (assert_added), CHECK passes and fails once the address is removed in
# the pod (0.4.0+), DEL restores the host exactly, a second DEL succeeds.
round_trip() {
	local v=$1 rdma=$2 c=$3 mac=${4:-} ctx=${T_CTX:-$1} before addr
	shift 3
	[ $# -gt 0 ] && shift
	pod_new
	before=$(host_state)
	cni ADD "$c" "$@"
	if assert_added "$v" "$rdma" "$mac"; then
		ok "$ctx: IPAM holds an address for the pod" ipam_holds "$CID"
		assert_traffic "$ctx"
		version_ge "$v" 0.4.0 && c=$(with_prev "$c" "$OUT")
		addr=$(jout '.ips[0].address')
		if version_ge "$v" 0.4.0; then
			cni CHECK "$c" "$@"
			is "$RC" 0 "$ctx: CHECK passes"
			ip -n "$POD" addr del "$addr" dev "$IFNAME"
			cni CHECK "$c" "$@"
			is "$RC/$(jout .code)" 1/107 "$ctx: CHECK fails with 107 once $addr is removed in the pod"
			like "$(jout .msg)" "$IFNAME in netns $NETNS lacks address $addr" \
				"$ctx: CHECK names the missing address"
		fi
		cni DEL "$c" "$@"
		is "$RC" 0 "$ctx: DEL succeeds"
		is "$(host_state)" "$before" "$ctx: DEL puts the VF back as it was and releases the IP"
		cni DEL "$c" "$@"
		is "$RC" 0 "$ctx: second DEL succeeds"
	fi
	netns_del "$POD"
}

# add_fails CODES TEXT DESC CONF [NAME=VALUE...]: ADD fails with one of CODES
# (space separated), a message containing TEXT, and changes nothing.
add_fails() {
	local codes=$1 text=$2 desc=$3 conf=$4 before got
	shift 4
	before=$(host_state)
	cni ADD "$conf" "$@"
	got=$(jq -sr 'if length == 1 then "\(.[0].code)" else "\(length) documents" end' <<<"$OUT" 2>/dev/null)
	if [ "$RC" -eq 1 ] && [[ " $codes " == *" $got "* ]]; then
		like "$(jout .msg)" "$text" "$desc: error $got names \"$text\""
	else
		t_result 1 "$desc: exit 1 with one error document, code in ($codes)"
	fi
	is "$(host_state)" "$before" "$desc: host unchanged"
}
