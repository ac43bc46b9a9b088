#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The device-info file (runtimeConfig.CNIDeviceInfoFile) in every CNI version: written by ADD, a device plugin's copy completed, chained after sriov-cni, removed by DEL; paths outside the spec's directory refused.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

[ -x "$IPPOOL" ] || skip_all "ippool not built (host-local stops at CNI 1.0.0)"
IPAM=ippool
fx_setup --vfs 2
DI=/var/run/k8s.cni.cncf.io/devinfo
D=$DI/cni
# /var/run is a symlink to /run here, as on most nodes: messages name the path as /run/...
DRUN=/run/k8s.cni.cncf.io/devinfo/cni
OUTSIDE=$TMP/outside
mkdir -p "$OUTSIDE"

# This run's files are all named $P-*; the directories it had to make go
# too (when empty: another user of the directory keeps them).
made=()
for d in /var/run/k8s.cni.cncf.io "$DI" "$D"; do
	[ -d "$d" ] || made+=("$d")
done
devinfo_cleanup() {
	local i
	rm -rf "$D/$P"-* "$D/.$P"-* "$DI/$P"-* "/var/run/k8s.cni.cncf.io/$P"-*
	for ((i = ${#made[@]} - 1; i >= 0; i--)); do
		rmdir "${made[i]}" 2>/dev/null
	done
}
T_AT_EXIT+=(devinfo_cleanup)
mkdir -p "$D"

# with_devinfo CONF PATH: CONF with runtimeConfig.CNIDeviceInfoFile = PATH,
# as libcni passes a capability argument.
with_devinfo() {
	jq -c --arg f "$2" '.runtimeConfig.CNIDeviceInfoFile = $f' <<<"$1"
}

# what the spec's document for VF I says: FILTER applied to the plugin's own one.
want_doc() {
	jq -nS --arg pci "${FX_VF_BDF[$1]}" --arg pf "$FX_PF_BDF" --arg rdma "${FX_VF_RDMA[$1]}" \
		'{type: "pci", version: "1.1.0",
		  pci: {"pci-address": $pci, "pf-pci-address": $pf, "rdma-device": $rdma}}' |
		jq -S "${2:-.}"
}

doc_of() {
	jq -S . "$1" 2>&1
}

# what the spec's directory holds, to tell that nothing was written
devinfo_tree() {
	find /var/run/k8s.cni.cncf.io/ -mindepth 1 -printf '%P %y %s\n' 2>/dev/null | sort
}

# A device plugin's copy as Multus makes it: the DP's own document (it knows
# the VF and the RDMA device by its host name) plus a key of its own.
dp_copy() {
	jq -nc --arg pci "${FX_VF_BDF[$2]}" --arg rdma "${FX_VF_RDMA[$2]}" \
		'{type: "pci", version: "1.0.0", pci: {"pci-address": $pci, "rdma-device": $rdma},
		  "x-device-plugin": {"resource": "nvidia.com/rdma_vf"}}' >"$1"
}

for v in 0.3.0 0.3.1 0.4.0 1.0.0 1.1.0; do
	c=$(conf "$v")
	# ---- the capability unset: no file
	pod_new
	before=$(host_state) tree=$(devinfo_tree)
	cni ADD "$c"
	is "$RC" 0 "$v, no CNIDeviceInfoFile: ADD succeeds"
	is "$(devinfo_tree)" "$tree" "$v, no CNIDeviceInfoFile: no device-info file is written"
	cni DEL "$c"
	is "$RC" 0 "$v, no CNIDeviceInfoFile: DEL succeeds"
	is "$(host_state)" "$before" "$v, no CNIDeviceInfoFile: the VF is back"
	netns_del "$POD"

	# ---- the capability set, no copy from a device plugin: the file is made
	F=$D/$P-$v-new-net1-device.json
	pod_new
	before=$(host_state)
	cni ADD "$(with_devinfo "$c" "$F")"
	T_CTX="$v, CNIDeviceInfoFile, no copy" assert_added "$v" yes
	is "$(doc_of "$F")" "$(want_doc 0)" \
		"$v: the device-info file has type pci, version 1.1.0, the VF's and PF's PCI addresses and the pod's RDMA device"
	is "$(stat -c %a "$F")" 600 "$v: the file has mode 0600"
	is "$(find "$D" -name ".$P-$v-*")" "" "$v: no temp file is left beside it"
	cni DEL "$(with_devinfo "$c" "$F")"
	is "$RC" 0 "$v, CNIDeviceInfoFile: DEL succeeds"
	ok "$v: DEL removes the device-info file" test ! -e "$F"
	is "$(host_state)" "$before" "$v, CNIDeviceInfoFile: the VF is back"
	cni DEL "$(with_devinfo "$c" "$F")"
	is "$RC" 0 "$v, CNIDeviceInfoFile: a second DEL succeeds (the file is gone)"
	netns_del "$POD"

	# ---- the device plugin's copy, made by Multus before ADD: completed
	F=$D/$P-$v-dp-net1-device.json
	dp_copy "$F" 0
	pod_new
	cni ADD "$(with_devinfo "$c" "$F")"
	is "$RC" 0 "$v, device plugin's copy: ADD succeeds"
	is "$(doc_of "$F")" "$(want_doc 0 '. + {"x-device-plugin": {resource: "nvidia.com/rdma_vf"}}')" \
		"$v: the copy gets pf-pci-address and version 1.1.0, keeps the device plugin's keys"
	cni DEL "$(with_devinfo "$c" "$F")"
	is "$RC" 0 "$v, device plugin's copy: DEL succeeds"
	ok "$v: DEL removes the completed copy" test ! -e "$F"
	netns_del "$POD"
done

# ---- without RDMA: the netdev alone, the device plugin's RDMA name kept
F=$D/$P-nordma-net1-device.json
dp_copy "$F" 0
pod_new
c=$(conf 1.1.0 '.rdma = false')
cni ADD "$(with_devinfo "$c" "$F")"
is "$RC" 0 "rdma false: ADD succeeds"
is "$(doc_of "$F")" "$(want_doc 0 '. + {"x-device-plugin": {resource: "nvidia.com/rdma_vf"}}')" \
	"rdma false: the copy is completed, its rdma-device left as the device plugin wrote it"
cni DEL "$(with_devinfo "$c" "$F")"
ok "rdma false: DEL removes the file" test ! -e "$F"
netns_del "$POD"

# ---- refused, before anything changes
pod_new
c=$(conf 1.0.0)
F=$D/$P-other-net1-device.json
dp_copy "$F" 1
copy=$(cat "$F")
add_fails 7 "\"pci-address\" is not ${FX_VF_BDF[0]}: it describes another device" \
	"a device plugin's copy about another VF" "$(with_devinfo "$c" "$F")"
is "$(cat "$F")" "$copy" "the other VF's copy is left as it was"
echo '{"type": "pci", "pci": ' >"$F"
add_fails 6 "device-info file $DRUN/${F##*/}: not a JSON object" "a damaged copy" "$(with_devinfo "$c" "$F")"

tree=$(devinfo_tree)
for p in "$OUTSIDE/$P-x.json" "$DI/../$P-x.json" "$D/../../$P-x.json" \
	"/run/k8s.cni.cncf.io/devinfo/cni/$P-x.json" "$DI" "$D/" "$P-x.json" /etc/passwd; do
	add_fails 7 "runtimeConfig.CNIDeviceInfoFile \"$p\" is not a file under $DI/" \
		"CNIDeviceInfoFile $p" "$(with_devinfo "$c" "$p")"
done
is "$(devinfo_tree)" "$tree" "nothing was written under the spec's directory"
is "$(find "$OUTSIDE" -mindepth 1)" "" "nor outside it"
cni DEL "$(with_devinfo "$c" "$OUTSIDE/$P-x.json")"
is "$RC:$(jout .code)" 1:7 "DEL with a CNIDeviceInfoFile outside the directory is refused with code 7"

# a symlink (or a file) below the directory, where a directory should be
ln -s "$OUTSIDE" "$D/$P-link"
add_fails 7 "\"$DRUN/$P-link/x.json\" crosses the symlink $DRUN/$P-link" \
	"a symlinked directory below $DI" "$(with_devinfo "$c" "$D/$P-link/x.json")"
echo plain >"$D/$P-file"
add_fails 7 "\"$DRUN/$P-file/x.json\" is not a device-info file" "a file where a directory should be" \
	"$(with_devinfo "$c" "$D/$P-file/x.json")"
# the file itself a symlink
echo target >"$OUTSIDE/target"
ln -s "$OUTSIDE/target" "$D/$P-sym.json"
add_fails 7 "\"$DRUN/$P-sym.json\" crosses the symlink $DRUN/$P-sym.json" \
	"a symlink at the file's name" "$(with_devinfo "$c" "$D/$P-sym.json")"
is "$(find "$OUTSIDE" -mindepth 1 -printf '%P ' && cat "$OUTSIDE/target")" "target target" \
	"the symlinks' targets are untouched, nothing was written through them"
cni DEL "$(with_devinfo "$c" "$D/$P-link/x.json")"
is "$RC:$(jout .code)" 1:7 "DEL through a symlinked directory is refused with code 7"
mkfifo "$D/$P-fifo.json"
add_fails 7 "\"$DRUN/$P-fifo.json\" is not a device-info file" "a FIFO at the file's name" \
	"$(with_devinfo "$c" "$D/$P-fifo.json")"

# directories below the spec's one that do not exist yet are made
F=$D/$P-deep/a/b/net1-device.json
cni ADD "$(with_devinfo "$c" "$F")"
is "$RC" 0 "a file in directories not made yet: ADD succeeds"
is "$(doc_of "$F")" "$(want_doc 0)" "the directories are made and the file written"
is "$(stat -c %a "$D/$P-deep/a")" 700 "directories it makes have mode 0700"
cni DEL "$(with_devinfo "$c" "$F")"
ok "DEL removes it" test ! -e "$F"
netns_del "$POD"

# ---- chained after sriov-cni: rdma-device added to what is there
VF=1
pod_new
F=$D/$P-chained-net1-device.json
jq -nc --arg pci "${FX_VF_BDF[1]}" '{type: "pci", version: "1.0.0", pci: {"pci-address": $pci}}' >"$F"
before=$(host_state)
chained_after_sriov_cni 1
c=$CHAINED
cni ADD "$(with_devinfo "$c" "$F")"
is "$RC" 0 "chained, CNIDeviceInfoFile: ADD succeeds"
is "$(rdma_visible "$POD")" "${FX_VF_RDMA[1]}" "chained: the RDMA device is in the pod"
is "$(doc_of "$F")" "$(want_doc 1)" "chained: rdma-device (and pf-pci-address) added to what was written"
cni DEL "$(with_devinfo "$c" "$F")"
is "$RC" 0 "chained: DEL succeeds"
ok "chained: DEL removes the file" test ! -e "$F"
vf_from_pod 1 "$POD" net1
is "$(host_state)" "$before" "chained: after sriov-cni's DEL the host is as before"
netns_del "$POD"
VF=0

# ---- through libcni, as Multus passes it: a capability argument
if [ -x "$CNITOOL" ]; then
	F=$D/$P-libcni-net1-device.json
	for declared in true false; do
		conf 1.0.0 | jq --argjson cap "$declared" '{cniVersion: .cniVersion, name: .name,
			plugins: [del(.cniVersion, .name) | if $cap then .capabilities = {CNIDeviceInfoFile: true} else . end]}' \
			>"$TMP/devinfo.conflist"
		pod_new
		libcni add "$TMP/devinfo.conflist" -cap "{\"CNIDeviceInfoFile\": \"$F\"}"
		is "$RC" 0 "libcni, capability declared $declared: add succeeds"
		if [ "$declared" = true ]; then
			is "$(doc_of "$F")" "$(want_doc 0)" "libcni, capability declared: the file is written"
		else
			ok "libcni, capability not declared: libcni passes no path, no file" test ! -e "$F"
		fi
		libcni del "$TMP/devinfo.conflist" -cap "{\"CNIDeviceInfoFile\": \"$F\"}"
		is "$RC" 0 "libcni, capability declared $declared: del succeeds"
		ok "libcni, capability declared $declared: no file after del" test ! -e "$F"
		netns_del "$POD"
	done
else
	skip "libcni: cnitool not built"
fi

done_testing
