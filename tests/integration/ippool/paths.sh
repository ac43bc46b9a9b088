#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ippool's dataDir, log_file, configuration_path and store cacert/cert/key are confined (7, key, path, roots, nothing made); a configuration file's values never come back in an error; the node's admin file allows more only when root's alone.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source-path=SCRIPTDIR source=../confpath.sh
. "$(dirname "$0")/../confpath.sh"

cp_setup || skip_all "cannot make $TMP/cp"
trap 'rm -rf "$TMP" "$CP_OUT" "$CP_OUT-r"' EXIT
: >"$TMP/cp/ok.crt"
N=0

# try KEY VALUE: ADD with the ipam key (store.K: of an etcd store) set to VALUE.
try() {
	local ipam='{"type":"ippool","range":"192.0.2.0/24","dataDir":"'"$TMP"/store'"}'
	case $1 in
	store.*)
		ipam=$(jq -c --arg k "${1#store.}" --arg v "$2" --arg c "$TMP/cp/ok.crt" '.store =
			{type: "etcd", endpoints: ["https://127.0.0.1:9"], timeout_ms: 500, cert: $c, key: $c}
			| .store[$k] = $v' <<<"$ipam") ;;
	*)
		ipam=$(jq -c --arg k "$1" --arg v "$2" '.[$k] = $v' <<<"$ipam") ;;
	esac
	N=$((N + 1))
	run ADD "$(conf paths "$ipam")" "c$N"
}

refused_cases dataDir dir
refused_cases log_file file
refused_cases configuration_path read
refused_cases store.cacert read
refused_cases store.cert read
refused_cases store.key read
nok "no refused ADD reserved an address" test -d "$TMP/store/leases" -a -n "$(ls -A "$TMP/store/leases" 2>/dev/null)"

# ---- what a configuration file holds stays there --------------------------
echo '{"range":"s3cret-in-the-file","dataDir":"'"$TMP"/store'"}' >"$TMP/cp/secret.conf"
run ADD "$(conf paths '{"type":"ippool","configuration_path":"'"$TMP"/cp/secret.conf'"}')" f1
is "$RC/$(code)" "1/7" "a configuration file with a bad range: refused with code 7"
unlike "$(msg)" "s3cret" "  the message holds nothing of the file"
like "$(msg)" "configuration file $TMP/cp/secret.conf (configuration_path) holds a value this config cannot use (what it holds is not shown)" \
	"  and names the file"
for v in '"dataDir":"/tmp/s3cret-dir"' '"log_file":"s3cret.log"' \
	'"store":{"type":"etcd","endpoints":["s3cret-endpoint"]}' '"store":"s3cret-store"' \
	'"store":{"type":"etcd","endpoints":["https://127.0.0.1:9"],"cacert":"/etc/s3cret.crt"}'; do
	echo '{"range":"192.0.2.0/24",'"$v"'}' >"$TMP/cp/secret.conf"
	run ADD "$(conf paths '{"type":"ippool","configuration_path":"'"$TMP"/cp/secret.conf'"}')" f1
	is "$RC/$(code)" "1/7" "a configuration file with $v: refused with code 7"
	unlike "$OUT" "s3cret" "  the error holds nothing of the file"
done
run ADD "$(conf paths '{"type":"ippool","range":"bad-in-the-block","configuration_path":"'"$TMP"/cp/secret.conf'"}')" f2
is "$RC/$(code)" "1/7" "a bad range in the block itself: refused with code 7"
like "$(msg)" 'invalid range "bad-in-the-block"' "  the message shows the block's value"

# ---- the node's admin file ------------------------------------------------
if [ "$(id -u)" -ne 0 ]; then
	skip "the admin file cases need root (the file must be root's)"
	done_testing
fi
admin_file 0644 0 "write $CP_OUT/" "read $CP_OUT-r/"
mkdir -p "$CP_OUT" "$CP_OUT-r"
echo '{"range":"203.0.113.0/24"}' >"$CP_OUT-r/ippool.conf"
A='{"type":"ippool","dataDir":"'"$CP_OUT"/store'","log_file":"'"$CP_OUT"/ippool.log'","log_level":"debug","configuration_path":"'"$CP_OUT"-r/ippool.conf'"}'
ok "an admin file of root's allows $CP_OUT/ and reads from $CP_OUT-r/: ADD" add_is "$(conf paths "$A")" a1 "203.0.113.1/24"
ok "  the lease is in the dataDir there" test -n "$(ls -A "$CP_OUT/store/leases")"
run DEL "$(conf paths "$A")" a1
is "$RC" 0 "  DEL"
ok "  logged there" test -s "$CP_OUT/ippool.log"
refused dataDir "$CP_OUT-r/store" "$CP_W, $CP_OUT/" "$CP_OUT-r/store" "under a read root only"
rm -rf "$CP_OUT"

NOT_ROOTS="it, or a directory above it, is not root's alone"
chmod 0664 "$SRIOV_RDMA_ALLOWED_ROOTS"
admin_ignored dataDir "$CP_OUT/store" "$CP_OUT" "with the admin file group-writable" "$NOT_ROOTS"
admin_file 0644 65534 "write $CP_OUT/"
admin_ignored log_file "$CP_OUT/ippool.log" "$CP_OUT" "with the admin file not owned by root" "$NOT_ROOTS"
admin_file 0644 0 "write $CP_OUT/"
chmod 0777 "$TMP/admin"
admin_ignored dataDir "$CP_OUT/store" "$CP_OUT" "with the admin file in a directory others can write" \
	"$NOT_ROOTS"
unset SRIOV_RDMA_ALLOWED_ROOTS

done_testing
