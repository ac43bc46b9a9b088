#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Demo: builds, then ADD / CHECK / DEL of sriov-rdma on a simulated RDMA VF in a throwaway pod netns.
# usage: tools/demo.sh [BUILD_DIR]   (default: the tree's build/, set up and compiled
# first; a BUILD_DIR given is used as it is)
set -euo pipefail
build=
[ $# -eq 0 ] || build=$(cd "$1" && pwd)
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
	echo "demo: run as root: it creates network namespaces and links" >&2
	exit 1
fi
if [ -z "$build" ]; then
	build=$PWD/build
	bash tools/deps.sh
	[ -f build/build.ninja ] || meson setup build --buildtype=debugoptimized >/dev/null
	meson compile -C build >/dev/null
fi

# The test harness provides the simulated NIC (veth stand-ins, fake sysfs,
# RDMA simulator), the pod netns, the plugin runner and the cleanup on exit.
export T_BUILD=$build
# shellcheck source-path=SCRIPTDIR source=../tests/integration/lib.sh
. tests/integration/lib.sh
T_DONE=1
set +e

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

# show VERB: the plugin's answer to the last run.
show() {
	if [ -n "$OUT" ]; then
		jq . <<<"$OUT"
	fi
	echo "(exit $RC)"
	[ "$RC" -eq 0 ] || { echo "demo: $1 failed" >&2; cat "$TMP/stderr" >&2; exit 1; }
}

# fixture WHAT CMD...: a step of the demo's own setup. The first that fails
# ends the demo, naming the step and what its commands said: ADD on a
# half-made node would only report what is missing (no PCI device ...).
fixture() {
	local what=$1 rc
	shift
	"$@" 2>"$TMP/fixture.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "demo: cannot $what ($*: exit $rc):" >&2
		if [ -s "$TMP/fixture.err" ]; then
			sed 's/^/  /' "$TMP/fixture.err" >&2
		else
			echo "  (no message)" >&2
		fi
		echo "demo: stopped before ADD; nothing of the demo is left behind" >&2
		exit 1
	fi
	cat "$TMP/fixture.err" >&2
}

[ -x "$IPPOOL" ] && IPAM=ippool
fixture "set up the simulated node (veth stand-ins, fake sysfs, RDMA simulator)" \
	fx_setup --vfs 2 --vf-info
fixture "create the pod netns" pod_new
VF=0
fixture "write the network config" conf 1.0.0 '.vlan = 100 | .spoofchk = "off"' >"$TMP/conf.json"
c=$(cat "$TMP/conf.json")

# pf_vfs: the PF's VF lines, as ip shows them (VF info from the simulator).
pf_vfs() {
	LD_PRELOAD=$RDMASIM_LIB ip link show dev "$FX_PF" | grep -E '^ +vf '
}

step "simulated node"
echo "PF ${FX_PF} (${FX_PF_BDF}), VF 0 ${FX_VF_IF[0]} (${FX_VF_BDF[0]}) with RDMA device ${FX_VF_RDMA[0]}"
echo "pod netns $NETNS, IPAM $IPAM"
echo "config:"
jq . <<<"$c"

step "VFs on the PF before ADD"
pf_vfs

step "ADD"
cni ADD "$c"
show ADD
c=$(with_prev "$c" "$OUT")

step "VFs on the PF after ADD (VLAN and spoof checking set on VF 0)"
pf_vfs

step "ip addr inside the pod"
ip -n "$POD" addr show

step "RDMA devices seen from the pod"
rdma_cmd "$POD" dev show
step "RDMA devices seen from the host"
rdma_cmd "" dev show

step "CHECK"
cni CHECK "$c"
show CHECK

step "DEL"
cni DEL "$c"
show DEL

step "host after DEL"
ip link show dev "${FX_VF_IF[0]}"
pf_vfs
rdma_cmd "" dev show
echo "IPAM reservations for $CID: $(ipam_holds "$CID" && echo yes || echo none)"
echo
echo "demo done; cleaning up"
