#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian 12 packages needed to build and test sriov-rdma-cni; a no-op when all are present.
set -euo pipefail

packages=(
	meson ninja-build pkg-config gcc clang libclang-rt-14-dev
	libcjson-dev libnl-3-dev libnl-route-3-dev libmnl-dev libibverbs-dev
	check libcurl4-openssl-dev
	containernetworking-plugins golang-go golang-github-appc-cni-dev
	etcd-server etcd-client iproute2 iputils-ping jq valgrind procps strace
)

missing=()
for p in "${packages[@]}"; do
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ "${#missing[@]}" -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing ${missing[*]}; run as root to install them" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
