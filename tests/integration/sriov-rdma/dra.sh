#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# dra-driver-sriov's STANDALONE mode: its one-plugin config, sandbox ID and CNI_ARGS, the result it reads for the claim, its DEL without a netns path; RoCE and IB VFs.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source-path=SCRIPTDIR source=../libib.sh
. "$(dirname "$0")/../libib.sh"
[ -x "$IPPOOL" ] || skip_all "ippool not built"
# the GUID this test gives: its lock file goes at exit
ib_guid_locks_go 001122334455dd

# What the driver (pkg/devicestate/state.go, pkg/cni/cni.go, pkg/nri/nri.go)
# does, and this test does the same:
# - the NAD's spec.config, one plugin, unmarshalled into a map, "deviceID"
#   set to the VF's PCI address, marshalled again (Go sorts the keys); a
#   NAD without "name" gets the driver's name;
# - ADD from the NRI RunPodSandbox hook, DEL from StopPodSandbox, through
#   libcni (AddNetwork/DelNetwork; later versions wrap the config in a
#   one-plugin list): CNI_CONTAINERID is the pod sandbox ID, CNI_NETNS the
#   sandbox's netns path, CNI_IFNAME the claim's ifName (default vfnet<N>),
#   CNI_ARGS IgnoreUnknown and four K8S_POD_* (dra below), no
#   runtimeConfig; from cniVersion 0.4.0 DEL carries libcni's cached result
#   as prevResult (none once that cache is gone);
# - the list-wrapping revision retries a DEL that failed because the netns
#   path is gone (cri-o removes it before the hook) with CNI_NETNS empty;
# - the claim's status.devices[].networkData is built from the result:
#   interfaceName and hardwareAddress of the (last) interface with a
#   sandbox, ips from every ips[].address; status.devices[].data carries
#   {vfConfig, cniConfig, cniResult}, at most 10 KiB.
DRA_NAME=sriovnetwork.k8snetworkplumbingwg.io
IPAM=ippool

# dra_pod: a new pod, its CID a 64-hex sandbox ID as containerd makes them.
dra_pod() {
	pod_new
	CID=$(printf '%s-sandbox-%s' "$P" "$T_PODS" | sha256sum | cut -c1-64)
	POD_UID=$(printf '%s-uid-%s' "$P" "$T_PODS" | sha256sum |
		sed -E 's/^(.{8})(.{4})(.{4})(.{4})(.{12}).*/\1-\2-\3-\4-\5/')
}

# dra_conf NAD-CONFIG BDF: the config the driver renders for the VF at BDF.
dra_conf() {
	jq -cS --arg bdf "$2" --arg n "$DRA_NAME" \
		'.deviceID = $bdf | if (.name // "") == "" then .name = $n else . end' <<<"$1"
}

# dra VERB CONF [NETNS]: the plugin run as the driver's libcni runs it, for
# $CID / $IFNAME, in NETNS (default $NETNS; "" for none).
dra() {
	local ns=${3-$NETNS}
	cni "$1" "$2" CNI_NETNS="$ns" \
		CNI_ARGS="IgnoreUnknown=true;K8S_POD_NAMESPACE=vf-test1;K8S_POD_NAME=$POD;K8S_POD_INFRA_CONTAINER_ID=$CID;K8S_POD_UID=$POD_UID"
}

# network_data: what the driver puts in the claim's networkData from the last result.
# shellcheck disable=SC2016 # jq's variables
network_data() {
	jout '[.interfaces[]? | select((.sandbox // "") != "")] as $pod
		| {interfaceName: ($pod | last | .name), hardwareAddress: ($pod | last | .mac),
		   ips: [.ips[]?.address]}' | jq -c .
}

# claim_data CONF: the claim's status.devices[].data the driver writes.
claim_data() {
	jq -nc --argjson conf "$1" --argjson res "$OUT" --arg ifn "$IFNAME" \
		'{vfConfig: {ifName: $ifn, netAttachDefName: "rdma-net"}, cniConfig: $conf, cniResult: $res}'
}

# assert_claim CTX CONF LINK [MAC]: the claim the driver builds from the last
# result names LINK (the pod's `ip -j addr` object of the VF): its name, its
# hardware address (MAC when given), its addresses; one interface has a
# sandbox; the status fits the API's bounds.
assert_claim() {
	local c=$1 nd data mac=${4:-}
	[ -n "$mac" ] || mac=$(link_field "$3" .address)
	nd=$(network_data)
	data=$(claim_data "$2")
	is "$(jout '[.interfaces[]? | select((.sandbox // "") != "")] | length')" 1 \
		"$c: one result interface has a sandbox (the claim takes the last one)"
	is "$(jq -r .interfaceName <<<"$nd")" "$IFNAME" "$c: networkData.interfaceName is $IFNAME"
	is "$(jq -r .hardwareAddress <<<"$nd")" "$mac" "$c: networkData.hardwareAddress is the VF's address"
	is "$(jq -r '.ips | join(" ")' <<<"$nd")" "$(link_addrs "$3")" \
		"$c: networkData.ips are the pod link's addresses"
	ok "$c: networkData fits the API (ips 1-16 CIDRs, hardwareAddress <= 128, interfaceName <= 256)" \
		fits_api "$nd"
	ok "$c: the result is under 2 KiB" test "${#OUT}" -lt 2048
	ok "$c: the claim's data (vfConfig, cniConfig, cniResult) is under 10 KiB" test "${#data}" -lt 10240
	diag "$c: result ${#OUT} bytes, claim data ${#data} bytes"
}

# fits_api NETWORK-DATA: within the bounds the API server checks.
# shellcheck disable=SC2317 # run through ok
fits_api() {
	jq -e '(.ips | length) >= 1 and (.ips | length) <= 16
		and all(.ips[]; test("^[0-9a-f.:]+/[0-9]+$"))
		and (.hardwareAddress | length) <= 128 and (.interfaceName | length) <= 256' \
		<<<"$1" >/dev/null
}

# only_lo: the pod netns has no link but lo.
only_lo() {
	is "$(ip -n "$POD" -j link show | jq -c '[.[].ifname]')" '["lo"]' "$1: the pod has no link of it"
}

# pod_addr: the address the last result gave.
pod_addr() {
	jout '.ips[0].address'
}

# ---- RoCE ----------------------------------------------------------------

fx_setup --vfs 2 --vf-info
NAD=$(jq -nc --arg d "$TMP/state" --argjson ipam "$(ipam_conf)" \
	'{cniVersion: "1.0.0", name: "rdma-net", type: "sriov-rdma", vlan: 100, spoofchk: "on",
	  trust: "on", vlanQoS: 0, logLevel: "info", dataDir: $d, ipam: $ipam}')
conf_of=() res_of=()
settings='.vlan == 100 and .trust == true and .spoofchk == true'

# One claim with two VFs, no ifName: vfnet0 and vfnet1 in one pod. DEL with
# CNI_NETNS empty while the pod netns still exists.
dra_pod
before=$(host_state)
for VF in 0 1; do
	IFNAME=vfnet$VF
	conf_of[VF]=$(dra_conf "$NAD" "${FX_VF_BDF[VF]}")
	dra ADD "${conf_of[VF]}"
	T_CTX="RoCE $IFNAME" assert_added 1.0.0 yes || break
	res_of[VF]=$OUT
	ok "RoCE $IFNAME: the PF gave VF $VF vlan 100, spoofchk and trust" vf_is "$VF" "$settings"
	assert_claim "RoCE $IFNAME" "${conf_of[VF]}" "$(vf_link "$VF" "$POD")"
done
first_addr=$(jq -r '.ips[0].address' <<<"${res_of[0]}")
for VF in 0 1; do
	IFNAME=vfnet$VF
	dra CHECK "$(with_prev "${conf_of[VF]}" "${res_of[VF]}")"
	is "$RC" 0 "RoCE $IFNAME: CHECK passes" || diag "$OUT"
done
for VF in 0 1; do
	IFNAME=vfnet$VF
	dra DEL "$(with_prev "${conf_of[VF]}" "${res_of[VF]}")" ""
	is "$RC" 0 "RoCE $IFNAME, pod alive: DEL with CNI_NETNS empty succeeds" || diag "$OUT"
	nok "RoCE $IFNAME, pod alive: DEL released the address" ipam_holds "$CID"
done
only_lo "RoCE, pod alive"
is "$(host_state)" "$before" \
	"RoCE, pod alive: both VFs back with their host names and PF settings, RDMA devices in the host, addresses free"
for VF in 0 1; do
	IFNAME=vfnet$VF
	dra DEL "$(with_prev "${conf_of[VF]}" "${res_of[VF]}")" ""
	is "$RC" 0 "RoCE $IFNAME, pod alive: second DEL with CNI_NETNS empty succeeds"
done
is "$(host_state)" "$before" "RoCE, pod alive: the second DELs change nothing"
netns_del "$POD"

# The pod netns is gone before StopPodSandbox: the VF is back in the host
# (down, named as in the pod, alias kept), the RDMA device too. The first
# DEL names the netns path the runtime removed; the driver's retry (and a
# DEL after a driver restart, without libcni's cache: no prevResult) has
# CNI_NETNS empty.
VF=0 IFNAME=vfnet0
for how in "the removed netns path, then empty" "empty, without prevResult"; do
	dra_pod
	before=$(host_state)
	c=${conf_of[0]}
	dra ADD "$c"
	T_CTX="RoCE, pod gone, $how" assert_added 1.0.0 yes || break
	is "$(pod_addr)" "$first_addr" "RoCE, pod gone, $how: ADD gets $first_addr again (DEL freed it)"
	ok "RoCE, pod gone, $how: the PF gave the VF its settings" vf_is 0 "$settings"
	gone=$NETNS
	pod_die "$POD"
	if [ "$how" = "empty, without prevResult" ]; then
		dra DEL "$c" ""
		is "$RC" 0 "RoCE, pod gone, $how: DEL succeeds" || diag "$OUT"
	else
		c=$(with_prev "$c" "$OUT")
		dra DEL "$c" "$gone"
		is "$RC" 0 "RoCE, pod gone, $how: DEL naming the removed $gone succeeds" || diag "$OUT"
	fi
	is "$(host_state)" "$before" \
		"RoCE, pod gone, $how: the VF has its host name and PF settings back, its RDMA device is in the host, the address is free"
	dra DEL "$c" ""
	is "$RC" 0 "RoCE, pod gone, $how: a second DEL with CNI_NETNS empty succeeds"
	is "$(host_state)" "$before" "RoCE, pod gone, $how: the second DEL changes nothing"
done

# A pod died and its DEL comes late, without netns, after another pod's ADD
# took the VF (finishing the dead pod's undo): the new pod keeps it.
VF=0 IFNAME=vfnet0
dra_pod
before=$(host_state)
c=${conf_of[0]}
dra ADD "$c"
T_CTX="RoCE, late DEL, pod A" assert_added 1.0.0 yes
a_cid=$CID a_pod=$POD a_uid=$POD_UID a_del=$(with_prev "$c" "$OUT")
pod_die "$a_pod"
dra_pod
dra ADD "$c"
T_CTX="RoCE, late DEL, pod B with A's VF" assert_added 1.0.0 yes
b_link=$(vf_link 0 "$POD") b_del=$(with_prev "$c" "$OUT") b_cid=$CID b_uid=$POD_UID b_pod=$POD
CID=$a_cid POD=$a_pod POD_UID=$a_uid dra DEL "$a_del" ""
is "$RC" 0 "RoCE, late DEL: pod A's DEL with CNI_NETNS empty succeeds" || diag "$OUT"
l=$(vf_link 0 "$POD")
is "$(link_field "$l" .ifname)" vfnet0 "RoCE, late DEL: pod B keeps the VF as vfnet0"
is "$(link_addrs "$l")" "$(link_addrs "$b_link")" "RoCE, late DEL: pod B keeps its address"
is "$(rdma_visible "$POD")" "${FX_VF_RDMA[0]}" "RoCE, late DEL: pod B keeps its RDMA device"
ok "RoCE, late DEL: pod B's VF keeps its PF settings" vf_is 0 "$settings"
nok "RoCE, late DEL: pod A's address is free" ipam_holds "$a_cid"
CID=$b_cid POD=$b_pod POD_UID=$b_uid dra DEL "$b_del" ""
is "$RC" 0 "RoCE, late DEL: pod B's DEL with CNI_NETNS empty succeeds"
is "$(host_state)" "$before" "RoCE, late DEL: the host is as before both pods"
netns_del "$POD"

# StopPodSandbox DELs every prepared VF, also one whose ADD never ran (the
# hook stopped at an earlier VF's failure): nothing of it is touched
dra_pod
before=$(host_state)
for ns in "$NETNS" ""; do
	dra DEL "${conf_of[1]}" "$ns"
	is "$RC" 0 "RoCE, DEL of a VF never added (CNI_NETNS ${ns:-empty}) succeeds"
done
is "$(host_state)" "$before" "RoCE, DEL of a VF never added: nothing changed"
netns_del "$POD"

# The driver's current libcni path: the config wrapped in a one-plugin list
# (buildNetworkConfigList), through a real libcni; DEL with no netns after
# the pod netns is gone, libcni's cached result as prevResult.
if [ -x "$CNITOOL" ]; then
	jq -c '{cniVersion, name, plugins: [.]}' <<<"${conf_of[0]}" >"$TMP/dra.conflist"
	dra_pod
	before=$(host_state)
	args="IgnoreUnknown=true;K8S_POD_NAMESPACE=vf-test1;K8S_POD_NAME=$POD;K8S_POD_INFRA_CONTAINER_ID=$CID;K8S_POD_UID=$POD_UID"
	libcni add "$TMP/dra.conflist" -args "$args"
	T_CTX="RoCE via libcni" assert_added 1.0.0 yes &&
		assert_claim "RoCE via libcni" "${conf_of[0]}" "$(vf_link 0 "$POD")"
	libcni check "$TMP/dra.conflist" -args "$args"
	is "$RC" 0 "RoCE via libcni: check passes" || diag "$(cat "$TMP/stderr")"
	pod_die "$POD"
	NETNS='' libcni del "$TMP/dra.conflist" -args "$args"
	is "$RC" 0 "RoCE via libcni, pod gone: del with no netns succeeds" || diag "$(cat "$TMP/stderr")"
	is "$(host_state)" "$before" "RoCE via libcni, pod gone: the VF is back as it was, the address free"
	NETNS='' libcni del "$TMP/dra.conflist" -args "$args"
	is "$RC" 0 "RoCE via libcni: a second del succeeds"
else
	skip "RoCE via libcni: cnitool not built"
fi

# a NAD without "name": the driver names the network after itself
dra_pod
before=$(host_state)
c=$(dra_conf "$(jq -c 'del(.name)' <<<"$NAD")" "${FX_VF_BDF[0]}")
is "$(jq -r .name <<<"$c")" "$DRA_NAME" "NAD without a name: the config is named $DRA_NAME"
dra ADD "$c"
T_CTX="NAD without a name" assert_added 1.0.0 yes
dra DEL "$(with_prev "$c" "$OUT")" ""
is "$RC" 0 "NAD without a name: DEL with CNI_NETNS empty succeeds"
is "$(host_state)" "$before" "NAD without a name: the VF is back as it was, the address free"
netns_del "$POD"

# ---- InfiniBand ------------------------------------------------------------
# A fixture of its own: the RoCE one goes (its stand-ins' peers are in the
# switch netns), the IB one has the same PCI domain (and lock files).

# ip netns del returns before the netns's links are gone (the names would
# clash); ip link del of the host ends waits for them
for l in "${FX_PF_IF[@]}" "${FX_VF_IF[@]}"; do
	ip link del "$l" || t_result 1 "the RoCE fixture's $l goes"
done
netns_del "$FX_SW"
rm -rf "$FX"
if ! fx_setup_ib --vfs 2; then
	t_result 1 "the IB fixture is made"
	done_testing
fi
IFNAME=vfnet0 VF=0
NAD=$(jq -nc --arg d "$TMP/state" --argjson ipam "$(ipam_conf 198.51.100.0/24)" \
	'{cniVersion: "1.0.0", name: "ib-net", type: "sriov-rdma", logLevel: "info", dataDir: $d,
	  ipam: $ipam}')
c=$(dra_conf "$NAD" "${FX_VF_BDF[0]}")

# No GUID anywhere (no runtimeConfig): the VF keeps its firmware's
dra_pod
before=$(ib_state)
dra ADD "$c"
if ib_added "IB, no GUID" ""; then
	res=$OUT first_addr=$(pod_addr)
	# the stand-in shows no address (a tun): the 20-byte one ib_added checked
	assert_claim "IB, no GUID" "$c" "$(ip -n "$POD" -d -j addr show dev "$IFNAME" | jq -c '.[0]')" \
		"$(jout '.interfaces[0].mac')"
	dra CHECK "$(with_prev "$c" "$res")"
	is "$RC" 0 "IB, no GUID: CHECK passes" || diag "$OUT"
	dra DEL "$(with_prev "$c" "$res")" ""
	is "$RC" 0 "IB, pod alive: DEL with CNI_NETNS empty succeeds" || diag "$OUT"
	only_lo "IB, pod alive"
	is "$(ib_state)" "$before" \
		"IB, pod alive: the VF is back with its GUIDs, host name and RDMA device, the address free"
	dra DEL "$(with_prev "$c" "$res")" ""
	is "$RC" 0 "IB, pod alive: a second DEL with CNI_NETNS empty succeeds"
fi
netns_del "$POD"

# the pod netns is gone: its RDMA device came back and IPoIB made its
# netdev again in the host; DEL with CNI_NETNS empty, no prevResult
dra_pod
before=$(ib_state)
dra ADD "$c"
if ib_added "IB, pod gone" ""; then
	is "$(pod_addr)" "$first_addr" "IB, pod gone: ADD gets $first_addr again (DEL freed it)"
	ib_pod_die "$POD"
	dra DEL "$c" ""
	is "$RC" 0 "IB, pod gone: DEL with CNI_NETNS empty succeeds" || diag "$OUT"
	is "$(ib_state)" "$before" \
		"IB, pod gone: the VF is back with its GUIDs, host name and RDMA device, the address free"
	dra DEL "$c" ""
	is "$RC" 0 "IB, pod gone: a second DEL succeeds"
else
	netns_del "$POD"
fi

# a GUID in the NAD (a one-pod network: no runtimeConfig can carry one): the
# PF sets it and the VF is rebound; a DEL without netns after the pod is
# gone puts the firmware's GUIDs back (a rebind again)
G=00:11:22:33:44:55:dd:01 GX=001122334455dd01
c=$(dra_conf "$(jq -c --arg g "$G" '.guid = $g' <<<"$NAD")" "${FX_VF_BDF[0]}")
dra_pod
before=$(ib_state)
dra ADD "$c"
if ib_added "IB, GUID in the NAD" "$GX"; then
	res=$OUT
	ib_pod_die "$POD"
	dra DEL "$(with_prev "$c" "$res")" ""
	is "$RC" 0 "IB, GUID in the NAD, pod gone: DEL with CNI_NETNS empty succeeds" || diag "$OUT"
	is "$(ib_state)" "$before" \
		"IB, GUID in the NAD, pod gone: the PF and the VF have the firmware's GUIDs again, its host name and RDMA device are back, the address free"
	dra DEL "$(with_prev "$c" "$res")" ""
	is "$RC" 0 "IB, GUID in the NAD: a second DEL succeeds"
else
	netns_del "$POD"
fi

done_testing
