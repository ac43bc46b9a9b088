#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the seed corpus of fuzz-rdmanl: RDMA netlink replies laid out as
drivers/infiniband/core/nldev.c writes them: a GET dump datagram
(fill_dev_info(): index, name, port count, cap flags, FW version, node and
system image GUIDs, node type, protocol; NLM_F_MULTI, then NLMSG_DONE), a
PORT_GET reply (fill_port_info(), type RDMA_NLDEV_CMD_GET, with and without
the port's netdev), a SYS_GET reply (netns mode, copy-on-fork) and an error.
usage: gen-rdmanl-corpus.py DIR"""
import struct
import sys

NLDEV = 5
GET, PORT_GET, SYS_GET = 1, 5, 6
DEV_INDEX, DEV_NAME, PORT_INDEX, CAP_FLAGS, FW_VERSION, NODE_GUID, SYS_IMAGE_GUID = 1, 2, 3, 4, 5, 6, 7
PORT_STATE, PORT_PHYS_STATE, DEV_NODE_TYPE = 0x0c, 0x0d, 0x0e
NDEV_INDEX, NDEV_NAME, NETNS_MODE, DEV_PROTOCOL, COPY_ON_FORK = 0x32, 0x33, 0x42, 0x43, 0x5d
NLMSG_ERROR, NLMSG_DONE, NLM_F_MULTI = 2, 3, 2


def attr(kind, payload):
    length = 4 + len(payload)
    return struct.pack('=HH', length, kind) + payload + b'\0' * ((4 - length % 4) % 4)


def msg(kind, flags, body, seq=7):
    return struct.pack('=IHHII', 16 + len(body), kind, flags, seq, 4242) + body


def dev_info(index, name):
    guid = 0x0c42a10300000000 | index
    return (attr(DEV_INDEX, struct.pack('=I', index)) + attr(DEV_NAME, name.encode() + b'\0')
            + attr(PORT_INDEX, struct.pack('=I', 1)) + attr(CAP_FLAGS, struct.pack('=Q', 0x1c3e))
            + attr(FW_VERSION, b'22.39.1002\0') + attr(NODE_GUID, struct.pack('=Q', guid))
            + attr(SYS_IMAGE_GUID, struct.pack('=Q', guid)) + attr(DEV_NODE_TYPE, b'\1')
            + attr(DEV_PROTOCOL, b'roce\0'))


def port_info(index, name, ndev=None):
    body = (attr(DEV_INDEX, struct.pack('=I', index)) + attr(DEV_NAME, name.encode() + b'\0')
            + attr(PORT_INDEX, struct.pack('=I', 1)) + attr(CAP_FLAGS, struct.pack('=Q', 0x4010000))
            + attr(PORT_STATE, b'\4') + attr(PORT_PHYS_STATE, b'\5'))
    if ndev:
        body += attr(NDEV_INDEX, struct.pack('=I', ndev[0])) + attr(NDEV_NAME, ndev[1].encode() + b'\0')
    return msg(NLDEV << 10 | GET, 0, body)


def main():
    dump = b''.join(msg(NLDEV << 10 | GET, NLM_F_MULTI, dev_info(i + 1, f'mlx5_{i}')) for i in range(20))
    done = msg(NLMSG_DONE, NLM_F_MULTI, struct.pack('=i', 0))
    seeds = {
        'dump-20-devices': dump + done,
        'dump-cut': (dump + done)[:700],
        'port-with-netdev': port_info(3, 'mlx5_2', (17, 'ens8f0v2')),
        'port-without-netdev': port_info(3, 'mlx5_2'),
        'sys-get-exclusive': msg(NLDEV << 10 | SYS_GET, 0, attr(NETNS_MODE, b'\0') + attr(COPY_ON_FORK, b'\1')),
        'sys-get-shared': msg(NLDEV << 10 | SYS_GET, 0, attr(NETNS_MODE, b'\1') + attr(COPY_ON_FORK, b'\1')),
        'error-einval': msg(NLMSG_ERROR, 0x100, struct.pack('=i', -22) + struct.pack('=IHHII', 16, NLDEV << 10 | GET, 5, 7, 0)),
    }
    for name, data in seeds.items():
        with open(f'{sys.argv[1]}/{name}', 'wb') as f:
            f.write(data)


if __name__ == '__main__':
    main()
