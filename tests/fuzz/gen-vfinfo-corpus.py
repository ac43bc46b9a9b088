#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the seed corpus of fuzz-vfinfo: PF replies (RTM_NEWLINK) laid out as
the kernel's rtnl_fill_ifinfo() writes them, IFLA_NUM_VF before
IFLA_VFINFO_LIST and more attributes after it; past 64 KiB the list's 16-bit
length wraps, as the kernel's nla_nest_end() leaves it. An IPoIB PF's VFs
carry the node and port GUIDs after IFLA_VF_TRUST (ndo_get_vf_guid).
usage: gen-vfinfo-corpus.py DIR"""
import struct
import sys

RTM_NEWLINK, IFLA_IFNAME, IFLA_NUM_VF, IFLA_VFINFO_LIST, IFLA_AF_SPEC = 16, 3, 21, 22, 26
VF_INFO, VF_MAC, VF_VLAN, VF_SPOOFCHK, VF_LINK_STATE, VF_RATE, VF_TRUST, VF_VLAN_LIST = \
    1, 1, 2, 4, 5, 6, 9, 12
VLAN_INFO = 1
VF_IB_NODE_GUID, VF_IB_PORT_GUID = 10, 11


def attr(kind, payload):
    length = 4 + len(payload)
    pad = (4 - length % 4) % 4
    return struct.pack('=HH', length & 0xffff, kind) + payload + b'\0' * pad


def guids(vf):
    # struct ifla_vf_guid {u32 vf; u64 guid;}: 4 bytes of padding before the GUID
    return (attr(VF_IB_NODE_GUID, struct.pack('=IxxxxQ', vf, 0x0002c90300000000 + vf))
            + attr(VF_IB_PORT_GUID, struct.pack('=IxxxxQ', vf, 0x0002c90300010000 + vf)))


def vf_info(vf, ib):
    mac = struct.pack('=I', vf) + bytes([2, 0, 0, 0, vf >> 8 & 0xff, vf & 0xff]) + b'\0' * 26
    vlan_info = struct.pack('=IIII', vf, 10 + vf, vf % 8, 0x0081)  # 802.1Q, big endian
    return attr(VF_INFO, attr(VF_MAC, mac) + attr(VF_VLAN, struct.pack('=III', vf, 10 + vf, vf % 8))
                + attr(VF_VLAN_LIST, attr(VLAN_INFO, vlan_info))
                + attr(VF_SPOOFCHK, struct.pack('=II', vf, 1))
                + attr(VF_LINK_STATE, struct.pack('=II', vf, 0))
                + attr(VF_RATE, struct.pack('=III', vf, 0, 1000 * vf))
                + attr(VF_TRUST, struct.pack('=II', vf, 0xffffffff))
                + (guids(vf) if ib else b''))


def reply(n_vfs, ib=False):
    body = struct.pack('=BxHiII', 0, 32 if ib else 1, 7, 0, 0) + attr(IFLA_IFNAME, b'ens8f0\0')
    if n_vfs:
        body += attr(IFLA_NUM_VF, struct.pack('=I', n_vfs))
        body += attr(IFLA_VFINFO_LIST, b''.join(vf_info(vf, ib) for vf in range(n_vfs)))
        body += attr(IFLA_AF_SPEC, b'')
    return struct.pack('=IHHII', 16 + len(body), RTM_NEWLINK, 0, 1, 0) + body


def main():
    seeds = {'veth': reply(0), 'pf-3-vfs': reply(3), 'pf-500-vfs-wrapped': reply(500),
             'ib-pf-3-vfs': reply(3, ib=True)}
    seeds['pf-3-vfs-cut'] = seeds['pf-3-vfs'][:200]
    for name, data in seeds.items():
        with open(f'{sys.argv[1]}/{name}', 'wb') as f:
            f.write(data)


main()
