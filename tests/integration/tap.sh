# SPDX-License-Identifier: Apache-2.0
# TAP for the integration tests: results, assertions, the last plugin run under a failure.
# shellcheck shell=bash
# T_DONE is read by the sourcing harness's exit trap:
# shellcheck disable=SC2034
# Globals: T_N, T_FAILED (counts), T_DONE (set by done_testing and skip_all);
# last_run prints T_LAST, RC, OUT and $TMP/stderr of the harness's last run.

T_N=0
T_FAILED=0
T_DONE=

diag() {
	local line
	while IFS= read -r line; do
		printf '# %s\n' "$line"
	done <<<"$*"
}

# The last plugin run, printed under a failed assertion.
last_run() {
	[ -n "${T_LAST:-}" ] || return 0
	diag "last run: $T_LAST -> exit $RC"
	diag "stdout: $OUT"
	[ -s "$TMP/stderr" ] && diag "stderr: $(tail -n 20 "$TMP/stderr")"
}

t_result() {
	T_N=$((T_N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $T_N - $2"
		return 0
	fi
	echo "not ok $T_N - $2"
	T_FAILED=$((T_FAILED + 1))
	last_run
	return 1
}

# ok DESC CMD...: passes when CMD succeeds.
ok() {
	local desc=$1
	shift
	"$@"
	t_result $? "$desc"
}

# nok DESC CMD...: passes when CMD fails.
nok() {
	local desc=$1
	shift
	! "$@"
	t_result $? "$desc"
}

# is GOT WANT DESC
is() {
	if [ "$1" == "$2" ]; then
		t_result 0 "$3"
		return
	fi
	t_result 1 "$3"
	diag "got:  $1"
	diag "want: $2"
	return 1
}

# like GOT SUBSTRING DESC
like() {
	if [[ "$1" == *"$2"* ]]; then
		t_result 0 "$3"
		return
	fi
	t_result 1 "$3"
	diag "got:  $1"
	diag "want something containing: $2"
	return 1
}

# skip DESC: a test that cannot run here.
skip() {
	T_N=$((T_N + 1))
	echo "ok $T_N # SKIP $1"
}

# like_any GOT DESC SUBSTRING...: GOT contains one of the SUBSTRINGs.
like_any() {
	local got=$1 desc=$2 sub
	shift 2
	for sub in "$@"; do
		[[ "$got" == *"$sub"* ]] && { t_result 0 "$desc"; return; }
	done
	t_result 1 "$desc"
	diag "got:  $got"
	diag "want something containing one of: $*"
	return 1
}

# unlike GOT SUBSTRING DESC
unlike() {
	if [[ "$1" != *"$2"* ]]; then
		t_result 0 "$3"
		return
	fi
	t_result 1 "$3"
	diag "got:  $1"
	diag "want nothing containing: $2"
	return 1
}

# skip_all REASON: the whole script cannot run here. The plan "1..0 # SKIP"
# is TAP's skip; meson (protocol tap) counts it as SKIP when the exit status
# is 0, and as ERROR with exit 77 (exit 77 is its skip for non-TAP tests).
skip_all() {
	echo "1..0 # SKIP $*"
	T_DONE=1
	exit 0
}

done_testing() {
	echo "1..$T_N"
	T_DONE=1
	[ "$T_FAILED" -eq 0 ] && exit 0
	exit 1
}
