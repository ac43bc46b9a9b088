#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# etcd with TLS client certificates (libcurl path) and with RBAC users
# (username/password -> token), each on a private instance.
. "$(dirname "$0")/lib.sh"

command -v "$ETCD_BIN" >/dev/null || { echo "1..0 # SKIP needs its own etcd: no $ETCD_BIN"; exit 77; }

command -v openssl >/dev/null || { echo "1..0 # SKIP no openssl"; exit 77; }
K=$TMP/pki
mkdir -p "$K"
# pki NAME CN EXT: a key and a certificate signed by the test CA.
pki() {
	openssl req -newkey rsa:2048 -nodes -keyout "$K/$1.key" -out "$K/$1.csr" -subj "/CN=$2" 2>/dev/null &&
		openssl x509 -req -in "$K/$1.csr" -CA "$K/ca.crt" -CAkey "$K/ca.key" -CAcreateserial \
			-out "$K/$1.crt" -days 1 -extfile <(printf '%s\n' "$3") 2>/dev/null
}
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$K/ca.key" -out "$K/ca.crt" -days 1 \
	-subj /CN=ippool-test-ca 2>/dev/null
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$K/other.key" -out "$K/other.crt" -days 1 \
	-subj /CN=other-ca 2>/dev/null
pki server 127.0.0.1 "subjectAltName=IP:127.0.0.1" || exit 1
pki client ippool "extendedKeyUsage=clientAuth" || exit 1

ETCD_SCHEME=https
ETCD_ARGS=(--cert-file "$K/server.crt" --key-file "$K/server.key" --client-cert-auth
	--trusted-ca-file "$K/ca.crt")
ETCD_CURL_ARGS=(--cacert "$K/ca.crt" --cert "$K/client.crt" --key "$K/client.key")
etcd_start T || exit 1

# tcf CA CERT KEY: a config for the TLS instance.
tcf() {
	conf tls '{"type":"ippool","range":"192.0.2.0/24","store":'"$(estore "[\"$T\"]" "$PFX/tls" \
		'"cacert":"'"$1"'","cert":"'"$2"'","key":"'"$3"'","timeout_ms":1500')"'}'
}
ok "ADD over TLS with a client certificate" add_is "$(tcf "$K/ca.crt" "$K/client.crt" "$K/client.key")" t1 "192.0.2.1/24"
run DEL "$(tcf "$K/ca.crt" "$K/client.crt" "$K/client.key")" t1
ok "DEL over TLS" test "$RC" -eq 0
run ADD "$(conf tls '{"type":"ippool","range":"192.0.2.0/24","store":'"$(estore "[\"$T\"]" "$PFX/tls" '"cacert":"'"$K/ca.crt"'","timeout_ms":1500')"'}')" t2
echo "# $(msg)"
ok "without a client certificate etcd refuses the handshake: 11" failed_with 11
like "$(msg)" "etcd $T unavailable: " "  naming the endpoint"
run ADD "$(tcf "$K/other.crt" "$K/client.crt" "$K/client.key")" t3
echo "# $(msg)"
ok "a server certificate from another CA is refused: 11" failed_with 11
like "$(msg)" "etcd $T unavailable: SSL" "  naming the endpoint and TLS"

# RBAC: a user confined to one prefix, on a plain instance
ETCD_SCHEME=http
ETCD_ARGS=()
ETCD_CURL_ARGS=()
etcd_start A || exit 1
api() { curl -sf -X POST "$A/v3/auth/$1" -d "$2" >/dev/null; }
AP=$PFX/rbac/
api role/add '{"name":"root"}' && api user/add '{"name":"root","password":"rootpw"}' &&
	api user/grant '{"user":"root","role":"root"}' && api role/add '{"name":"ippool"}' &&
	api role/grant '{"name":"ippool","perm":{"permType":"READWRITE","key":"'"$(b64 "$AP")"'","range_end":"'"$(b64 "${AP%/}0")"'"}}' &&
	api user/add '{"name":"ippool","password":"s3cret"}' &&
	api user/grant '{"user":"ippool","role":"ippool"}' && api enable '{}'
ok "etcd auth set up" test $? -eq 0

# acf PREFIX PASSWORD
acf() {
	conf rbac '{"type":"ippool","range":"192.0.2.0/24","store":'"$(estore "[\"$A\"]" "$1" \
		'"username":"ippool","password":"'"$2"'","timeout_ms":1500')"'}' 1.1.0
}
ok "ADD with username and password" add_is "$(acf "${AP%/}" s3cret)" r1 "192.0.2.1/24"
ok "ADD again returns the same address" add_is "$(acf "${AP%/}" s3cret)" r1 "192.0.2.1/24"
run STATUS "$(acf "${AP%/}" s3cret)" unused
ok "STATUS with write permission succeeds" test "$RC" -eq 0
run ADD "$(acf "${AP%/}" wrong)" r2
echo "# $(msg)"
ok "a wrong password is a store error (112)" failed_with 112
run ADD "$(acf "$PFX/elsewhere" s3cret)" r3
echo "# $(msg)"
ok "a prefix the user may not write is a store error (112)" failed_with 112
run STATUS "$(acf "$PFX/elsewhere" s3cret)" unused
ok "STATUS without write permission fails with 50" failed_with 50
run DEL "$(acf "${AP%/}" s3cret)" r1
ok "DEL with username and password" test "$RC" -eq 0

done_testing
