#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sriov-rdma's dataDir and logFile are confined: refused (7, key, path, roots) and nothing made when relative, with "..", through a symlink or outside the roots; the node's admin file allows more only when root's alone.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source-path=SCRIPTDIR source=../confpath.sh
. "$(dirname "$0")/../confpath.sh"

fx_setup --vfs 1
cp_setup || skip_all "cannot make $TMP/cp"
T_AT_EXIT+=("rm -rf $CP_OUT")
pod_new

# try KEY VALUE: ADD with KEY set to VALUE; the host must not change either.
try() {
	local before
	before=$(host_state)
	cni ADD "$(conf 1.0.0 | jq -c --arg k "$1" --arg v "$2" '.[$k] = $v')"
	[ "$(host_state)" = "$before" ] || echo "ADD with $1 \"$2\" changed the host" >>"$TMP/changed"
}

refused_cases dataDir dir
refused_cases logFile file
nok "no refused ADD changed the host (VF, RDMA device, IPAM)" test -s "$TMP/changed"
nok "no state was written" state_holds "$CID"

# Paths under the default roots are taken as they are, /var/run/ as /run/.
if [ -L /var/run ] && [ "$(readlink /var/run)" = /run ]; then
	c=$(conf 1.0.0 | jq -c --arg d "/var/run/${TMP#/run/}/vr" --arg l "/var/run/${TMP#/run/}/vr.log" \
		'.dataDir = $d | .logFile = $l | .logLevel = "debug"')
	cni ADD "$c"
	is "$RC" 0 "ADD with dataDir and logFile under /var/run/ (the symlink to /run)"
	ok "  the state is in /run/..." test -n "$(find "$TMP/vr" -name "$CID*.json")"
	cni DEL "$c"
	is "$RC" 0 "  DEL"
	ok "  which logged in /run/..." grep -q "is back in the host" "$TMP/vr.log"
else
	skip "/var/run is not the symlink to /run here"
fi

# ---- the node's admin file ------------------------------------------------
X=$CP_OUT/extra
NOT_ROOTS="it, or a directory above it, is not root's alone"
admin_file 0644 0 "write $CP_OUT/"
mkdir -p "$CP_OUT"
c=$(conf 1.0.0 | jq -c --arg d "$X/state" --arg l "$CP_OUT/s.log" '.dataDir = $d | .logFile = $l | .logLevel = "debug"')
cni ADD "$c"
is "$RC" 0 "an admin file of root's allows $CP_OUT/: ADD with dataDir and logFile there"
ok "  the state file is there" test -n "$(find "$X/state" -name "$CID*.json")"
cni DEL "$c"
is "$RC" 0 "  DEL from there"
ok "  which logged there" grep -q "is back in the host" "$CP_OUT/s.log"
is "$(find "$X/state" -name "$CID*.json")" "" "  removes the state"
rm -rf "$CP_OUT"

chmod 0664 "$SRIOV_RDMA_ALLOWED_ROOTS"
admin_ignored dataDir "$X/state" "$CP_OUT" "with the admin file group-writable" "$NOT_ROOTS"
admin_file 0644 65534 "write $CP_OUT/"
admin_ignored dataDir "$X/state" "$CP_OUT" "with the admin file not owned by root" "$NOT_ROOTS"
admin_file 0644 0 "write $CP_OUT/"
ln -s "$TMP/admin/allowed-roots" "$TMP/cp/roots-link"
SRIOV_RDMA_ALLOWED_ROOTS=$TMP/cp/roots-link
admin_ignored logFile "$CP_OUT/s.log" "$CP_OUT" "with the admin file named through a symlink" \
	"it is a symlink or lies past one"
unset SRIOV_RDMA_ALLOWED_ROOTS

netns_del "$POD"
done_testing
