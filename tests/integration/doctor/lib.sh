# SPDX-License-Identifier: Apache-2.0
# The doctor's additions to the fake node: uverbs entries, a pod's sysfs view
# (ports, GID tables, gid_attrs), container stand-ins, and doctor runs.
# shellcheck shell=bash
# shellcheck disable=SC2034
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

SRIOV_RDMA_DOCTOR=${SRIOV_RDMA_DOCTOR:-$T_BUILD/plugins/sriov-rdma/doctor/sriov-rdma-doctor}
FAKE_IBVERBS_DIR=${FAKE_IBVERBS_DIR:-$T_BUILD/tests/integration/doctor}
[ -x "$SRIOV_RDMA_DOCTOR" ] || skip_all "sriov-rdma-doctor not built"
for t_cmd in unshare nsenter prlimit setpriv mknod; do
	command -v "$t_cmd" >/dev/null || skip_all "$t_cmd not installed"
done

# uverbs char devices: major 231, minors from 192 (IB_UVERBS_BASE_MINOR).
UVERBS_MAJOR=231
UVERBS_BASE_MINOR=192

# fx_uverbs: every RDMA device of the fixture gets infiniband_verbs/uverbsN
# under its PCI device (N = the device's number: mlx5_N), as ib_uverbs
# makes it; unlike infiniband/, it stays visible while the device is in a pod.
fx_uverbs() {
	local i dir
	fx_uverbs_one "$FX_PF_BDF" 0 mlx5_0 || return
	for ((i = 0; i < FX_NVFS; i++)); do
		[ -n "${FX_VF_RDMA[i]}" ] || continue
		fx_uverbs_one "${FX_VF_BDF[i]}" $((i + 1)) "${FX_VF_RDMA[i]}" || return
	done
}

fx_uverbs_one() {
	local dir=$FX_DEVICES/$1/infiniband_verbs/uverbs$2
	mkdir -p "$dir" && echo "$3" >"$dir/ibdev" &&
		echo "$UVERBS_MAJOR:$((UVERBS_BASE_MINOR + $2))" >"$dir/dev"
}

# dev_tmpfs_script [--no-uverbs] [--no-rdma-cm]: the shell commands that, in
# a new mount namespace, put a tmpfs on /dev with null and a tmpfs
# /dev/infiniband holding real char devices for every uverbs entry of the fixture.
dev_tmpfs_script() {
	local uverbs=1 cm=1 d n
	while [ $# -gt 0 ]; do
		case $1 in
		--no-uverbs) uverbs= ;;
		--no-rdma-cm) cm= ;;
		esac
		shift
	done
	echo "mount -t tmpfs none /dev && mknod -m 666 /dev/null c 1 3 && mkdir /dev/infiniband &&"
	echo "mount -t tmpfs none /dev/infiniband &&"
	[ -n "$cm" ] && echo "mknod /dev/infiniband/rdma_cm c 10 58 &&"
	if [ -n "$uverbs" ]; then
		for d in "$FX_DEVICES"/*/infiniband_verbs/uverbs*; do
			[ -d "$d" ] || continue
			n=$(cat "$d/dev")
			echo "mknod /dev/infiniband/${d##*/} c ${n%%:*} ${n##*:} &&"
		done
	fi
	echo "true"
}

# pod_sysfs POD DEV NDEV [--no-v2] [--state "1: DOWN"] [--link-layer L]:
# $TMP/podsys/POD, the sysfs a pod's netns shows for its RDMA device DEV
# (port netdev NDEV in the pod): port 1's state and link layer and the GID
# table the kernel builds from NDEV's MAC and addresses (a RoCE v1 and a
# RoCE v2 entry each), and DEV's uverbs entry. Sets PODSYS.
pod_sysfs() {
	local pod=$1 dev=$2 ndev=$3 v2=1 state="4: ACTIVE" ll=Ethernet
	shift 3
	while [ $# -gt 0 ]; do
		case $1 in
		--no-v2) v2= ;;
		--state) state=$2; shift ;;
		--link-layer) ll=$2; shift ;;
		esac
		shift
	done
	PODSYS=$TMP/podsys/$pod
	local port=$PODSYS/class/infiniband/$dev/ports/1 idx=0 g u
	rm -rf "$PODSYS" && mkdir -p "$port/gids" "$port/gid_attrs/types" "$port/gid_attrs/ndevs" || return
	echo "$state" >"$port/state" && echo "$ll" >"$port/link_layer" || return
	for g in $(pod_gids "$pod" "$ndev"); do
		gid_slot "$port" $idx "$g" "IB/RoCE v1" "$ndev"
		idx=$((idx + 1))
		if [ -n "$v2" ]; then
			gid_slot "$port" $idx "$g" "RoCE v2" "$ndev"
			idx=$((idx + 1))
		fi
	done
	# empty slots read as zeros, their attributes do not read at all
	echo "0000:0000:0000:0000:0000:0000:0000:0000" >"$port/gids/$idx"
	for u in "$FX_DEVICES"/*/infiniband_verbs/uverbs*; do
		[ "$(cat "$u/ibdev")" = "$dev" ] || continue
		mkdir -p "$PODSYS/class/infiniband_verbs/${u##*/}" &&
			cp "$u/ibdev" "$u/dev" "$PODSYS/class/infiniband_verbs/${u##*/}/"
	done
}

gid_slot() {
	echo "$3" >"$1/gids/$2" && echo "$4" >"$1/gid_attrs/types/$2" && echo "$5" >"$1/gid_attrs/ndevs/$2"
}

# pod_gids POD NDEV: the GIDs of NDEV as the kernel's %pI6 prints them: the
# link-local one from its MAC, then one per global address (IPv4 mapped).
pod_gids() {
	python3 - "$(ip -n "$1" -j addr show dev "$2")" <<'PY'
import ipaddress, json, sys
link = json.loads(sys.argv[1])[0]
mac = bytes.fromhex(link["address"].replace(":", ""))
eui = bytes([mac[0] ^ 2]) + mac[1:3] + b"\xff\xfe" + mac[3:]
gids = [b"\xfe\x80" + bytes(6) + eui]
for a in link.get("addr_info", []):
    if a.get("scope") != "global":
        continue
    ip = ipaddress.ip_address(a["local"])
    gids.append(ip.packed if ip.version == 6 else ipaddress.IPv6Address("::ffff:" + str(ip)).packed)
for g in gids:
    print(":".join(g[i:i + 2].hex() for i in range(0, 16, 2)))
PY
}

# container_start POD [--no-uverbs] [--no-rdma-cm] [--memlock BYTES|unlimited] [--no-ipc-lock] [NAME=VALUE...]:
# a process standing in for a container of POD: in POD's netns, in a mount
# namespace of its own whose /dev/infiniband is a tmpfs with real char
# devices, with only the given environment. Sets CTR_PID.
container_start() {
	local pod=$1 dev_args=() limit=() drop=() envs=() script
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--no-uverbs | --no-rdma-cm) dev_args+=("$1") ;;
		--memlock) limit=(prlimit --memlock="$2:$2" --); shift ;;
		--no-ipc-lock) drop=(setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock --) ;;
		*) envs+=("$1") ;;
		esac
		shift
	done
	script="$(dev_tmpfs_script "${dev_args[@]}") && exec \"\$@\""
	nsenter --net="/run/netns/$pod" unshare -m --propagation private sh -c "$script" sh \
		"${drop[@]}" "${limit[@]}" env -i "${envs[@]}" sleep 600 &
	CTR_PID=$!
	T_AT_EXIT+=("pid_kill $CTR_PID")
	for _ in $(seq 100); do
		[ "$(cat "/proc/$CTR_PID/comm" 2>/dev/null)" = sleep ] && return 0
		sleep 0.05
	done
	echo "container stand-in did not start" >&2
	return 1
}

pid_kill() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 0
}

container_stop() {
	pid_kill "$CTR_PID"
}

# doctor ARGS...: runs the doctor with the simulator preloaded, the fake
# sysfs synced, no inherited LD_LIBRARY_PATH, and /dev/infiniband as dev_tmpfs_script makes it (DOCTOR_DEV
# holds extra options for it); DOCTOR_ENV holds NAME=VALUE to add (SYSFS_PATH
# of a pod view, LD_LIBRARY_PATH of the libibverbs stand-in). Sets OUT, RC.
DOCTOR_DEV=()
DOCTOR_ENV=()
DOCTOR_HIDE_IBVERBS=
doctor() {
	local script lib
	fx_sync
	script="$(dev_tmpfs_script "${DOCTOR_DEV[@]}") && exec \"\$@\""
	if [ -n "$DOCTOR_HIDE_IBVERBS" ]; then
		# a node without libibverbs: the installed one hidden in this mount namespace
		lib=$(ldconfig -p | awk '$1 == "libibverbs.so.1" { print $NF; exit }')
		: >"$TMP/empty"
		[ -n "$lib" ] && script="mount --bind $TMP/empty $lib && $script"
	fi
	T_LAST="sriov-rdma-doctor $* (${DOCTOR_ENV[*]})"
	OUT=$(timeout -k 5 "$T_TIMEOUT" unshare -m --propagation private sh -c "$script" sh \
		env -u LD_LIBRARY_PATH LD_PRELOAD="$RDMASIM_LIB" "${DOCTOR_ENV[@]}" "$SRIOV_RDMA_DOCTOR" "$@" 2>"$TMP/stderr")
	RC=$?
}

# sim_vf I JQ-FILTER: what another tool left on VF I of the simulated PF
# (`ip link set PF vf I ...` names the PF by name, which the simulator does
# not answer): the filter applied to the VF's entry in the simulator's state,
# under the simulator's own lock.
sim_vf() {
	flock "$RDMA_SIM_STATE.lock" sh -c 'jq --argjson i "$1" "(.pfs[0].vfs[\$i]) |= ($2)" "$0" >"$0.doc" &&
		mv "$0.doc" "$0"' "$RDMA_SIM_STATE" "$1" "$2"
}

# check NAME SUBJECT: the JSON object of that check in the last --json output.
check() {
	jq -c --arg c "$1" --arg s "$2" '.checks[] | select(.check == $c and .subject == $s)' <<<"$OUT"
}

# expect DESC NAME SUBJECT STATUS SEEN-SUBSTRING [FIX-SUBSTRING]: the last
# --json output has that check with that status, seen and fix.
expect() {
	local desc=$1 c
	c=$(check "$2" "$3")
	if [ -z "$c" ]; then
		t_result 1 "$desc: $2 $3 reported"
		return 1
	fi
	is "$(jq -r .status <<<"$c")" "$4" "$desc: $2 $3 is $4" || diag "$c"
	like "$(jq -r .seen <<<"$c")" "$5" "$desc: $2 $3 says \"$5\""
	if [ "$4" = OK ]; then
		is "$(jq -r .fix <<<"$c")" null "$desc: $2 $3 has no fix"
	else
		like "$(jq -r .fix <<<"$c")" "$6" "$desc: $2 $3 fix names \"$6\""
	fi
}

# json_shape DESC: the last --json output is one document with exactly
# command, checks, ok, warn, fail; every check has exactly check, subject,
# status (OK, WARN or FAIL), seen (strings, none empty) and fix (null for
# OK, a non-empty string otherwise); ok, warn and fail count them.
json_shape() {
	local desc=$1
	is "$(jq -s 'length' <<<"$OUT")" 1 "$desc: one JSON document"
	is "$(jq -c 'keys' <<<"$OUT")" '["checks","command","fail","ok","warn"]' "$desc: its keys"
	is "$(jq -c '[.checks[] | keys] | unique' <<<"$OUT")" '[["check","fix","seen","status","subject"]]' \
		"$desc: every check has check, subject, status, seen, fix"
	is "$(jq '[.checks[] | select((.check, .subject, .seen | type != "string" or length == 0)
		or (.status | IN("OK", "WARN", "FAIL") | not)
		or (if .status == "OK" then .fix != null else (.fix | type != "string" or length == 0) end))]
		| length' <<<"$OUT")" 0 "$desc: every field has its type, a fix exactly for WARN and FAIL"
	is "$(jq -r '"\(.ok) \(.warn) \(.fail)"' <<<"$OUT")" \
		"$(jq -r '. as $d | ["OK", "WARN", "FAIL"] | map(. as $s | [$d.checks[] | select(.status == $s)] | length | tostring) | join(" ")' <<<"$OUT")" \
		"$desc: ok, warn and fail count the checks by status"
}

# counts: "ok warn fail" of the last --json output, and that they add up.
counts() {
	jq -r '"\(.ok) \(.warn) \(.fail)"' <<<"$OUT"
}
