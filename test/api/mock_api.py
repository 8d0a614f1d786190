#!/usr/bin/env python3
"""A stand-in for pmemk's HTTPS management API, for developing and testing
the status page (net/api_page.html) and test/api/page_check.py without a
kernel.

Serves over TLS on 127.0.0.1 only (a free port unless --port):
  GET /            net/api_page.html, no token needed (the page holds no state)
  GET /v1/regions  a fixture (default test/api/fixtures/regions.json), as is
  GET /v1/exports  test/api/fixtures/exports.json
  GET /v1/system   test/api/fixtures/system.json
Every /v1/ path needs "Authorization: Bearer TOKEN" (401 otherwise, 404 for
an unknown one). With --live the counters of exports and system advance with
time (uptime, CPU busy/idle, the clients' bytes) so the page has rates and
busy percentages to show; without it every answer is the fixture's bytes.
--fail PATH=STATUS answers PATH with that status and a one-line body (e.g.
--fail /v1/exports=503), to see the page's error line.

Prints "mock_api: https://127.0.0.1:PORT/" once it listens (and writes PORT
to --port-file), then serves until killed. The certificate is the test one in
test/fixtures/tls/ (its key is public: tests only).

  test/api/mock_api.py --token TOKEN [--regions FILE] [--live] [--port-file F]
"""
import argparse
import hmac
import http.server
import json
import os
import ssl
import sys
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
FIX = os.path.join(ROOT, 'test', 'api', 'fixtures')
TLS = os.path.join(ROOT, 'test', 'fixtures', 'tls')
# What the kernel's server should send with the page too: inline script and
# style only, fetches to itself, nothing else.
CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
       "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
MiB = 1 << 20


def advance(path, doc, secs):
    """The fixture `doc` as it would read `secs` seconds later (--live)."""
    ms = int(secs * 1000)
    if path == '/v1/system':
        doc['uptime_ms'] = doc.get('uptime_ms', 0) + ms
        for i, c in enumerate(doc.get('cpus', [])):
            busy = ms * (35 - 30 * (i % 2)) // 100     # 35% on even CPUs, 5% on odd
            c['busy_ms'] = c.get('busy_ms', 0) + busy
            c['idle_ms'] = c.get('idle_ms', 0) + ms - busy
    elif path == '/v1/exports':
        for i, c in enumerate(doc.get('clients', [])):
            c['connected_ms'] = c.get('connected_ms', 0) + ms
            if c.get('state') != 'transmission':
                continue
            rd, wr = int(secs * (32 * MiB >> 4 * i)), int(secs * (8 * MiB >> 4 * i))
            c['read_bytes'] = c.get('read_bytes', 0) + rd
            c['zero_copy_bytes'] = c.get('zero_copy_bytes', 0) + rd
            c['reads'] = c.get('reads', 0) + rd // 65536
            c['write_bytes'] = c.get('write_bytes', 0) + wr
            c['writes'] = c.get('writes', 0) + wr // 65536
    return doc


class Handler(http.server.BaseHTTPRequestHandler):
    server_version = 'mock_api'
    timeout = 10    # seconds a connection may stay silent
    cfg = None      # set in main()

    def send(self, status, ctype, body, extra=()):
        self.send_response(status)
        self.send_header('Content-Type', ctype)
        self.send_header('Content-Length', str(len(body)))
        self.send_header('Cache-Control', 'no-store')
        self.send_header('X-Content-Type-Options', 'nosniff')
        self.send_header('Referrer-Policy', 'no-referrer')
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def authorized(self):
        got = self.headers.get('Authorization', '')
        return hmac.compare_digest(got.encode(), ('Bearer ' + self.cfg.token).encode())

    def do_GET(self):
        cfg, path = self.cfg, self.path.split('?', 1)[0]
        if path in cfg.fail:
            return self.send(cfg.fail[path], 'text/plain', b'mock_api: failing on purpose\n')
        if path == '/':
            with open(cfg.page, 'rb') as f:
                return self.send(200, 'text/html; charset=utf-8', f.read(),
                                 [('Content-Security-Policy', CSP)])
        if not path.startswith('/v1/'):
            return self.send(404, 'text/plain', b'not found\n')
        if not self.authorized():
            return self.send(401, 'text/plain', b'unauthorized: no or unknown bearer token\n',
                             [('WWW-Authenticate', 'Bearer realm="pmemk"')])
        name = cfg.files.get(path)
        if not name:
            return self.send(404, 'text/plain', b'not found\n')
        with open(name, 'rb') as f:
            body = f.read()
        if cfg.live:
            doc = advance(path, json.loads(body), time.monotonic() - cfg.t0)
            body = json.dumps(doc).encode() + b'\n'
        self.send(200, 'application/json', body)

    def log_message(self, fmt, *args):
        if not self.cfg.quiet:
            sys.stderr.write('mock_api: %s %s\n' % (self.address_string(), fmt % args))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--token', required=True)
    ap.add_argument('--port', type=int, default=0)
    ap.add_argument('--port-file')
    ap.add_argument('--page', default=os.path.join(ROOT, 'net', 'api_page.html'))
    ap.add_argument('--regions', default=os.path.join(FIX, 'regions.json'))
    ap.add_argument('--exports', default=os.path.join(FIX, 'exports.json'))
    ap.add_argument('--system', default=os.path.join(FIX, 'system.json'))
    ap.add_argument('--cert', default=os.path.join(TLS, 'server-ec-chain.crt'))
    ap.add_argument('--key', default=os.path.join(TLS, 'server-ec.key'))
    ap.add_argument('--live', action='store_true')
    ap.add_argument('--fail', action='append', default=[], metavar='PATH=STATUS')
    ap.add_argument('-q', '--quiet', action='store_true')
    cfg = ap.parse_args()
    cfg.fail = {p: int(s) for p, s in (f.rsplit('=', 1) for f in cfg.fail)}
    cfg.files = {'/v1/regions': cfg.regions, '/v1/exports': cfg.exports, '/v1/system': cfg.system}
    cfg.t0 = time.monotonic()
    Handler.cfg = cfg

    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cfg.cert, cfg.key)
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', cfg.port), Handler)
    srv.daemon_threads = True
    # the handshake on the handler's thread: a silent client holds up only itself
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True, do_handshake_on_connect=False)
    port = srv.server_address[1]
    if cfg.port_file:
        with open(cfg.port_file + '.tmp', 'w') as f:
            f.write('%d\n' % port)
        os.replace(cfg.port_file + '.tmp', cfg.port_file)
    print('mock_api: https://127.0.0.1:%d/' % port, flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == '__main__':
    main()
