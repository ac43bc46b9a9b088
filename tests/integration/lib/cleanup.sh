# SPDX-License-Identifier: Apache-2.0
# This run's names and what is undone when the script exits, however it exits.
# shellcheck shell=bash
# shellcheck disable=SC2034 # P and TMP are read by the other parts and the tests
#
# Sets:  P          unique prefix of every name this run creates (pid and a random byte, in hex)
#        TMP        this run's temp dir under /run (removed at exit)
#        T_NETNS    the netns made so far, deleted at exit (netns_add appends)
#        T_AT_EXIT  commands run first at exit, the last added first (parts and tests append)
#        traps on EXIT, HUP, INT, PIPE, TERM
# Reads: T_DONE, T_N (tap.sh); at exit FX_PCI and T_LOCK_DIR (fixture.sh)

# Interface names are at most 15 bytes: 't' + pid in hex + 2 random hex digits.
P=t$(printf '%x%02x' $$ $((RANDOM % 256)))
# Under /run: the dataDirs and log files the configs name must lie under an
# allowed root (tests do not widen them).
TMP=$(mktemp -d "/run/$P.XXXXXX")
T_NETNS=()

# Commands a script adds here (e.g. removing a trace instance) run first at
# exit, the last added first.
T_AT_EXIT=()

# Every link a test makes has an end in a netns it made (the switch holds
# the peer of each stand-in), so deleting the netns removes the links too.
t_cleanup() {
	local i
	for ((i = ${#T_AT_EXIT[@]} - 1; i >= 0; i--)); do
		${T_AT_EXIT[i]}
	done
	for ((i = ${#T_NETNS[@]} - 1; i >= 0; i--)); do
		ip netns del "${T_NETNS[i]}" 2>/dev/null
	done
	[ -z "${FX_PCI:-}" ] || rm -f "$T_LOCK_DIR/${FX_PCI%:*}:"*.lock
	rm -rf "$TMP"
}

t_exit() {
	local rc=$?
	if [ -z "$T_DONE" ]; then
		T_N=$((T_N + 1))
		echo "not ok $T_N - test script ended early (exit $rc)"
		echo "1..$T_N"
		rc=1
	fi
	t_cleanup
	exit "$rc"
}
trap t_exit EXIT
# A signal (a closed output pipe, ^C, a meson timeout) still cleans up.
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 141' PIPE
trap 'exit 143' TERM
