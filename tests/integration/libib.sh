# SPDX-License-Identifier: Apache-2.0
# Harness for InfiniBand tests, sourced after lib.sh: its parts in order.
# shellcheck shell=bash
# (SCRIPTDIR is the checked script's directory: see lib.sh)

# the IPoIB NIC: fx_setup_ib, drv, ib_rdma, ib_link, ib_pod_die (FX_IB, FX_VF_*_GUID)
# shellcheck source-path=SCRIPTDIR source-path=SCRIPTDIR/.. source=lib/ib-fixture.sh
. "$T_SRC/tests/integration/lib/ib-fixture.sh"
# ib_state, ib_added, ib_del, ib_add_fails, pf_guid_is
# shellcheck source-path=SCRIPTDIR source-path=SCRIPTDIR/.. source=lib/ib-assert.sh
. "$T_SRC/tests/integration/lib/ib-assert.sh"
