# SPDX-License-Identifier: Apache-2.0
# Harness for the ippool integration tests: a temp dataDir per run, plugin runs (TAP from ../tap.sh).
# shellcheck shell=bash
# Globals the tests read: TMP (temp dir, also the dataDir parent), OUT and RC (last run);
# NETNS, when set, is the CNI_NETNS of the runs (a netns that need not exist otherwise).
# TMP lies under /run (root) or /run/user/UID: a config's paths must lie
# under an allowed root, and tests do not widen them (docs/security.md,
# "The paths a config names").

set -uo pipefail

IPPOOL=${IPPOOL:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/build/ipam/ippool/ippool}
OUT=
RC=

# shellcheck source-path=SCRIPTDIR source=../tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

T_RUN=/run
[ "$(id -u)" -eq 0 ] || T_RUN=/run/user/$(id -u)
[ -w "$T_RUN" ] || skip_all "dataDirs must lie under /run/ and $T_RUN is not writable"
TMP=$(mktemp -d "$T_RUN/ippool-it.$$.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# conf NAME IPAM_JSON [CNI_VERSION]: a whole network config around an ipam block.
conf() {
	printf '{"cniVersion":"%s","name":"%s","type":"sriov-rdma","ipam":%s}' "${3:-1.0.0}" "$1" "$2"
}

# run COMMAND CONFIG CONTAINERID [IFNAME] [CNI_ARGS]: one plugin run into OUT and RC.
run() {
	# shellcheck disable=SC2034 # printed by tap.sh under a failure
	T_LAST="$1 $2 (CNI_CONTAINERID=$3 CNI_IFNAME=${4:-net1} CNI_ARGS=${5:-})"
	OUT=$(printf '%s' "$2" | CNI_COMMAND=$1 CNI_CONTAINERID=$3 CNI_NETNS=${NETNS:-/var/run/netns/ippool-it} \
		CNI_IFNAME=${4:-net1} CNI_PATH=/nonexistent CNI_ARGS=${5:-} "$IPPOOL" 2>"$TMP/stderr")
	RC=$?
}

# The addresses of the last result, space-separated; the error code of the last run.
ips() { jq -r '[.ips[].address] | join(" ")' <<<"$OUT" 2>/dev/null; }
code() { jq -r '.code // empty' <<<"$OUT" 2>/dev/null; }
msg() { jq -r '.msg // empty' <<<"$OUT" 2>/dev/null; }

# ADD must succeed with exactly these addresses.
add_is() {
	run ADD "$1" "$2" "${4:-net1}" "${5:-}"
	[ "$RC" -eq 0 ] && [ "$(ips)" = "$3" ]
}

# failed_with CODE [TEXT]: the run exited 1 with one CNI error of this code
# (a crash or a timeout is no failure of that kind), its message holding TEXT.
failed_with() {
	[ "$RC" -eq 1 ] && [ "$(code)" = "$1" ] && [[ "$(msg)" == *"${2:-}"* ]]
}

# store NAME: the ipam keys that keep pool NAME's reservations apart in the
# store under test: its own dataDir in the local store or, when IPPOOL_STORE
# holds a store block (etcd/with-etcd.sh), that store under its own prefix.
store() {
	if [ -n "${IPPOOL_STORE:-}" ]; then
		printf '"store":%s' "$(jq -c --arg n "$1" '.prefix += "/" + $n' <<<"$IPPOOL_STORE")"
	else
		printf '"dataDir":"%s"' "$TMP/$1"
	fi
}

# local_store: the cases that only make sense on the local store run.
local_store() {
	[ -z "${IPPOOL_STORE:-}" ]
}

# list NAME: `ippool list` of pool NAME's store, through a configuration file.
list() {
	printf '{%s}' "$(store "$1")" >"$TMP/list.conf"
	"$IPPOOL" list --conf "$TMP/list.conf"
}

# reserved NAME: the addresses reserved in pool NAME's store, one per line, sorted.
reserved() {
	list "$1" | awk '/^  /{print $1}' | sort
}
