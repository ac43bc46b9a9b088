#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Writes the seed corpus of fuzz-record from files sriov-rdma itself wrote on
# the test fixture (root): state files of a VF with VF settings, one without
# RDMA, one with a MAC and rates (each with the request ADD saves for
# reconcile), earlier versions' (no network and no request; no request), and
# the VF lock files naming their holders.
# usage: tests/fuzz/gen-record-corpus.sh BUILD_DIR
here=$(cd "$(dirname "$0")" && pwd)
T_BUILD=$(cd "$1" && pwd)
export T_BUILD
# shellcheck source-path=SCRIPTDIR source=../integration/lib.sh disable=SC2034
. "$here/../integration/lib.sh"
out=$here/corpus/record

fx_setup --vfs 3 --vf-info
mkdir -p "$out"
i=0
while read -r vf filter; do
	VF=$vf
	pod_new
	cni ADD "$(conf 1.0.0 "$filter")"
	is "$RC" 0 "ADD on VF $vf ($filter)" || continue
	cp "$TMP/state/$CID:$IFNAME.json" "$out/state-$((i += 1))"
	cp "$T_LOCK_DIR/${FX_VF_BDF[vf]}.lock" "$out/lock-$i"
done <<'EOF_ADDS'
0 .vlan = 100 | .vlanQoS = 3 | .spoofchk = "off" | .trust = "on" | .link_state = "enable"
1 .rdma = false | .mac = "02:00:00:00:00:42" | .min_tx_rate = 10 | .max_tx_rate = 1000
2 .vlan = 4094 | .vlanProto = "802.1ad" | .name = "rail-8.backend"
EOF_ADDS
jq -c 'del(.network, .netnsDev, .netnsIno, .bootId, .created, .conf, .cniArgs, .cniPath)' \
	"$out/state-1" >"$out/state-legacy"
jq -c 'del(.netnsDev, .netnsIno, .bootId, .created, .conf, .cniArgs, .cniPath)' "$out/state-1" \
	>"$out/state-norequest"
: >"$out/lock-empty"
chmod 644 "$out"/*
done_testing
