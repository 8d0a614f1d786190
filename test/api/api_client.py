#!/usr/bin/python3
"""What test/qemu/cases/api.sh asks of the HTTPS API beyond curl.

  api_client.py slow PORT CAFILE NAME       a request sent in part, never finished:
                                            expect 408 from the server, then its close
  api_client.py cut PORT CAFILE NAME        a request cut short by the client's close
  api_client.py pipeline PORT CAFILE NAME TOKEN
                                            two requests in one write, answered in order
  api_client.py limit PORT CAFILE NAME TOKEN N
                                            N kept-alive connections (api.max-per-source),
                                            each after one answer, then one more: it is
                                            answered, and the one idle longest was closed
  api_client.py metrics FILE EXPORT MIN     FILE parses as Prometheus' text format
                                            (python3-prometheus-client's parser), and
                                            pmemk_nbd_read_bytes_total{export=EXPORT} >= MIN
                                            (EXPORT -: no export checked);
                                            prints each family's name and sample count
  api_client.py nbd PORT EXPORT BYTES       write BYTES of a pattern at 0 through NBD
                                            (python3-libnbd), read them back, compare
  api_client.py field FILE PATH             print a field of a JSON file (PATH: a.b.0.c)

Exit status 0 when the check holds, 1 with one line saying why when not.
"""
import json
import re
import socket
import ssl
import sys
import time


def fail(why):
    print("api_client: " + why)
    sys.exit(1)


def tls(port, cafile, name):
    ctx = ssl.create_default_context(cafile=cafile)
    raw = socket.create_connection(("127.0.0.1", int(port)), timeout=30)
    return ctx.wrap_socket(raw, server_hostname=name)


def read_all(s, secs):
    s.settimeout(secs)
    data = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except (socket.timeout, ssl.SSLError, ConnectionResetError):
        pass
    return data


def slow(port, cafile, name):
    s = tls(port, cafile, name)
    t0 = time.monotonic()
    s.sendall(b"GET /v1/regions HTTP/1.1\r\nHost: " + name.encode() + b"\r\n")
    data = read_all(s, 40)
    took = time.monotonic() - t0
    head = data.split(b"\r\n", 1)[0].decode(errors="replace")
    if not head.startswith("HTTP/1.1 408 "):
        fail("a request never finished got %r after %.1f s, not 408" % (head, took))
    if b"Connection: close" not in data:
        fail("the 408 does not close the connection")
    print("slow request: %s after %.1f s, then closed" % (head, took))


def cut(port, cafile, name):
    s = tls(port, cafile, name)
    s.sendall(b"POST /v1/exports HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"dev")
    time.sleep(0.5)
    s.close()
    print("request cut short after 5 bytes of its body")


def pipeline(port, cafile, name, token):
    s = tls(port, cafile, name)
    req = ("GET /v1/system HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n" % (name, token))
    last = ("GET /v1/nothing HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"
            "Connection: close\r\n\r\n" % (name, token))
    s.sendall((req + req + last).encode())
    data = read_all(s, 20).decode(errors="replace")
    codes = re.findall(r"HTTP/1\.1 (\d{3}) ", data)
    if codes != ["200", "200", "404"]:
        fail("three pipelined requests answered %s, not 200 200 404" % codes)
    print("pipelined: 200 200 404 on one connection, closed after the last")


def get(s, name, token, path):
    s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n" %
               (path, name, token)).encode())
    data = b""
    s.settimeout(20)
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    m = re.search(rb"Content-Length: (\d+)", head)
    while m and len(rest) < int(m.group(1)):
        rest += s.recv(65536)
    return head.split(b" ")[1].decode()


def limit(port, cafile, name, token, n):
    conns = []
    for i in range(int(n)):
        s = tls(port, cafile, name)
        if get(s, name, token, "/v1/system") != "200":
            fail("connection %d of %s was not answered" % (i + 1, n))
        conns.append(s)
        time.sleep(0.2)  # an order of idleness
    extra = tls(port, cafile, name)
    code = get(extra, name, token, "/v1/system")
    if code != "200":
        fail("a connection beyond the limit got %s, not 200 (the idlest should make room)" % code)
    closed = []
    for i, s in enumerate(conns):
        s.settimeout(2)
        try:
            closed.append(s.recv(1) == b"")
        except (socket.timeout, ssl.SSLError):
            closed.append(False)
        except ConnectionResetError:
            closed.append(True)
    if closed != [True] + [False] * (len(conns) - 1):
        fail("at the limit, closed %s; want only the first (idle longest)" % closed)
    print("%s kept-alive connections, then one more: answered; the one idle longest was reset" % n)


def metrics(path, export, least):
    from prometheus_client.parser import text_string_to_metric_families
    text = open(path).read()
    try:
        fams = list(text_string_to_metric_families(text))
    except Exception as e:  # the parser's own exceptions say what line failed
        fail("metrics do not parse: %s" % e)
    found = None
    longest = None
    for f in fams:
        print("  %s %s: %d samples" % (f.type, f.name, len(f.samples)))
        for s in f.samples:
            if s.name == "pmemk_nbd_read_bytes_total" and s.labels.get("export") == export:
                found = s.value
            if s.name == "pmemk_api_answer_seconds_max":
                longest = s.value
    if export == "-":  # no export to judge: the parse and the figures only
        found = 0
    elif found is None:
        fail("no pmemk_nbd_read_bytes_total{export=%r}" % export)
    elif found < int(least):
        fail("pmemk_nbd_read_bytes_total{export=%r} is %d, below the %s bytes read" %
             (export, found, least))
    print("metrics parse: %d families; %s read %d bytes; the longest API answer kept the "
          "network loop %s ms" % (len(fams), export, found,
                                 "?" if longest is None else "%.3f" % (longest * 1000)))


def nbd_rw(port, export, nbytes):
    import nbd
    n = int(nbytes)
    h = nbd.NBD()
    h.set_export_name(export)
    h.connect_tcp("127.0.0.1", port)
    pattern = bytes((i * 7 + 3) & 0xFF for i in range(n))
    h.pwrite(pattern, 0)
    h.flush()
    back = h.pread(n, 0)
    h.shutdown()
    if back != pattern:
        fail("%s: what was read is not what was written" % export)
    print("nbd: %d bytes written to %s and read back" % (n, export))


def field(path, dotted):
    v = json.load(open(path))
    for k in dotted.split("."):
        if isinstance(v, list) and k.isdigit():
            v = v[int(k)]
        elif isinstance(v, dict) and k in v:
            v = v[k]
        else:
            fail("%s has no %s" % (path, dotted))
    print(v)


def main():
    a = sys.argv[1:]
    if not a:
        fail("usage: see the docstring")
    cmd = a[0]
    if cmd == "slow":
        slow(*a[1:4])
    elif cmd == "cut":
        cut(*a[1:4])
    elif cmd == "pipeline":
        pipeline(*a[1:5])
    elif cmd == "limit":
        limit(*a[1:6])
    elif cmd == "metrics":
        metrics(*a[1:4])
    elif cmd == "nbd":
        nbd_rw(a[1], a[2], a[3])
    elif cmd == "field":
        field(a[1], a[2])
    else:
        fail("unknown check %s" % cmd)


if __name__ == "__main__":
    main()
