# SPDX-License-Identifier: Apache-2.0
# The network configs the tests hand sriov-rdma: VF $VF's, in a CNI version, with a prevResult.
# shellcheck shell=bash
# shellcheck disable=SC2034 # VF is read by the assertions and the tests
#
# Sets:  VF     the VF (index into FX_VF_*) the next config names, 0 unless a test says
# Reads: FX_VF_BDF (fixture.sh); TMP (cleanup.sh); IPAM_SUBNETS (ipam.sh)

VF=0

# conf VERSION [JQ-FILTER]: the network config for VF $VF, then JQ-FILTER
# applied (e.g. '.vlan = 100', '.rdma = false').
conf() {
	jq -nc --arg v "$1" --arg bdf "${FX_VF_BDF[$VF]}" --arg d "$TMP/state" \
		--argjson ipam "$(ipam_conf "${IPAM_SUBNETS[@]}")" \
		'{cniVersion: $v, name: "rdma-net", type: "sriov-rdma", deviceID: $bdf,
		  dataDir: $d, ipam: $ipam}' | jq -c "${2:-.}"
}

# with_prev CONF RESULT: CONF carrying RESULT as prevResult (CHECK, DEL,
# chained ADD), as a runtime passes it from 0.4.0 on.
with_prev() {
	jq -c --argjson r "$2" '.prevResult = $r' <<<"$1"
}

version_ge() {
	[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" = "$2" ]
}
