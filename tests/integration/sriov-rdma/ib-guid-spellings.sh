#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# InfiniBand GUID spellings: each 8-byte form ib-sriov-cni's net.ParseMAC takes, from each GUID source, ends up as one GUID (PF, result, state, CHECK, the node-wide duplicate check); every other spelling is refused with code 7 before any change.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source-path=SCRIPTDIR source=../libib.sh
. "$(dirname "$0")/../libib.sh"
[ -x "$RDMASIM_DRV" ] || skip_all "rdmasim-drv not built"
# the GUIDs this test gives: their lock files go at exit
ib_guid_locks_go 001122334455b5

fx_setup_ib --vfs 2
sim_ip() {
	env LD_PRELOAD="$RDMASIM_LIB" ip "$@"
}

# Where a GUID comes from: the key an error names, and a jq filter that
# puts the spelling (%s) there.
SRC_KEYS=(guid args.cni.guid runtimeConfig.infinibandGUID)
SRC_FILTERS=('.guid = "%s"' '.args = {cni: {guid: "%s"}}' '.runtimeConfig = {infinibandGUID: "%s"}')

# src_conf I SPELLING: a 1.0.0 config for VF $VF with SPELLING in source I.
src_conf() {
	# shellcheck disable=SC2059 # the filter is the format
	conf 1.0.0 "$(printf "${SRC_FILTERS[$1]}" "$2")"
}

# canon GUID16: the plugin's form, as guid_format prints it.
canon() {
	sed 's/../&:/g; s/:$//' <<<"$1"
}

# spell GUID16 FORM: the GUID as a NAD or a network selection may write it:
# colons (upper case), dashes, or dot-separated groups of four (mixed case).
spell() {
	case $2 in
	colons) canon "$1" | tr a-f A-F ;;
	dashes) sed 's/../&-/g; s/-$//' <<<"$1" ;;
	dots) sed 's/..../&./g; s/\.$//; s/b/B/g' <<<"$1" ;;
	esac
}

# guid_round_trip CTX CONF GUID16: ADD gives the VF GUID16 through the PF,
# the result's IPoIB address and the state file carry it in the canonical
# form; CHECK passes, and names it so once the PF has another; DEL gives
# the VF back as it was.
guid_round_trip() {
	local ctx=$1 c=$2 g=$3 want before
	want=$(canon "$g")
	pod_new
	before=$(ib_state)
	cni ADD "$c"
	if ib_added "$ctx" "$g"; then
		is "$(jq -r .ibGuid "$TMP/state/$CID:$IFNAME.json" 2>/dev/null)" "$want" \
			"$ctx: the state records it as $want"
		c=$(with_prev "$c" "$OUT")
		cni CHECK "$c"
		is "$RC" 0 "$ctx: CHECK passes" || diag "$OUT"
		sim_ip link set "$FX_PF" vf "$VF" node_guid 00:11:22:33:44:55:b5:ff
		cni CHECK "$c"
		is "$RC $(jout .code)" "1 107" "$ctx: CHECK fails (code 107) once the PF has another GUID"
		like "$(jout .msg)" "$want" "$ctx: CHECK names the GUID it wants as $want"
		sim_ip link set "$FX_PF" vf "$VF" node_guid "$want"
		cni DEL "$c"
		is "$RC" 0 "$ctx: DEL succeeds" || diag "$OUT"
		is "$(ib_state)" "$before" "$ctx: DEL gives the VF back with its old GUIDs and name"
	fi
	netns_del "$POD"
}

# each spelling from each source: a GUID of its own per case (b5<source><form>)
for s in 0 1 2; do
	f=0
	for form in colons dashes dots; do
		f=$((f + 1))
		g=001122334455b5$((s + 1))$f
		v=$(spell "$g" "$form")
		guid_round_trip "${SRC_KEYS[s]} \"$v\"" "$(src_conf "$s" "$v")" "$g"
	done
done

# the node-wide duplicate check sees one GUID, however each pod spells it
VF=1
pod_new
c1=$(src_conf 1 "00-11-22-33-44-55-b5-40")
cni ADD "$c1"
ib_added "VF 1 holds 00-11-22-33-44-55-b5-40" 001122334455b540
pod1=$POD ns1=$NETNS cid1=$CID
VF=0
for s in 0 2; do
	for v in 00:11:22:33:44:55:B5:40 0011.2233.4455.b540; do
		ib_add_fails 7 "${SRC_KEYS[s]} 00:11:22:33:44:55:b5:40 is already held by VF ${FX_VF_BDF[1]}" \
			"${SRC_KEYS[s]} \"$v\" while VF 1 holds it spelled with dashes" "$(src_conf "$s" "$v")"
	done
done
POD=$pod1 NETNS=$ns1 CID=$cid1 VF=1
cni DEL "$(with_prev "$c1" "$OUT")"
is "$RC" 0 "VF 1 DEL succeeds" || diag "$OUT"
netns_del "$POD"
VF=0

# every other spelling, from each source: code 7 naming the key and the
# value as written, nothing changed
BAD=(
	00:11-22:33:44:55:b5:50		# mixed separators
	0011.2233:4455.b550
	00-11-22-33-44-55-b5:50
	0011:2233:4455:b550		# groups of four need dots
	001.12233.4455.b550		# a group of three
	00:11:22:33::44:55:b5:5		# an empty group
	02:00:5e:10:00:01		# net.ParseMAC's 6-byte form
	0200.5e10.0001
	00-00-00-00-fe-80-00-00-00-00-00-00-00-11-22-33-44-55-b5-50	# its 20-byte form
	"00:11:22:33:44:55:b5:50 "	# trailing garbage
	0011.2233.4455.b550.
	0x001122334455b550
)
for s in 0 1 2; do
	for v in "${BAD[@]}"; do
		ib_add_fails 7 "invalid ${SRC_KEYS[s]} \"$v\": want a GUID like" "${SRC_KEYS[s]} \"$v\"" \
			"$(src_conf "$s" "$v")"
	done
done
# the all-zero and all-ones GUIDs name no port in any spelling
ib_add_fails 7 "invalid guid \"0000.0000.0000.0000\": all zeros names no port" "guid \"0000.0000.0000.0000\"" \
	"$(src_conf 0 0000.0000.0000.0000)"
ib_add_fails 7 "invalid args.cni.guid \"FF-FF-FF-FF-FF-FF-FF-FF\": all ones names no port" \
	"args.cni.guid \"FF-FF-FF-FF-FF-FF-FF-FF\"" "$(src_conf 1 FF-FF-FF-FF-FF-FF-FF-FF)"

done_testing
