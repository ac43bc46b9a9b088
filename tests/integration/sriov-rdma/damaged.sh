#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Damaged state and lock files (cut, empty, garbage, grown past any record, a
# FIFO, a symlink, a request for reconcile that is none): ADD, CHECK, DEL, GC
# and reconcile never crash or hang; each does what docs/sriov-rdma.md (The
# state file) says, and what it ignores it names in its log.
# shellcheck source-path=SCRIPTDIR source=../lib/own-node.sh
. "$(dirname "$0")/../lib/own-node.sh"
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

[ -x "$IPPOOL" ] || skip_all "ippool not built"
own_node
IPAM=ippool
fx_setup --vfs 2 --vf-info
T_TIMEOUT=60

# damage KIND FILE: FILE as the damage KIND leaves it.
damage() {
	local f=$2 text
	text=$(cat "$f" 2>/dev/null)
	rm -f "$f"
	case $1 in
	cut) printf '%s' "${text:0:$((${#text} / 2))}" >"$f" ;;
	empty) : >"$f" ;;
	garbage) head -c 300 /dev/urandom >"$f" ;;
	oversized) { printf '%s' "$text"; head -c 1048576 /dev/zero | tr '\0' ' '; } >"$f" ;;
	fifo) mkfifo "$f" ;;
	request) jq -c '.bootId = "x" | .created = -1' <<<"$text" >"$f" ;;
	symlink) ln -s /etc/hostname "$f" ;;
	esac
}

# gc_conf VALID: this network's GC config with these valid attachments.
gc_conf() {
	conf 1.1.0 '.vlan = 100 | .logLevel = "warning"' | jq -c --argjson v "$1" '.["cni.dev/valid-attachments"] = $v'
}

# ---- state files -----------------------------------------------------------------
# A state file that does not read is treated as absent: CHECK does not need
# it; GC cannot tell its network and leaves it; reconcile cannot judge it
# and keeps it (unknown); DEL undoes the attachment from the VF's alias
# (name, RDMA device, address), removes the file, and cannot know the VF
# settings from before ADD.
VF=0
for kind in cut empty garbage oversized fifo request; do
	ctx="state $kind"
	pod_new
	c=$(conf 1.1.0 '.vlan = 100 | .logLevel = "warning"')
	cni ADD "$c"
	is "$RC" 0 "$ctx: ADD succeeds" || continue
	c=$(with_prev "$c" "$OUT")
	state=$TMP/state/$CID:$IFNAME.json
	damage "$kind" "$state"
	cni CHECK "$c"
	is "$RC" 0 "$ctx: CHECK passes (it reads no state)"
	CID='' NETNS='' IFNAME='' cni GC "$(gc_conf '[]')"
	is "$RC" 0 "$ctx: GC succeeds"
	like "$(cat "$TMP/stderr")" "ignoring damaged state $state" "$ctx: GC's log names the file"
	is "$(link_field "$(vf_link 0 "$POD")" .ifname)" "$IFNAME" "$ctx: GC left the attachment"
	reconcile --json --grace 0
	is "$RC/$(counts)" "0/0 0 1 False 0" "$ctx: reconcile exits 0, undoes nothing, lists it"
	is "$(item "$CID" "$IFNAME")" unknown/kept "$ctx: reconcile keeps it, unknown"
	like "$(cat "$TMP/stderr")" "ignoring damaged state $state" "$ctx: reconcile's log names the file"
	ok "$ctx: reconcile left the file" test -e "$state" -o -p "$state"
	is "$(link_field "$(vf_link 0 "$POD")" .ifname)" "$IFNAME" "$ctx: reconcile left the attachment"
	cni DEL "$c"
	is "$RC" 0 "$ctx: DEL succeeds"
	like "$(cat "$TMP/stderr")" "ignoring damaged state $state" "$ctx: DEL's log names the file"
	l=$(vf_link 0)
	is "$(link_field "$l" .ifname)" "${FX_VF_IF[0]}" "$ctx: the VF is back under its host name"
	is "$(link_field "$l" '.ifalias // ""')" "" "$ctx: without our alias"
	like " $(rdma_visible "") " " ${FX_VF_RDMA[0]} " "$ctx: the RDMA device is back in the host"
	nok "$ctx: the address is released" ipam_holds "$CID"
	nok "$ctx: the damaged file is removed" test -e "$state"
	# what the lost state knew: the VLAN from before ADD (0)
	env LD_PRELOAD="$RDMASIM_LIB" ip link set "$FX_PF" vf 0 vlan 0
	netns_del "$POD"
done

# ---- lock files --------------------------------------------------------------------
# A holder record that does not parse is ignored (named in the log): ADD goes
# on and writes its own; a lock file ADD cannot open as one (a symlink) is
# an error naming it, nothing changed.
VF=1
lock=$T_LOCK_DIR/${FX_VF_BDF[1]}.lock
mkdir -p "$T_LOCK_DIR"
for kind in cut garbage oversized; do
	ctx="lock $kind"
	pod_new
	before=$(host_state)
	printf '%s' "$TMP/state/someone:net1.json" >"$lock"
	damage "$kind" "$lock"
	c=$(conf 1.1.0 '.vlan = 100 | .logLevel = "warning"')
	cni ADD "$c"
	is "$RC" 0 "$ctx: ADD succeeds"
	like "$(cat "$TMP/stderr")" "ignoring the damaged holder record in $lock" "$ctx: its log names the file"
	is "$(cat "$lock")" "$TMP/state/$CID:$IFNAME.json" "$ctx: the lock file names the new holder"
	cni DEL "$(with_prev "$c" "$OUT")"
	is "$RC" 0 "$ctx: DEL succeeds"
	is "$(host_state)" "$before" "$ctx: DEL restores the host"
	netns_del "$POD"
done

# a record naming a state file outside the roots a dataDir may be under is
# not followed, even when that file is about this VF
pod_new
c=$(conf 1.1.0 '.vlan = 100 | .logLevel = "warning"')
cni ADD "$c"
is "$RC" 0 "holder outside the roots: a first ADD succeeds"
outside=$(mktemp -d "/tmp/$P.XXXXXX")
T_AT_EXIT+=("rm -rf $outside")
held=$outside/$CID:$IFNAME.json
cp "$TMP/state/$CID:$IFNAME.json" "$held"
cni DEL "$(with_prev "$c" "$OUT")"
is "$RC" 0 "holder outside the roots: its DEL succeeds"
netns_del "$POD"
printf '%s' "$held" >"$lock"
pod_new
cni ADD "$c"
is "$RC" 0 "holder outside the roots: the next ADD succeeds"
like "$(cat "$TMP/stderr")" "ignoring the holder record in $lock" "holder outside the roots: its log names the lock file"
ok "holder outside the roots: the file there is untouched" test -s "$held"
cni DEL "$(with_prev "$c" "$OUT")"
netns_del "$POD"

pod_new
before=$(host_state)
rm -f "$lock"
damage symlink "$lock"
add_fails 5 "failed to lock VF ${FX_VF_BDF[1]} in $T_LOCK_DIR: Too many levels of symbolic links" \
	"lock symlink" "$(conf 1.1.0 '.vlan = 100 | .logLevel = "warning"')"
is "$(cat /etc/hostname)" "$(hostname)" "lock symlink: its target is untouched"
rm -f "$lock"

# a symlink in the state file's place is not followed: DEL fails naming it
VF=0
pod_new
c=$(conf 1.1.0 '.vlan = 100 | .logLevel = "warning"')
cni ADD "$c"
is "$RC" 0 "state symlink: ADD succeeds"
c=$(with_prev "$c" "$OUT")
state=$TMP/state/$CID:$IFNAME.json
rm -f "$state"
ln -s /etc/hostname "$state"
cni DEL "$c"
is "$RC:$(jout .code)" 1:5 "state symlink: DEL fails with 5"
like "$(jout .msg)" "failed to read state $state: Too many levels of symbolic links" \
	"state symlink: the message names the file"
is "$(link_field "$(vf_link 0 "$POD")" .ifname)" "$IFNAME" "state symlink: the attachment is untouched"
rm -f "$state"
cni DEL "$c"
is "$RC" 0 "state symlink: once it is removed, DEL succeeds"
netns_del "$POD"

# a state file that names another attachment is not this one's
pod_new
VF=0
c=$(conf 1.1.0 '.vlan = 100 | .logLevel = "warning"')
cni ADD "$c"
is "$RC" 0 "state of another attachment: ADD succeeds"
state=$TMP/state/$CID:$IFNAME.json
jq -c '.containerID = "other"' "$state" >"$TMP/other" && cat "$TMP/other" >"$state"
cni DEL "$(with_prev "$c" "$OUT")"
is "$RC" 0 "state of another attachment: DEL succeeds"
like "$(cat "$TMP/stderr")" "ignoring damaged state $state" "state of another attachment: DEL's log names it"
is "$(link_field "$(vf_link 0)" .ifname)" "${FX_VF_IF[0]}" "state of another attachment: the VF is back"
netns_del "$POD"

done_testing
