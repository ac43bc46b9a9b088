#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ADD / CHECK / DEL of a VF netdev (rdma: false) in every CNI version and IPAM, and DEL in the hard cases.
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

fx_setup --vfs 1

# round_trip VERSION: ADD, CHECK (0.4.0+), CHECK after the address is gone,
# DEL, DEL again; the host ends as it started.
round_trip() {
	local v=$1 c res dc before addr
	pod_new
	before=$(host_state)
	c=$(conf "$v" '.rdma = false')
	cni ADD "$c"
	assert_added "$v" no || { netns_del "$POD"; return; }
	res=$OUT
	dc=$c
	if version_ge "$v" 0.4.0; then
		dc=$(with_prev "$c" "$res")
		cni CHECK "$dc"
		is "$RC" 0 "$v: CHECK passes"
		addr=$(jq -r '.ips[0].address' <<<"$res")
		ip -n "$POD" addr del "$addr" dev "$IFNAME"
		cni CHECK "$dc"
		ok "$v: CHECK fails once $addr is removed in the pod" test "$RC" -ne 0
	fi
	cni DEL "$dc"
	is "$RC" 0 "$v: DEL succeeds"
	is "$(host_state)" "$before" "$v: DEL puts the VF back as it was and releases the IP"
	cni DEL "$dc"
	is "$RC" 0 "$v: second DEL succeeds"
	netns_del "$POD"
}

# del_case DESC BREAK-COMMAND...: ADD, break something, DEL restores the host.
del_case() {
	local desc=$1 c before
	shift
	pod_new
	before=$(host_state)
	c=$(conf 1.0.0 '.rdma = false')
	cni ADD "$c"
	is "$RC" 0 "$desc: ADD succeeds"
	c=$(with_prev "$c" "$OUT")
	"$@"
	cni DEL "$c"
	is "$RC" 0 "$desc: DEL succeeds"
	is "$(host_state)" "$before" "$desc: the VF is back as it was, IP released"
	cni DEL "$c"
	is "$RC" 0 "$desc: second DEL succeeds"
	[ -e "$NETNS" ] && netns_del "$POD"
}

# Run through del_case:
# shellcheck disable=SC2317
wipe_state() { rm -rf "$TMP/state"; }
# shellcheck disable=SC2317
kill_pod() { pod_die "$POD"; }

ipams=(host-local)
[ -x "$IPPOOL" ] && ipams+=(ippool)
for IPAM in "${ipams[@]}"; do
	for v in 0.3.0 0.3.1 0.4.0 1.0.0 1.1.0; do
		# Debian's host-local speaks CNI up to 1.0.0.
		if [ "$IPAM" = host-local ] && [ "$v" = 1.1.0 ]; then
			continue
		fi
		round_trip "$v"
	done
done
[ -x "$IPPOOL" ] || skip "1.1.0 round trip: ippool not built (host-local stops at 1.0.0)"
IPAM=host-local

ip link set dev "${FX_VF_IF[0]}" up
round_trip 1.0.0
ip link set dev "${FX_VF_IF[0]}" down

IPAM_SUBNETS=(192.0.2.0/24 2001:db8::/64)
round_trip 1.0.0
IPAM_SUBNETS=(192.0.2.0/24)

del_case "DEL with the plugin's dataDir wiped" wipe_state
del_case "DEL after the pod netns died" kill_pod

cni VERSION '{"cniVersion": "1.0.0"}'
is "$(jout '.supportedVersions | map(select(. == "0.3.0" or . == "0.3.1" or . == "0.4.0"
	or . == "1.0.0" or . == "1.1.0")) | sort | join(" ")')" "0.3.0 0.3.1 0.4.0 1.0.0 1.1.0" \
	"VERSION lists 0.3.0 0.3.1 0.4.0 1.0.0 1.1.0"

done_testing
