#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One kernel of the real-kernel lane (meson suite "kernel"): fetches and builds what it needs (cached), boots it under qemu with the plugins inside, prints the guest's TAP and the probe's answers held against rdmasim's.
# Usage: lane.sh SERIES (6.1 or 6.12). Environment: SRIOV_RDMA, IPPOOL,
# SRIOV_RDMA_DOCTOR, KERNEL_PROBE, RDMASIM_LIB, RDMASIM_CTL (meson sets
# them); KERNEL_LANE_CACHE (default /var/cache/sriov-rdma-kernel-lane);
# KEEP=1 keeps the work directory.
# shellcheck source-path=SCRIPTDIR source=../integration/tap.sh
set -uo pipefail

series=$1
here=$(cd "$(dirname "$0")" && pwd)
cache=${KERNEL_LANE_CACHE:-/var/cache/sriov-rdma-kernel-lane}
. "$here/../integration/tap.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
for t_cmd in qemu-system-x86_64 apt-get dpkg-deb make gcc cpio busybox unshare perl devlink rdma; do
	command -v "$t_cmd" >/dev/null || skip_all "$t_cmd not installed"
done
[ -f /usr/share/qemu/qboot.rom ] || skip_all "qemu's qboot.rom not installed"

work=$(mktemp -d /tmp/sriov-rdma-kernel.XXXXXX)
# KEEP=1 keeps the console, the TAP and both transcripts for a look
if [ -n "${KEEP:-}" ]; then
	diag "work dir $work (kept)"
else
	trap 'rm -rf "$work"' EXIT
fi

# A failure of the lane's own machinery, never a test result.
bail() {
	echo "Bail out! kernel $series: $*"
	exit 1
}

t0=$SECONDS
kdir=$(bash "$here/fetch.sh" "$series" "$cache" 2>"$work/fetch.err")
case $? in
0) ;;
77) skip_all "kernel $series not reachable: $(tail -n 1 "$work/fetch.err")" ;;
*) diag "$(tail -n 30 "$work/fetch.err")"; bail "fetching or building the kernel's modules failed" ;;
esac
diag "kernel $series: $(cat "$kdir/ready") ready in $((SECONDS - t0)) s (downloaded and built only when new)"
bash "$here/initramfs.sh" "$kdir" "$work/initrd.cpio" "$SRIOV_RDMA" "$IPPOOL" "$SRIOV_RDMA_DOCTOR" \
	"$KERNEL_PROBE" 2>"$work/initramfs.err" || { diag "$(cat "$work/initramfs.err")"; bail "initramfs"; }

# boot CPUS: the guest's TAP in $work/tap, the probe's transcript in
# $work/probe, the console in $work/console. A guest that panics
# (oops=panic) or hangs ends the run; it reports no plan then.
boot() {
	rm -f "$work/console" "$work/tap" "$work/probe"
	timeout -k 10 420 qemu-system-x86_64 -accel tcg,thread=multi -smp "$1" -m 1536 -nodefaults \
		-display none -no-reboot -bios /usr/share/qemu/qboot.rom -kernel "$kdir/vmlinux" \
		-initrd "$work/initrd.cpio" -append "console=ttyS0 panic=-1 oops=panic loglevel=4" \
		-serial "file:$work/console" -serial "file:$work/tap" -serial "file:$work/probe" \
		>"$work/qemu.log" 2>&1
	grep -qE '^1\.\.[0-9]+' "$work/tap" 2>/dev/null
}

t0=$SECONDS
if ! boot 2; then
	diag "kernel $series: the guest reported nothing with 2 vCPUs; qemu and the console said:"
	diag "$(tail -n 5 "$work/qemu.log"; grep -v '^\[ *[0-9.]*\]  ' "$work/console" 2>/dev/null | tail -n 15)"
	boot 1 || { diag "$(tail -n 40 "$work/console" 2>/dev/null)"; bail "the guest reported nothing, twice"; }
fi
diag "kernel $series: guest ran in $((SECONDS - t0)) s"

# The guest's results, counted here under this kernel's name.
while IFS= read -r line; do
	line=${line%$'\r'}
	case $line in
	"ok "*"# SKIP "*) skip "kernel $series: ${line#*# SKIP }" ;;
	"ok "*) t_result 0 "kernel $series: ${line#ok * - }" ;;
	"not ok "*) t_result 1 "kernel $series: ${line#not ok * - }" ;;
	"1..0 # SKIP"*) skip "kernel $series: guest tests ${line#1..0 # }" ;;
	"#"*) echo "$line" ;;
	esac
done <"$work/tap"

# ---- the simulator held against the kernel --------------------------------------
# The same probe in a node of its own (network, mount and PID namespaces:
# SYS_SET sees no other netns there) with rdmasim preloaded: rxe0 (index 0)
# and siw0 as the guest has them, drivers that cannot change netns, a PF
# taking the guest's VF counts in turn.
sim_side() {
	local state=$work/sim/rdma.json
	mkdir -p "$work/sim"
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare -n -m -p -f --mount-proc --propagation private bash -c '
		set -e
		# the nsfs mounts the mount namespace copied hold netns of the machine
		findmnt -rn -t nsfs -o TARGET | while read -r m; do umount -l "$m"; done
		ip link set lo up
		ip link add kr0 type veth peer name kq0
		ip link add kr1 type veth peer name kq1
		ip link add kpf type veth peer name kpp
		"$RDMASIM_CTL" init "$1" exclusive
		"$RDMASIM_CTL" add "$1" rxe0 0 0000:3b:00.2 kr0 siw0 1 0000:3b:00.3 kr1
		"$RDMASIM_CTL" soft "$1" rxe0 siw0
		echo "== rdma"
		LD_PRELOAD=$RDMASIM_LIB RDMA_SIM_STATE=$1 "$KERNEL_PROBE" rdma
		for n in 4 334 335 400; do
			"$RDMASIM_CTL" pf "$1" kpf "$n"
			echo "== vfs $n"
			LD_PRELOAD=$RDMASIM_LIB RDMA_SIM_STATE=$1 "$KERNEL_PROBE" vfs "$(ip -j link show kpf | jq .[0].ifindex)" "$n"
		done' sh "$state"
}

# rdmasim answers as 6.12; 6.1 has no RDMA_NLDEV_ATTR_NAME_ASSIGN_TYPE (101)
# or RDMA_NLDEV_SYS_ATTR_MONITOR_MODE (103): they came with 6.11.
older_than_6_11() {
	if [ "$series" = 6.1 ]; then sed -E 's/ (101|103)( |})/\2/g'; else cat; fi
}

tr -d '\r' <"$work/probe" >"$work/kernel.txt"
if ! sim_side 2>"$work/sim.err" | older_than_6_11 >"$work/sim.txt"; then
	t_result 1 "kernel $series: the probe runs against rdmasim"
	diag "$(cat "$work/sim.err")"
elif [ ! -s "$work/kernel.txt" ]; then
	t_result 1 "kernel $series: the probe ran in the guest"
else
	# one result per request: the kernel's answer is the reference
	while IFS= read -r want; do
		case $want in "== "*) section=${want#== }; continue ;; esac
		name="$section: ${want%%: *}"
		got=$(awk -v s="== $section" -v n="${want%%: *}: " '
			$0 == s {in_s = 1; next} /^== / {in_s = 0}
			in_s && index($0, n) == 1 {print; exit}' "$work/sim.txt")
		is "$got" "$want" "kernel $series: rdmasim answers \"$name\" as the kernel"
	done <"$work/kernel.txt"
fi
done_testing
