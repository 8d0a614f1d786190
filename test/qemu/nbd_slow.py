#!/usr/bin/env python3
"""Slow and vanished NBD clients must not stall the others
(test/qemu/cases/net.sh, case_nbd_slow_clients_do_not_stall_others).

usage: nbd_slow.py PORT EXPORT BACKING_FILE N

First the misbehaving clients, each on EXPORT (with a 4 KiB receive
buffer, so their windows close soon):
  - 4 readers that ask for 32 MiB and never read the reply (the server's
    send queues to them fill and stay full);
  - 1 that does the same, then sends 3000 small READ requests, each in its
    own TCP segment, which the server cannot take in while the first reply
    is stuck (they sit in its receive buffers);
  - 1 that sends half a request header and goes silent.
Then N connections (the export offers CAN_MULTI_CONN, checked) each write
(FUA) and read back 256 KiB of their own, all requests in flight, and one
more client vanishes halfway through a WRITE's payload. Every one of the N
must finish (sockets time out after 120 s: a stall fails); then the backing
file must hold every pattern, nothing past the vanished client's bytes,
nothing else changed. Prints one line per finding; exits 1 on a failure."""
import socket, struct, sys, time

IHAVEOPT = 0x49484156454F5054
port, export, backing, n = int(sys.argv[1]), sys.argv[2].encode(), sys.argv[3], int(sys.argv[4])
AREA = 256 << 10        # each worker's bytes, at BASE + i * AREA
CHUNK = 64 << 10        # per request
BASE = 8 << 20
VANISH = 40 << 20
fail = 0


def rx(s, k):
    b = b""
    while len(b) < k:
        c = s.recv(k - len(b))
        if not c:
            raise RuntimeError("server closed after %d of %d bytes" % (len(b), k))
        b += c
    return b


def connect(small_rcvbuf=False):
    """GO on EXPORT; returns the socket and the transmission flags."""
    s = socket.socket()
    if small_rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.settimeout(120)
    s.connect(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    magic, opt, _ = struct.unpack(">QQH", rx(s, 18))
    assert magic == 0x4e42444d41474943 and opt == IHAVEOPT, "bad greeting"
    s.sendall(struct.pack(">I", 3))
    body = struct.pack(">I", len(export)) + export + struct.pack(">H", 0)
    s.sendall(struct.pack(">QII", IHAVEOPT, 7, len(body)) + body)
    tflags = 0
    while True:
        _, _, typ, ln = struct.unpack(">QIII", rx(s, 20))
        data = rx(s, ln)
        if typ == 3 and struct.unpack(">H", data[:2])[0] == 0:
            tflags = struct.unpack(">H", data[10:12])[0]
        if typ == 1:
            return s, tflags
        if typ & 0x80000000:
            raise RuntimeError("GO refused: 0x%x" % typ)


def req(t, flags, cookie, off, ln):
    return struct.pack(">IHHQQI", 0x25609513, flags, t, cookie, off, ln)


def stalled(e):
    print("FAIL: the server stalled: %s" % (e or "timed out"))
    sys.exit(1)


before = open(backing, "rb").read()
stuck = []
for _ in range(4):
    s, _ = connect(True)
    s.sendall(req(0, 0, 1, 0, 32 << 20))
    stuck.append(s)
flood, _ = connect(True)
flood.sendall(req(0, 0, 1, 0, 32 << 20))
stuck.append(flood)
time.sleep(3)           # the replies back up into the server's send queues
for k in range(3000):   # one segment each: a small send, then a pause
    flood.send(req(0, 0, 2 + k, 0, 512))
    time.sleep(0.001)
try:
    half, _ = connect()
except (OSError, RuntimeError) as e:
    stalled(e)
half.sendall(req(0, 0, 1, 0, 4096)[:14])
print("4 clients stopped reading a 32 MiB READ, 1 more sent 3000 requests behind one, 1 sent half a request")

socks, flags = [], set()
try:
    for i in range(n):
        s, f = connect()
        socks.append(s)
        flags.add(f)
except (OSError, RuntimeError) as e:
    stalled(e)
if any(not f & (1 << 8) for f in flags):
    print("FAIL: the export does not offer CAN_MULTI_CONN to all: %s" % flags); fail = 1
pats = [bytes([(i * 41 + 7) & 0xFF]) * AREA for i in range(n)]
for i, s in enumerate(socks):        # all WRITEs in flight, then all READs
    for k in range(AREA // CHUNK):
        s.sendall(req(1, 1, k, BASE + i * AREA + k * CHUNK, CHUNK) + pats[i][:CHUNK])
for i, s in enumerate(socks):
    s.sendall(req(0, 0, 100, BASE + i * AREA, AREA))
v, _ = connect()                     # one vanishes with half a WRITE sent
v.sendall(req(1, 0, 99, VANISH, CHUNK) + b"\xee" * (CHUNK // 2))
v.close()
done = 0
for i, s in enumerate(socks):
    try:
        for k in range(AREA // CHUNK):
            magic, err, cookie = struct.unpack(">IIQ", rx(s, 16))
            if magic != 0x67446698 or err or cookie != k:
                raise RuntimeError("WRITE reply: magic %#x error %d cookie %d" % (magic, err, cookie))
        magic, err, cookie = struct.unpack(">IIQ", rx(s, 16))
        if magic != 0x67446698 or err or cookie != 100:
            raise RuntimeError("READ reply: magic %#x error %d cookie %d" % (magic, err, cookie))
        if rx(s, AREA) != pats[i]:
            raise RuntimeError("READ returned other data")
        s.sendall(req(2, 0, 0, 0, 0))
        done += 1
    except (OSError, RuntimeError) as e:
        print("FAIL: connection %d: %s" % (i, e or "timed out")); fail = 1
    s.close()
print("%d of %d connections wrote and read back their 256 KiB while the slow clients stalled" % (done, n))
for s in stuck + [half]:
    s.close()

after = open(backing, "rb").read()
for i in range(n):
    lo = BASE + i * AREA
    if after[lo:lo + AREA] != pats[i]:
        print("FAIL: connection %d's pattern is not in the backing file" % i); fail = 1
ranges = [(BASE, BASE + n * AREA), (VANISH, VANISH + CHUNK // 2)]
changed = [k for k in range(0, len(after), 4096) if after[k:k + 4096] != before[k:k + 4096] and
           all(not (lo <= k < hi) for lo, hi in ranges)]
if changed:
    print("FAIL: bytes changed outside every write, first at %#x" % changed[0]); fail = 1
if after[VANISH + CHUNK // 2:VANISH + CHUNK] != before[VANISH + CHUNK // 2:VANISH + CHUNK]:
    print("FAIL: the vanished WRITE changed bytes it never sent"); fail = 1
if not fail:
    print("backing file: every pattern in place, nothing past the vanished client's bytes, nothing else changed")
sys.exit(fail)
