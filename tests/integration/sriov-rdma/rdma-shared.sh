#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# RDMA in shared netns mode: a NAD without "rdma" (sriov-cni's) attaches the netdev and leaves the RDMA device in the host; "rdma": true is refused with the fix.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

# Debian's host-local does not speak CNI 1.1.0 (GC).
[ -x "$IPPOOL" ] || skip_all "ippool not built"
IPAM=ippool
fx_setup --vfs 2 --shared --vf-info
RDMA0=${FX_VF_RDMA[0]}
# the device-info directory (its files this run's, $P-*; the directories
# it had to make go at exit when empty)
DI=/var/run/k8s.cni.cncf.io/devinfo/cni
made=()
for d in /var/run/k8s.cni.cncf.io /var/run/k8s.cni.cncf.io/devinfo "$DI"; do
	[ -d "$d" ] || made=("$d" "${made[@]}")
done
devinfo_cleanup() {
	rm -f "$DI/$P"-*
	[ ${#made[@]} -eq 0 ] || rmdir "${made[@]}" 2>/dev/null
}
T_AT_EXIT+=(devinfo_cleanup)
mkdir -p "$DI"

# left_in_host CTX: the VF's netdev is in the pod, its RDMA device where it
# was: visible from the host and from the pod, as in shared mode every device is.
left_in_host() {
	like " $(rdma_visible "") " " $RDMA0 " "$1: the host still sees $RDMA0"
	like " $(rdma_visible "$POD") " " $RDMA0 " "$1: the pod sees $RDMA0 (shared mode)"
	is "$(jq -r --arg d "$RDMA0" '.devices[] | select(.name == $d) | .netns' "$RDMA_SIM_STATE")" \
		host "$1: $RDMA0 was not moved"
}

# ---- a sriov-cni NAD, only type changed: no rdma key -----------------------------
c=$(conf 1.1.0 '.vlan = 100 | .logLevel = "warning"')
pod_new
before=$(host_state)
cni ADD "$(jq -c --arg f "$DI/$P-a.json" '.runtimeConfig.CNIDeviceInfoFile = $f' <<<"$c")"
T_CTX="sriov-cni NAD" assert_added 1.1.0 no
left_in_host "sriov-cni NAD"
like "$(cat "$TMP/stderr")" "shared netns mode: RDMA device $RDMA0 of VF ${FX_VF_BDF[0]} stays in the host netns" \
	"sriov-cni NAD: a warning names the mode and the device"
like "$(cat "$TMP/stderr")" "rdma system set netns exclusive" "sriov-cni NAD: the warning names the fix"
is "$(grep -c 'shared netns mode' "$TMP/stderr")" 1 "sriov-cni NAD: warned once"
is "$(jq -r '.pci."rdma-device"' "$DI/$P-a.json")" "$RDMA0" \
	"sriov-cni NAD: the device-info file names the RDMA device"
ok "sriov-cni NAD: the PF gave the VF VLAN 100" vf_is 0 '.vlan == 100'
cp=$(with_prev "$c" "$OUT")
cni CHECK "$cp"
is "$RC" 0 "sriov-cni NAD: CHECK passes"
cni DEL "$cp"
is "$RC" 0 "sriov-cni NAD: DEL succeeds" || diag "$OUT"
is "$(host_state)" "$before" "sriov-cni NAD: DEL puts the VF back as it was and releases the IP"
cni DEL "$cp"
is "$RC" 0 "sriov-cni NAD: second DEL succeeds"
netns_del "$POD"

# ---- DEL without the state file: nothing to move back, nothing refused ---------
pod_new
before=$(host_state)
cni ADD "$c"
is "$RC" 0 "no state: ADD succeeds"
rm -f "$TMP/state/$CID:$IFNAME.json"
cni DEL "$c"
is "$RC" 0 "no state: DEL succeeds (it does not try to move the shared device)" || diag "$OUT"
is "$(host_state | grep -v '^pf vf0:')" "$(grep -v '^pf vf0:' <<<"$before")" \
	"no state: the VF's netdev is back with its name, the IP released"
left_in_host "no state"
netns_del "$POD"
sim_ip() { env LD_PRELOAD="$RDMASIM_LIB" ip "$@"; }
sim_ip link set "$FX_PF" vf 0 vlan 0

# ---- GC of an attachment the runtime forgot -------------------------------------
pod_new
before=$(host_state)
cni ADD "$c"
is "$RC" 0 "GC: ADD succeeds"
pod_die "$POD"
cni GC "$(conf 1.1.0 '.["cni.dev/valid-attachments"] = []')" CNI_CONTAINERID= CNI_NETNS= CNI_IFNAME=
is "$RC" 0 "GC succeeds" || diag "$OUT"
is "$(host_state)" "$before" "GC puts the VF back as it was and releases the IP"

# ---- asked to isolate: refused with the fix ---------------------------------------
pod_new
all=$(rdma_visible "")
add_fails 102 "rdma system set netns exclusive" '"rdma": true' "$(conf 1.0.0 '.rdma = true')"
like "$(jout .msg)" "shared netns mode" '"rdma": true: the message names the mode'
add_fails 102 "rdma system set netns exclusive" "rdmaIsolation: true" \
	"$(conf 1.0.0 '.rdmaIsolation = true')"
like "$(jout .msg)" 'as "rdmaIsolation": true asks' "rdmaIsolation: true: the message names the key"
is "$(rdma_visible "$POD")" "$all" "refused: the pod still sees every device ($all)"
netns_del "$POD"

T_CTX="rdma: false in shared mode" round_trip 1.0.0 no "$(conf 1.0.0 '.rdma = false')"

# ---- STATUS follows the same rule ------------------------------------------------
cni STATUS "$(conf 1.1.0)" CNI_CONTAINERID= CNI_NETNS= CNI_IFNAME=
is "$RC" 0 "STATUS without rdma: ready in shared mode" || diag "$OUT"
cni STATUS "$(conf 1.1.0 '.rdma = true')" CNI_CONTAINERID= CNI_NETNS= CNI_IFNAME=
is "$(jout .code)" 50 '"rdma": true: STATUS fails with code 50 in shared mode'
like "$(jout .msg)" "exclusive" '"rdma": true: STATUS says exclusive mode is needed'

done_testing
