#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# InfiniBand on a node of two IPoIB PFs: a GUID another PF's VF holds is refused, GC undoes IB attachments as DEL does.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source-path=SCRIPTDIR source=../libib.sh
. "$(dirname "$0")/../libib.sh"
[ -x "$RDMASIM_DRV" ] || skip_all "rdmasim-drv not built"
# the GUIDs this test gives: their lock files go at exit
ib_guid_locks_go 001122334455a6
ib_guid_locks_go 001122334455a7
# Debian's host-local does not speak CNI 1.1.0 (GC)
[ -x "$IPPOOL" ] || skip_all "ippool not built"
IPAM=ippool

# VFs 0 and 1 on PF 0, 2 and 3 on PF 1
fx_setup_ib --pfs 2 --vfs 2
colons() {
	sed 's/../&:/g; s/:$//' <<<"$1"
}
first=$(CID='' ib_state)

# a GUID PF 1 set for its VF 2 (in a pod now) is refused on PF 0
G1=00:11:22:33:44:55:a6:01
VF=2
pod_new
c2=$(conf 1.1.0 ".guid = \"$G1\"")
cni ADD "$c2"
ib_added "VF 2 (PF 1) holds $G1" 001122334455a601
pod2=$POD cid2=$CID out2=$OUT
VF=0
ib_add_fails 7 "guid $G1 is already held by VF ${FX_VF_BDF[2]} (VF 0 of PF ${FX_PF_IF[1]})" \
	"a GUID PF 1 set for its VF 2" "$(conf 1.1.0 ".guid = \"$G1\"")"
ib_add_fails 7 "runtimeConfig.infinibandGUID $G1 is already held by VF ${FX_VF_BDF[2]}" \
	"the same from runtimeConfig.infinibandGUID" "$(conf 1.1.0 ".runtimeConfig.infinibandGUID = \"$G1\"")"
# GUIDs never set through a PF (it reports 0): the ones the VF uses now, its firmware's
ib_add_fails 7 "is already held by VF ${FX_VF_BDF[3]} (VF 1 of PF ${FX_PF_IF[1]})" \
	"VF 3's firmware node GUID, never set by PF 1" "$(conf 1.1.0 ".guid = \"$(colons "${FX_VF_NODE_GUID[3]}")\"")"
ib_add_fails 7 "is already held by VF ${FX_VF_BDF[3]} (VF 1 of PF ${FX_PF_IF[1]})" \
	"VF 3's firmware port GUID" "$(conf 1.1.0 ".guid = \"$(colons "${FX_VF_PORT_GUID[3]}")\"")"
ib_add_fails 7 "is already held by VF ${FX_VF_BDF[1]} (VF 1 of PF ${FX_PF_IF[0]})" \
	"VF 1's firmware node GUID, on the same PF" "$(conf 1.1.0 ".guid = \"$(colons "${FX_VF_NODE_GUID[1]}")\"")"
# PFs whose VF list does not read (EMSGSIZE): the check cannot be made, so nothing is set
sim getlink-error 90
ib_add_fails 104 "cannot read the VF GUIDs of PF ${P}pf" "PFs whose VF list does not read" \
	"$(conf 1.1.0 '.guid = "00:11:22:33:44:55:a6:0f"')"
sim getlink-error 0
# what VF 2 gets back at its DEL (the firmware GUIDs its state saved; PF 1
# reports G1 for it now) is held as well
ib_add_fails 7 "guid $(colons "${FX_VF_NODE_GUID[2]}") is already held by VF ${FX_VF_BDF[2]} (attached as $cid2:$IFNAME, which gets it back when detached)" \
	"the node GUID VF 2's DEL gives back" "$(conf 1.1.0 ".guid = \"$(colons "${FX_VF_NODE_GUID[2]}")\"")"
ib_add_fails 7 "guid $(colons "${FX_VF_PORT_GUID[2]}") is already held by VF ${FX_VF_BDF[2]} (attached as $cid2:$IFNAME," \
	"the port GUID VF 2's DEL gives back" "$(conf 1.1.0 ".guid = \"$(colons "${FX_VF_PORT_GUID[2]}")\"")"
# VF 3 in a pod on its firmware's GUIDs (none given): PF 1 reports 0 for it
# and the host sees no RDMA device of it, its state says what it uses
VF=3
pod_new
c3=$(conf 1.1.0)
cni ADD "$c3"
ib_added "VF 3 keeps its firmware GUIDs"
pod3=$POD cid3=$CID out3=$OUT
VF=0
ib_add_fails 7 "guid $(colons "${FX_VF_PORT_GUID[3]}") is already held by VF ${FX_VF_BDF[3]} (attached as $cid3:$IFNAME, which uses it)" \
	"the firmware port GUID VF 3 uses in its pod" "$(conf 1.1.0 ".guid = \"$(colons "${FX_VF_PORT_GUID[3]}")\"")"
ib_del "VF 3" "$pod3" "$cid3" 3 "$c3" "$out3"
ib_del "VF 2" "$pod2" "$cid2" 2 "$c2" "$out2"
# VF 2 is back on its firmware's GUIDs: G1 is free
VF=0
pod_new
c0=$(conf 1.1.0 ".guid = \"$G1\"")
cni ADD "$c0"
ib_added "once VF 2 gave it back, VF 0 takes $G1" 001122334455a601
cni DEL "$(with_prev "$c0" "$OUT")"
is "$RC" 0 "VF 0 DEL succeeds"
netns_del "$POD"
is "$(CID='' ib_state)" "$first" "every VF has its first GUIDs and names"

# ADDs giving one GUID to VFs 0-3 (both PFs) at the same moment: exactly one
# gets it, the others are refused as for a GUID already held and keep their
# VF as it was. They are let go together: one process holds their four VF
# locks and exits; and each one's state save, between its check and its
# set, is slowed by 300 ms (strace delays its renameat, as a loaded node
# might), so that without the GUID lock all would pass the check. A GUID
# of this run's own: parallel runs do not share its lock.
G=$(printf '00:11:22:%02x:%02x:%02x:88:01' $(($$ >> 16 & 255)) $(($$ >> 8 & 255)) $(($$ & 255)))
GX=${G//:/}
ib_guid_locks_go "$GX"
slow=()
# (LeakSanitizer cannot run under ptrace: in the sanitizer build it would
# fail the traced ADD at exit, so it is off for these ADDs only.)
command -v strace >/dev/null &&
	slow=(env "ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0"
	      strace -qq -o /dev/null -e 'trace=renameat,renameat2' -e 'inject=renameat,renameat2:delay_enter=300000')
race() {
	local i w pids=() pods=() ids=() outs=() locks=() won=() gate
	mkdir -p "$T_LOCK_DIR"
	rm -f "$TMP/gate"
	for i in 0 1 2 3; do locks[i]=$T_LOCK_DIR/${FX_VF_BDF[i]}.lock; done
	python3 -c 'import fcntl, os, sys, time
fds = [os.open(p, os.O_RDWR | os.O_CREAT, 0o600) for p in sys.argv[1:]]
for fd in fds:
	fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(600)' "${locks[@]}" >"$TMP/gate" &
	gate=$!
	# (a loaded machine can take seconds to start python and take the locks)
	for ((i = 0; i < 300; i++)); do [ -s "$TMP/gate" ] && break; sleep 0.1; done
	ok "race $1: one process holds the VF locks of VFs 0-3" test -s "$TMP/gate" ||
		diag "locks in $T_LOCK_DIR: $(lslocks -o PID,COMMAND,PATH 2>&1 | grep -F "$T_LOCK_DIR")"
	for i in 0 1 2 3; do
		VF=$i
		pod_new
		pods[i]=$POD ids[i]=$CID
		( cni ADD "$(conf 1.1.0 ".guid = \"$G\"")" "${slow[@]}"; echo "$RC" >"$TMP/rc$i"; echo "$OUT" >"$TMP/out$i"
		  cp "$TMP/stderr" "$TMP/err$i" ) &
		pids[i]=$!
	done
	# every ADD waits on its VF lock, then all go at once
	sleep 1
	kill "$gate"
	wait "$gate" 2>/dev/null
	for i in 0 1 2 3; do
		wait "${pids[i]}"
		outs[i]=$(cat "$TMP/out$i")
		[ "$(cat "$TMP/rc$i")" = 0 ] && won+=("$i")
	done
	is "${#won[@]}" 1 "race $1: exactly one of 4 concurrent ADDs giving $G succeeds" ||
		for i in 0 1 2 3; do diag "ADD $i: $(cat "$TMP/rc$i") ${outs[i]}"; done
	for w in "${won[@]}"; do
		VF=$w POD=${pods[w]} NETNS=/run/netns/${pods[w]} CID=${ids[w]} OUT=${outs[w]}
		ib_added "race $1: the winner, VF $w" "$GX"
	done
	w=${won[0]:--1}
	for i in 0 1 2 3; do
		[[ " ${won[*]} " == *" $i "* ]] && continue
		OUT=${outs[i]}
		is "$(cat "$TMP/rc$i") $(jout .code)" "1 7" "race $1: ADD on VF $i fails with code 7" ||
			diag "$OUT $(cat "$TMP/err$i")"
		like "$(jout .msg)" "guid $G is already held by VF ${FX_VF_BDF[w]} (VF $((w - FX_VF_PF[w] * 2)) of PF ${FX_PF_IF[FX_VF_PF[w]]})" \
			"race $1: ADD on VF $i names the winner's VF as the GUID's holder"
		is "$(CID='' ib_state | grep -E "^(pf )?vf$i:")" "$(grep -E "^(pf )?vf$i:" <<<"$first")" \
			"race $1: VF $i keeps its name, GUIDs and RDMA device in the host"
		is "$(ip -n "${pods[i]}" -j link show | jq -c '[.[].ifname]')" '["lo"]' \
			"race $1: VF $i's pod has no link of it"
		nok "race $1: VF $i has no state" state_holds "${ids[i]}"
	done
	for w in "${won[@]}"; do
		POD=${pods[w]} NETNS=/run/netns/${pods[w]} CID=${ids[w]} VF=$w
		cni DEL "$(with_prev "$(conf 1.1.0 ".guid = \"$G\"")" "${outs[w]}")"
		is "$RC" 0 "race $1: the DEL of VF $w succeeds" || diag "$OUT"
	done
	for i in 0 1 2 3; do netns_del "${pods[i]}"; done
	is "$(CID='' ib_state)" "$first" "race $1: every VF has its first GUIDs and names"
}
for round in 1 2 3; do race "$round"; done

# GC: VF 0's pod died, VF 2's pod lives on but the runtime forgot both;
# VF 1's attachment is listed
declare -A cid pod out
for i in 0 1 2; do
	VF=$i
	pod_new
	cni ADD "$(conf 1.1.0 ".guid = \"00:11:22:33:44:55:a7:0$i\"")"
	ib_added "GC: VF $i" "001122334455a70$i"
	cid[$i]=$CID pod[$i]=$POD out[$i]=$OUT
done
ib_pod_die "${pod[0]}"
gc=$(conf 1.1.0 | jq -c --arg c "${cid[1]}" \
	'.["cni.dev/valid-attachments"] = [{containerID: $c, ifname: "net1"}]')
cni GC "$gc" CNI_CONTAINERID= CNI_NETNS= CNI_IFNAME=
is "$RC" 0 "GC succeeds" || diag "$OUT"
for i in 0 2; do
	is "$(CID='' ib_state | grep -E "^(pf )?vf$i:")" "$(grep -E "^(pf )?vf$i:" <<<"$first")" \
		"GC: VF $i is back in the host with its name, GUIDs and RDMA device"
	nok "GC: VF $i's state is gone" state_holds "${cid[$i]}"
	nok "GC: VF $i's IP is released" ipam_holds "${cid[$i]}"
done
is "$(ip -n "${pod[2]}" -j link show | jq -c '[.[].ifname]')" '["lo"]' \
	"GC: the live pod of VF 2 has no link of it left"
VF=1 POD=${pod[1]} NETNS=/run/netns/${pod[1]} CID=${cid[1]} OUT=${out[1]}
is "$(ip -n "$POD" -j link show dev "$IFNAME" 2>/dev/null | jq -r '.[0].link_type')" infiniband \
	"GC left the listed attachment's IPoIB link in its pod"
is "$(rdma_visible "$POD")" "$(ib_rdma 1)" "GC left the listed attachment's RDMA device in its pod"
ok "GC left the listed attachment's GUID on VF 1" pf_guid_is 1 001122334455a701
ok "GC kept the listed attachment's state" state_holds "${cid[1]}"
ok "GC kept the listed attachment's IP" ipam_holds "${cid[1]}"
cni DEL "$(with_prev "$(conf 1.1.0 '.guid = "00:11:22:33:44:55:a7:01"')" "$OUT")"
is "$RC" 0 "the listed attachment's DEL succeeds"
netns_del "${pod[1]}"
netns_del "${pod[2]}"
is "$(CID='' ib_state)" "$first" "after GC and DEL every VF has its first GUIDs and names"

done_testing
