# SPDX-License-Identifier: Apache-2.0
# Refusals of the paths a config names, shared by both plugins' paths.sh (docs/security.md, "The paths a config names").
# shellcheck shell=bash
#
# The sourcing script sets TMP (under /run, ours) and defines the runner
#   try KEY VALUE   runs its plugin with KEY set to VALUE; sets OUT and RC
# and reads, after refused_cases, nothing: the cases are TAP results.

CP_W="/var/lib/cni/, /run/, /var/log/"
CP_R="$CP_W, /etc/cni/, /etc/kubernetes/"
CP_TAG=cp$$x$RANDOM
# Outside every default root; made only by the admin-file cases.
CP_OUT=/tmp/$CP_TAG

# cp_setup: $TMP/cp with a symlink to /etc in it, and a working directory
# the plugin runs in (where a relative path would land).
cp_setup() {
	mkdir -p "$TMP/cp" "$TMP/cwd" || return
	ln -s /etc "$TMP/cp/link" && ln -s "/etc/$CP_TAG-leaf" "$TMP/cp/leaf" &&
		ln -s /etc/hostname "$TMP/cp/hostname"
}

# refused KEY VALUE ROOTS GONE WHY: the plugin refuses VALUE for KEY with code
# 7, naming the key, the value and the roots, and GONE does not exist after.
refused() {
	local key=$1 value=$2 roots=$3 gone=$4 why=$5
	cd "$TMP/cwd" || return
	try "$key" "$value"
	cd "$OLDPWD" || return
	is "$RC/$(jq -r .code <<<"$OUT" 2>/dev/null)" "1/7" "$key $why: refused with code 7"
	like "$(jq -r .msg <<<"$OUT" 2>/dev/null)" "$key \"$value\"" "  the message names $key and the path"
	like "$(jq -r .msg <<<"$OUT" 2>/dev/null)" "allowed roots: $roots" "  and the allowed roots"
	nok "  nothing made at $gone" test -e "$gone" -o -L "$gone"
}

# refused_cases KEY dir|file|read: every way out of the roots, for KEY.
refused_cases() {
	local key=$1 kind=$2 roots=$CP_W leaf=x.log
	[ "$kind" = read ] && roots=$CP_R leaf=x.conf
	refused "$key" "rel-$CP_TAG/$leaf" "$roots" "$TMP/cwd/rel-$CP_TAG" "relative"
	refused "$key" "$TMP/cp/new-$CP_TAG/../../../../etc/$CP_TAG" "$roots" "$TMP/cp/new-$CP_TAG" \
		"with a .. component"
	nok "  nor at /etc/$CP_TAG" test -e "/etc/$CP_TAG"
	refused "$key" "$TMP/cp/link/$CP_TAG/$leaf" "$roots" "/etc/$CP_TAG" \
		"through a symlink in the middle ($TMP/cp/link -> /etc)"
	refused "$key" "$CP_OUT/$leaf" "$roots" "$CP_OUT" "outside the roots"
	if [ "$kind" = dir ]; then
		refused "$key" "$TMP/cp/link" "$roots" "/etc/$CP_TAG" "a symlink itself"
	else
		refused "$key" "$TMP/cp/leaf" "$roots" "/etc/$CP_TAG-leaf" "a symlink to a file not there"
	fi
	if [ "$kind" = read ]; then
		refused "$key" "$TMP/cp/hostname" "$roots" "/etc/$CP_TAG" "a symlink to /etc/hostname"
		unlike "$(jq -r .msg <<<"$OUT")" "$(head -c 64 /etc/hostname)" "  the message holds none of its contents"
		refused "$key" /etc/hostname "$roots" "/etc/$CP_TAG" "a file outside the roots"
		unlike "$(jq -r .msg <<<"$OUT")" "$(head -c 64 /etc/hostname)" "  the message holds none of its contents"
	fi
}

# admin_file MODE OWNER LINE...: the node administrator's file of roots, in a
# directory of root's alone, named to the plugin through the environment.
admin_file() {
	local mode=$1 owner=$2
	shift 2
	mkdir -p "$TMP/admin" && chmod 0700 "$TMP/admin" || return
	printf '%s\n' "# roots this node's administrator allows" "$@" >"$TMP/admin/allowed-roots"
	chmod "$mode" "$TMP/admin/allowed-roots" && chown "$owner" "$TMP/admin/allowed-roots" &&
		export SRIOV_RDMA_ALLOWED_ROOTS=$TMP/admin/allowed-roots
}

# admin_ignored KEY VALUE GONE WHY REASON: with the admin file as it is,
# VALUE is still refused and the message says the file was ignored, for REASON.
admin_ignored() {
	refused "$1" "$2" "$CP_W" "$3" "$4"
	like "$(jq -r .msg <<<"$OUT")" "$SRIOV_RDMA_ALLOWED_ROOTS is ignored: $5" \
		"  the message says the admin file is ignored: $5"
}
