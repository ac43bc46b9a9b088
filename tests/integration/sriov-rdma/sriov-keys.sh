#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# NetworkAttachmentDefinitions written for sriov-cni, type changed only: the MAC and device sources, the SR-IOV operator's rendered shape, Helm's empty values.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

fx_setup --vfs 1 --vf-info
bdf=${FX_VF_BDF[0]}
mac=02:00:5e:10:00:01

T_CTX="mac key" round_trip 1.0.0 no "$(conf 1.0.0 ".rdma = false | .mac = \"$mac\"")" "$mac"
T_CTX="runtimeConfig.mac" round_trip 1.0.0 no \
	"$(conf 1.0.0 ".rdma = false | .runtimeConfig = {mac: \"$mac\"}")" "$mac"
T_CTX="CNI_ARGS MAC=" round_trip 1.0.0 no "$(conf 1.0.0 '.rdma = false')" "$mac" \
	CNI_ARGS="IgnoreUnknown=true;K8S_POD_NAMESPACE=default;MAC=$mac"
T_CTX="runtimeConfig.mac over a stale mac" round_trip 1.0.0 no \
	"$(conf 1.0.0 ".rdma = false | .mac = \"02:00:5e:zz:00:01\" | .runtimeConfig = {mac: \"$mac\"}")" "$mac"
T_CTX="pciBusID" round_trip 1.0.0 no \
	"$(conf 1.0.0 ".rdma = false | del(.deviceID) | .pciBusID = \"$bdf\"")"
T_CTX="runtimeConfig.deviceID" round_trip 1.0.0 no \
	"$(conf 1.0.0 ".rdma = false | del(.deviceID) | .runtimeConfig = {deviceID: \"$bdf\"}")"

# pf_vf: VF 0 as the PF reports it.
pf_vf() {
	jq -c '.pfs[0].vfs[0]' "$RDMA_SIM_STATE"
}

# nad_case DESC CONF JQ-CHECK: in a new pod, ADD of CONF leaves the VF in the
# pod with its RDMA device and the PF reporting JQ-CHECK on the VF, as
# sriov-cni would set it; CHECK passes; DEL puts everything back.
nad_case() {
	local desc=$1 c=$2 before l
	pod_new
	before=$(host_state)
	cni ADD "$c"
	if is "$RC" 0 "$desc: ADD succeeds"; then
		l=$(vf_link 0 "$POD")
		is "$(link_field "$l" .ifname)" "$IFNAME" "$desc: the VF is in the pod named $IFNAME"
		like " $(rdma_visible "$POD") " " ${FX_VF_RDMA[0]} " "$desc: the pod sees ${FX_VF_RDMA[0]}"
		ok "$desc: the PF reports $3 on the VF" vf_is 0 "$3"
		is "$(link_addrs "$l")" "$(jout '[.ips[]?.address] | join(" ")')" \
			"$desc: the VF has the addresses of the result"
		c=$(with_prev "$c" "$OUT")
		cni CHECK "$c"
		is "$RC" 0 "$desc: CHECK passes"
		cni DEL "$c"
		is "$RC" 0 "$desc: DEL succeeds"
		is "$(host_state)" "$before" "$desc: DEL puts the VF and its settings back"
	fi
	netns_del "$POD"
}

# The operator's rendered SriovNetwork (bindata/manifests/cni-config/sriov),
# `type` changed; Multus adds deviceID and pciBusID, the test its dataDir.
operator() {
	jq -c --arg bdf "$bdf" --arg d "$TMP/state" \
		'. + {deviceID: $bdf, pciBusID: $bdf, dataDir: $d}' <<<"$1"
}

# A VF a previous user left on VLAN 42 (set by iproute2): the operator's
# "vlan":0 clears it, as sriov-cni does, and DEL puts 42 back.
LD_PRELOAD=$RDMASIM_LIB ip link set "$FX_PF" vf 0 vlan 42
ok "the VF starts on VLAN 42" vf_is 0 '.vlan == 42'
nad_case "operator, defaults" "$(operator \
	'{ "cniVersion":"1.0.0", "name":"rdma-net","type":"sriov-rdma","vlan":0,"vlanQoS":0,"logLevel":"info","ipam":{} }')" \
	'.vlan == 0 and .qos == 0 and .vlan_proto == 33024'
ok "operator, defaults: VLAN 42 is back after DEL" vf_is 0 '.vlan == 42'
LD_PRELOAD=$RDMASIM_LIB ip link set "$FX_PF" vf 0 vlan 0

ipam=$(ipam_conf)
nad_case "operator, every field" "$(operator \
	'{ "cniVersion":"1.0.0", "name":"rdma-net","type":"sriov-rdma","vlan":100,"spoofchk":"off","trust":"on","vlanQoS":3,"vlanProto":"802.1AD","min_tx_rate":10,"max_tx_rate":1000,"capabilities":{"mac":true,"ips":true},"link_state":"enable","logLevel":"info","ipam":'"$ipam"' }')" \
	'.vlan == 100 and .qos == 3 and .vlan_proto == 34984 and .spoofchk == false and .trust == true and .link_state == 1 and .min_tx_rate == 10 and .max_tx_rate == 1000'

# A Helm chart whose values were left unset: empty strings and nulls are
# "not set", so the VF keeps every setting it had.
unset_vf=$(pf_vf)
nad_case "helm, every value unset" "$(conf 1.0.0 '.vlan = null | .vlanQoS = null | .vlanProto = null
	| .mac = "" | .spoofchk = "" | .trust = "" | .link_state = "" | .min_tx_rate = null
	| .max_tx_rate = null | .logLevel = "" | .logFile = "" | .runtimeConfig = null')" \
	". == $unset_vf"

# Deliberate: sriov-cni turns trust off for "ON"; refused here, and the DEL
# the runtime sends after the failed ADD still succeeds.
pod_new
c=$(conf 1.0.0 '.trust = "ON"')
add_fails 7 'invalid trust "ON": want "on" or "off" in lower case' "trust ON" "$c"
cni DEL "$c"
is "$RC" 0 "trust ON: the DEL after the refused ADD succeeds"
netns_del "$POD"

done_testing
