# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Sourced by the benchmarks: the numbers they print from the runner's lines.

# stats FILE: "wall_med wall_p99 cpu_med" in ms from runner lines
# "<wall_us> <cpu_us> <exit>"; failed runs are counted on stderr.
stats() {
	local failed
	failed=$(awk '$3 != 0' "$1" | wc -l)
	[ "$failed" -eq 0 ] || echo "bench: $failed runs failed in $(basename "$1")" >&2
	paste <(cut -d' ' -f1 "$1" | sort -n) <(cut -d' ' -f2 "$1" | sort -n) |
		awk '{w[NR] = $1; c[NR] = $2}
			END {m = int((NR + 1) / 2); p = int(NR * 0.99); if (p < 1) p = 1;
			     printf "%.3f %.3f %.3f", w[m] / 1000, w[p] / 1000, c[m] / 1000}'
}

# floor_programs DIR: DIR/empty-dynamic (an empty C program that needs only
# libc.so.6, as the plugins do) and DIR/empty-static (the same, static glibc).
floor_programs() {
	printf 'int main(void) { return 0; }\n' >"$1/empty.c"
	cc -O2 -o "$1/empty-dynamic" "$1/empty.c" && cc -O2 -static -o "$1/empty-static" "$1/empty.c"
}
