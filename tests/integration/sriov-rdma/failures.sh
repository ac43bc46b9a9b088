#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A failed ADD prints one CNI error naming the value, exits 1, and leaves the host exactly as before.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

fx_setup --vfs 3 --vfio 2
pod_new
bdf=${FX_VF_BDF[0]}
base=$(conf 1.0.0 '.rdma = false')
touch "$TMP/not-a-netns"

# bad input: refused before anything is touched
add_fails 6 "" "malformed JSON" '{"cniVersion": "1.0.0", "name": '
add_fails 1 9.9.9 "unknown cniVersion" "$(conf 9.9.9 '.rdma = false')"
add_fails 4 ../../x "containerID ../../x" "$base" CNI_CONTAINERID=../../x
add_fails 4 abcdefghijklmnop "16-byte ifname" "$base" CNI_IFNAME=abcdefghijklmnop
add_fails 4 "$TMP/not-a-netns" "netns path that is a regular file" "$base" \
	CNI_NETNS="$TMP/not-a-netns"
add_fails 7 5000 "vlan 5000" "$(conf 1.0.0 '.rdma = false | .vlan = 5000')"
add_fails 7 9 "vlanQoS 9" "$(conf 1.0.0 '.rdma = false | .vlan = 100 | .vlanQoS = 9')"
add_fails 7 02:00:zz "invalid mac" "$(conf 1.0.0 '.rdma = false | .mac = "02:00:zz:00:00:01"')"
add_fails 7 -1 "negative min_tx_rate" "$(conf 1.0.0 '.rdma = false | .min_tx_rate = -1')"
add_fails 7 -5 "negative max_tx_rate" "$(conf 1.0.0 '.rdma = false | .max_tx_rate = -5')"

# the device
# (in this run's PCI domain: the harness removes the lock file ADD makes for it)
add_fails 100 "$FX_PCI:1f.7" "no such PCI device" \
	"$(conf 1.0.0 ".rdma = false | .deviceID = \"$FX_PCI:1f.7\"")"
VF=2
add_fails 100 vfio-pci "VF bound to vfio-pci" "$(conf 1.0.0 '.rdma = false')"
like "$(jout .msg)" "deviceType: netdevice" "the vfio-pci error says to use deviceType: netdevice"
VF=0

# VF settings a veth PF cannot take (it reports no VF info)
while read -r text setting; do
	add_fails 104 "$text" "$setting refused by the PF" "$(conf 1.0.0 ".rdma = false | $setting")"
	like_any "$(jout .msg)" "$setting: the error names the VF or the PF" "$bdf" "$FX_PF"
done <<'EOF_SETTINGS'
vlan .vlan = 100
vlan .vlan = 100 | .vlanProto = "802.1ad"
spoofchk .spoofchk = "off"
trust .trust = "on"
link_state .link_state = "enable"
rate .max_tx_rate = 100
rate .min_tx_rate = 10
EOF_SETTINGS

# failures after the VF has moved: everything is undone
ip -n "$POD" link add "$IFNAME" type veth peer name "${IFNAME}p"
add_fails "104 4" "$IFNAME" "ifname already taken in the pod" "$base"
ip -n "$POD" link del "$IFNAME"

# the kernel refuses the move (no CAP_NET_ADMIN): host-local, which runs
# beside the move, handed out an address meanwhile, and gives it back
add_fails 104 "Operation not permitted" "move refused by the kernel" "$base" \
	setpriv --bounding-set=-net_admin
ok "move refused by the kernel: host-local had allocated beside the move" \
	test -s "$(echo "$TMP"/ipam/*/last_reserved_ip.0)"

fake_ipam failipam 'echo "{\"cniVersion\": \"1.0.0\", \"code\": 11, \"msg\": \"no luck today\"}"; exit 1'
add_fails "106 11" "no luck today" "IPAM plugin failing" "$(conf 1.0.0 '.rdma = false | .ipam = {type: "failipam"}')"
add_fails "106" "nosuchipam" "IPAM plugin missing" "$(conf 1.0.0 '.rdma = false | .ipam = {type: "nosuchipam"}')"

# the last free address goes to VF 1; VF 0 then finds the range exhausted
IPAM_SUBNETS=(192.0.2.0/30)
VF=1
cni ADD "$(conf 1.0.0 '.rdma = false')"
is "$RC" 0 "VF 1 takes the only address of 192.0.2.0/30"
pod_new
VF=0
add_fails "106 110 11 999" "" "IPAM range exhausted" "$(conf 1.0.0 '.rdma = false')"

done_testing
