#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sriov-rdma-doctor node on a node whose VFs were set up wrong: a VF bound to
# vfio-pci and a VF without an RDMA device are flagged with their fixes.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ok "a fake node: VF 1 on vfio-pci, VF 2 without RDMA device" \
	fx_setup --vfs 3 --vfio 1 --no-rdma 2 || done_testing
fx_uverbs
mkdir -p "$TMP/net.d"
NODE=(node --conf-dir "$TMP/net.d" --data-dir "$TMP/state")

doctor "${NODE[@]}" --json
is "$RC" 1 "a VF without RDMA device fails the node: exit 1"
expect "healthy VF 0" vf-rdma "${FX_VF_BDF[0]}" OK "${FX_VF_RDMA[0]}"
expect "vfio-pci" vf-driver "${FX_VF_BDF[1]}" WARN "bound to vfio-pci: no netdev, no RDMA device" \
	"deviceType: netdevice"
is "$(check vf-rdma "${FX_VF_BDF[1]}")" "" "vfio-pci: no RDMA verdict on a VF given to user space"
expect "no RDMA device" vf-rdma "${FX_VF_BDF[2]}" FAIL "no RDMA device (its PF has one)" "isRdma: true"
expect "no RDMA device" vf-driver "${FX_VF_BDF[2]}" OK "mlx5_core"
is "$(check vf-uverbs "${FX_VF_BDF[2]}")" "" "no RDMA device: no uverbs verdict"

doctor "${NODE[@]}"
like "$OUT" "WARN  vf-driver          ${FX_VF_BDF[1]}" "the table: the vfio-pci line"
like "$OUT" "fix: use deviceType: netdevice in the SriovNetworkNodePolicy" "the table: its fix"
like "$OUT" "FAIL  vf-rdma            ${FX_VF_BDF[2]}" "the table: the no-RDMA line"
like "$OUT" "fix: set isRdma: true in the SriovNetworkNodePolicy" "the table: its fix"

done_testing
