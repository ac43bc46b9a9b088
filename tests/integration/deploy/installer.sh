#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sriov-rdma-install: copies into an empty dir, replaces under a kubelet-like exec loop, leaves equal files alone, refuses a non-directory; ippool settings; the readiness report.
# Environment (meson sets it): INSTALLER, SRIOV_RDMA, IPPOOL.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../tap.sh
. "$HERE/../tap.sh"

TMP=$(mktemp -d "/tmp/installer-it.$$.XXXXXX")
LOOP_PID=
cleanup() {
	[ -n "$LOOP_PID" ] && kill "$LOOP_PID" 2>/dev/null && wait "$LOOP_PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

for v in INSTALLER SRIOV_RDMA IPPOOL; do
	[ -x "${!v:-}" ] || skip_all "$v not set to a built binary"
done

# Two versions of the plugins that both run: B is A with bytes appended.
A=$TMP/a B=$TMP/b
mkdir "$A" "$B"
cp "$SRIOV_RDMA" "$IPPOOL" "$A/"
for f in sriov-rdma ippool; do
	{ cat "$A/$f"; printf 'version B'; } >"$B/$f"
	chmod 0755 "$B/$f"
done

# install FROM TO [ARGS...]: one run into OUT and RC, with a fake node that
# has no RDMA (the report is tested below).
install() {
	local from=$1 to=$2
	shift 2
	T_LAST="sriov-rdma-install --from $from --to $to $*"
	OUT=$(SYSFS_PATH=$TMP/nosys "$INSTALLER" --from "$from" --to "$to" --dev "$TMP/nodev" "$@" \
		2>"$TMP/stderr")
	RC=$?
}

same() { cmp -s "$1" "$2"; }
mode_of() { stat -c %a "$1"; }
id_of() { stat -c '%i %Y.%y' "$1"; }

# ---- an empty directory
D=$TMP/dest
mkdir "$D"
install "$A" "$D"
is "$RC" 0 "install into an empty directory succeeds"
like "$OUT" "sriov-rdma installed in $D" "it says sriov-rdma was installed"
like "$OUT" "ippool installed in $D" "it says ippool was installed"
for f in sriov-rdma ippool; do
	ok "$f is a copy of the source" same "$A/$f" "$D/$f"
	is "$(mode_of "$D/$f")" 755 "$f has mode 0755"
done
is "$(find "$D" -mindepth 1 | sort | xargs -n1 basename | paste -sd' ')" "ippool sriov-rdma" \
	"nothing else is left in the directory (no temp file)"
OUT=$(CNI_COMMAND=VERSION "$D/ippool" </dev/null)
is "$(jq -r '.supportedVersions | length > 0' <<<"$OUT")" true "the installed ippool runs"

# ---- the same content: nothing happens
before=$(id_of "$D/sriov-rdma") before2=$(id_of "$D/ippool")
sleep 1.1
install "$A" "$D"
is "$RC" 0 "installing the same files again succeeds"
like "$OUT" "sriov-rdma unchanged in $D" "it says sriov-rdma is unchanged"
is "$(id_of "$D/sriov-rdma")" "$before" "sriov-rdma keeps its inode and mtime"
is "$(id_of "$D/ippool")" "$before2" "ippool keeps its inode and mtime"

# ---- replacing while a loop keeps exec'ing the destination, as kubelet would
# The loop runs both plugins back to back and records every run that did not
# print a VERSION answer: a missing file (exec fails), a partial one (exec
# format error, a crash) or a half-written one would each show up.
exec_loop() {
	local n=0 bad=0 f out
	while [ ! -e "$TMP/stop" ]; do
		for f in sriov-rdma ippool; do
			out=$(CNI_COMMAND=VERSION "$D/$f" </dev/null 2>&1)
			if [ $? -ne 0 ] || [[ $out != *supportedVersions* ]]; then
				bad=$((bad + 1))
				printf '%s: %s\n' "$f" "$out" >>"$TMP/loop.bad"
			fi
			n=$((n + 1))
		done
	done
	echo "$n $bad" >"$TMP/loop.count"
}
exec_loop &
LOOP_PID=$!
replaced=0 failed=0
for i in $(seq 1 30); do
	if ((i % 2)); then src=$B; else src=$A; fi
	install "$src" "$D"
	[ "$RC" -eq 0 ] || failed=$((failed + 1))
	[[ $OUT == *"sriov-rdma replaced"* && $OUT == *"ippool replaced"* ]] && replaced=$((replaced + 1))
done
touch "$TMP/stop"
wait "$LOOP_PID"
LOOP_PID=
read -r runs bad <"$TMP/loop.count"
is "$failed" 0 "30 installs alternating two versions all succeed"
is "$replaced" 30 "each of them replaced both plugins"
ok "the exec loop ran meanwhile ($runs runs)" test "$runs" -gt 0
is "$bad" 0 "no run of the loop found a missing or partial plugin"
[ -s "$TMP/loop.bad" ] && diag "$(head -n 5 "$TMP/loop.bad")"
ok "the last install (version A) is in place" same "$A/sriov-rdma" "$D/sriov-rdma"

# ---- what is not a plain file at the plugin's name is replaced, not followed
rm "$D/ippool"
echo target >"$TMP/target"
ln -s "$TMP/target" "$D/ippool"
install "$A" "$D"
is "$RC" 0 "a symlink at the plugin's name is replaced"
ok "the name is a copy of the plugin now" same "$A/ippool" "$D/ippool"
is "$(cat "$TMP/target")" target "the symlink's target is untouched"

# ---- destinations that are not directories
echo "not a dir" >"$TMP/file"
install "$A" "$TMP/file"
is "$RC" 1 "a destination that is a file is refused (exit 1)"
like "$(cat "$TMP/stderr")" "destination $TMP/file is not a directory" "the error says it is not a directory"
is "$(cat "$TMP/file")" "not a dir" "the file is untouched"
install "$A" "$TMP/absent"
is "$RC" 1 "a destination that does not exist is refused (exit 1)"
like "$(cat "$TMP/stderr")" "destination $TMP/absent: No such file or directory" "the error names it"
ok "nothing was created" test ! -e "$TMP/absent"
install "$TMP/nothing-here" "$D"
is "$RC" 1 "a source without the plugins fails (exit 1)"
like "$(cat "$TMP/stderr")" "failed to install $TMP/nothing-here/sriov-rdma" "the error names the missing plugin"
"$INSTALLER" --to "$D" extra >/dev/null 2>&1
is "$?" 2 "a stray argument is a usage error (exit 2)"
"$INSTALLER" --conf-from "$A" >/dev/null 2>&1
is "$?" 2 "--conf-from without --conf-to is a usage error (exit 2)"

# ---- ippool's settings from a Secret/ConfigMap volume (..data symlinks)
S=$TMP/secret C=$TMP/conf
mkdir -p "$S/..2026_01_01" "$C"
echo '{"store":"local"}' >"$S/..2026_01_01/ippool.conf"
echo 'KEY' >"$S/..2026_01_01/ippool.key"
ln -s ..2026_01_01 "$S/..data"
ln -s ..data/ippool.conf "$S/ippool.conf"
ln -s ..data/ippool.key "$S/ippool.key"
install "$A" "$D" --conf-from "$S" --conf-to "$C"
is "$RC" 0 "the settings are copied"
is "$(find "$C" -mindepth 1 -printf '%f:%m:%y\n' | sort | paste -sd' ')" \
	"ippool.conf:600:f ippool.key:600:f" "as plain files of mode 0600, the volume's ..data links left out"
is "$(cat "$C/ippool.key")" KEY "with the volume's content"
chmod 0644 "$C/ippool.key"
install "$A" "$D" --conf-from "$S" --conf-to "$C"
like "$OUT" "ippool.key replaced" "a copy whose mode drifted is written again"
is "$(mode_of "$C/ippool.key")" 600 "back to 0600"

# ---- --sleep: copies again (a rotated certificate), stops on SIGTERM
SYSFS_PATH=$TMP/nosys "$INSTALLER" --from "$A" --to "$D" --conf-from "$S" --conf-to "$C" \
	--dev "$TMP/nodev" --sleep --resync 1 >"$TMP/sleep.out" 2>&1 &
pid=$!
sleep 0.5
echo 'KEY2' >"$S/..2026_01_01/ippool.key"
for _ in $(seq 50); do
	[ "$(cat "$C/ippool.key")" = KEY2 ] && break
	sleep 0.1
done
is "$(cat "$C/ippool.key")" KEY2 "a changed setting is copied again while it sleeps"
ok "it is still running" kill -0 "$pid"
kill -TERM "$pid"
for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
ok "SIGTERM stops it within 5 s" test ! -e "/proc/$pid"
wait "$pid"
is "$?" 0 "and it exits 0"

# ---- the readiness report, from a fake sysfs and /dev
# fake_node MODE(Y|N|"") VFS RDMA_VFS UVERBS(yes|no): a node at $TMP/node.
fake_node() {
	local n=$TMP/node i bdf
	rm -rf "$n"
	mkdir -p "$n/sys/bus/pci/devices" "$n/sys/devices/pci0000:3b" "$n/dev"
	[ -n "$1" ] && mkdir -p "$n/sys/module/ib_core/parameters" &&
		echo "$1" >"$n/sys/module/ib_core/parameters/netns_mode"
	mkdir "$n/sys/devices/pci0000:3b/0000:3b:00.0"
	echo "$2" >"$n/sys/devices/pci0000:3b/0000:3b:00.0/sriov_numvfs"
	ln -s ../../../devices/pci0000:3b/0000:3b:00.0 "$n/sys/bus/pci/devices/0000:3b:00.0"
	for ((i = 0; i < $2; i++)); do
		bdf=$(printf '0000:3b:%02x.%x' $(((2 + i) / 8)) $(((2 + i) % 8)))
		mkdir -p "$n/sys/devices/pci0000:3b/$bdf/infiniband"
		ln -s ../0000:3b:00.0 "$n/sys/devices/pci0000:3b/$bdf/physfn"
		[ "$i" -lt "$3" ] && mkdir "$n/sys/devices/pci0000:3b/$bdf/infiniband/mlx5_$((i + 1))"
		ln -s "../../../devices/pci0000:3b/$bdf" "$n/sys/bus/pci/devices/$bdf"
	done
	if [ "$4" = yes ]; then
		mkdir "$n/dev/infiniband"
		touch "$n/dev/infiniband/uverbs0" "$n/dev/infiniband/uverbs1" "$n/dev/infiniband/rdma_cm"
	fi
}
report() {
	OUT=$(SYSFS_PATH=$TMP/node/sys "$INSTALLER" --from "$A" --to "$D" --dev "$TMP/node/dev" 2>&1)
	RC=$?
}
fake_node N 16 12 yes
report
is "$RC" 0 "a ready node: exit 0"
like "$OUT" "node: RDMA netns mode: exclusive" "exclusive mode is reported"
like "$OUT" "node: $TMP/node/dev/infiniband: 2 uverbs devices" "the uverbs devices are counted"
like "$OUT" "1 PFs with VFs, 16 VFs, 12 with an RDMA device in this netns" "PFs, VFs and VFs with RDMA devices are counted"
like "$OUT" "node: ready for sriov-rdma" "the node is ready"
fake_node Y 16 16 yes
report
is "$RC" 0 "a node in shared mode: still exit 0 (the plugins are installed)"
like "$OUT" "node: not ready for sriov-rdma: RDMA is in shared netns mode (rdma system set netns exclusive" \
	"shared mode is not ready, and the fix is named"
fake_node "" 0 0 no
report
like "$OUT" "not ready for sriov-rdma: no RDMA stack" "no ib_core: not ready"
like "$OUT" "no infiniband device directory" "no /dev/infiniband: named"
like "$OUT" "no VFs (a SriovNetworkNodePolicy with isRdma: true creates them)" "no VFs: named"

done_testing
