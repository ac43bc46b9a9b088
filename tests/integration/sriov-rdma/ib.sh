#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# InfiniBand VFs: GUID from each source set through the PF and taken by a rebind, IPoIB netdev and RDMA device in the pod, all undone; both kernel behaviours.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source-path=SCRIPTDIR source=../libib.sh
. "$(dirname "$0")/../libib.sh"
[ -x "$RDMASIM_DRV" ] || skip_all "rdmasim-drv not built"

fx_setup_ib --vfs 4 --no-guid 3
sim_ip() {
	env LD_PRELOAD="$RDMASIM_LIB" ip "$@"
}

# ib_state: what an undone ADD must leave as it was: per VF its host netdev
# name (not its ifindex: every rebind makes a new netdev), the GUIDs it uses,
# whether the host sees its RDMA device; the PF's GUIDs per VF; IPAM's hold.
ib_state() {
	local i l fw=()
	for ((i = 0; i < FX_NVFS; i++)); do
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
	jq -r --args '$ARGS.positional as $fw | .pf.vfs | to_entries[]
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

# ib_round_trip CTX VERSION CONF GUID16: ADD, CHECK (0.4.0+: passes, fails
# once the PF's GUID is changed behind its back), DEL restores ib_state, a
# second DEL succeeds.
ib_round_trip() {
	local ctx=$1 v=$2 c=$3 guid=$4 before
	pod_new
	before=$(ib_state)
	cni ADD "$c"
	if ib_added "$ctx" "$guid"; then
		version_ge "$v" 0.4.0 && c=$(with_prev "$c" "$OUT")
		if version_ge "$v" 0.4.0; then
			cni CHECK "$c"
			is "$RC" 0 "$ctx: CHECK passes"
			if [ -n "$guid" ]; then
				sim_ip link set "$FX_PF" vf "$VF" node_guid 00:00:00:00:00:00:0b:ad
				cni CHECK "$c"
				is "$(jout .code)" 107 "$ctx: CHECK fails (code 107) once the PF has another GUID"
				like "$(jout .msg)" "not $(sed 's/../&:/g; s/:$//' <<<"$guid")" \
					"$ctx: CHECK names the GUID it wants"
				sim_ip link set "$FX_PF" vf "$VF" node_guid "$(sed 's/../&:/g; s/:$//' <<<"$guid")"
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
	is "$(link_field "$(ib_link 0)" .ifname)" "${P}ib0" "udev after $ms ms: VF 0 is ${P}ib0 before ADD"
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

# ib_add_fails CODE TEXT DESC CONF: ADD fails with CODE and TEXT, and leaves ib_state.
ib_add_fails() {
	local before
	pod_new
	before=$(ib_state)
	cni ADD "$4"
	is "$RC $(jout .code)" "1 $1" "$3: ADD fails with code $1"
	like "$(jout .msg)" "$2" "$3: the message says \"$2\""
	is "$(ib_state)" "$before" "$3: the VF keeps its GUIDs, netdev and RDMA device in the host"
	netns_del "$POD"
}

# failures after the GUID was written
drv fail-probe "${FX_VF_BDF[0]}"
ib_add_fails 100 "failed to rebind VF ${FX_VF_BDF[0]}" "rebind fails" "$(conf 1.0.0 ".guid = \"$G1\"")"
drv hang-probe "${FX_VF_BDF[0]}"
ib_add_fails 100 "did not come back after its driver was rebound" "the rebound VF never comes back" \
	"$(conf 1.0.0 ".guid = \"$G1\"")"
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
ib_add_fails 7 "is already held by VF 1" "a GUID VF 1 holds" "$(conf 1.0.0 ".guid = \"$G1\"")"
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

# concurrent ADDs and DELs on several VFs of the PF
before=$(CID='' ib_state)
pids=() pods=() conf_of=()
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
	is "$(cat "$TMP/rc$i")" 0 "concurrent ADD $i succeeds" || diag "$(cat "$TMP/out$i")"
	POD=${pods[i]} VF=$i
	is "$(ip -n "$POD" -j link show dev "$IFNAME" 2>/dev/null | jq -r '.[0].link_type')" infiniband \
		"concurrent ADD $i: the pod has its IPoIB link"
	is "$(rdma_visible "$POD")" "$(ib_rdma "$i")" "concurrent ADD $i: the pod has VF $i's RDMA device"
	ok "concurrent ADD $i: the PF gave VF $i its GUID" pf_guid_is "$i" "001122334455770$i"
done
for i in 0 1 2; do
	( POD=${pods[i]} NETNS=/run/netns/${pods[i]} CID=${ids[i]} VF=$i
	  cni DEL "$(with_prev "${conf_of[i]}" "$(cat "$TMP/out$i")")"; echo "$RC" >"$TMP/rc$i"
	  echo "$OUT" >"$TMP/out$i" ) &
	pids[i]=$!
done
for i in 0 1 2; do
	wait "${pids[i]}"
	is "$(cat "$TMP/rc$i")" 0 "concurrent DEL $i succeeds" || diag "$(cat "$TMP/out$i")"
	netns_del "${pods[i]}"
done
# the kernel's ib<N> names go to whichever netdev comes first: the set is
# the same, not always who has which
is "$(nonames "$(CID='' ib_state)")" "$(nonames "$before")" \
	"after the concurrent DELs every VF has its old GUIDs, RDMA device in the host"
# names: with the kernel's ib<N> (no udev here) concurrent rebinds race for
# them, and a name another VF's new netdev holds at that moment is left to
# it: each VF has a netdev in the host, not always the name it had
for i in 0 1 2; do
	ok "after the concurrent DELs VF $i has its IPoIB netdev in the host" test -n "$(ib_link "$i")"
done

done_testing
