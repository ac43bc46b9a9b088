#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the seed corpus of fuzz-link: the kernel's own RTM_NEWLINK reply
for lo (asked here over NETLINK_ROUTE, stats left out), the same reply as an
IPoIB VF's netdev reads (ARPHRD_INFINIBAND, 20-byte address and broadcast,
IFLA_PARENT_DEV_NAME), and a cut one.
usage: gen-link-corpus.py DIR"""
import os
import socket
import struct
import sys

RTM_NEWLINK, RTM_GETLINK, NLM_F_REQUEST = 16, 18, 1
IFLA_ADDRESS, IFLA_BROADCAST, IFLA_EXT_MASK, IFLA_PARENT_DEV_NAME = 1, 2, 29, 56
RTEXT_FILTER_SKIP_STATS = 8
ARPHRD_INFINIBAND = 32
IPOIB_ADDR = bytes.fromhex('00000c79fe800000000000000002c90300216e78')
IPOIB_BCAST = bytes.fromhex('00ffffffff12401bffff000000000000ffffffff')


def attr(kind, payload):
    length = 4 + len(payload)
    return struct.pack('=HH', length, kind) + payload + b'\0' * ((4 - length % 4) % 4)


def kernel_lo():
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    body = struct.pack('=BxHiII', 0, 0, 1, 0, 0) + attr(IFLA_EXT_MASK, struct.pack('=I', RTEXT_FILTER_SKIP_STATS))
    sock.send(struct.pack('=IHHII', 16 + len(body), RTM_GETLINK, NLM_F_REQUEST, 1, 0) + body)
    reply = sock.recv(65536)
    sock.close()
    assert struct.unpack_from('=H', reply, 4)[0] == RTM_NEWLINK
    return reply[:struct.unpack_from('=I', reply)[0]]


def as_ipoib(msg):
    """The attributes of msg with the addresses of an IPoIB netdev and a parent."""
    _, _, flags, seq, pid = struct.unpack_from('=IHHII', msg)
    family, _, index, ifi_flags, change = struct.unpack_from('=BxHiII', msg, 16)
    out, off = b'', 32
    while off + 4 <= len(msg):
        length, kind = struct.unpack_from('=HH', msg, off)
        payload = msg[off + 4:off + length]
        if kind == IFLA_ADDRESS:
            payload = IPOIB_ADDR
        elif kind == IFLA_BROADCAST:
            payload = IPOIB_BCAST
        out += attr(kind, payload)
        off += (length + 3) & ~3
    out += attr(IFLA_PARENT_DEV_NAME, b'0000:3b:00.2\0')
    body = struct.pack('=BxHiII', family, ARPHRD_INFINIBAND, index, ifi_flags, change) + out
    return struct.pack('=IHHII', 16 + len(body), RTM_NEWLINK, flags, seq, pid) + body


def main():
    lo = kernel_lo()
    seeds = {'kernel-lo': lo, 'ipoib-vf': as_ipoib(lo), 'kernel-lo-cut': lo[:60]}
    for name, data in seeds.items():
        with open(os.path.join(sys.argv[1], name), 'wb') as f:
            f.write(data)


main()
