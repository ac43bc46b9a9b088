#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The simulated InfiniBand VF behaves as mlx5/ipoib do: GUIDs taken at the next probe, rebind and RDMA moves recreate the netdev.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source-path=SCRIPTDIR source=../libib.sh
. "$(dirname "$0")/../libib.sh"
[ -x "$RDMASIM_DRV" ] || skip_all "rdmasim-drv not built"

fx_setup_ib --vfs 3
dev=$SYSFS_PATH/bus/pci/devices
vf0=${FX_VF_BDF[0]}
sim_ip() {
	env LD_PRELOAD="$RDMASIM_LIB" ip "$@"
}
guid_text() {
	sed 's/../&:/g; s/:$//' <<<"$1"
}
sysfs_guid() {
	# shellcheck disable=SC2001 # groups, not a fixed string
	sed 's/\(....\)\(....\)\(....\)\(....\)/\1:\2:\3:\4/' <<<"$1"
}

l=$(ib_link 0)
name=$(link_field "$l" .ifname)
idx=$(link_field "$l" .ifindex)
ok "VF 0's IPoIB netdev is named ${P}ib<N>, the kernel's ib<N> with the run's prefix ($name)" grep -qxE "${P}ib[0-9]+" <<<"$name"
is "$(link_field "$l" .link_type)" infiniband "its link type is infiniband (ARPHRD_INFINIBAND)"
is "$(ls "$dev/$vf0/net")" "$name" "net/ names it"
is "$(cat "$dev/$vf0/net/$name/type")" 32 "its sysfs type is 32"
rdma0=$(ib_rdma 0)
index0=$(ib_rdma_index 0)
is "$(ls "$dev/$vf0/infiniband")" "$rdma0" "infiniband/ names its RDMA device"
is "$(cat "$dev/$vf0/infiniband/$rdma0/ports/1/link_layer")" InfiniBand "its port's link layer is InfiniBand"
is "$(ib_sysfs_guid 0)" "$(sysfs_guid "${FX_VF_NODE_GUID[0]}")" "its node_guid is the firmware's"
like " $(rdma_visible "") " " $rdma0 " "the host sees $rdma0"

# GUIDs set through the PF wait for the next probe
ok "ip link set PF vf 0 node_guid" sim_ip link set "$FX_PF" vf 0 node_guid "$(guid_text 00112233445566aa)"
ok "ip link set PF vf 0 port_guid" sim_ip link set "$FX_PF" vf 0 port_guid "$(guid_text 00112233445566bb)"
is "$(ib_sysfs_guid 0)" "$(sysfs_guid "${FX_VF_NODE_GUID[0]}")" "the bound VF still uses its old node GUID"

is "$(sysfs_write unbind mlx5_core "$vf0")" "" "unbind VF 0"
is "$(ls "$dev/$vf0/net")" "" "unbind: net/ is empty"
is "$(ls "$dev/$vf0/infiniband")" "" "unbind: infiniband/ is empty"
ok "unbind: no driver link" test ! -e "$dev/$vf0/driver"
ok "unbind: the netdev is gone" test -z "$(ip -j link show | jq --argjson i "$idx" '.[] | select(.ifindex == $i)')"
unlike " $(rdma_visible "") " " $rdma0 " "unbind: the RDMA device is gone"
like "$(sysfs_write unbind mlx5_core "$vf0")" "No such device" "a second unbind: ENODEV"
like "$(sysfs_write bind vfio-pci "$vf0")" "No such device" "bind to a driver that does not match: ENODEV"
is "$(sysfs_write bind mlx5_core "$vf0")" "" "bind VF 0"
like "$(sysfs_write bind mlx5_core "$vf0")" "Device or resource busy" "a second bind: EBUSY"
l=$(ib_link 0)
ok "bind: a new netdev (ifindex $(link_field "$l" .ifindex), was $idx)" \
	test "$(link_field "$l" .ifindex)" -ne "$idx"
is "$(ls "$dev/$vf0/net")" "$(link_field "$l" .ifname)" "bind: net/ names the new netdev"
ok "bind: a new RDMA device index ($(ib_rdma_index 0), was $index0)" test "$(ib_rdma_index 0)" -ne "$index0"
is "$(basename "$(readlink -f "$dev/$vf0/driver")")" mlx5_core "bind: the driver link is back"
is "$(ib_sysfs_guid 0)" 0011:2233:4455:66aa "bind: the VF uses the node GUID the PF set"
is "$(cat "$dev/$vf0/infiniband/$(ib_rdma 0)/ports/1/gids/0")" \
	fe80:0000:0000:0000:0011:2233:4455:66bb "bind: its port GID carries the port GUID the PF set"

# a rebind of another VF meanwhile takes the lowest free RDMA device name
rdma1=$(ib_rdma 1)
sysfs_write unbind mlx5_core "${FX_VF_BDF[1]}" >/dev/null
sysfs_write unbind mlx5_core "$vf0" >/dev/null
sysfs_write bind mlx5_core "$vf0" >/dev/null
is "$(ib_rdma 0)" "$(printf '%s\n' "$rdma0" "$rdma1" | sort -V | head -n 1)" \
	"names are reused: VF 0 gets the lowest free one"
sysfs_write bind mlx5_core "${FX_VF_BDF[1]}" >/dev/null
ok "and VF 1 another" test "$(ib_rdma 1)" != "$(ib_rdma 0)"

for where in host dev; do
	drv ipoib-netns "$where"
	pod_new
	c="ipoib-netns $where"
	l=$(ib_link 0)
	idx=$(link_field "$l" .ifindex)
	ip link set dev "$(link_field "$l" .ifname)" netns "$POD"
	ok "$c: the netdev moved into the pod" test -n "$(ib_link 0 "$POD")"
	rdma_move_by_hand "$(ib_rdma 0)" "" "$POD"
	is "$(rdma_visible "$POD")" "$(ib_rdma 0)" "$c: the pod sees the RDMA device"
	fx_sync
	if [ "$where" = host ]; then
		is "$(ib_link 0 "$POD")" "" "$c: the RDMA move destroyed the netdev in the pod"
		l=$(ib_link 0)
		ok "$c: and recreated it in the host" test -n "$l"
		is "$(ls "$dev/$vf0/net")" "$(link_field "$l" .ifname)" "$c: net/ names it"
	else
		is "$(ib_link 0)" "" "$c: no netdev in the host"
		l=$(ib_link 0 "$POD")
		ok "$c: the RDMA move recreated the netdev in the pod" test -n "$l"
		ok "$c: a new one (ifindex $(link_field "$l" .ifindex) in the pod)" \
			test "$(link_field "$l" .ifname)" != "$IFNAME"
		is "$(ls "$dev/$vf0/net")" "" "$c: net/ is empty"
	fi
	ib_pod_die "$POD"
	fx_sync
	ok "$c: after the pod netns died the netdev is in the host" test -n "$(ib_link 0)"
	like " $(rdma_visible "") " " $(ib_rdma 0) " "$c: and the RDMA device"
done

# unbind while the netdev is in a pod: it dies there
pod_new
ip link set dev "$(link_field "$(ib_link 0)" .ifname)" netns "$POD"
sysfs_write unbind mlx5_core "$vf0" >/dev/null
is "$(ip -n "$POD" -j link show | jq '[.[] | select(.link_type == "infiniband")] | length')" 0 \
	"unbind destroys the netdev inside the pod"
sysfs_write bind mlx5_core "$vf0" >/dev/null
ok "bind brings it back in the host" test -n "$(ib_link 0)"
netns_del "$POD"

# udev's late rename
drv rename-late 300
sysfs_write unbind mlx5_core "$vf0" >/dev/null
sysfs_write bind mlx5_core "$vf0" >/dev/null
ok "late rename: first named ${P}ib<N>" grep -qxE "${P}ib[0-9]+" <<<"$(link_field "$(ib_link 0)" .ifname)"
sleep 1
is "$(link_field "$(ib_link 0)" .ifname)" "${P}ibp0" "late rename: then renamed"
is "$(ls "$dev/$vf0/net")" "${P}ibp0" "late rename: net/ follows"

done_testing
