#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The binaries `meson install` puts in place (the doctor too: it loads libibverbs with dlopen) need only the C library, glibc 2.34 at most; the installer needs nothing at all.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../tap.sh
. "$HERE/../tap.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$HERE/lib.sh"

skip_if_sanitized
for t in readelf objdump meson jq; do
	command -v "$t" >/dev/null || skip_all "$t not installed"
done
TMP=$(mktemp -d "/tmp/shipped-it.$$.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
stage "$TMP/root" || { t_result 1 "meson install into a staging dir"; done_testing; }

# The newest glibc symbol version a binary asks for (GLIBC_2.34 or older on
# RHEL 9 / RHCOS 4.13+, Ubuntu 22.04+, Debian 12+).
newest_glibc() {
	objdump -T "$1" | grep -o 'GLIBC_[0-9][0-9.]*' | sort -uV | tail -n 1
}
needed() {
	readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | paste -sd' '
}

for name in sriov-rdma ippool sriov-rdma-doctor; do
	var=STAGED_${name//-/_}
	bin=$TMP/root${!var}
	is "$(needed "$bin")" "libc.so.6" "$name needs no shared library but libc.so.6"
	newest=$(newest_glibc "$bin")
	ok "$name needs glibc symbols up to $newest, not newer than GLIBC_2.34" \
		test "$(printf '%s\nGLIBC_2.34\n' "$newest" | sort -V | tail -n 1)" = GLIBC_2.34
	is "$(objdump -T "$bin" | grep -c GLIBC_PRIVATE)" 0 "$name uses no GLIBC_PRIVATE symbol"
	is "$(objdump -T "$bin" | grep -ciE 'cJSON_|nl_|mnl_')" 0 \
		"$name exports none of the libraries linked into it"
done
# shellcheck disable=SC2154 # set by stage
bin=$TMP/root$STAGED_sriov_rdma_install
is "$(readelf -l "$bin" | grep -c -e INTERP -e DYNAMIC)" 0 "sriov-rdma-install is static: no interpreter, no dynamic section"

done_testing
