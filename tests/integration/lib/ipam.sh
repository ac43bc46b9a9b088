# SPDX-License-Identifier: Apache-2.0
# The IPAM side of a test: the ipam block a config carries, the store's holds, a stand-in IPAM plugin.
# shellcheck shell=bash
# shellcheck disable=SC2034 # IPAM_SUBNETS and CNI_PATH_EXTRA are read by run.sh, conf.sh and the tests
#
# Sets:  IPAM            host-local (default, or from the environment) or ippool
#        IPAM_SUBNETS    the subnets conf puts in the ipam block (192.0.2.0/24)
#        CNI_PATH_EXTRA  a directory put first in CNI_PATH (fake_ipam)
# Reads: TMP (cleanup.sh); IFNAME (run.sh); IPPOOL (lib.sh)

IPAM=${IPAM:-host-local}
IPAM_SUBNETS=(192.0.2.0/24)

# ipam_conf [SUBNET...]: the ipam block for $IPAM (host-local or ippool).
ipam_conf() {
	local subnets=("$@")
	[ ${#subnets[@]} -gt 0 ] || subnets=(192.0.2.0/24)
	case $IPAM in
	host-local)
		jq -nc --arg d "$TMP/ipam" \
			'{type: "host-local", ranges: [$ARGS.positional[] | [{subnet: .}]], dataDir: $d}' \
			--args "${subnets[@]}" ;;
	ippool)
		jq -nc --arg d "$TMP/ipam" '$ARGS.positional as $s | {type: "ippool", dataDir: $d}
			+ if ($s | length) == 1 then {range: $s[0]} else {ipRanges: [$s[] | {range: .}]} end' \
			--args "${subnets[@]}" ;;
	*)
		jq -nc --arg t "$IPAM" '{type: $t}' ;;
	esac
}

# ipam_holds CID [IFNAME]: the IPAM store holds a reservation for CID's
# IFNAME (default $IFNAME), judged by the record itself: host-local's file
# named by the address, holding the container ID and the ifname; an ippool
# lease, as `ippool list` shows it.
ipam_holds() {
	local cid=$1 ifn=${2:-$IFNAME} f
	[ -d "$TMP/ipam" ] || return 1
	case $IPAM in
	ippool)
		"$IPPOOL" list --data-dir "$TMP/ipam" 2>/dev/null |
			awk -v c="$cid" -v i="$ifn" '$2 == c && $3 == i {f = 1} END {exit !f}' ;;
	host-local)
		for f in "$TMP"/ipam/*/*; do
			case ${f##*/} in *.*.*.* | *:*) ;; *) continue ;; esac
			[ "$(sed -n 1p "$f" | tr -d '\r')" = "$cid" ] &&
				[ "$(sed -n 2p "$f" | tr -d '\r')" = "$ifn" ] && return 0
		done
		return 1 ;;
	*) return 1 ;;
	esac
}

# fake_ipam NAME SCRIPT-BODY: an IPAM plugin in $TMP/bin (found through
# CNI_PATH_EXTRA).
fake_ipam() {
	mkdir -p "$TMP/bin"
	printf '#!/bin/sh\n%s\n' "$2" >"$TMP/bin/$1"
	chmod +x "$TMP/bin/$1"
	CNI_PATH_EXTRA=$TMP/bin
}
