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
import struct, sys, time

from nbdwire import FLAG_CAN_MULTI_CONN, SIMPLE_REPLY_MAGIC, backing_findings, go, req, rx

port, export, backing, n = int(sys.argv[1]), sys.argv[2].encode(), sys.argv[3], int(sys.argv[4])
AREA = 256 << 10        # each worker's bytes, at BASE + i * AREA
CHUNK = 64 << 10        # per request
BASE = 8 << 20
VANISH = 40 << 20
fail = 0


def connect(small_rcvbuf=False):
    return go(port, export, 120, 4096 if small_rcvbuf else None)


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
if any(not f & FLAG_CAN_MULTI_CONN for f in flags):
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
            if magic != SIMPLE_REPLY_MAGIC or err or cookie != k:
                raise RuntimeError("WRITE reply: magic %#x error %d cookie %d" % (magic, err, cookie))
        magic, err, cookie = struct.unpack(">IIQ", rx(s, 16))
        if magic != SIMPLE_REPLY_MAGIC or err or cookie != 100:
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
for finding in backing_findings(before, after, [(BASE + i * AREA, pats[i]) for i in range(n)],
                                (VANISH, CHUNK // 2, CHUNK)):
    print("FAIL: " + finding); fail = 1
if not fail:
    print("backing file: every pattern in place, nothing past the vanished client's bytes, nothing else changed")
sys.exit(fail)
