#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the installer image (Containerfile) from a meson build dir: installs it into a staging dir, takes the three files the image holds, builds.
# usage: tools/image.sh [BUILD_DIR [TAG]]   (default ./build, localhost/sriov-rdma-cni:<version>)
# ENGINE: the build command's engine (default podman; e.g. "docker", or podman
# with its own --root). The binaries are stripped; build with
# --buildtype=release for a release image.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
version=$(meson introspect --projectinfo "$build" | jq -r .version)
tag=${2:-localhost/sriov-rdma-cni:$version}
read -r -a engine <<<"${ENGINE:-podman}"

stage=$(mktemp -d "${TMPDIR:-/tmp}/sriov-rdma-image.XXXXXX")
trap 'rm -rf "$stage"' EXIT
meson install -C "$build" --no-rebuild --strip --quiet --destdir "$stage/root" >/dev/null
mkdir "$stage/context"
for name in sriov-rdma ippool sriov-rdma-install; do
	# where meson installed it, from its own record of the install
	path=$(meson introspect --installed "$build" |
		jq -r --arg n "$name" '[.[] | select(endswith("/" + $n))] | first // empty')
	[ -n "$path" ] || { echo "image: meson installs no $name" >&2; exit 1; }
	cp "$stage/root$path" "$stage/context/$name"
done
"${engine[@]}" build --network=none -f "$src/Containerfile" -t "$tag" "$stage/context"
echo "$tag"
