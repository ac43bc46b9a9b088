# SPDX-License-Identifier: Apache-2.0
# Network namespaces this run makes: the pods, and a name for the host's own.
# shellcheck shell=bash
# shellcheck disable=SC2034 # POD, NETNS, CID and HOST_NETNS are read by the tests
#
# Sets:  POD, NETNS, CID  the current pod: netns name, its path, the container ID (pod_new)
#        T_PODS           pods made so far (pod_new numbers them)
#        HOST_NETNS       a netns name for the host's (host_netns)
#        T_NETNS          appended: every netns made here is deleted at exit
# Reads: P (cleanup.sh)

netns_add() {
	ip netns add "$1" || return
	T_NETNS+=("$1")
	ip -n "$1" link set lo up
}

netns_del() {
	local i
	ip netns del "$1" || return
	for i in "${!T_NETNS[@]}"; do
		[ "${T_NETNS[i]}" = "$1" ] && unset 'T_NETNS[i]'
	done
	T_NETNS=("${T_NETNS[@]}")
}

netns_inode() {
	stat -L -c %i "/run/netns/$1"
}

T_PODS=0
# pod_new: a new pod netns; sets POD (name), NETNS (path), CID (container id).
pod_new() {
	T_PODS=$((T_PODS + 1))
	POD=${P}pod$T_PODS
	NETNS=/run/netns/$POD
	CID=${P}-ctr$T_PODS-0123456789abcdef
	netns_add "$POD"
}

# host_netns: sets HOST_NETNS, a name for the host netns (a bind mount of
# ours), for `rdma dev set DEV netns NAME`. Not in a subshell: it registers
# the name for cleanup.
host_netns() {
	HOST_NETNS=${P}host
	[ -e "/run/netns/$HOST_NETNS" ] && return 0
	touch "/run/netns/$HOST_NETNS" &&
		mount --bind /proc/$$/ns/net "/run/netns/$HOST_NETNS" || return
	T_NETNS+=("$HOST_NETNS")
}
