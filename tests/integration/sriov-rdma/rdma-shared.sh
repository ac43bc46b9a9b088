#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# RDMA in shared netns mode: ADD refuses with the fix, nothing moves; STATUS reports not ready.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

fx_setup --vfs 1 --shared
pod_new

add_fails 102 "rdma system set netns exclusive" "shared RDMA netns mode" "$(conf 1.0.0)"
is "$(rdma_visible "$POD")" "mlx5_0 mlx5_1" "shared mode: the pod still sees every device"

T_CTX="rdma: false in shared mode" round_trip 1.0.0 no "$(conf 1.0.0 '.rdma = false')"

cni STATUS "$(conf 1.1.0)" CNI_CONTAINERID= CNI_NETNS= CNI_IFNAME=
is "$(jout .code)" 50 "STATUS fails with code 50 in shared mode"
like "$(jout .msg)" "exclusive" "STATUS says exclusive mode is needed"

done_testing
