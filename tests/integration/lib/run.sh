# SPDX-License-Identifier: Apache-2.0
# Running a plugin as a runtime does, straight or through libcni, for the current pod.
# shellcheck shell=bash
# shellcheck disable=SC2034 # OUT, RC and T_LAST are read by the tests and tap.sh
#
# Sets:  IFNAME     CNI_IFNAME of the runs (net1 unless a test says)
#        T_TIMEOUT  seconds a run may take (120, or from the environment)
#        OUT, RC    stdout and exit status of the last run (cni, libcni)
#        T_LAST     the last run, printed under a failed assertion (tap.sh)
# Reads: PLUGIN (default SRIOV_RDMA), SRIOV_RDMA, IPPOOL, RDMASIM_LIB, CNITOOL (lib.sh);
#        CID, NETNS, POD (netns.sh); CNI_PATH_EXTRA (ipam.sh); TMP; runs fx_sync first

IFNAME=net1

# A hung plugin fails its test (exit 124) instead of holding up the cleanup.
T_TIMEOUT=${T_TIMEOUT:-120}

cni_path() {
	local dirs=()
	dirs+=("$(dirname "$SRIOV_RDMA")")
	[ -x "$IPPOOL" ] && dirs+=("$(dirname "$IPPOOL")")
	[ -n "${CNI_PATH_EXTRA:-}" ] && dirs=("$CNI_PATH_EXTRA" "${dirs[@]}")
	dirs+=(/usr/lib/cni)
	local IFS=:
	echo "${dirs[*]}"
}

# cni VERB CONF [NAME=VALUE...]: runs $PLUGIN (default sriov-rdma) as a
# runtime would, for $CID / $NETNS / $IFNAME, the simulator preloaded and the
# fake sysfs synced first; NAME=VALUE override the CNI_* environment.
# Sets OUT (stdout) and RC.
cni() {
	local verb=$1 conf=$2 preload=
	shift 2
	fx_sync
	[ -f "$RDMASIM_LIB" ] && preload=$RDMASIM_LIB
	T_LAST="$verb $conf (CNI_CONTAINERID=${CID:-} CNI_NETNS=${NETNS:-} CNI_IFNAME=$IFNAME${*:+, then $*})"
	OUT=$(timeout -k 5 "$T_TIMEOUT" env CNI_COMMAND="$verb" CNI_CONTAINERID="${CID:-}" CNI_NETNS="${NETNS:-}" \
		CNI_IFNAME="$IFNAME" CNI_PATH="$(cni_path)" \
		CNI_ARGS="IgnoreUnknown=true;K8S_POD_NAMESPACE=default;K8S_POD_NAME=${POD:-none}" \
		LD_PRELOAD="$preload" "$@" "${PLUGIN:-$SRIOV_RDMA}" <<<"$conf" 2>"$TMP/stderr")
	RC=$?
}

# libcni VERB CONFLIST-FILE [CNITOOL-FLAGS...]: the network list through
# libcni (tests/cnitool) for $CID / $NETNS / $IFNAME, as Multus drives it,
# with the simulator preloaded into the plugins. Sets OUT and RC.
libcni() {
	local verb=$1 list=$2 preload=
	shift 2
	fx_sync
	[ -f "$RDMASIM_LIB" ] && preload=$RDMASIM_LIB
	T_LAST="libcni $verb $(jq -c . "$list") $*"
	OUT=$(timeout -k 5 "$T_TIMEOUT" env LD_PRELOAD="$preload" "$CNITOOL" -conflist "$list" -path "$(cni_path)" \
		-cache "$TMP/libcni" -netns "$NETNS" -ifname "$IFNAME" -id "$CID" \
		-args "IgnoreUnknown=true;K8S_POD_NAMESPACE=default;K8S_POD_NAME=${POD:-none}" \
		"$@" "$verb" 2>"$TMP/stderr")
	RC=$?
}

# jout JQ-FILTER: a field of the last plugin output.
jout() {
	jq -r "$1" <<<"$OUT" 2>/dev/null
}
