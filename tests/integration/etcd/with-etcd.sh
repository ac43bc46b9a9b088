#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs one of the ippool test scripts against etcd instead of the local store:
# a pod's address, and every answer and code, must not depend on the store.
# usage: with-etcd.sh SCRIPT (its TAP output is this test's)
# shellcheck source-path=SCRIPTDIR source=etcd-env.sh
. "$(dirname "$0")/etcd-env.sh"

if ! command -v "$ETCD_BIN" >/dev/null && [ -z "${IPPOOL_TEST_ETCD:-}" ]; then
	echo "1..0 # SKIP no etcd binary and IPPOOL_TEST_ETCD unset"
	exit 0
fi
prefix=/ippool-it-$$-$(basename "$1" .sh)
# An etcd we did not start (CI's) keeps running: take our keys out of it.
forget_keys() {
	curl -sf -m 5 -X POST "$IPPOOL_TEST_ETCD/v3/kv/deleterange" \
		-d "{\"key\":\"$(printf '%s/' "$prefix" | base64 -w0)\",\"range_end\":\"$(printf '%s0' "$prefix" | base64 -w0)\"}" >/dev/null
}
trap 'forget_keys; etcd_stop' EXIT
etcd_use_env || exit 1
IPPOOL_STORE=$(jq -nc --arg ep "$IPPOOL_TEST_ETCD" --arg p "$prefix" \
	'{type: "etcd", endpoints: [$ep], prefix: $p}')
export IPPOOL_STORE
bash "$1"
