#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Writes the seed corpus of fuzz-slice from what ippool itself wrote: one
# node's slices of an IPv4 range (shared scope), an IPv6 range and a pool
# scope (enable_overlapping_ranges false): the slice keys' values, the
# node's heartbeat and its own slice records. Needs root (unshare -u for
# the node name) and etcd (tests/integration/etcd/etcd-env.sh starts one).
# usage: tests/fuzz/gen-slice-corpus.sh BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ippool=$1/ipam/ippool/ippool
d=$(mktemp -d /run/gen-slice-corpus.XXXXXX)
trap 'rm -rf "$d"' EXIT
. "$here/../integration/etcd/etcd-env.sh"
trap 'etcd_stop; rm -rf "$d"' EXIT
etcd_use_env
ep=$IPPOOL_TEST_ETCD

add() {
	printf '{"cniVersion":"1.0.0","name":"seed","type":"sriov-rdma","ipam":{"type":"ippool","dataDir":"%s","store":{"type":"etcd","endpoints":["%s"],"prefix":"/seed"},%s}}' \
		"$d/dd" "$ep" "$1" |
		unshare -u sh -c 'hostname gpu-017 && exec "$@"' sh env CNI_COMMAND=ADD CNI_CONTAINERID="c$RANDOM" \
		CNI_IFNAME=net1 CNI_NETNS=/var/run/netns/seed CNI_PATH=/nonexistent "$ippool" >/dev/null
}

add '"range":"192.0.2.0/24","node_slice_size":"/26"'
add '"range":"2001:db8::/64","node_slice_size":"/120","network_name":"rails"'
add '"range":"198.51.100.0/24","node_slice_size":"/28","enable_overlapping_ranges":false,"network_name":"rails"'

mkdir -p "$here/corpus/slice"
b64() { printf '%s' "$1" | base64 -w0; }
curl -sf -X POST "$ep/v3/kv/range" -d "{\"key\":\"$(b64 /seed/)\",\"range_end\":\"$(b64 /seed0)\"}" |
	jq -r '.kvs[] | [(.key | @base64d), .value] | @tsv' | while IFS=$'\t' read -r k v; do
	case $k in
	/seed/s/* | /seed/h/*) base64 -d <<<"$v" >"$here/corpus/slice/$(tr '/:' '__' <<<"${k#/seed/}")" ;;
	esac
done
for f in "$d"/dd/etcd-slices/*/owned/*; do
	cp "$f" "$here/corpus/slice/record_$(basename "$f" | tr ':' '_')"
done
