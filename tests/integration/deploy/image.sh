#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The image (Containerfile via tools/image.sh): built offline with podman, its root filesystem exported, its entrypoint run in a chroot onto a host directory.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../tap.sh
. "$HERE/../tap.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$HERE/lib.sh"

skip_if_sanitized
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
for t in podman meson jq unshare chroot; do
	command -v "$t" >/dev/null || skip_all "$t not installed"
done

TMP=$(mktemp -d "/tmp/image-it.$$.XXXXXX")
# A storage of this run's own (vfs: no overlay mounts to leave behind), so
# concurrent runs and the machine's own images never meet.
PODMAN=(podman --root "$TMP/storage" --runroot "$TMP/run" --storage-driver vfs --events-backend none)
TAG=localhost/sriov-rdma-cni-test:$$
CTR=
cleanup() {
	[ -n "$CTR" ] && "${PODMAN[@]}" rm -f "$CTR" >/dev/null 2>&1
	"${PODMAN[@]}" rmi -f "$TAG" >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT

ENGINE="${PODMAN[*]}" bash "$SRC/tools/image.sh" "$T_BUILD" "$TAG" >"$TMP/build.log" 2>&1
RC=$?
is "$RC" 0 "tools/image.sh builds the image with podman, offline" || diag "$(tail -n 20 "$TMP/build.log")"
[ "$RC" -eq 0 ] || done_testing

CTR=$("${PODMAN[@]}" create "$TAG" 2>"$TMP/create.log")
ok "a container can be created from it" test -n "$CTR" || diag "$(cat "$TMP/create.log")"
R=$TMP/rootfs
mkdir "$R"
"${PODMAN[@]}" export "$CTR" | tar -x -C "$R"
ok "its root filesystem exports" test $? -eq 0
is "$(cd "$R" && find . -type f | sort | paste -sd' ')" \
	"./opt/cni/bin/ippool ./opt/cni/bin/sriov-rdma ./usr/bin/sriov-rdma-install" \
	"it holds the two plugins and the installer, nothing else"
entry=$("${PODMAN[@]}" image inspect --format '{{json .Config.Entrypoint}}' "$TAG" | jq -r '.[]')
is "$entry" /usr/bin/sriov-rdma-install "its entrypoint is the installer"

# The entrypoint as the DaemonSet's init container runs it: the host's
# /opt/cni/bin (here a temp dir, holding an older sriov-rdma) mounted at
# /host/opt/cni/bin. No /proc, no /sys, no shell in there.
H=$TMP/host-bin
mkdir -p "$H" "$R/host/opt/cni/bin"
echo old >"$H/sriov-rdma"
OUT=$(unshare --mount --propagation private -- bash -c \
	'mount --bind "$1" "$2/host/opt/cni/bin" && exec chroot "$2" "$3"' - "$H" "$R" "$entry" 2>&1)
RC=$?
is "$RC" 0 "the entrypoint runs in a chroot of the exported root"
like "$OUT" "sriov-rdma replaced in /host/opt/cni/bin" "it replaces the older sriov-rdma"
like "$OUT" "ippool installed in /host/opt/cni/bin" "it installs ippool"
like "$OUT" "node: not ready for sriov-rdma" "it reports the node (nothing to see in a bare chroot)"
for p in sriov-rdma ippool; do
	ok "the host directory's $p is the image's" cmp -s "$R/opt/cni/bin/$p" "$H/$p"
	is "$(CNI_COMMAND=VERSION "$H/$p" </dev/null | jq -r '.supportedVersions[-1]')" 1.1.0 \
		"and it runs on the host"
done
is "$(find "$H" -mindepth 1 | wc -l)" 2 "nothing else is left in the host directory"

# The agent as the DaemonSet's agent container runs it: the image has no C
# library, so the installed (dynamic) plugins run with the host's, mounted
# as the manifest mounts them (/usr/lib at /lib, /usr/lib64 at /lib64).
A=$TMP/agent-dir M=$TMP/textfile
mkdir -p "$A" "$M" "$R/lib" "$R/lib64" "$R/run/sriov-rdma/agent" "$R/textfile"
OUT=$(unshare --mount --propagation private -- bash -c '
	mount --bind "$1" "$2/host/opt/cni/bin" && mount --rbind -o ro /usr/lib "$2/lib" &&
	mount --rbind -o ro /usr/lib64 "$2/lib64" && mount --bind "$3" "$2/run/sriov-rdma/agent" &&
	mount --bind "$4" "$2/textfile" &&
	exec chroot "$2" /usr/bin/sriov-rdma-install --once --to /host/opt/cni/bin \
		--reconcile-interval 60 --metrics-file /textfile/sriov-rdma.prom' - "$H" "$R" "$A" "$M" 2>&1)
unlike "$OUT" "exit 127" "the agent in the image runs the installed plugins with the host's C library"
unlike "$OUT" "no pool counts" "ippool list answers it there"
like "$(cat "$M/sriov-rdma.prom" 2>/dev/null)" "# TYPE ippool_addresses gauge" "and the agent writes its metrics file"
ok "and its status" test -s "$A/status.json"

done_testing
