#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# VF settings through the PF (IFLA_VFINFO_LIST): set by ADD, the originals back after DEL, whatever DEL meets.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

fx_setup --vfs 2 --vf-info
# the fixture VF the tests use ($VF) is the PF's VF $PF_VF
PF_VF=$VF

# pf_line I: VF I as iproute2 shows it in the PF's `ip link show` (an
# independent reader of the VF info the PF reports).
pf_line() {
	LD_PRELOAD=$RDMASIM_LIB ip link show "$FX_PF" | grep -E "^ +vf $1 "
}

# setting_case DESC JQ-SETTINGS JQ-CHECK IP-TEXT [BREAK]: ADD with the
# settings for the fixture's VF $VF sets them on the PF's VF $PF_VF (the PF
# reports JQ-CHECK true, iproute2 shows IP-TEXT unless it is empty); BREAK
# (optional) then hits the pod; DEL puts back everything.
setting_case() {
	local desc=$1 c before
	pod_new
	before=$(host_state)
	c=$(conf 1.0.0 ".rdma = false | $2")
	cni ADD "$c"
	if is "$RC" 0 "$desc: ADD succeeds"; then
		ok "$desc: the PF reports it on VF $PF_VF" vf_is "$PF_VF" "$3"
		[ -z "$4" ] ||
			like "$(pf_line "$PF_VF")" "$4" "$desc: ip link shows \"$4\" on vf $PF_VF"
		[ $# -lt 5 ] || "$5"
		cni DEL "$(with_prev "$c" "$OUT")"
		is "$RC" 0 "$desc: DEL succeeds"
		is "$(host_state)" "$before" "$desc: DEL puts the VF and its settings back as they were"
	fi
	[ -e "$NETNS" ] && netns_del "$POD"
}

while IFS='~' read -r desc settings check text; do
	setting_case "$desc" "$settings" "$check" "$text"
done <<'EOF_SETTINGS'
vlan and qos~.vlan = 100 | .vlanQoS = 3~.vlan == 100 and .qos == 3 and .vlan_proto == 33024~vlan 100, qos 3
vlan 802.1ad~.vlan = 200 | .vlanProto = "802.1ad"~.vlan == 200 and .vlan_proto == 34984~vlan 200, vlan protocol 802.1ad
admin MAC~.mac = "02:11:22:33:44:55"~.mac == "02:11:22:33:44:55"~link/ether 02:11:22:33:44:55
spoofchk off~.spoofchk = "off"~.spoofchk == false~spoof checking off
trust on~.trust = "on"~.trust == true~trust on
link_state enable~.link_state = "enable"~.link_state == 1~link-state enable
link_state disable~.link_state = "disable"~.link_state == 2~link-state disable
rates~.min_tx_rate = 10 | .max_tx_rate = 1000~.min_tx_rate == 10 and .max_tx_rate == 1000~max_tx_rate 1000Mbps, min_tx_rate 10Mbps
EOF_SETTINGS

all='.vlan = 100 | .vlanQoS = 3 | .spoofchk = "off" | .trust = "on" | .link_state = "enable" | .min_tx_rate = 10 | .max_tx_rate = 1000'
all_check='.vlan == 100 and .qos == 3 and .spoofchk == false and .trust == true and .link_state == 1 and .max_tx_rate == 1000'

VF=1 PF_VF=1
setting_case "the second VF" "$all" "$all_check" "vlan 100"
is "$(jq -c '.pfs[0].vfs[0]' "$RDMA_SIM_STATE")" \
	'{"mac":"00:00:00:00:00:00","vlan":0,"qos":0,"vlan_proto":33024,"spoofchk":true,"trust":false,"link_state":0,"min_tx_rate":0,"max_tx_rate":0,"node_guid":"0000000000000000","port_guid":"0000000000000000"}' \
	"the second VF: VF 0 was never touched"
VF=0 PF_VF=0

# The pod netns is gone before DEL: the kernel has returned the VF; the
# state file still holds the original settings.
# shellcheck disable=SC2317 # run through setting_case
kill_pod() { pod_die "$POD"; }
setting_case "DEL after the pod netns died" "$all" "$all_check" "vlan 100" kill_pod

# A driver without ndo_set_vf_trust: the settings before trust are set, trust
# is refused. ADD fails naming trust, and puts back what had been set.
sim lacks trust
pod_new
add_fails 104 "Operation not supported" "a PF driver without trust" "$(conf 1.0.0 ".rdma = false | $all")"
like "$(jout .msg)" "failed to set trust on on VF 0 of PF $FX_PF: Operation not supported" \
	"a PF driver without trust: the error names that setting alone"
netns_del "$POD"
setting_case "a PF driver without trust, no trust asked" ".vlan = 100" ".vlan == 100" "vlan 100"

# A driver without ndo_set_vf_rate, which reports the rates all the same:
# everything before the rate is set, the rate is refused. ADD fails naming
# it and puts back the settings it had changed, those alone: the driver is
# asked for the rate once (its refusal logged once), not again by the undo.
desc="a PF driver without rate limits"
vflog=$RDMA_SIM_STATE.vf.log
sim lacks rate
pod_new
: >"$vflog"
add_fails 104 "Operation not supported" "$desc" \
	"$(conf 1.0.0 ".rdma = false | .mac = \"02:11:22:33:44:77\" | $all")"
like "$(jout .msg)" "failed to set min_tx_rate 10 max_tx_rate 1000 on VF $PF_VF of PF $FX_PF: Operation not supported" \
	"$desc: the error names that setting alone"
is "$(grep -c "^$FX_PF vf $PF_VF rate " "$vflog")" 1 "$desc: the PF was asked for the rate once"
is "$(awk -v pf="$FX_PF" -v vf="$PF_VF" '$1 == pf && $3 == vf { printf "%s %s, ", $4, $5 }' "$vflog")" \
	"mac 0, vlan 0, spoofchk 0, trust 0, link_state 0, rate -95, mac 0, vlan 0, spoofchk 0, trust 0, link_state 0, " \
	"$desc: each setting set, the rate refused, then the five that were set put back"
netns_del "$POD"
sim lacks

# A PF with 200 VFs: its VF list (39 KiB without stats) does not fit in
# libnl's default read.
ok "a PF with 200 VFs" sim pf "$FX_PF" 200
VF=1 PF_VF=1
setting_case "a PF with 200 VFs" "$all" "$all_check" "vlan 100"

# A PF with 400 VFs: its VF list (78 KiB without stats) overflows the 16-bit
# length of a netlink attribute, and the kernel sends it wrapped; the
# fixture's second VF is the PF's VF 350, far past the wrapped length.
# iproute2 (6.1) trusts that length: it lists the first VFs only.
ok "a PF with 400 VFs" sim pf "$FX_PF" 400
like "$(LD_PRELOAD=$RDMASIM_LIB ip link show "$FX_PF" 2>&1 >/dev/null)" "Truncated VF list" \
	"a PF with 400 VFs: iproute2 finds its VF list cut short"
mv "$FX_DEVICES/$FX_PF_BDF/virtfn1" "$FX_DEVICES/$FX_PF_BDF/virtfn350"
PF_VF=350
setting_case "a PF with 400 VFs, VF 350" "$all" "$all_check" ""

# A PF whose VF list the kernel cannot send: rtnl_getlink() fails with
# EMSGSIZE (90) when its reply outgrows its own estimate, as users of
# InfiniBand PFs with many VFs have met. VF settings are refused, naming the
# cause and the fix; the MAC alone is set on the netdev, as for a PF that
# reports no VF info.
desc="a PF whose VF list the kernel cannot send"
ok "$desc" sim getlink-error 90
pod_new
add_fails 104 "the kernel cannot fit its VF list in one netlink message (Message too long)" \
	"$desc, a VLAN asked" "$(conf 1.0.0 '.rdma = false | .vlan = 100')"
like "$(jout .msg)" "leave vlan/vlanQoS/vlanProto out of this network, or create fewer VFs" \
	"$desc: the error says what to do"
c=$(conf 1.0.0 '.rdma = false | .mac = "02:11:22:33:44:66"')
cni ADD "$c"
is "$RC" 0 "$desc, the MAC alone: ADD succeeds"
is "$(vf_link "$VF" "$POD" | jq -r .address)" "02:11:22:33:44:66" "$desc: the pod's netdev has the MAC"
ok "$desc: the PF's VF $PF_VF keeps its admin MAC" vf_is "$PF_VF" '.mac == "00:00:00:00:00:00"'
cni DEL "$(with_prev "$c" "$OUT")"
is "$RC" 0 "$desc, the MAC alone: DEL succeeds"
netns_del "$POD"
sim getlink-error 0

done_testing
