#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/demo.sh runs ADD / CHECK / DEL on its simulated node, and stops at the first step of its own fixture that fails, naming it and the command's error, without running ADD.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

DEMO=$T_SRC/tools/demo.sh

# demo: tools/demo.sh on the build under test (no deps.sh, no compile), PATH
# as the caller sets it; stdout in $TMP/out, stderr in $TMP/err, status in RC.
demo() {
	timeout -k 5 120 bash "$DEMO" "$T_BUILD" >"$TMP/out" 2>"$TMP/err"
	RC=$?
}

# ---- the demo as a user runs it -----------------------------------------------
demo
is "$RC" 0 "the demo succeeds" || diag "$(tail -n 20 "$TMP/err")"
is "$(grep -c '^(exit 0)$' "$TMP/out")" 3 "the demo: ADD, CHECK and DEL each exit 0"
like "$(cat "$TMP/out")" "demo done; cleaning up" "the demo: it says it is done"

# ---- a fixture step refused -------------------------------------------------------
# `ip netns add` refused as in a chroot whose / is not a mount point; every
# other ip command is the real one. The wrapper logs what it was asked.
real_ip=$(command -v ip)
mkdir -p "$TMP/bin"
cat >"$TMP/bin/ip" <<EOF
#!/bin/sh
echo "\$*" >>"$TMP/ip.log"
if [ "\$1" = netns ] && [ "\$2" = add ]; then
	echo "mount --make-rslave / failed: Invalid argument" >&2
	exit 1
fi
exec "$real_ip" "\$@"
EOF
chmod +x "$TMP/bin/ip"

desc="ip netns add refused"
PATH=$TMP/bin:$PATH demo
is "$RC" 1 "$desc: the demo exits 1" || diag "$(tail -n 20 "$TMP/err")"
like "$(cat "$TMP/err")" "demo: cannot set up the simulated node" "$desc: the demo names the fixture step"
like "$(cat "$TMP/err")" "mount --make-rslave / failed: Invalid argument" \
	"$desc: and what the refused command said"
unlike "$(cat "$TMP/out")" "== ADD" "$desc: the demo never gets to ADD"
unlike "$(cat "$TMP/out" "$TMP/err")" "no PCI device" "$desc: no plugin error about a device"
# the switch netns its fixture asked for: <prefix>sw
swns=$(sed -n 's/^netns add //p' "$TMP/ip.log" | head -n 1)
like "$swns" sw "$desc: the demo asked for its switch netns"
dp=${swns%sw}
is "$(ip -o link show | grep -c ": $dp")" 0 "$desc: no link of the demo's ($dp*) is left"
nok "$desc: the demo's temp dir is gone" compgen -G "/run/$dp.*"

done_testing
