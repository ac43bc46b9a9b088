#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ADD / CHECK / DEL of a VF netdev (rdma: false) in every CNI version and IPAM, and DEL in the hard cases.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

fx_setup --vfs 1

# del_case DESC BREAK-COMMAND: ADD, break something, DEL still restores the host.
del_case() {
	local desc=$1 c before
	pod_new
	before=$(host_state)
	c=$(conf 1.0.0 '.rdma = false')
	cni ADD "$c"
	if is "$RC" 0 "$desc: ADD succeeds"; then
		c=$(with_prev "$c" "$OUT")
		"$2"
		cni DEL "$c"
		is "$RC" 0 "$desc: DEL succeeds"
		is "$(host_state)" "$before" "$desc: the VF is back as it was, IP released"
		cni DEL "$c"
		is "$RC" 0 "$desc: second DEL succeeds"
	fi
	[ -e "$NETNS" ] && netns_del "$POD"
}

# Run through del_case:
# shellcheck disable=SC2317
wipe_state() { rm -rf "$TMP/state"; }
# shellcheck disable=SC2317
kill_pod() { pod_die "$POD"; }
# The node rebooted: the pod is gone and the VF is created anew, under its
# original name and with no alias; the state file and the IP reservation,
# on disk, survived.
# shellcheck disable=SC2317
reboot_node() {
	local name
	pod_die "$POD"
	name=$(link_field "$(vf_link 0)" .ifname)
	ip link set dev "$name" name "${FX_VF_IF[0]}" &&
		ip link set dev "${FX_VF_IF[0]}" alias ""
}

ipams=(host-local)
[ -x "$IPPOOL" ] && ipams+=(ippool)
for IPAM in "${ipams[@]}"; do
	for v in 0.3.0 0.3.1 0.4.0 1.0.0 1.1.0; do
		# Debian's host-local speaks CNI up to 1.0.0.
		[ "$IPAM" = host-local ] && [ "$v" = 1.1.0 ] && continue
		T_CTX="$v $IPAM" round_trip "$v" no "$(conf "$v" '.rdma = false')"
	done
done
[ -x "$IPPOOL" ] || skip "1.1.0 round trip: ippool not built (host-local stops at 1.0.0)"
IPAM=host-local

ip link set dev "${FX_VF_IF[0]}" up
T_CTX="VF up before ADD" round_trip 1.0.0 no "$(conf 1.0.0 '.rdma = false')"
ip link set dev "${FX_VF_IF[0]}" down

IPAM_SUBNETS=(192.0.2.0/24 2001:db8::/64)
T_CTX="dual stack" round_trip 1.0.0 no "$(conf 1.0.0 '.rdma = false')"
IPAM_SUBNETS=(192.0.2.0/24)

# An IPAM type not known to only keep books (dhcp talks through the link)
# runs while the link is in the pod: after the move on ADD, before the move
# back on DEL. It logs where it found the link.
# shellcheck disable=SC2016 # expanded by the fake plugin, not here
fake_ipam linkipam 'cat >/dev/null
where=not-in-pod
nsenter --net="$CNI_NETNS" ip link show "$CNI_IFNAME" >/dev/null 2>&1 && where=in-pod
echo "$CNI_COMMAND $where" >>"$0.log"
[ "$CNI_COMMAND" != ADD ] || echo "{\"cniVersion\": \"1.0.0\", \"ips\": [{\"address\": \"192.0.2.77/24\"}]}"'
pod_new
c=$(conf 1.0.0 '.rdma = false | .ipam = {type: "linkipam"}')
cni ADD "$c"
T_CTX="IPAM that needs the link" assert_added 1.0.0 no
cni DEL "$(with_prev "$c" "$OUT")"
is "$RC" 0 "IPAM that needs the link: DEL succeeds"
is "$(paste -sd ' ' "$TMP/bin/linkipam.log")" "ADD in-pod DEL in-pod" \
	"IPAM that needs the link: it found the link in the pod on ADD and on DEL"
netns_del "$POD"

# The runtime kills an ADD half-way (its timeout): here while IPAM runs,
# after the move. The state was saved before the first change, so DEL still
# knows what only the host side showed: the VF was up.
# shellcheck disable=SC2016 # expanded by the fake plugin, not here
fake_ipam killer 'cat >/dev/null
[ "$CNI_COMMAND" != ADD ] || kill -9 "$PPID"'
pod_new
ip link set dev "${FX_VF_IF[0]}" up
before=$(host_state)
c=$(conf 1.0.0 '.rdma = false | .ipam = {type: "killer"}')
cni ADD "$c"
is "$RC" 137 "killed ADD: the plugin died by SIGKILL"
is "$(link_field "$(vf_link 0 "$POD")" .ifname)" "$IFNAME" "killed ADD: the VF had moved into the pod"
cni DEL "$c"
is "$RC" 0 "killed ADD: DEL succeeds"
is "$(host_state)" "$before" "killed ADD: DEL puts the VF back as it was, up again"
nok "killed ADD: DEL removed the state" state_holds "$CID"
netns_del "$POD"
ip link set dev "${FX_VF_IF[0]}" down
CNI_PATH_EXTRA=

# The runtime kills ADD while the IPAM plugin it started runs on (here a
# host-local stand-in that takes 1 s to record its allocation). The DEL
# right after must wait for it, or it releases nothing and the late
# allocation leaks.
# shellcheck disable=SC2016 # expanded by the fake plugin, not here
fake_ipam host-local 'cat >/dev/null
case $CNI_COMMAND in
ADD) kill -9 "$PPID"; sleep 1; echo "$CNI_CONTAINERID" >>"$0.held" ;;
DEL) touch "$0.held"; grep -v -- "$CNI_CONTAINERID" "$0.held" >"$0.new"; mv "$0.new" "$0.held" ;;
esac'
pod_new
c=$(conf 1.0.0 '.rdma = false')
cni ADD "$c"
is "$RC" 137 "orphaned IPAM: the plugin died by SIGKILL"
cni DEL "$c"
is "$RC" 0 "orphaned IPAM: DEL succeeds"
for ((i = 0; i < 50; i++)); do
	pgrep -f "$TMP/bin/host-local" >/dev/null || break
	sleep 0.1
done
is "$(cat "$TMP/bin/host-local.held")" "" "orphaned IPAM: DEL waited for the IPAM plugin and released its address"
netns_del "$POD"
CNI_PATH_EXTRA=

del_case "DEL with the plugin's dataDir wiped" wipe_state
del_case "DEL after the pod netns died" kill_pod
del_case "DEL after a node reboot" reboot_node

cni VERSION '{"cniVersion": "1.0.0"}'
is "$(jout '[.supportedVersions[] | select(IN("0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0"))]
	| sort | join(" ")')" "0.3.0 0.3.1 0.4.0 1.0.0 1.1.0" "VERSION lists 0.3.0 0.3.1 0.4.0 1.0.0 1.1.0"

done_testing
