#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sriov-cni config keys that work on any VF: the MAC (three ways) and the device (three ways).
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

fx_setup --vfs 1
bdf=${FX_VF_BDF[0]}
mac=02:00:5e:10:00:01

T_CTX="mac key" round_trip 1.0.0 no "$(conf 1.0.0 ".rdma = false | .mac = \"$mac\"")" "$mac"
T_CTX="runtimeConfig.mac" round_trip 1.0.0 no \
	"$(conf 1.0.0 ".rdma = false | .runtimeConfig = {mac: \"$mac\"}")" "$mac"
T_CTX="CNI_ARGS MAC=" round_trip 1.0.0 no "$(conf 1.0.0 '.rdma = false')" "$mac" \
	CNI_ARGS="IgnoreUnknown=true;K8S_POD_NAMESPACE=default;MAC=$mac"
T_CTX="pciBusID" round_trip 1.0.0 no \
	"$(conf 1.0.0 ".rdma = false | del(.deviceID) | .pciBusID = \"$bdf\"")"
T_CTX="runtimeConfig.deviceID" round_trip 1.0.0 no \
	"$(conf 1.0.0 ".rdma = false | del(.deviceID) | .runtimeConfig = {deviceID: \"$bdf\"}")"

done_testing
