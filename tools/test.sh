#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds (plain, sanitizers, fuzz) and runs every test suite; ends with "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZ_SECONDS=${FUZZ_SECONDS:-15}
passed=0 failed=0 skipped=0
failed_names=()
tmp=$(mktemp -d /tmp/sriov-rdma-test.XXXXXX)
etcd_pid=

cleanup() {
	if [ -n "$etcd_pid" ]; then
		kill "$etcd_pid" 2>/dev/null || true
		wait "$etcd_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

step() { printf '\n=== %s\n' "$*"; }

# A build that fails counts as one failed test; its tests are then not run.
build() {
	local dir=$1; shift
	step "build $dir"
	local setup=(meson setup "$@" "$dir")
	[ -f "$dir/build.ninja" ] && setup=(meson setup --reconfigure "$@" "$dir")
	if "${setup[@]}" >"$tmp/setup-${dir//\//_}.log" 2>&1 && meson compile -C "$dir"; then
		return 0
	fi
	cat "$tmp/setup-${dir//\//_}.log"
	echo "build of $dir failed"
	failed=$((failed + 1))
	failed_names+=("build $dir")
	return 1
}

free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 40000))
		[ -z "$(ss -Htan "sport = :$p")" ] && { echo "$p"; return; }
	done
}

start_etcd() {
	command -v etcd >/dev/null || { echo "etcd not installed: etcd tests will skip"; return 0; }
	local client peer
	client=$(free_port)
	peer=$(free_port)
	[ "$peer" = "$client" ] && peer=$((client + 1))
	etcd --name test --data-dir "$tmp/etcd" \
		--listen-client-urls "http://127.0.0.1:$client" \
		--advertise-client-urls "http://127.0.0.1:$client" \
		--listen-peer-urls "http://127.0.0.1:$peer" \
		--initial-advertise-peer-urls "http://127.0.0.1:$peer" \
		--initial-cluster "test=http://127.0.0.1:$peer" \
		>"$tmp/etcd.log" 2>&1 &
	etcd_pid=$!
	export IPPOOL_TEST_ETCD="http://127.0.0.1:$client"
	for _ in $(seq 100); do
		ETCDCTL_API=3 etcdctl --endpoints "$IPPOOL_TEST_ETCD" endpoint health >/dev/null 2>&1 && return 0
		kill -0 "$etcd_pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "etcd did not start:"; cat "$tmp/etcd.log"
	unset IPPOOL_TEST_ETCD
}

# Adds the results of one "meson test" run (meson-logs/testlog.json) to the totals.
count() {
	local log=$1/meson-logs/testlog.json
	[ -f "$log" ] || return 0
	local p f s
	read -r p f s < <(jq -rs '[.[].result] as $r
		| [($r | map(select(. == "OK" or . == "EXPECTEDFAIL")) | length),
		   ($r | map(select(. == "SKIP")) | length),
		   ($r | length)]
		| "\(.[0]) \(.[2] - .[0] - .[1]) \(.[1])"' "$log")
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	local name
	while read -r name; do
		failed_names+=("$1: $name")
	done < <(jq -r 'select(.result != "OK" and .result != "EXPECTEDFAIL" and .result != "SKIP")
		| "\(.name) (\(.result))"' "$log")
}

run_suite() {
	local dir=$1; shift
	step "meson test -C $dir"
	rm -f "$dir/meson-logs/testlog.json"
	meson test -C "$dir" --print-errorlogs "$@" || true
	count "$dir"
}

# The libFuzzer binaries (fuzz-*); the replay-* runners are meson tests already.
fuzz_targets() {
	meson introspect --targets "$1" | jq -r '.[]
		| select(.type == "executable" and (.defined_in | test("/tests/fuzz/"))
			and (.name | startswith("fuzz-")))
		| .filename[0]'
}

run_fuzz() {
	local exe name corpus
	for exe in $(fuzz_targets build-fuzz); do
		name=$(basename "$exe")
		corpus=$tmp/corpus-$name
		mkdir -p "$corpus"
		[ -d "tests/fuzz/corpus/$name" ] && cp -r "tests/fuzz/corpus/$name/." "$corpus/"
		step "fuzz $name (${FUZZ_SECONDS}s)"
		if "$exe" -max_total_time="$FUZZ_SECONDS" -print_final_stats=1 "$corpus" \
			>"$tmp/fuzz-$name.log" 2>&1; then
			tail -n 3 "$tmp/fuzz-$name.log"
			echo "fuzz $name: OK"
			passed=$((passed + 1))
		else
			tail -n 40 "$tmp/fuzz-$name.log"
			echo "fuzz $name: FAIL"
			failed=$((failed + 1))
			failed_names+=("fuzz $name")
		fi
	done
}

bash tools/deps.sh
start_etcd

if build build --buildtype=debugoptimized; then
	run_suite build
fi
if build build-asan --buildtype=debug -Db_sanitize=address,undefined -Db_lundef=false; then
	# the kernel lane boots real kernels with the plain build's binaries only
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 run_suite build-asan --timeout-multiplier 3 \
		--no-suite kernel
fi
if command -v clang >/dev/null; then
	if CC=clang build build-fuzz --buildtype=debugoptimized -Dfuzz=true; then
		run_fuzz
	fi
else
	echo "clang not installed: fuzz targets not built"
fi

if [ "${#failed_names[@]}" -gt 0 ]; then
	echo
	echo "failed:"
	printf '  %s\n' "${failed_names[@]}"
fi
line="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && line="$line, $skipped skipped"
echo
echo "$line"
[ "$failed" -eq 0 ]
