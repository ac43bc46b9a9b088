#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Makes the certificates of deploy/ippool-etcd.yaml (a CA, the members' server and peer certificate, ippool's client certificate) and prints the kubectl commands that store them.
# usage: deploy/ippool-etcd-certs.sh OUT_DIR CLIENT_SERVICE_IP [NAMESPACE] [DAYS]
# OUT_DIR must not exist. CLIENT_SERVICE_IP is the clusterIP of ippool-etcd-client.
set -euo pipefail

[ $# -ge 2 ] || { sed -n 's/^# usage: /usage: /p' "$0" >&2; exit 2; }
out=$1 ip=$2 ns=${3:-kube-system} days=${4:-825}
mkdir "$out"
umask 077
cd "$out"

# cert NAME CN EXTENSIONS: a key and a certificate signed by the CA.
cert() {
	openssl req -new -newkey rsa:3072 -nodes -keyout "$1.key" -out "$1.csr" -subj "/CN=$2" 2>/dev/null
	openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days "$days" \
		-out "$1.crt" -extfile <(printf '%s\n' "$3") 2>/dev/null
	rm "$1.csr"
}

openssl req -x509 -newkey rsa:3072 -nodes -keyout ca.key -out ca.crt -days "$days" \
	-subj /CN=ippool-etcd-ca 2>/dev/null
# One certificate serves clients and peers: peers connect to each other as clients.
svc=ippool-etcd.$ns.svc
cert server ippool-etcd "subjectAltName=DNS:*.$svc,DNS:*.$svc.cluster.local,DNS:ippool-etcd-client.$ns.svc,DNS:localhost,IP:127.0.0.1,IP:$ip
extendedKeyUsage=serverAuth,clientAuth"
# The CN is the etcd user when RBAC is on (docs/ippool-etcd.md).
cert client ippool "extendedKeyUsage=clientAuth"
rm -f ca.srl

cat <<EOT
wrote $out/{ca,server,client}.{crt,key}; keep ca.key offline. Then:
kubectl -n $ns create secret generic ippool-etcd-tls --from-file=ca.crt=$out/ca.crt --from-file=server.crt=$out/server.crt --from-file=server.key=$out/server.key
kubectl -n $ns create secret generic ippool-etcd-client --from-file=ca.crt=$out/ca.crt --from-file=tls.crt=$out/client.crt --from-file=tls.key=$out/client.key
EOT
