# SPDX-License-Identifier: Apache-2.0
"""The call records of a file (docs/metrics.md's layout), one JSON object a line, decoded on their own here so that the tests check the format, not the C reader against itself.

usage: callrec.py FILE            each record, and {"damaged": N} last
       callrec.py --fill FILE N   N copies of the last record of FILE appended (a full file)
"""
import json
import struct
import sys

SIZE = 128
VERBS = ["ADD", "DEL", "CHECK", "GC", "STATUS", "VERSION", "unknown"]
PLUGINS = {1: "sriov-rdma", 2: "ippool"}


def fnv1a(data):
    h = 2166136261
    for b in data:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


def decode(rec):
    magic, version, plugin, verb, netlen, code, dur, t = struct.unpack_from("<2sBBBBHIQ", rec, 0)
    trace, network, zeros = rec[20:36], rec[36:36 + netlen], rec[36 + netlen:124]
    (cksum,) = struct.unpack_from("<I", rec, 124)
    if magic != b"CR" or version != 1 or netlen > 64 or cksum != fnv1a(rec[:124]) or any(zeros):
        return None
    return {"plugin": PLUGINS.get(plugin, plugin), "verb": VERBS[min(verb, 6)], "code": code,
            "durationUs": dur, "timeMs": t, "network": network.decode(),
            "trace": trace.hex() if any(trace) else ""}


def main():
    if sys.argv[1] == "--fill":
        data = open(sys.argv[2], "rb").read()
        with open(sys.argv[2], "ab") as f:
            f.write(data[-SIZE:] * int(sys.argv[3]))
        return
    data = open(sys.argv[1], "rb").read()
    damaged = 0
    for at in range(0, len(data) - len(data) % SIZE, SIZE):
        r = decode(data[at:at + SIZE])
        if r is None:
            damaged += 1
        else:
            print(json.dumps(r))
    print(json.dumps({"damaged": damaged + (1 if len(data) % SIZE else 0)}))


main()
