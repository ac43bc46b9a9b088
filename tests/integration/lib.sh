# SPDX-License-Identifier: Apache-2.0
# Harness sourced by root integration tests: the environment, the root check, then its parts in order.
# shellcheck shell=bash
#
# Environment (meson sets it; defaults point at ./build for manual runs):
#   SRIOV_RDMA    the sriov-rdma binary        IPPOOL       the ippool binary (optional)
#   RDMASIM_LIB   librdmasim.so (preloaded)     RDMASIM_CTL  the simulator's CLI
#   CNITOOL       the libcni client (tests/cnitool)
#
# Sets:  T_SRC (the source tree), T_BUILD and the binaries above; ASAN_OPTIONS (exported)
#
# Each part opens with the globals it sets and reads; the ones a test reads most:
#   P        unique prefix of every name this run creates      TMP  temp dir of this run
#   FX_*     the fixture (fx_setup)                            POD, NETNS, CID  current pod (pod_new)
#   OUT, RC  stdout and exit status of the last plugin run     IFNAME  CNI_IFNAME (default net1)

# Where shellcheck finds lib/ and tap.sh: SCRIPTDIR is the directory of the
# script being checked, not this file's, so each place lib.sh is sourced from.
# shellcheck source-path=SCRIPTDIR source-path=SCRIPTDIR/.. source-path=SCRIPTDIR/../integration
# shellcheck source-path=SCRIPTDIR/../tests/integration
set -uo pipefail

T_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
T_BUILD=${T_BUILD:-$T_SRC/build}
SRIOV_RDMA=${SRIOV_RDMA:-$T_BUILD/plugins/sriov-rdma/sriov-rdma}
IPPOOL=${IPPOOL:-$T_BUILD/ipam/ippool/ippool}
RDMASIM_LIB=${RDMASIM_LIB:-$T_BUILD/tests/rdmasim/librdmasim.so}
RDMASIM_CTL=${RDMASIM_CTL:-$T_BUILD/tests/rdmasim/rdmasim-ctl}
CNITOOL=${CNITOOL:-$T_BUILD/tests/cnitool/cnitool}

# The preloaded simulator comes before the sanitizer runtime in an ASan build.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=1"

# TAP: ok, is, like, skip_all, done_testing (T_N, T_FAILED, T_DONE)
# shellcheck source=tap.sh
. "$T_SRC/tests/integration/tap.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
for t_cmd in ip jq; do
	command -v "$t_cmd" >/dev/null || skip_all "$t_cmd not installed"
done

# this run's names (P, TMP) and what exit undoes
# shellcheck source=lib/cleanup.sh
. "$T_SRC/tests/integration/lib/cleanup.sh"
# netns_add/del, pod_new (POD, NETNS, CID), host_netns
# shellcheck source=lib/netns.sh
. "$T_SRC/tests/integration/lib/netns.sh"
# the simulated NIC: fx_setup, fx_sync, sim (FX_*, SYSFS_PATH, RDMA_SIM_STATE)
# shellcheck source=lib/fixture.sh
. "$T_SRC/tests/integration/lib/fixture.sh"
# what the kernel and sriov-cni do to a VF: pod_die, vf_to_pod, chained_after_sriov_cni
# shellcheck source=lib/standins.sh
. "$T_SRC/tests/integration/lib/standins.sh"
# vf_link, rdma_visible, vf_is, state_holds, host_state
# shellcheck source=lib/inspect.sh
. "$T_SRC/tests/integration/lib/inspect.sh"
# IPAM, ipam_conf, ipam_holds, fake_ipam
# shellcheck source=lib/ipam.sh
. "$T_SRC/tests/integration/lib/ipam.sh"
# VF, conf, with_prev, version_ge
# shellcheck source=lib/conf.sh
. "$T_SRC/tests/integration/lib/conf.sh"
# IFNAME, cni, libcni (OUT, RC), jout
# shellcheck source=lib/run.sh
. "$T_SRC/tests/integration/lib/run.sh"
# assert_added, assert_result, assert_traffic, round_trip, add_fails
# shellcheck source=lib/assert.sh
. "$T_SRC/tests/integration/lib/assert.sh"
