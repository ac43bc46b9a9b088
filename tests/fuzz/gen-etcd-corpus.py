#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the seed corpora of fuzz-http, fuzz-etcd and fuzz-etcd-layout from a
real etcd: ippool (ADD, dual stack, DEL with a hold) fills a prefix, then the
requests ippool sends go to etcd over raw sockets, and what comes back is kept:
whole HTTP replies (the range of everything comes chunked, two come on one
kept-alive connection), their
JSON bodies (range, txn success and failure, errors, an auth token), and every
value ippool wrote (leases, pool infos, addresses, a hold). The leases record a
real netns (made here: root), as ADD does; the *-before-netns seeds are leases
an ippool before netns recording wrote, kept as they were.
usage: tests/integration/etcd/etcd-env.sh tests/fuzz/gen-etcd-corpus.py BUILD_DIR
(etcd-env.sh starts a throw-away etcd; the script turns its auth on at the end)"""
import base64
import json
import os
import socket
import subprocess
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ENDPOINT = os.environ['IPPOOL_TEST_ETCD']
URL = urllib.parse.urlsplit(ENDPOINT)
PREFIX = '/seed'


def b64(s):
    return base64.b64encode(s.encode()).decode()


def request(path, body, token=None):
    auth = f'Authorization: {token}\r\n' if token else ''
    data = json.dumps(body).encode()
    return (f'POST {path} HTTP/1.1\r\nHost: {URL.netloc}\r\nContent-Type: application/json\r\n'
            f'Content-Length: {len(data)}\r\n{auth}\r\n').encode() + data


def raw(*reqs):
    """Sends the requests on one connection, returns everything read until
    the server has been quiet for a moment after the last answer."""
    with socket.create_connection((URL.hostname, URL.port)) as s:
        s.settimeout(1.0)
        got = b''
        for r in reqs:
            s.sendall(r)
            try:
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    got += chunk
            except socket.timeout:
                pass
        return got


def body_of(reply):
    head, _, rest = reply.partition(b'\r\n\r\n')
    if b'chunked' not in head.lower():
        return rest
    out = b''
    while True:
        size, _, rest = rest.partition(b'\r\n')
        n = int(size, 16)
        if not n:
            return out
        out, rest = out + rest[:n], rest[n + 2:]


def save(corpus, name, data):
    d = os.path.join(HERE, 'corpus', corpus)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def exchange(name, path, body, token=None):
    reply = raw(request(path, body, token))
    save('http', name, reply)
    save('etcd', name + '.json', body_of(reply))
    return json.loads(body_of(reply))


NETNS = f'gen-etcd-corpus-{os.getpid()}'


def ippool(cmd, ipam, cid, ifname='net1'):
    conf = {'cniVersion': '1.0.0', 'name': 'seed', 'type': 'sriov-rdma', 'ipam': ipam}
    env = dict(os.environ, CNI_COMMAND=cmd, CNI_CONTAINERID=cid, CNI_IFNAME=ifname,
               CNI_NETNS=f'/var/run/netns/{NETNS}', CNI_PATH='/nonexistent',
               CNI_ARGS='IgnoreUnknown=1;K8S_POD_NAMESPACE=team-a;K8S_POD_NAME=worker-0;'
                        'K8S_POD_UID=6f1c2d3e-0000-4000-8000-000000000001')
    p = subprocess.run([os.path.join(sys.argv[1], 'ipam/ippool/ippool')], input=json.dumps(conf),
                       env=env, capture_output=True, text=True, check=False)
    if p.returncode:
        sys.exit(f'ippool {cmd} {cid}: {p.stdout} {p.stderr}')


def main():
    store = {'type': 'etcd', 'endpoints': [ENDPOINT], 'prefix': PREFIX}
    v4 = {'type': 'ippool', 'store': store, 'range': '192.0.2.0/24', 'exclude': ['192.0.2.1'],
          'network_name': 'rdma-net', 'release_hold_seconds': 600}
    dual = {'type': 'ippool', 'store': store, 'network_name': 'rails',
            'enable_overlapping_ranges': False,
            'ipRanges': [{'range': '198.51.100.0/24'}, {'range': '2001:db8::/64'}]}
    for i in range(12):
        ippool('ADD', v4, f'c{i}')
    ippool('ADD', dual, 'd1')
    ippool('DEL', v4, 'c3')

    everything = {'key': b64(PREFIX + '/'), 'range_end': b64(PREFIX + '0')}
    reply = raw(request('/v3/kv/range', everything))
    save('http', 'range-all', reply)
    save('etcd', 'range-all.json', body_of(reply))
    seen = {}
    for kv in json.loads(body_of(reply))['kvs']:
        key = base64.b64decode(kv['key']).decode()
        value = base64.b64decode(kv['value'])
        kind = key.split('/')[2] + ('-hold' if b'holdUntil' in value else '')
        seen[kind] = seen.get(kind, 0) + 1
        if seen[kind] <= 3:
            save('etcd-layout', key[len(PREFIX) + 1:].replace('/', '_'), value)

    page = {'key': b64(PREFIX + '/n/rdma-net/v4/c0000200'), 'range_end': b64(PREFIX + '/n/rdma-net/v4/~'),
            'limit': '4'}
    exchange('range-page', '/v3/kv/range', page)
    one = {'key': b64(PREFIX + '/o/c1/net1')}
    exchange('range-one', '/v3/kv/range', one)
    exchange('range-none', '/v3/kv/range', {'key': b64(PREFIX + '/o/none/net1')})
    save('http', 'keep-alive-two', raw(request('/v3/kv/range', one), request('/v3/kv/range', page)))

    absent = {'key': b64(PREFIX + '/o/t1/net1'), 'target': 'MOD', 'result': 'EQUAL',
              'mod_revision': '0'}
    txn = {'compare': [absent],
           'success': [{'request_put': {'key': b64(PREFIX + '/o/t1/net1'), 'value': b64('{}')}},
                       {'request_delete_range': {'key': b64(PREFIX + '/o/none/net1')}},
                       {'request_range': one}],
           'failure': [{'request_range': one}, {'request_range': page}]}
    exchange('txn-success', '/v3/kv/txn', txn)
    exchange('txn-failure', '/v3/kv/txn', txn)
    never = {'key': b64(PREFIX + '/status'), 'target': 'VERSION', 'result': 'EQUAL',
             'version': '-1'}
    exchange('txn-status', '/v3/kv/txn', {'compare': [never], 'success': [
        {'request_put': {'key': b64(PREFIX + '/status')}}]})
    exchange('error-bad-key', '/v3/kv/range', {'key': '@@'})
    exchange('error-auth-off', '/v3/auth/authenticate', {'name': 'root', 'password': 'x'})

    exchange('auth-user', '/v3/auth/user/add', {'name': 'root', 'password': 'pw'})
    exchange('auth-role', '/v3/auth/user/grant', {'user': 'root', 'role': 'root'})
    exchange('auth-enable', '/v3/auth/enable', {})
    tok = exchange('auth-token', '/v3/auth/authenticate', {'name': 'root', 'password': 'pw'})
    exchange('error-no-token', '/v3/kv/range', one)
    exchange('error-bad-password', '/v3/auth/authenticate', {'name': 'root', 'password': 'no'})
    exchange('range-with-token', '/v3/kv/range', one, tok['token'])


if __name__ == '__main__':
    subprocess.run(['ip', 'netns', 'add', NETNS], check=True)
    try:
        main()
    finally:
        subprocess.run(['ip', 'netns', 'del', NETNS], check=False)
