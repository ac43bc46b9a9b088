#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sriov-rdma-diag reports what libibverbs sees; this kernel has no RDMA, so the
# diagnostic must say so, name the fix, and fail.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

[ -x "$SRIOV_RDMA_DIAG" ] || skip_all "sriov-rdma-diag not built"
pod_new
out=$(ip netns exec "$POD" "$SRIOV_RDMA_DIAG" 2>&1)
is "$?" 1 "diag fails in a pod without an RDMA device"
ok "diag says no RDMA device is visible" grep -q "no RDMA device visible in this network namespace" <<<"$out"
ok "diag names the fix (rdma: true, exclusive mode)" grep -q '"rdma": true.*exclusive mode' <<<"$out"
done_testing
