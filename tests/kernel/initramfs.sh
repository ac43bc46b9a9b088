#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the guest's initramfs from the host's own files: busybox, the tools the tests run with their shared libraries, the project's binaries, the test scripts and the kernel's modules.
# Usage: initramfs.sh KERNEL-DIR (fetch.sh's) OUT.cpio BIN... (the project's
# binaries, put in /opt/cni/bin)
set -euo pipefail

kdir=$1 out=$2
shift 2
src=$(cd "$(dirname "$0")/../.." && pwd)
release=$(ls "$kdir/root/lib/modules")
tree=$(mktemp -d /tmp/sriov-rdma-initramfs.XXXXXX)
trap 'rm -rf "$tree"' EXIT

# copy_bin PATH...: each file at its own path, with the libraries ldd names.
copy_bin() {
	local f lib
	for f in "$@"; do
		mkdir -p "$tree$(dirname "$f")"
		cp -L "$f" "$tree$f"
		for lib in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*' || true); do
			[ -e "$tree$lib" ] && continue
			mkdir -p "$tree$(dirname "$lib")"
			cp -L "$lib" "$tree$lib"
		done
	done
}

mkdir -p "$tree"/{usr/bin,usr/sbin,dev,proc,sys,run,tmp,etc,opt/cni/bin,usr/lib/cni,lib/modules,src}
# /bin and /sbin are /usr's, as on the host; busybox's applets come last in
# the guest's PATH (/busybox), after every host tool
ln -s usr/bin "$tree/bin"
ln -s usr/sbin "$tree/sbin"
mkdir -p "$tree/busybox"
cp /bin/busybox "$tree/busybox/busybox"
for a in $(/bin/busybox --list); do
	[ "$a" = busybox ] || ln -s busybox "$tree/busybox/$a"
done
# What the test scripts run that busybox lacks or has in another dialect
# (sort -V, timeout -k, GNU stat and mktemp; perl makes the fake sysfs's
# links in one process, devlink sets netdevsim's eswitch mode).
copy_bin "$(command -v bash)" "$(command -v ip)" "$(command -v rdma)" "$(command -v jq)" \
	"$(command -v timeout)" "$(command -v stat)" "$(command -v mktemp)" "$(command -v sort)" \
	"$(command -v env)" "$(command -v perl)" "$(command -v devlink)"
cp /usr/lib/cni/host-local "$tree/usr/lib/cni/"
for b in "$@"; do
	copy_bin "$(readlink -f "$b")"
	mv "$tree$(readlink -f "$b")" "$tree/opt/cni/bin/$(basename "$b")"
done

# The harness the host suite uses, and this lane's guest side.
mkdir -p "$tree/src/tests/integration/lib" "$tree/src/tests/kernel"
cp "$src/tests/integration/tap.sh" "$src/tests/integration/lib.sh" "$tree/src/tests/integration/"
cp "$src"/tests/integration/lib/*.sh "$tree/src/tests/integration/lib/"
cp "$src"/tests/kernel/guest-*.sh "$tree/src/tests/kernel/"
install -m 0755 "$src/tests/kernel/guest-init.sh" "$tree/init"

# The modules in load order (modprobe resolves the dependencies here, the
# guest only runs insmod), uncompressed: busybox's insmod reads plain .ko.
for m in veth bridge crc32_generic rdma_rxe siw netdevsim; do
	modprobe -d "$kdir/root" -S "$release" --show-depends "$m" | awk '$1 == "insmod" {print $2}'
done | awk '!seen[$0]++' | while read -r ko; do
	name=$(basename "$ko")
	name=${name%.xz}
	case $ko in
	*.xz) xz -dc "$ko" >"$tree/lib/modules/$name" ;;
	*) cp "$ko" "$tree/lib/modules/$name" ;;
	esac
	echo "${name%.ko}" >>"$tree/lib/modules/order"
done
echo "$release" >"$tree/etc/release"

(cd "$tree" && find . | cpio -o -H newc --quiet) >"$out"
