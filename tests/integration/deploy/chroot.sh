#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The `meson install` output runs in a root filesystem that holds only it and the C library's own files: VERSION, and ADD/CHECK/DEL with ippool on the fake node.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

skip_if_sanitized
for t in meson unshare chroot mount readelf; do
	command -v "$t" >/dev/null || skip_all "$t not installed"
done

# ---- the root: the plugins as installed, ld-linux and libc.so.6, nothing else
stage "$TMP/stage" || skip_all "meson install failed"
R=$TMP/root
mkdir -p "$R/opt/cni/bin" "$R/proc" "$R/run" "$R$TMP"
# shellcheck disable=SC2154 # set by stage
cp -a "$TMP/stage$STAGED_sriov_rdma" "$TMP/stage$STAGED_ippool" "$R/opt/cni/bin/"
interp=$(readelf -l "$R/opt/cni/bin/sriov-rdma" | sed -n 's/.*interpreter: \(.*\)]/\1/p')
libc=$(ldd "$R/opt/cni/bin/sriov-rdma" | awk '$1 == "libc.so.6" {print $3}')
for f in "$interp" "$libc"; do
	mkdir -p "$R$(dirname "$f")"
	cp -L "$f" "$R$f"
done
is "$(cd "$R" && find . -type f | sort | paste -sd' ')" \
	"$(printf '%s\n' ./opt/cni/bin/ippool ./opt/cni/bin/sriov-rdma ".$interp" ".$libc" | sort | paste -sd' ')" \
	"the root holds the two plugins, $(basename "$interp") and libc.so.6, nothing else"

# in_root CMD...: CMD run chrooted in R, in a mount namespace of its own that
# also has /proc, /run (the pod netns, the node-wide VF locks) and $TMP (the
# fake sysfs, the simulator's world, the state and IPAM dirs) mounted at the
# same paths: what a runtime gives a CNI plugin on a node.
cat >"$TMP/in-root" <<EOT
#!/bin/bash
export CNI_PATH=/opt/cni/bin
exec unshare --mount --propagation private -- bash -c '
	mount -t proc proc "$R/proc" && mount --rbind /run "$R/run" && mount --bind "$TMP" "$R$TMP" &&
	exec chroot "$R" "\$@"' in-root "\$@"
EOT
chmod +x "$TMP/in-root"

for p in sriov-rdma ippool; do
	OUT=$(CNI_COMMAND=VERSION "$TMP/in-root" "/opt/cni/bin/$p" </dev/null 2>"$TMP/stderr")
	RC=$?
	T_LAST="VERSION of $p in the root"
	is "$RC" 0 "$p VERSION runs in the root"
	is "$(jout '.supportedVersions | join(" ")')" "0.3.0 0.3.1 0.4.0 1.0.0 1.1.0" "$p answers VERSION"
done

# ---- a full netdev round trip with ippool, nothing but the root's files
cat >"$TMP/sriov-rdma" <<EOT
#!/bin/bash
exec "$TMP/in-root" /opt/cni/bin/sriov-rdma
EOT
chmod +x "$TMP/sriov-rdma"
fx_setup --vfs 1
IPAM=ippool
SIM_LIB=$RDMASIM_LIB
RDMASIM_LIB=
for v in 0.4.0 1.0.0 1.1.0; do
	PLUGIN=$TMP/sriov-rdma T_CTX="in the root, $v" round_trip "$v" no "$(conf "$v" '.rdma = false')"
done

# ---- ippool says what an https:// etcd endpoint needs when libcurl is missing
c=$(jq -nc --arg d "$TMP/ipam" '{cniVersion: "1.0.0", name: "n", type: "ippool",
	ipam: {type: "ippool", range: "192.0.2.0/24", dataDir: $d,
	       store: {type: "etcd", endpoints: ["https://127.0.0.1:9"], timeout_ms: 500}}}')
OUT=$(CNI_COMMAND=ADD CNI_CONTAINERID=curl CNI_NETNS=/run/netns/none CNI_IFNAME=net1 \
	"$TMP/in-root" /opt/cni/bin/ippool <<<"$c" 2>"$TMP/stderr")
RC=$?
# shellcheck disable=SC2034 # printed by tap.sh under a failure
T_LAST="ippool ADD with an https:// endpoint, in the root (no libcurl)"
is "$RC" 1 "ippool with an https:// endpoint and no libcurl fails"
is "$(jout .code)" 112 "with code 112 (store unusable)"
like "$(jout .msg)" "cannot load libcurl.so.4, which https:// etcd endpoints need" "the message says libcurl is missing"
like "$(jout .msg)" "Debian/Ubuntu: libcurl4; RHEL/RHCOS/Fedora: libcurl or libcurl-minimal" \
	"and which package to install"

# ---- the same with rdma: the RDMA simulator (and the libmnl it links) added
# to the root at the paths it has outside, standing in for the kernel's nldev
if [ -f "$SIM_LIB" ]; then
	mkdir -p "$TMP/sim"
	cp "$SIM_LIB" "$TMP/sim/"
	cp -L "$(ldd "$SIM_LIB" | awk '$1 == "libmnl.so.0" {print $3}')" "$TMP/sim/"
	export LD_LIBRARY_PATH=$TMP/sim
	RDMASIM_LIB=$TMP/sim/$(basename "$SIM_LIB")
	for v in 1.0.0 1.1.0; do
		PLUGIN=$TMP/sriov-rdma T_CTX="in the root, rdma, $v" round_trip "$v" yes "$(conf "$v")"
	done
	unset LD_LIBRARY_PATH
else
	skip "rdma round trip in the root: the simulator is not built"
fi

done_testing
