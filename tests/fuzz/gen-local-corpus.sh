#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Writes the seed corpora of fuzz-local and fuzz-lindex from files ippool
# itself wrote: a local store with a single-stack lease, a dual-stack one with
# pod metadata, a hold (release_hold_seconds), pool files, the state file and
# the index files of both families. The leases record a real netns (made
# here: root), as ADD does; the *-before-netns seeds are leases an ippool
# before netns recording wrote, kept as they were.
# usage: tests/fuzz/gen-local-corpus.sh BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ippool=$1/ipam/ippool/ippool
d=$(mktemp -d /run/gen-local-corpus.XXXXXX)
ns=gen-local-corpus-$$
ip netns add "$ns"
trap 'ip netns del "$ns"; rm -rf "$d"' EXIT

run() {
	printf '{"cniVersion":"1.0.0","name":"seed","type":"sriov-rdma","ipam":%s}' "$2" |
		CNI_COMMAND=$1 CNI_CONTAINERID=$3 CNI_IFNAME=net1 CNI_NETNS=/var/run/netns/$ns \
		CNI_PATH=/nonexistent CNI_ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=team-a;K8S_POD_NAME=worker-0;K8S_POD_UID=6f1c2d3e-0000-4000-8000-000000000001" \
		"$ippool" >/dev/null
}

v4='{"type":"ippool","dataDir":"'$d/s'","range":"192.0.2.0/24","exclude":["192.0.2.1"],"network_name":"rdma-net","release_hold_seconds":600}'
dual='{"type":"ippool","dataDir":"'$d/s'","network_name":"rails","enable_overlapping_ranges":false,"ipRanges":[{"range":"198.51.100.0/24"},{"range":"2001:db8::/64"}]}'
run ADD "$v4" c1
run ADD "$v4" c2
run DEL "$v4" c2
run ADD "$dual" d1

mkdir -p "$here/corpus/local" "$here/corpus/lindex"
cp "$d/s/leases/c1:net1" "$here/corpus/local/lease-v4"
cp "$d/s/leases/d1:net1" "$here/corpus/local/lease-dual"
cp "$d"/s/holds/* "$here/corpus/local/hold"
i=0
for f in "$d"/s/pools/*; do
	cp "$f" "$here/corpus/local/pool-$((i += 1))"
done
cp "$d/s/state" "$here/corpus/local/state"
i=0
for f in "$d"/s/index/*.idx; do
	cp "$f" "$here/corpus/lindex/index-$((i += 1))"
done
