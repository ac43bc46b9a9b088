#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sriov-rdma-doctor pod: a pod with an RDMA VF (its sysfs view with ports, GID
# tables and gid_attrs) and a process standing in for its container (own
# mount namespace, /dev/infiniband a tmpfs with real char devices, a given
# environment and memlock limit): healthy, then each fault in turn.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ok "a fake node with 2 VFs" fx_setup --vfs 2 --vf-info || done_testing
fx_uverbs
mkdir -p "$TMP/state"
[ -f "$FAKE_IBVERBS_DIR/libibverbs.so.1" ] || skip_all "libibverbs stand-in not built"

# VF 1: RDMA device mlx5_2, the only one the pod sees.
VF=1
DEV=${FX_VF_RDMA[1]}
pod_new
cni ADD "$(conf 1.0.0)"
is "$RC" 0 "ADD of VF 1 into the pod" || done_testing
ADDR=$(jout '.ips[0].address')
ADDR=${ADDR%/*}
ip -n "$POD" link set "$IFNAME" mtu 9000
pod_sysfs "$POD" "$DEV" "$IFNAME"
DOCTOR_ENV=(SYSFS_PATH="$PODSYS" LD_LIBRARY_PATH="$FAKE_IBVERBS_DIR")
# the GID table: 0 link-local v1, 1 link-local v2, 2 $ADDR v1, 3 $ADDR v2
V2_INDEX=3
HEALTHY_ENV=(NCCL_IB_HCA="=$DEV" NCCL_SOCKET_IFNAME="=$IFNAME" NCCL_IB_GID_INDEX="$V2_INDEX")

# pod_run CONTAINER-OPTIONS... : a container stand-in, the doctor on it (--json), stopped.
pod_run() {
	container_start "$POD" "$@" || return
	doctor pod --pid "$CTR_PID" --json
	container_stop
}

# ---- healthy --------------------------------------------------------------------
# read-only: the pod's links and addresses, its RDMA devices and the host as they were
pod_snapshot() {
	host_state
	ip -n "$POD" -d -j addr show | jq -c '.[] | [.ifname, .flags, .mtu, .address, [.addr_info[].local]]'
	rdma_visible "$POD"
}
before=$(pod_snapshot)
pod_run "${HEALTHY_ENV[@]}"
is "$(pod_snapshot)" "$before" "the doctor changes nothing in the pod or the host"
json_shape "healthy pod"
is "$RC" 0 "healthy pod: exit 0"
is "$(jq -c '[.checks[] | select(.status != "OK")]' <<<"$OUT")" "[]" "healthy pod: every check OK"
is "$(jout .command)" pod "the document names the command"
is "$(jq -r '"\(.ok) \(.warn) \(.fail)"' <<<"$OUT")" "$(jq -r '.checks | length' <<<"$OUT") 0 0" \
	"healthy pod: ok/warn/fail count the checks"
expect "healthy" rdma-mode pod OK "exclusive"
expect "healthy" pod-netdev "$IFNAME" OK "up, MTU 9000, $ADDR/24"
expect "healthy" pod-rdma "$IFNAME" OK "$DEV (port 1 netdev $IFNAME)"
expect "healthy" pod-port "$DEV" OK "port 1 ACTIVE, Ethernet (RoCE)"
unlike "$(check pod-port "$DEV")" "GUID" "healthy: no GUIDs shown for a RoCE port"
expect "healthy" pod-mtu "$DEV" OK "RoCE active MTU 4096 (netdev MTU 9000)"
expect "healthy" pod-gid "$DEV $ADDR" OK "RoCE v2 GID index $V2_INDEX on $IFNAME"
expect "healthy" pod-uverbs "$DEV" OK "/dev/infiniband/uverbs2 ($UVERBS_MAJOR:$((UVERBS_BASE_MINOR + 2))) in the container"
expect "healthy" pod-rdma-cm container OK "/dev/infiniband/rdma_cm (10:58)"
expect "healthy" pod-memlock container OK "CAP_IPC_LOCK: no memlock limit applies"
expect "healthy" nccl-ib-hca container OK "NCCL_IB_HCA==$DEV selects $DEV"
expect "healthy" nccl-gid-index "$DEV" OK "NCCL_IB_GID_INDEX=$V2_INDEX: RoCE v2 GID on $IFNAME"
expect "healthy" nccl-socket-ifname container OK "NCCL_SOCKET_IFNAME==$IFNAME selects $IFNAME"
expect "healthy" verbs "$DEV port 1" OK "ACTIVE, Ethernet, active MTU 4096"
pod_run
expect "NCCL unset" nccl-ib-hca container OK "unset: NCCL uses every visible device ($DEV)"
expect "NCCL unset" nccl-gid-index container OK "unset"
expect "NCCL unset" nccl-socket-ifname container OK "unset"
if prlimit --memlock=unlimited:unlimited true 2>/dev/null; then
	pod_run --no-ipc-lock --memlock unlimited
	expect "memlock unlimited without IPC_LOCK" pod-memlock container OK "memlock limit unlimited"
else
	skip "memlock unlimited without IPC_LOCK (this machine cannot raise the memlock limit)"
fi
if prlimit --memlock=$((2 << 30)):$((2 << 30)) true 2>/dev/null; then
	pod_run --no-ipc-lock --memlock $((2 << 30))
	expect "memlock 2 GiB without IPC_LOCK" pod-memlock container OK "memlock limit 2048 MiB"
else
	skip "memlock 2 GiB without IPC_LOCK (this machine cannot raise the memlock limit)"
fi
pod_run --memlock 65536
expect "memlock 64 KiB with IPC_LOCK" pod-memlock container OK "CAP_IPC_LOCK"

# ---- the container's side ------------------------------------------------------------
pod_run --no-uverbs "${HEALTHY_ENV[@]}"
is "$RC" 1 "no uverbs in the container: exit 1"
expect "no uverbs" pod-uverbs "$DEV" FAIL "the container has no char device /dev/infiniband/uverbs2" \
	"isRdma: true"
pod_run --no-rdma-cm "${HEALTHY_ENV[@]}"
expect "no rdma_cm" pod-rdma-cm container WARN "no /dev/infiniband/rdma_cm" "isRdma: true"
is "$RC" 0 "no rdma_cm is a warning: exit 0"
pod_run --no-ipc-lock --memlock 65536 "${HEALTHY_ENV[@]}"
is "$RC" 1 "memlock 64 KiB: exit 1"
json_shape "memlock 64 KiB"
expect "memlock 64 KiB" pod-memlock container FAIL "memlock limit 64 KiB without CAP_IPC_LOCK" \
	"add IPC_LOCK to the container's securityContext.capabilities.add"

# ---- NCCL's settings -----------------------------------------------------------------
pod_run NCCL_IB_HCA=mlx5_9
is "$RC" 1 "NCCL_IB_HCA=mlx5_9: exit 1"
expect "NCCL_IB_HCA=mlx5_9" nccl-ib-hca container FAIL \
	"NCCL_IB_HCA=mlx5_9 selects none of the visible devices ($DEV): NCCL falls back to NET/Socket" \
	"set NCCL_IB_HCA to the pod's devices (=$DEV)"
pod_run "NCCL_IB_HCA=^$DEV"
expect "NCCL_IB_HCA=^$DEV" nccl-ib-hca container FAIL "selects none of the visible devices" "=$DEV"
pod_run NCCL_IB_HCA=mlx5
expect "NCCL_IB_HCA=mlx5 (a prefix)" nccl-ib-hca container OK "selects $DEV"
pod_run "NCCL_IB_HCA=$DEV:2"
expect "NCCL_IB_HCA=$DEV:2 (another port)" nccl-ib-hca container FAIL "selects none" "=$DEV"
pod_run NCCL_IB_GID_INDEX=$((V2_INDEX - 1))
expect "NCCL_IB_GID_INDEX on RoCE v1" nccl-gid-index "$DEV" FAIL "index $((V2_INDEX - 1)) is a RoCE v1 GID" \
	"set it to $V2_INDEX"
pod_run NCCL_IB_GID_INDEX=9
expect "NCCL_IB_GID_INDEX past the table" nccl-gid-index "$DEV" FAIL "no GID at index 9" "set it to $V2_INDEX"
pod_run NCCL_IB_GID_INDEX=three
expect "NCCL_IB_GID_INDEX not a number" nccl-gid-index container WARN "is not a number" "give a number"
pod_run NCCL_SOCKET_IFNAME=eth9
expect "NCCL_SOCKET_IFNAME=eth9" nccl-socket-ifname container FAIL "selects no interface with an address" \
	"$IFNAME"
pod_run NCCL_SOCKET_IFNAME=^lo
expect "NCCL_SOCKET_IFNAME=^lo" nccl-socket-ifname container OK "selects $IFNAME"
pod_run NCCL_SOCKET_IFNAME=n
expect "NCCL_SOCKET_IFNAME of one character" nccl-socket-ifname container WARN "NCCL ignores" "two"

# ---- the pod's RDMA side -----------------------------------------------------------------
pod_sysfs "$POD" "$DEV" "$IFNAME" --no-v2
pod_run
is "$RC" 1 "no RoCE v2 GID: exit 1"
expect "no RoCE v2 GID" pod-gid "$DEV $ADDR" FAIL "no RoCE v2 GID for $ADDR on $IFNAME" "enable RoCE v2"
pod_sysfs "$POD" "$DEV" "$IFNAME" --state "1: DOWN"
pod_run
expect "port down" pod-port "$DEV" FAIL "port 1 DOWN (1), Ethernet" "link_state"
expect "port down" verbs "$DEV port 1" FAIL "DOWN, Ethernet: NCCL skips ports that are not ACTIVE" "link_state"
# InfiniBand: the port's link layer and the GUIDs the fabric knows it by
# (node_guid as sysfs prints it; the port GUID is the low half of GID 0)
pod_sysfs "$POD" "$DEV" "$IFNAME" --link-layer InfiniBand
echo "0002:c903:0021:6e70" >"$PODSYS/class/infiniband/$DEV/node_guid"
port_guid=$(cut -d: -f5- "$PODSYS/class/infiniband/$DEV/ports/1/gids/0" | tr -d : | sed 's/../&:/g; s/:$//')
pod_run
expect "InfiniBand" pod-port "$DEV" OK \
	"port 1 ACTIVE, InfiniBand, node GUID 00:02:c9:03:00:21:6e:70, port GUID $port_guid"
expect "InfiniBand" pod-mtu "$DEV" OK "InfiniBand, netdev MTU 9000"
is "$(check pod-gid "$DEV $ADDR")" "" "InfiniBand: no RoCE v2 GID looked for"
pod_sysfs "$POD" "$DEV" "$IFNAME" --link-layer InfiniBand --state "1: DOWN"
pod_run
expect "InfiniBand port down" pod-port "$DEV" FAIL \
	"port 1 DOWN (1), InfiniBand, node GUID unreadable, port GUID $port_guid" "link_state"
pod_sysfs "$POD" "$DEV" "$IFNAME"
ip -n "$POD" link set "$IFNAME" mtu 1500
pod_run
expect "netdev MTU 1500" pod-mtu "$DEV" WARN "RoCE active MTU 1024 (netdev MTU 1500)" "9000"
ip -n "$POD" link set "$IFNAME" mtu 9000
ip -n "$POD" link set "$IFNAME" down
pod_run
expect "netdev down" pod-netdev "$IFNAME" FAIL "down" "ip link set $IFNAME up"
ip -n "$POD" link set "$IFNAME" up
ip -n "$POD" addr flush dev "$IFNAME"
pod_run
expect "no address" pod-netdev "$IFNAME" WARN "no IP address" "ipam"
is "$(check pod-gid "$DEV $ADDR")" "" "no address: no GID to look for"

# ---- libibverbs -----------------------------------------------------------------------------
DOCTOR_ENV=(SYSFS_PATH="$PODSYS")
DOCTOR_HIDE_IBVERBS=1
doctor pod --netns "$NETNS" --json
expect "no libibverbs on the node" verbs pod WARN "libibverbs not loaded" "install libibverbs1"
expect "no libibverbs on the node" pod-rdma "$IFNAME" OK "$DEV"
expect "no --pid" container pod OK "not looked at"
DOCTOR_HIDE_IBVERBS=
DOCTOR_ENV=(SYSFS_PATH="$PODSYS" LD_LIBRARY_PATH="$FAKE_IBVERBS_DIR")
doctor pod --netns "$NETNS"
like "$OUT" "OK    pod-rdma           $IFNAME" "the table: one line per check"

# ---- the doctor's own sysfs mount -------------------------------------------------------------
# Without SYSFS_PATH the doctor mounts a sysfs of the pod's netns on /sys in
# a mount namespace of its own, a slave of the one it starts in: nothing it
# mounts or unmounts may reach the node. Judged in a mount namespace made for
# the doctor alone: private to the rest of the machine (whose processes mount
# and unmount meanwhile), then shared within itself as a node's / is, so a
# mount or unmount the doctor let propagate back shows in its table.
# shellcheck disable=SC2016 # expanded by the inner shell
out=$(unshare -m --propagation private sh -c 'mount --make-rshared / || exit 125
	cat /proc/self/mountinfo >"$0.before"
	"$@"
	rc=$?
	cat /proc/self/mountinfo >"$0.after"
	exit "$rc"' "$TMP/mounts" env -u SYSFS_PATH LD_PRELOAD="$RDMASIM_LIB" "$SRIOV_RDMA_DOCTOR" \
	pod --netns "$NETNS" --ifname "$IFNAME" --json 2>&1)
like "$(jq -r '.checks[] | select(.check == "pod-netdev") | .seen' <<<"$out")" "up, MTU 9000" \
	"without SYSFS_PATH: the pod looked at"
like "$(jq -r '.checks[] | select(.check == "pod-port") | .seen' <<<"$out")" "no /sys/class/infiniband/$DEV/ports/1" \
	"without SYSFS_PATH: the pod's own sysfs mounted on /sys (this kernel has no RDMA in it)"
is "$(awk '$5 == "/sys" { for (i = 7; $i != "-"; i++); print $(i + 1) }' "$TMP/mounts.before" 2>/dev/null)" sysfs \
	"without SYSFS_PATH: the doctor started in a mount namespace of the test's, /sys a sysfs there"
is "$(diff "$TMP/mounts.before" "$TMP/mounts.after" 2>&1)" "" \
	"without SYSFS_PATH: no mount left behind, none taken away"

# ---- a pod without RDMA device ----------------------------------------------------------------
cni DEL "$(conf 1.0.0)"
is "$RC" 0 "DEL of the pod's VF"
cni ADD "$(conf 1.0.0 '.rdma = false')"
is "$RC" 0 "ADD of the VF without its RDMA device"
pod_sysfs "$POD" none "$IFNAME"
pod_run "${HEALTHY_ENV[@]}"
is "$RC" 1 "no RDMA device in the pod: exit 1"
expect "no RDMA device" pod-rdma "$IFNAME" FAIL "no RDMA device whose port is $IFNAME" "\"rdma\": true"
expect "no RDMA device" nccl-ib-hca container FAIL "selects none of the visible devices (none)" "NCCL_IB_HCA"
expect "no RDMA device" verbs pod FAIL "libibverbs lists no device in the pod netns" "NET/Socket"
doctor pod --netns "$NETNS" --ifname eth7 --json
expect "--ifname of a missing interface" pod-netdev eth7 FAIL "no sriov-rdma interface" "--ifname"
cni DEL "$(conf 1.0.0 '.rdma = false')"

# ---- usage ----------------------------------------------------------------------------------
doctor pod
is "$RC" 2 "pod without --netns or --pid: exit 2"
doctor pod --netns "$NETNS" --pid 1
is "$RC" 2 "pod with both: exit 2"
doctor pod --pid x
is "$RC" 2 "pod --pid x: exit 2"
doctor pod --netns /run/netns/"$P"nope --json
is "$RC" 1 "a netns that does not exist: exit 1"
expect "a netns that does not exist" pod-netns "/run/netns/${P}nope" FAIL "does not exist" "netns"

done_testing
