#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sriov-rdma driven by a real libcni client with a conflist, as Multus drives it, RDMA on.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

command -v go >/dev/null || skip_all "go not installed"
if [ ! -x "$CNITOOL" ]; then
	t_result 1 "cnitool is built ($CNITOOL)"
	done_testing
fi
fx_setup --vfs 1

# attach DESC CONFLIST [CNITOOL-FLAGS...]: add, check, del through libcni.
attach() {
	local desc=$1 list=$2 before
	shift 2
	pod_new
	before=$(host_state)
	libcni add "$list" "$@"
	T_CTX="libcni, $desc" assert_added 1.0.0 yes
	libcni check "$list" "$@"
	is "$RC" 0 "libcni, $desc: check passes"
	libcni del "$list" "$@"
	is "$RC" 0 "libcni, $desc: del succeeds"
	is "$(host_state)" "$before" "libcni, $desc: VF and RDMA device back, IP released"
	libcni del "$list" "$@"
	is "$RC" 0 "libcni, $desc: second del succeeds"
	netns_del "$POD"
}

# conflist FILE JQ-FILTER: a one-plugin 1.0.0 list around conf, then FILTER on the plugin.
conflist() {
	conf 1.0.0 | jq --arg v 1.0.0 "{cniVersion: \$v, name: .name, plugins: [del(.cniVersion, .name) | $2]}" >"$1"
}

conflist "$TMP/injected.conflist" .
attach "deviceID injected in the config" "$TMP/injected.conflist"

conflist "$TMP/capability.conflist" 'del(.deviceID) | .capabilities = {deviceID: true}'
attach "deviceID as a capability" "$TMP/capability.conflist" -cap "{\"deviceID\": \"${FX_VF_BDF[0]}\"}"

if [ -x "$IPPOOL" ]; then
	IPAM=ippool
	conflist "$TMP/ippool.conflist" .
	attach "ippool IPAM" "$TMP/ippool.conflist"
else
	skip "libcni with ippool IPAM: ippool not built"
fi

done_testing
