#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A fake etcd on 127.0.0.1 for tests/integration/etcd/hostile.sh: it answers
every request in one hostile way, named by the first segment of the request's
path (endpoint http://127.0.0.1:PORT/MODE), and logs each request it read
(path and JSON) to LOG, one line each.
usage: hostile-etcd.py PORTFILE LOG [UPSTREAM]
It listens on a free port, writes the port to PORTFILE, and serves until
killed. Mode "proxy-damage" forwards to the real etcd at UPSTREAM and damages
every other answer to a transaction after etcd has carried it out."""
import base64
import json
import os
import socket
import socketserver
import sys
import threading
import time
import urllib.request

PORTFILE, LOG = sys.argv[1:3]
UPSTREAM = sys.argv[3] if len(sys.argv) > 3 else None
OK = b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n'
log_lock = threading.Lock()
txns = [0]


def reply(body, status=b'200 OK'):
    return (b'HTTP/1.1 ' + status + b'\r\nContent-Type: application/json\r\nContent-Length: '
            + str(len(body)).encode() + b'\r\n\r\n' + body)


def b64(s):
    return base64.b64encode(s.encode()).decode()


def unb64(s):
    return base64.b64decode(s).decode(errors='replace')


def kv(key, value, mod=5):
    return {'key': b64(key), 'value': b64(value), 'create_revision': '2',
            'mod_revision': str(mod), 'version': '1'}


def foreign_lease(key):
    """A lease at key (an owner key) that names keys outside its prefix: a DEL
    or GC that believed it would delete them."""
    parts = key.split('/')
    cid, ifname = (parts[-2], parts[-1]) if len(parts) > 3 else ('c1', 'net1')
    return json.dumps({'containerID': cid, 'ifname': ifname, 'podNamespace': '', 'podName': '',
                       'podUID': '', 'created': 1, 'node': socket.gethostname(),
                       'addrs': [{'network': '_', 'pool': '192.0.2.0/24', 'family': 4,
                                  'prefixLength': 24, 'address': '192.0.2.1',
                                  'key': '/other-app/secret/c0000201'}]})


def range_answer(req, value_of):
    key = unb64(req.get('key', ''))
    return {'header': {'revision': '9'}, 'kvs': [kv(key, value_of(key))]}


def answer_json(mode, path, req):
    """The body of a 200 answer in the JSON modes."""
    if mode == 'deep-json':
        return '[' * 200000
    if mode == 'wrong-types':
        return json.dumps({'header': {'revision': []}, 'kvs': 'x', 'succeeded': 'yes',
                           'responses': {'response_range': 1}, 'token': 7})
    if mode == 'bad-base64':
        return json.dumps({'header': {'revision': '9'}, 'succeeded': True,
                           'kvs': [{'key': '@@@@', 'value': 'a', 'create_revision': '1',
                                    'mod_revision': '1', 'version': '1'}]})
    if mode == 'bad-revisions':
        return json.dumps({'header': {'revision': '9'},
                           'kvs': [dict(kv(unb64(req.get('key', '')), '{}'),
                                        mod_revision='-1')]})
    if mode == 'huge-numbers':
        return '{"header":{"revision":1e300},"kvs":[],"succeeded":true,"responses":[]}'
    if mode == 'too-many-keys':
        key = unb64(req.get('key', ''))
        return json.dumps({'header': {'revision': '9'}, 'more': True,
                           'kvs': [kv(key + '%05d' % i, '{}') for i in range(2000)]})
    if mode == 'txn-wrong-responses':
        ops = req.get('success', [])
        body = {'header': {'revision': '9'}, 'succeeded': True,
                'responses': [{'response_put': {}} for _ in ops] + [{'response_put': {}}]}
        if path.endswith('/range'):
            body = {'header': {'revision': '9'}, 'kvs': [kv('/elsewhere', '{}')]}
        return json.dumps(body)
    if mode == 'foreign-lease':
        if path.endswith('/range'):
            return json.dumps(range_answer(req, foreign_lease))
        resps = [{'response_range': range_answer(op['request_range'], foreign_lease)}
                 if 'request_range' in op else {'response_put': {'header': {'revision': '9'}}}
                 for op in req.get('success', [])]
        return json.dumps({'header': {'revision': '9'}, 'succeeded': True, 'responses': resps})
    raise SystemExit(f'unknown mode {mode}')


# Answers that are not HTTP as it should be: the bytes to send, then what to
# do with the connection (close it, or hang on to it until the client goes).
RAW = {
    'chunk-overflow': (OK + b'Transfer-Encoding: chunked\r\n\r\nfffffffffffffffe\r\nab\r\n0\r\n\r\n', 'close'),
    'chunk-wrap': (OK + b'Transfer-Encoding: chunked\r\n\r\n10000000000000002\r\nab\r\n0\r\n\r\n', 'close'),
    'chunk-negative': (OK + b'Transfer-Encoding: chunked\r\n\r\n-2\r\nab\r\n0\r\n\r\n', 'close'),
    'length-overflow': (OK + b'Content-Length: 18446744073709551617\r\n\r\n{}', 'close'),
    'length-negative': (OK + b'Content-Length: -5\r\n\r\n{}', 'close'),
    'length-huge': (OK + b'Content-Length: 1000000000\r\n\r\n{"header":', 'hang'),
    'truncated': (OK + b'Content-Length: 100\r\n\r\n{"header":{"rev', 'close'),
    'truncated-chunk': (OK + b'Transfer-Encoding: chunked\r\n\r\n40\r\n{"header":', 'close'),
    'not-http': (b'SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n', 'close'),
    'status-500': (reply(b'<html>oops</html>', b'500 Internal Server Error'), 'keep'),
    'unavailable': (reply(b'{"error":"etcdserver: no leader","message":"etcdserver: no leader",'
                          b'"code":14}', b'503 Service Unavailable'), 'keep'),
    'close-at-once': (b'', 'close'),
    # every request, the authentication itself included, refused as etcd
    # refuses an invalid token (gRPC Unauthenticated)
    'unauthenticated': (reply(b'{"error":"etcdserver: invalid auth token","message":'
                              b'"etcdserver: invalid auth token","code":16}',
                              b'401 Unauthorized'), 'keep'),
}

# What proxy-damage makes of every other answer to a transaction.
DAMAGE = ['chunk-overflow', 'truncated', 'close-at-once']


def log(path, body):
    try:
        req = json.loads(body)
    except ValueError:
        req = None
    with log_lock, open(LOG, 'a') as f:
        f.write(json.dumps({'path': path, 'req': req}) + '\n')
    return req


def read_request(f):
    line = f.readline()
    if not line:
        return None, None, None
    path = line.split()[1].decode()
    length = 0
    while True:
        h = f.readline()
        if h in (b'\r\n', b'\n', b''):
            break
        name, _, value = h.decode().partition(':')
        if name.lower() == 'content-length':
            length = int(value)
    body = f.read(length)
    return path, body, line + body


def upstream(path, body):
    r = urllib.request.Request(UPSTREAM + path, data=body,
                               headers={'Content-Type': 'application/json'})
    try:
        with urllib.request.urlopen(r, timeout=10) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def hang(sock):
    """Until the client closes its end."""
    sock.settimeout(None)
    try:
        while sock.recv(4096):
            pass
    except OSError:
        pass


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        sock = self.request
        f = sock.makefile('rb')
        while True:
            path, body, _ = read_request(f)
            if path is None:
                return
            req = log(path, body)
            _, mode, path = path.split('/', 2)
            path = '/' + path
            if mode == 'silence':
                hang(sock)
                return
            if mode == 'endless-headers':
                try:
                    sock.sendall(OK)
                    while True:
                        sock.sendall(b'X-Filler: ' + b'a' * 1000 + b'\r\n')
                        time.sleep(0.001)  # 1 MB/s: endless, and the CPU left to the test
                except OSError:
                    return
            if mode == 'slow-drip':
                try:
                    for b in reply(b'{"header":{"revision":"9"}}' + b' ' * 100):
                        sock.sendall(bytes([b]))
                        time.sleep(0.05)
                except OSError:
                    pass
                return
            if mode == 'proxy-damage':
                status, answer = upstream(path, body)
                if path.endswith('/txn'):
                    txns[0] += 1
                    if txns[0] % 2:
                        sock.sendall(RAW[DAMAGE[(txns[0] // 2) % len(DAMAGE)]][0])
                        return
                sock.sendall(reply(answer, b'%d x' % status))
                continue
            if mode in RAW:
                data, then = RAW[mode]
                try:
                    sock.sendall(data)
                except OSError:
                    return
                if then == 'hang':
                    hang(sock)
                if then != 'keep':
                    return
                continue
            sock.sendall(reply(answer_json(mode, path, req or {}).encode()))


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    srv = Server(('127.0.0.1', 0), Handler)
    with open(PORTFILE + '.tmp', 'w') as f:
        f.write(str(srv.server_address[1]))
    os.rename(PORTFILE + '.tmp', PORTFILE)
    srv.serve_forever()


if __name__ == '__main__':
    main()
