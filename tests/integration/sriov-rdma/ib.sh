#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# InfiniBand VFs: GUID from each source set through the PF and taken by a rebind, IPoIB netdev and RDMA device in the pod, all undone; both kernel behaviours.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source-path=SCRIPTDIR source=../libib.sh
. "$(dirname "$0")/../libib.sh"
[ -x "$RDMASIM_DRV" ] || skip_all "rdmasim-drv not built"
# the GUIDs this test gives: their lock files go at exit
ib_guid_locks_go 00112233445566
ib_guid_locks_go 00112233445577

fx_setup_ib --vfs 4 --no-guid 3
sim_ip() {
	env LD_PRELOAD="$RDMASIM_LIB" ip "$@"
}

# ib_round_trip CTX VERSION CONF GUID16: ADD, CHECK (0.4.0+: passes, fails
# once the PF's GUID is changed behind its back), DEL restores ib_state, a
# second DEL succeeds.
ib_round_trip() {
	local ctx=$1 v=$2 c=$3 guid=$4 before g which
	pod_new
	before=$(ib_state)
	cni ADD "$c"
	if ib_added "$ctx" "$guid"; then
		version_ge "$v" 0.4.0 && c=$(with_prev "$c" "$OUT")
		if version_ge "$v" 0.4.0; then
			cni CHECK "$c"
			is "$RC" 0 "$ctx: CHECK passes"
			if [ -n "$guid" ]; then
				g=$(sed 's/../&:/g; s/:$//' <<<"$guid")
				for which in node port; do
					sim_ip link set "$FX_PF" vf "$VF" "${which}_guid" 00:00:00:00:00:00:0b:ad
					cni CHECK "$c"
					is "$(jout .code)" 107 "$ctx: CHECK fails (code 107) once the PF has another $which GUID"
					like "$(jout .msg)" "has $which GUID 00:00:00:00:00:00:0b:ad, not $g" \
						"$ctx: CHECK names the $which GUID, what it is and what it should be"
					sim_ip link set "$FX_PF" vf "$VF" "${which}_guid" "$g"
				done
			fi
		fi
		cni DEL "$c"
		is "$RC" 0 "$ctx: DEL succeeds" || diag "$OUT"
		is "$(ib_state)" "$before" "$ctx: DEL gives the VF back with its old GUIDs and name"
		cni DEL "$c"
		is "$RC" 0 "$ctx: second DEL succeeds"
	fi
	netns_del "$POD"
}

G1=00:11:22:33:44:55:66:01
G1X=0011223344556601
for where in host dev; do
	drv ipoib-netns "$where"
	W="ipoib in $where"
	IPAM=host-local
	for v in 0.3.0 0.3.1 0.4.0 1.0.0 1.1.0; do
		[ "$v" = 1.1.0 ] && { [ -x "$IPPOOL" ] || continue; IPAM=ippool; }
		ib_round_trip "$W $v guid" "$v" "$(conf "$v" ".guid = \"$G1\"")" "$G1X"
	done
	IPAM=host-local
	ib_round_trip "$W args.cni.guid" 1.0.0 "$(conf 1.0.0 ".args = {cni: {guid: \"$G1\"}}")" "$G1X"
	ib_round_trip "$W runtimeConfig.infinibandGUID" 1.0.0 \
		"$(conf 1.0.0 ".runtimeConfig = {infinibandGUID: \"$G1\"} | .guid = \"00:11:22:33:44:55:66:99\"")" \
		"$G1X"
	ib_round_trip "$W no GUID: the VF keeps its own" 1.0.0 "$(conf 1.0.0)" ""
done
drv ipoib-netns host

# udev renames each new netdev of the VF a moment after it appears
# (ib-sriov-cni #51, #217), so its host name is udev's before ADD too
rebind_vf0() {
	sysfs_write unbind mlx5_core "${FX_VF_BDF[0]}" >/dev/null
	sysfs_write bind mlx5_core "${FX_VF_BDF[0]}" >/dev/null
	sleep 0.5
}
for ms in 0 30 150; do
	drv rename-late "$ms"
	rebind_vf0
	is "$(link_field "$(ib_link 0)" .ifname)" "${P}ibp0" "udev after $ms ms: VF 0 is ${P}ibp0 before ADD"
	ib_round_trip "udev renames the new netdev after $ms ms" 1.0.0 "$(conf 1.0.0 ".guid = \"$G1\"")" "$G1X"
done
drv rename-late -1
rebind_vf0

# link_state works on IB, and comes back
pod_new
before=$(ib_state)
c=$(conf 1.0.0 ".guid = \"$G1\" | .link_state = \"enable\"")
cni ADD "$c"
ib_added "link_state" "$G1X"
ok "link_state: the PF has VF 0 enabled" vf_is 0 '.link_state == 1'
cni DEL "$(with_prev "$c" "$OUT")"
is "$(ib_state)" "$before" "link_state: DEL restores it with the GUIDs"
netns_del "$POD"

# DEL in the hard cases
pod_new
before=$(ib_state)
c=$(conf 1.0.0 ".guid = \"$G1\"")
cni ADD "$c"
ib_added "pod died" "$G1X"
ib_pod_die "$POD"
cni DEL "$c"
is "$RC" 0 "DEL after the pod netns died succeeds"
is "$(ib_state)" "$before" "DEL after the pod netns died restores the GUIDs and the name"

# the pod died and its DEL never came: the next pod's ADD on the VF
# finishes the undo first (old GUIDs back, a rebind), then gives it the new
# GUID. VF 1 is rebound first and unbound while the pod is dead, so the
# undo's rebind gives VF 0 another RDMA device name than the one it had.
for i in 1 0; do sysfs_write unbind mlx5_core "${FX_VF_BDF[i]}" >/dev/null; done
for i in 1 0; do sysfs_write bind mlx5_core "${FX_VF_BDF[i]}" >/dev/null; done
pod_new
before=$(CID='' ib_state)
cni ADD "$c"
ib_added "dead pod, no DEL" "$G1X"
ib_pod_die "$POD"
was=$(ib_rdma 0)
sysfs_write unbind mlx5_core "${FX_VF_BDF[1]}" >/dev/null
pod_new
c2=$(conf 1.0.0 '.guid = "00:11:22:33:44:55:66:02"')
cni ADD "$c2"
ib_added "the next pod's ADD after a dead pod without DEL" 0011223344556602
ok "the undo's rebind renamed VF 0's RDMA device ($was, now $(rdma_visible "$POD"))" \
	test "$(rdma_visible "$POD")" != "$was"
cni DEL "$(with_prev "$c2" "$OUT")"
is "$RC" 0 "the next pod's DEL succeeds"
sysfs_write bind mlx5_core "${FX_VF_BDF[1]}" >/dev/null
is "$(nonames "$(CID='' ib_state)")" "$(nonames "$before")" "after it the VFs have their first GUIDs"
netns_del "$POD"

pod_new
name=$(link_field "$(ib_link 0)" .ifname)
c=$(conf 1.0.0 ".guid = \"$G1\" | .logLevel = \"warning\"")
cni ADD "$c"
ib_added "no state" "$G1X"
rm -rf "$TMP/state"
cni DEL "$c"
is "$RC" 0 "DEL without state succeeds"
is "$(link_field "$(ib_link 0)" .ifname)" "$name" "DEL without state: the VF's netdev is back in the host as $name"
like " $(rdma_visible "") " " $(ib_rdma 0) " "DEL without state: its RDMA device is back in the host"
is "$(ib_sysfs_guid 0)" 0011:2233:4455:6601 "DEL without state: the old GUID is unknown, it keeps the pod's"
ok "DEL without state: the log says so" grep -q "GUID before ADD is unknown" "$TMP/stderr"
netns_del "$POD"
# back to the firmware's GUIDs for what follows
sim_ip link set "$FX_PF" vf 0 node_guid "$(sed 's/../&:/g; s/:$//' <<<"${FX_VF_NODE_GUID[0]}")"
sim_ip link set "$FX_PF" vf 0 port_guid "$(sed 's/../&:/g; s/:$//' <<<"${FX_VF_PORT_GUID[0]}")"
sysfs_write unbind mlx5_core "${FX_VF_BDF[0]}" >/dev/null
sysfs_write bind mlx5_core "${FX_VF_BDF[0]}" >/dev/null

# failures after the GUID was written
drv fail-probe "${FX_VF_BDF[0]}"
ib_add_fails 100 "failed to rebind VF ${FX_VF_BDF[0]}" "rebind fails" "$(conf 1.0.0 ".guid = \"$G1\"")"
drv hang-probe "${FX_VF_BDF[0]}"
ib_add_fails 100 "did not come back after its driver was rebound" "the rebound VF never comes back" \
	"$(conf 1.0.0 ".guid = \"$G1\"")"
# the RDMA move fails after the GUID write and the rebind, as
# rdma_dev_change_netns() does when device_rename() fails once the device
# was disabled: the device stays in the host and ipoib makes its netdev again
for where in host dev; do
	drv ipoib-netns "$where"
	drv fail-move "${FX_VF_BDF[0]}" 17
	ib_add_fails 105 "of VF ${FX_VF_BDF[0]} into the pod netns" \
		"ipoib in $where: the RDMA move fails (EEXIST)" "$(conf 1.0.0 ".guid = \"$G1\"")"
	like "$(jout .msg)" ": File exists" "ipoib in $where: the RDMA move fails: the message names the cause"
done
drv ipoib-netns host
# shellcheck disable=SC2016 # expanded by the fake plugin, not here
fake_ipam failipam 'cat >/dev/null; [ "$CNI_COMMAND" != ADD ] || { echo "{\"code\": 11, \"msg\": \"no\"}"; exit 1; }'
ib_add_fails 11 "failipam" "IPAM fails after the GUID was set" \
	"$(conf 1.0.0 ".guid = \"$G1\" | .ipam = {type: \"failipam\"}")"
CNI_PATH_EXTRA=

# refused before any change
VF=1
pod_new
c1=$(conf 1.0.0 ".guid = \"$G1\"")
cni ADD "$c1"
ib_added "VF 1 holds $G1" "$G1X"
pod1=$POD ns1=$NETNS cid1=$CID
VF=0
ib_add_fails 7 "is already held by VF ${FX_VF_BDF[1]} (VF 1 of PF $FX_PF)" "a GUID VF 1 holds" "$(conf 1.0.0 ".guid = \"$G1\"")"
POD=$pod1 NETNS=$ns1 CID=$cid1 VF=1
cni DEL "$(with_prev "$c1" "$OUT")"
is "$RC" 0 "VF 1 DEL succeeds"
netns_del "$POD"
VF=3
ib_add_fails 7 "infiniband-guid" "VF 3 has an all-zero GUID and none is given" "$(conf 1.0.0)"
ib_add_fails 7 "invalid guid" "an all-ones GUID" "$(conf 1.0.0 '.guid = "ff:ff:ff:ff:ff:ff:ff:ff"')"
VF=0
for kv in 'vlan=100' 'spoofchk="on"' 'trust="off"' 'mac="02:00:00:00:00:01"'; do
	key=${kv%%=*}
	ib_add_fails 7 "$key is an Ethernet setting" "$key on an IB VF" \
		"$(conf 1.0.0 ".guid = \"$G1\" | .$key = ${kv#*=}")"
done
# without a vlan the config check names them first
for kv in 'vlanQoS=1' 'vlanProto="802.1ad"'; do
	key=${kv%%=*}
	ib_add_fails 7 "$key" "$key on an IB VF" "$(conf 1.0.0 ".guid = \"$G1\" | .$key = ${kv#*=}")"
done
ib_add_fails 7 "runtimeConfig.mac is an Ethernet setting" "runtimeConfig.mac on an IB VF" \
	"$(conf 1.0.0 ".runtimeConfig = {mac: \"02:00:00:00:00:01\"}")"

# ib-sriov-cni's NAD (examples/operator/ib/4-*) with only type changed, as
# Multus fills it in: deviceID, ib-kubernetes's args.cni
nad=$(sed -n '/config: |/,$p' "$T_SRC/examples/operator/ib/4-net-attach-def-ib-kubernetes.yaml" | tail -n +2)
c=$(jq -c --arg bdf "${FX_VF_BDF[0]}" --arg d "$TMP/state" --arg g "$G1" --argjson ipam "$(ipam_conf)" \
	'.type = "sriov-rdma" | .deviceID = $bdf | .dataDir = $d | .ipam = $ipam
	| .args = {cni: {guid: $g, "mellanox.infiniband.app": "configured"}}' <<<"$nad")
ib_round_trip "ib-sriov-cni NAD" 0.3.1 "$c" "$G1X"

# VF 3's GUIDs were all zeros before ADD: they are known (the state has
# them), so DEL sets the zeros again through the PF (mlx5 takes any value)
# and rebinds; the VF uses them again and has its host name back
VF=3
zeros=0000000000000000
pf_zeros() {
	vf_is 3 ".node_guid == \"$zeros\" and .port_guid == \"$zeros\""
}
pod_new
before=$(ib_state)
name=$(link_field "$(ib_link 3)" .ifname)
c=$(conf 1.0.0 ".guid = \"00:11:22:33:44:55:66:03\"")
cni ADD "$c"
ib_added "VF 3, all-zero GUIDs before ADD" 0011223344556603
idx=$(ib_rdma_index 3)
cni DEL "$(with_prev "$c" "$OUT")"
is "$RC" 0 "VF 3, all-zero GUIDs before ADD: DEL succeeds" || diag "$OUT"
ok "VF 3, all-zero GUIDs before ADD: DEL sets both GUIDs to zero through the PF" pf_zeros
is "$(ib_sysfs_guid 3)" 0000:0000:0000:0000 \
	"VF 3, all-zero GUIDs before ADD: after DEL the VF uses the zero GUID again (it was rebound)"
ok "VF 3, all-zero GUIDs before ADD: its RDMA device is a new one ($idx in the pod, $(ib_rdma_index 3) now)" \
	test "$(ib_rdma_index 3)" != "$idx"
is "$(link_field "$(ib_link 3)" .ifname)" "$name" "VF 3, all-zero GUIDs before ADD: DEL gives it back as $name"
is "$(ib_state)" "$before" "VF 3, all-zero GUIDs before ADD: DEL gives the VF back as it was"
netns_del "$POD"
# the same undone by ADD's rollback: the RDMA move fails after the GUID
# write and the rebind (the VF used 00:11:22:33:44:55:66:03 then)
drv fail-move "${FX_VF_BDF[3]}" 17
ib_add_fails 105 "of VF ${FX_VF_BDF[3]} into the pod netns" \
	"VF 3, all-zero GUIDs before ADD: the RDMA move fails" "$c"
ok "VF 3, all-zero GUIDs before ADD: the rollback sets both GUIDs to zero through the PF" pf_zeros
is "$(ib_sysfs_guid 3)" 0000:0000:0000:0000 \
	"VF 3, all-zero GUIDs before ADD: after the rollback the VF uses the zero GUID again (it was rebound)"
is "$(link_field "$(ib_link 3)" .ifname)" "$name" "VF 3, all-zero GUIDs before ADD: the rollback gives it back as $name"
# DEL without state does not know them: the VF keeps the pod's GUID
pod_new
c=$(conf 1.0.0 ".guid = \"00:11:22:33:44:55:66:03\" | .logLevel = \"warning\"")
cni ADD "$c"
ib_added "VF 3, no state" 0011223344556603
rm -rf "$TMP/state"
cni DEL "$c"
is "$RC" 0 "VF 3, DEL without state succeeds"
is "$(ib_sysfs_guid 3)" 0011:2233:4455:6603 "VF 3, DEL without state: it keeps the pod's GUID"
ok "VF 3, DEL without state: the PF keeps it too" pf_guid_is 3 0011223344556603
ok "VF 3, DEL without state: the log says its GUID before ADD is unknown" \
	grep -q "VF ${FX_VF_BDF[3]}: no state file: its GUID before ADD is unknown" "$TMP/stderr"
is "$(link_field "$(ib_link 3)" .ifname)" "$name" "VF 3, DEL without state: it is back as $name"
netns_del "$POD"
# back to the zeros for what follows
sim_ip link set "$FX_PF" vf 3 node_guid 00:00:00:00:00:00:00:00
sim_ip link set "$FX_PF" vf 3 port_guid 00:00:00:00:00:00:00:00
sysfs_write unbind mlx5_core "${FX_VF_BDF[3]}" >/dev/null
sysfs_write bind mlx5_core "${FX_VF_BDF[3]}" >/dev/null
VF=0

# concurrent ADDs and DELs on VFs 0-2 of the PF, a few rounds: the DELs'
# rebinds hand out the kernel's ib<N> in whatever order they come, and each
# VF still ends with the name it had before ADD
before=$(CID='' ib_state)
pids=() pods=() conf_of=()
for round in 1 2 3; do
	for i in 0 1 2; do
		pod_new
		pods[i]=$POD
		VF=$i
		conf_of[i]=$(conf 1.0.0 ".guid = \"00:11:22:33:44:55:77:0$i\"")
		( cni ADD "${conf_of[i]}"; echo "$RC" >"$TMP/rc$i"; echo "$OUT" >"$TMP/out$i" ) &
		pids[i]=$!
		ids[i]=$CID
	done
	for i in 0 1 2; do
		wait "${pids[i]}"
		is "$(cat "$TMP/rc$i")" 0 "round $round: concurrent ADD $i succeeds" || diag "$(cat "$TMP/out$i")"
		POD=${pods[i]} VF=$i
		is "$(ip -n "$POD" -j link show dev "$IFNAME" 2>/dev/null | jq -r '.[0].link_type')" \
			infiniband "round $round: concurrent ADD $i: the pod has its IPoIB link"
		is "$(rdma_visible "$POD")" "$(ib_rdma "$i")" \
			"round $round: concurrent ADD $i: the pod has VF $i's RDMA device"
		ok "round $round: concurrent ADD $i: the PF gave VF $i its GUID" pf_guid_is "$i" \
			"001122334455770$i"
	done
	for i in 0 1 2; do
		# shellcheck disable=SC2030 # each DEL's own pod, in its subshell only
		( POD=${pods[i]} NETNS=/run/netns/${pods[i]} CID=${ids[i]} VF=$i
		  cni DEL "$(with_prev "${conf_of[i]}" "$(cat "$TMP/out$i")")"; echo "$RC" >"$TMP/rc$i"
		  echo "$OUT" >"$TMP/out$i" ) &
		pids[i]=$!
	done
	for i in 0 1 2; do
		wait "${pids[i]}"
		is "$(cat "$TMP/rc$i")" 0 "round $round: concurrent DEL $i succeeds" || diag "$(cat "$TMP/out$i")"
		netns_del "${pods[i]}"
	done
	is "$(CID='' ib_state)" "$before" \
		"round $round: after the concurrent DELs every VF has its old GUIDs, name and RDMA device"
done

# a host name another netdev took for good while the VF was in a pod: DEL
# waits for it, then gives the VF the kernel's next ib<N> and says so
VF=0
pod_new
name=$(link_field "$(ib_link 0)" .ifname)
c=$(conf 1.0.0 ".guid = \"$G1\" | .logLevel = \"warning\"")
cni ADD "$c"
ib_added "host name taken" "$G1X"
ok "host name taken: a veth takes $name" ip link add "$name" type veth peer name "${P}squat"
cni DEL "$(with_prev "$c" "$OUT")"
is "$RC" 0 "host name taken: DEL succeeds" || diag "$OUT"
now=$(link_field "$(ib_link 0)" .ifname)
like "$now" ib "host name taken: VF 0 is back in the host as the kernel's $now"
ok "host name taken: it is not $name" test "$now" != "$name"
ok "host name taken: the log says why" grep -q "its host name $name is another netdev's" "$TMP/stderr"
ip link del "$name"
# shellcheck disable=SC2031 # set by pod_new above, not by the subshells before
netns_del "$POD"

done_testing
