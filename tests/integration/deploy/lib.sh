# SPDX-License-Identifier: Apache-2.0
# Shared by the deploy tests: what `meson install` puts in place, in a staging dir.
# shellcheck shell=bash

# stage DIR: `meson install` of $T_BUILD into DIR (as a package build would);
# sets STAGED_<name> to the installed path of sriov-rdma, ippool and
# sriov-rdma-install (relative to DIR's root, e.g. /opt/cni/bin/ippool).
stage() {
	local dir=$1 name path installed
	meson install -C "$T_BUILD" --no-rebuild --quiet --destdir "$dir" >"$dir.log" 2>&1 || {
		cat "$dir.log" >&2
		return 1
	}
	installed=$(meson introspect --installed "$T_BUILD") || return 1
	for name in sriov-rdma ippool sriov-rdma-install sriov-rdma-doctor; do
		path=$(jq -r --arg n "$name" '[.[] | select(endswith("/" + $n))] | first // empty' <<<"$installed")
		[ -n "$path" ] || { echo "meson installs no $name" >&2; return 1; }
		printf -v "STAGED_${name//-/_}" '%s' "$path"
	done
}

# A sanitizer build's binaries need its runtime: what ships is the plain build.
skip_if_sanitized() {
	[ "${T_SANITIZE:-none}" = none ] || skip_all "a sanitizer build ($T_SANITIZE) is not what ships"
}
