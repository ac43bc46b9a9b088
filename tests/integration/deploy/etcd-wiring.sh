#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# deploy/: the certificates ippool-etcd-certs.sh makes, on a TLS etcd with client-cert auth, reached by ippool through the settings the installer copies from the ippool-conf ConfigMap and the client Secret.
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../etcd/lib.sh
. "$HERE/../etcd/lib.sh"

command -v openssl >/dev/null || skip_all "no openssl"
command -v "$ETCD_BIN" >/dev/null || skip_all "needs its own etcd: no $ETCD_BIN"
[ -x "${INSTALLER:-}" ] || skip_all "INSTALLER not set to the built installer"
PY=
for p in /usr/bin/python3 python3; do
	command -v "$p" >/dev/null && "$p" -c 'import yaml' 2>/dev/null && { PY=$p; break; }
done
[ -n "$PY" ] || skip_all "no python3 with yaml (python3-yaml)"

# The node's files live where a node keeps them: under /run (a path ippool
# accepts from a config), in a directory of this run.
[ "$(id -u)" -eq 0 ] || skip_all "needs root (writes under /run)"
D=/run/ippool-wiring-it.$$
mkdir -m 0700 "$D"
trap 'forget_keys; etcd_stop; rm -rf "$TMP" "$D"' EXIT

out=$(bash "$SRC/deploy/ippool-etcd-certs.sh" "$D/pki" 127.0.0.1 2>&1)
is "$?" 0 "ippool-etcd-certs.sh makes the certificates" || diag "$out"
like "$out" "kubectl -n kube-system create secret generic ippool-etcd-client" "and prints the kubectl commands"
is "$(stat -c %a "$D/pki/client.key")" 600 "the keys are readable by their owner only"

K=$D/pki
ETCD_SCHEME=https
ETCD_ARGS=(--cert-file "$K/server.crt" --key-file "$K/server.key" --client-cert-auth
	--trusted-ca-file "$K/ca.crt")
ETCD_CURL_ARGS=(--cacert "$K/ca.crt" --cert "$K/client.crt" --key "$K/client.key")
etcd_start E || skip_all "etcd did not start with the generated certificates"
ok "a member starts with the server certificate and serves the client certificate" true

# What the DaemonSet's projected volume holds: the ConfigMap's ippool.conf
# (its endpoint and directory pointed at this run) and the client Secret.
V=$D/volume
mkdir "$V"
"$PY" - "$SRC/deploy/ippool-etcd.yaml" >"$D/ippool.conf.orig" <<'PY' || t_result 1 "ippool.conf read from the ConfigMap"
import sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if d and d.get("kind") == "ConfigMap" and d["metadata"]["name"] == "ippool-conf":
        print(d["data"]["ippool.conf"])
PY
jq --arg e "$E" --arg d "$D/ippool.d" --arg p "$PFX/wiring" \
	'.store.endpoints = [$e] | .store.prefix = $p
	 | .store |= with_entries(if (.key | IN("cacert", "cert", "key"))
		then .value |= sub("^/etc/cni/net.d/ippool.d"; $d) else . end)' \
	"$D/ippool.conf.orig" >"$V/ippool.conf"
cp "$K/ca.crt" "$V/etcd-ca.crt"
cp "$K/client.crt" "$V/ippool.crt"
cp "$K/client.key" "$V/ippool.key"
mkdir "$D/bin" "$D/ippool.d"
cp "$IPPOOL" "$D/bin/ippool"
cp "$IPPOOL" "$D/bin/sriov-rdma"
"$INSTALLER" --from "$D/bin" --to "$D/bin" --conf-from "$V" --conf-to "$D/ippool.d" >/dev/null
is "$?" 0 "the installer copies ippool's settings and certificate to the node"
is "$(find "$D/ippool.d" -type f -printf '%f:%m\n' | sort | paste -sd' ')" \
	"etcd-ca.crt:600 ippool.conf:600 ippool.crt:600 ippool.key:600" "as files of mode 0600"

block=$(jq -nc --arg c "$D/ippool.d/ippool.conf" \
	'{type: "ippool", range: "192.0.2.0/24", configuration_path: $c}')
ok "ADD through the copied settings, over TLS with the client certificate" \
	add_is "$(conf wiring "$block")" w1 "192.0.2.1/24"
run DEL "$(conf wiring "$block")" w1
is "$RC" 0 "DEL the same way"
rm "$D/ippool.d/ippool.crt"
run ADD "$(conf wiring "$block")" w2
ok "without the client certificate the ADD fails: 112" failed_with 112
like "$(msg)" "etcd store: cannot open store.cert $D/ippool.d/ippool.crt: No such file or directory" \
	"naming the certificate"

done_testing
