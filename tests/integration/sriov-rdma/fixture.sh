#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The simulated SR-IOV NIC looks like a real one: sysfs layout, netns-tagged entries, kernel netns death.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

fx_setup --vfs 3 --vfio 1 --no-rdma 2
dev=$SYSFS_PATH/bus/pci/devices
vf0=${FX_VF_BDF[0]}

is "$(basename "$(readlink -f "$dev/$vf0/physfn")")" "$FX_PF_BDF" "VF 0 physfn is the PF"
is "$(basename "$(readlink -f "$dev/$FX_PF_BDF/virtfn0")")" "$vf0" "PF virtfn0 is VF 0"
is "$(basename "$(readlink -f "$dev/$vf0/driver")")" mlx5_core "VF 0 driver is mlx5_core"
ok "VF 0 driver link resolves to the drivers directory" test -d "$dev/$vf0/driver"
is "$(basename "$(readlink -f "$dev/${FX_VF_BDF[1]}/driver")")" vfio-pci "VF 1 is bound to vfio-pci"
ok "VF 1 has no netdev" test ! -e "$dev/${FX_VF_BDF[1]}/net"
is "$(ls "$dev/$vf0/net")" "${FX_VF_IF[0]}" "VF 0 net/ names its host netdev"
is "$(ls "$dev/$vf0/infiniband")" mlx5_1 "VF 0 infiniband/ names its RDMA device"
ok "VF 2 has no RDMA device" test ! -e "$dev/${FX_VF_BDF[2]}/infiniband"
is "$(ls "$dev/$FX_PF_BDF/net")" "$FX_PF" "PF net/ names the PF netdev"
is "$(rdma_visible "")" "mlx5_0 mlx5_1" "the host sees the PF and VF 0 RDMA devices"

pod_new
# A pod-side name no parallel test uses: the host sees it after pod_die.
podif=${P}n1
vf_to_pod 0 "$POD" "$podif"
fx_sync
is "$(ls "$dev/$vf0/net")" "" "a VF netdev in a pod leaves net/ empty"
is "$(link_field "$(vf_link 0 "$POD")" .ifname)" "$podif" "vf_link finds the VF in the pod by ifindex"
rdma_move_by_hand mlx5_1 "" "$POD"
fx_sync
is "$(rdma_visible "$POD")" mlx5_1 "the pod sees the RDMA device moved into it"
is "$(rdma_visible "")" mlx5_0 "the host no longer does"
is "$(ls "$dev/$vf0/infiniband")" "" "an RDMA device in a pod leaves infiniband/ empty"

ip -n "$POD" link set dev "$podif" alias "from-test"
pod_die "$POD"
l=$(vf_link 0)
is "$(link_field "$l" .ifname)" "$podif" "after netns death the VF is back in the host named as in the pod"
is "$(link_field "$l" .ifalias)" from-test "and keeps its alias"
is "$(link_field "$l" '.flags | index("UP") != null')" false "and is down"
is "$(rdma_visible "")" "mlx5_0 mlx5_1" "and its RDMA device is back in the host"
fx_sync
is "$(ls "$dev/$vf0/net")" "$podif" "net/ follows the VF's current name"

done_testing
