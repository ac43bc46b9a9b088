# SPDX-License-Identifier: Apache-2.0
# Sourced first by each agent test: the agent acts on the whole node (every VF lock, the default state dirs, ippool's node settings), so the test runs in a mount namespace of its own where those are empty tmpfs: the agent sees only what this run makes, and no other test's attachment.
# shellcheck shell=bash
if [ -z "${AGENT_ISOLATED:-}" ]; then
	if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null; then
		echo "1..0 # SKIP needs root and unshare (a mount namespace of its own)"
		exit 0
	fi
	exec unshare -m --propagation private env AGENT_ISOLATED=1 bash "$0" "$@"
fi
mkdir -p /run/sriov-rdma
for agent_dir in /run/sriov-rdma /var/lib/cni/sriov-rdma /var/lib/cni/ippool /etc/cni/net.d/ippool.d; do
	[ -d "$agent_dir" ] || continue
	mount -t tmpfs -o mode=0700 agent-test "$agent_dir" || {
		echo "1..0 # SKIP cannot mount a tmpfs on $agent_dir"
		exit 0
	}
done
unset agent_dir
