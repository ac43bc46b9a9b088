#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian 12 packages needed to build and test sriov-rdma-cni and unpacks Debian's cJSON source for the static build; a no-op when all is there.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
	meson ninja-build pkg-config gcc libc6-dev clang libclang-rt-14-dev dpkg-dev
	libnl-3-dev libnl-route-3-dev libibverbs-dev
	check libcurl4-openssl-dev
	libcjson-dev libmnl-dev
	containernetworking-plugins golang-go golang-github-appc-cni-dev
	etcd-server etcd-client iproute2 iputils-ping jq valgrind procps strace
	binutils python3 python3-yaml python3-prometheus-client podman curl openssl
	qemu-system-x86 busybox-static make xz-utils zstd cpio kmod libelf1
)
# libcjson-dev and libmnl-dev: only the RDMA simulator and the unit tests
# link them; the shipped binaries build cJSON from source (below) and use
# libnl's static archives for all their netlink.
# What the tests and tools run that a debootstrap minbase (Priority:
# required: coreutils, util-linux, mount, findutils, grep, sed, mawk, bash)
# lacks: ip, ss, rdma (iproute2), ping (iputils-ping), pgrep (procps),
# readelf and objdump (binutils), etcd, etcdctl, curl (the etcd tests talk
# to their etcd with it), openssl (the TLS tests and
# deploy/ippool-etcd-certs.sh), python3 (the fake etcd, the doctor tests),
# python3-yaml (the manifest and etcd wiring tests), python3-prometheus-client
# (the agent test parses its metrics file), strace, go (cnitool),
# podman (the image test), clang (tools/test.sh's fuzz builds).
# The kernel lane (tests/kernel/): qemu-system-x86 boots the guests,
# busybox-static is their userland; make builds netdevsim and siw out of
# tree (the kernels' own prebuilt kbuild tools need libelf1), xz-utils and
# zstd unpack the kernels and their modules, cpio packs the initramfs, kmod
# resolves module dependencies (depmod, modprobe --show-depends). The kernel
# packages themselves are unpacked into the lane's cache, never installed.

as_root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps: $1; run as root to do it" >&2
		exit 1
	fi
}

missing=()
for p in "${packages[@]}"; do
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
	as_root "missing ${missing[*]}"
	echo "deps: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The plugins link cJSON statically. Debian ships no static libcjson, so its
# source package (with Debian's patches, security fixes included) is unpacked
# into the meson subproject; git ignores it. To take a newer Debian revision,
# remove subprojects/cjson/cjson and run this again.
CJSON_DIR=subprojects/cjson/cjson
SRC_LIST=/etc/apt/sources.list.d/sriov-rdma-cni-src.sources

# deb-src entries for the suites and mirrors the machine already uses.
add_deb_src() {
	if [ -f /etc/apt/sources.list.d/debian.sources ]; then
		sed -n '/^Types:/s/.*/Types: deb-src/p; /^Types:/!p' \
			/etc/apt/sources.list.d/debian.sources >"$SRC_LIST"
	else
		sed -n 's/^deb \(.*\)/deb-src \1/p' /etc/apt/sources.list >"${SRC_LIST%.sources}.list"
	fi
	apt-get update -qq
}

if [ ! -f "$CJSON_DIR/cJSON.c" ]; then
	# (no grep -q: with pipefail, apt-cache's SIGPIPE would read as no source)
	if ! apt-cache showsrc cjson 2>/dev/null | grep '^Package: cjson' >/dev/null; then
		as_root "no deb-src entry for Debian's cjson source"
		echo "deps: adding deb-src entries ($SRC_LIST)" >&2
		add_deb_src
	fi
	tmp=$(mktemp -d /tmp/sriov-rdma-deps.XXXXXX)
	trap 'rm -rf "$tmp"' EXIT
	# apt downloads as _apt when it can write there
	chmod 0755 "$tmp"
	id _apt >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] && chown _apt "$tmp"
	(cd "$tmp" && apt-get source -qq --download-only cjson 2>&1) | grep -v '^W: Download is performed unsandboxed' >&2 || true
	dsc=$(find "$tmp" -maxdepth 1 -name 'cjson_*.dsc' | head -n 1)
	if [ -z "$dsc" ]; then
		echo "deps: apt-get source cjson failed" >&2
		exit 1
	fi
	# dpkg-source checks the files against the .dsc (whose hash apt checked
	# against the signed Release file) and applies Debian's patches.
	if ! dpkg-source --no-copy -q -x "$dsc" "$tmp/cjson" >"$tmp/log" 2>&1; then
		cat "$tmp/log" >&2
		exit 1
	fi
	rm -rf "$CJSON_DIR"
	mv "$tmp/cjson" "$CJSON_DIR"
	echo "deps: unpacked $(basename "$dsc" .dsc) into $CJSON_DIR" >&2
fi
