# SPDX-License-Identifier: Apache-2.0
# What the reconcile tests share (ippool/reconcile.sh, etcd/reconcile.sh): netns
# and processes made for pods (all gone at exit: rc_cleanup), reconcile runs
# and their --json read with python3.
# shellcheck shell=bash
# shellcheck disable=SC2034 # ROUT, RERR and RRC are read by the tests
# Reads TMP and IPPOOL (lib.sh) and $TMP/rc.conf, the store reconcile works on.

# Names of this run's netns, and the processes it starts: all gone at exit.
NSP=rc$$-
NS_MADE=()
PIDS=()
rc_cleanup() {
	local n p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for n in "${NS_MADE[@]}"; do ip netns del "$n" 2>/dev/null; done
	rm -rf "$TMP"
}

ns_add() {
	ip netns add "$NSP$1" && NS_MADE+=("$NSP$1")
}
ns_del() { ip netns del "$NSP$1"; }
ns_path() { printf '/var/run/netns/%s' "$NSP$1"; }

# add_in NETNS_PATH CONFIG CID ADDRESS: an ADD for CID with CNI_NETNS
# NETNS_PATH gets ADDRESS (add_is, lib.sh).
add_in() {
	NETNS=$1 add_is "$2" "$3" "$4"
}

# reconcile ARGS...: into ROUT (stdout), RERR (stderr), RRC (exit status).
reconcile() {
	ROUT=$("$IPPOOL" reconcile --conf "$TMP/rc.conf" "$@" 2>"$TMP/rc.err")
	RRC=$?
	RERR=$(cat "$TMP/rc.err")
}

# j EXPR: EXPR of d, the one JSON object of the last reconcile's stdout
# (python3: a second document or trailing bytes fail the parse).
j() {
	python3 -c 'import json, sys; d = json.loads(sys.stdin.read()); print(eval(sys.argv[1]))' \
		"$1" <<<"$ROUT"
}

# what CID: "verdict action" of CID's lease in the last --json run.
what() {
	j "' '.join(next((l['verdict'] + ' ' + l['action']) for l in d['leases'] if l['containerID'] == '$1').split())"
}

# rebooted ARGS...: `ippool reconcile ARGS...` as after a reboot, into ROUT
# and RRC: another boot id bind-mounted over the kernel's inside unshare -m
# (the host's stays).
rebooted() {
	echo 6c1d0e2f-0000-4000-8000-00000000b007 >"$TMP/boot_id"
	ROUT=$(unshare -m sh -c 'mount --bind "$1" /proc/sys/kernel/random/boot_id && shift && exec "$@"' \
		sh "$TMP/boot_id" "$IPPOOL" reconcile "$@" 2>"$TMP/rc.err")
	RRC=$?
}
