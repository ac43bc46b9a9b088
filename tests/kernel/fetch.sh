#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fetches one Debian 12 kernel series (6.1 or 6.12) into the lane's cache: the packages unpacked, the uncompressed vmlinux, netdevsim and siw built out of tree.
# Usage: fetch.sh SERIES CACHE-DIR; prints the series' directory on success.
# Exit 77 when apt knows no such kernel or cannot download it (the lane
# skips), 1 when what was downloaded does not build. Nothing is installed:
# the packages are unpacked with dpkg-deb -x under CACHE-DIR/SERIES/root.
set -euo pipefail

series=$1 cache=$2
case $series in
6.1) meta=linux-headers-amd64 ;;
*) meta=linux-headers-$series-amd64 ;;
esac
dir=$cache/$series
mkdir -p "$dir"
# one fetch per series at a time (the plain and the sanitizer build share it)
exec 9>"$dir/.lock"
flock 9

# the release the meta package points at, e.g. 6.1.0-57-amd64
headers=$(apt-cache depends "$meta" 2>/dev/null | sed -n 's/^ *Depends: \(linux-headers-.*-amd64\)$/\1/p' | head -n 1 || true)
if [ -z "$headers" ]; then
	echo "fetch: apt knows no $meta (Debian 12's sources.list entries missing?)" >&2
	exit 77
fi
release=${headers#linux-headers-}
version=$(apt-cache policy "$headers" | sed -n 's/^ *Candidate: //p')
stamp=$release@$version
if [ "$(cat "$dir/ready" 2>/dev/null)" = "$stamp" ]; then
	echo "$dir"
	exit 0
fi

rm -rf "$dir/debs" "$dir/root" "$dir/src" "$dir/vmlinux" "$dir/ready"
mkdir -p "$dir/debs" "$dir/root" "$dir/src"
abi=${release%-amd64}
kbuild=linux-kbuild-$series
[ "$series" = 6.1 ] || kbuild=linux-kbuild-$abi
pkgs=("linux-image-$release-unsigned=$version" "$headers=$version" "linux-headers-$abi-common=$version"
	"$kbuild=$version" "linux-source-$series=$version")
# apt downloads as _apt when it can write there
chmod 0755 "$dir/debs"
id _apt >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] && chown _apt "$dir/debs"
if ! (cd "$dir/debs" && apt-get download -q "${pkgs[@]}" >"$dir/download.log" 2>&1); then
	cat "$dir/download.log" >&2
	echo "fetch: cannot download ${pkgs[*]}" >&2
	exit 77
fi
for deb in "$dir"/debs/*.deb; do
	dpkg-deb -x "$deb" "$dir/root"
done
rm -rf "$dir/debs"

# The headers' Makefile includes the common part by its installed path.
hdr=$dir/root/usr/src/$headers
sed -i "s|^include /usr/src/|include $dir/root/usr/src/|" "$hdr/Makefile"

# vmlinux from the bzImage: its XZ (6.1) or zstd (6.12) payload, booted
# through its PVH entry (no real-mode decompressor under TCG).
img=$dir/root/boot/vmlinuz-$release
unpack=
for magic in '\xfd7zXZ\x00:xz' '\x28\xb5\x2f\xfd:zstd'; do
	off=$(LC_ALL=C grep -obUaP "${magic%:*}" "$img" | head -n 1 | cut -d: -f1 || true)
	[ -n "$off" ] && { unpack=${magic##*:}; break; }
done
if [ -z "$unpack" ]; then
	echo "fetch: $img has neither an XZ nor a zstd payload" >&2
	exit 1
fi
# (the decompressor complains about the bytes after the payload)
tail -c +$((off + 1)) "$img" | "$unpack" -dc >"$dir/vmlinux" 2>/dev/null || true
readelf -n "$dir/vmlinux" | grep -q Xen || { echo "fetch: $dir/vmlinux has no PVH note" >&2; exit 1; }

# netdevsim and siw: Debian builds neither; their source from linux-source
# (no BTF for them: that needs pahole and the vmlinux BTF).
tar -xJf "$dir/root/usr/src/linux-source-$series.tar.xz" -C "$dir/src" --strip-components=1 \
	"linux-source-$series/drivers/net/netdevsim" "linux-source-$series/drivers/infiniband/sw/siw"
rm -f "$dir/root/usr/src/linux-source-$series.tar.xz"
extra=$dir/root/lib/modules/$release/extra
mkdir -p "$extra"
for m in drivers/net/netdevsim:CONFIG_NETDEVSIM drivers/infiniband/sw/siw:CONFIG_RDMA_SIW; do
	if ! make -s -C "$hdr" M="$dir/src/${m%%:*}" "${m#*:}=m" CONFIG_DEBUG_INFO_BTF_MODULES= -j"$(nproc)" modules \
		>"$dir/build.log" 2>&1; then
		cat "$dir/build.log" >&2
		exit 1
	fi
	cp "$dir/src/${m%%:*}"/*.ko "$extra/"
done
depmod -b "$dir/root" "$release"
echo "$stamp" >"$dir/ready"
echo "$dir"
