# SPDX-License-Identifier: Apache-2.0
# A node of this run's own for tests that run sriov-rdma reconcile, which looks at every attachment of the node.
# shellcheck shell=bash
# shellcheck disable=SC2034 # DEFAULT_DIR is read by the tests
#
# Sourced before lib.sh: as root it runs the script again in a mount
# namespace of its own (unshare -m), where own_node puts a tmpfs on the VF
# lock directory and on /var/lib/cni: reconcile there sees this run's
# attachments only, never those of the tests running beside it.
#
# Sets:  T_OWN_MOUNTS  1 in the namespace      DEFAULT_DIR  sriov-rdma's default dataDir
#        OUT, RC       stdout and exit status of the last reconcile (stderr in $TMP/stderr)
# Reads: T_LOCK_DIR, SRIOV_RDMA, RDMASIM_LIB, T_TIMEOUT, TMP, P (lib.sh)

if [ -z "${T_OWN_MOUNTS:-}" ] && [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null; then
	T_OWN_MOUNTS=1 exec unshare -m --propagation private bash "$0" "$@"
fi
DEFAULT_DIR=/var/lib/cni/sriov-rdma

# own_node: after lib.sh, the tmpfs on the lock directory and /var/lib/cni
# (SKIP without the namespace).
own_node() {
	[ -n "${T_OWN_MOUNTS:-}" ] || skip_all "unshare not installed"
	command -v python3 >/dev/null || skip_all "python3 not installed"
	mkdir -p "$T_LOCK_DIR" /var/lib/cni &&
		mount -t tmpfs -o mode=0755 "${P}locks" "$T_LOCK_DIR" &&
		mount -t tmpfs -o mode=0755 "${P}lib" /var/lib/cni || skip_all "cannot mount a tmpfs"
}

# reconcile ARGS...: sriov-rdma reconcile as the node agent runs it (no
# CNI_* in its environment), the simulator preloaded. Sets OUT and RC.
reconcile() {
	fx_sync
	T_LAST="sriov-rdma reconcile $*"
	OUT=$(timeout -k 5 "$T_TIMEOUT" env -u CNI_COMMAND LD_PRELOAD="$RDMASIM_LIB" \
		"$SRIOV_RDMA" reconcile "$@" 2>"$TMP/stderr")
	RC=$?
}

# aged FILE: the state file's attachment was made an hour ago.
aged() {
	jq -c '.created -= 3600' "$1" >"$TMP/aged" && cat "$TMP/aged" >"$1"
}

# item CID IFNAME: "verdict/action" of that attachment in the last --json output.
item() {
	jq -r --arg c "$1" --arg i "$2" \
		'.attachments[] | select(.containerID == $c and .ifname == $i) | "\(.verdict)/\(.action)"' \
		<<<"$OUT"
}

# counts: "undone failed listed dryRun grace" of the last --json output,
# read by python's parser, which also holds it to the contract's keys.
counts() {
	python3 -c 'import json, sys; d = json.load(sys.stdin)
assert set(d) == {"dryRun", "grace", "undone", "failed", "attachments"}, d
keys = {"containerID", "ifname", "network", "deviceID", "netns", "ageSeconds", "verdict", "action"}
for a in d["attachments"]:
    assert set(a) == keys | ({"error"} if a["action"] == "failed" else set()), a
print(d["undone"], d["failed"], len(d["attachments"]), d["dryRun"], d["grace"])' <<<"$OUT"
}
