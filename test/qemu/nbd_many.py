#!/usr/bin/env python3
"""Many NBD clients at once against pmemk (test/qemu/cases/net.sh).

usage: nbd_many.py PORT EXPORT BACKING_FILE N

Opens N connections to 127.0.0.1:PORT, negotiates EXPORT with GO on each,
then has every connection write its own 64 KiB pattern (FUA) and read it
back, all with their requests in flight at the same time; one more client
vanishes in the middle of a WRITE's payload while the others go on. Checks
every reply and, on the host, the backing file: each pattern where it was
written, nothing changed past the bytes the vanished client sent, nothing
changed anywhere else. Prints one line per finding; exits 1 on any
failure. Every socket has a timeout."""
import sys

from nbdwire import backing_findings, go, reply, req, rx

port, export, backing, n = int(sys.argv[1]), sys.argv[2].encode(), sys.argv[3], int(sys.argv[4])
CHUNK = 65536
BASE = 8 << 20          # clients write at BASE + i * CHUNK
VANISH = 32 << 20       # the vanishing client's range


def connect():
    return go(port, export)[0]


before = open(backing, "rb").read()
fail = 0
socks = [connect() for _ in range(n)]
pats = [bytes([(i * 37 + 11) & 0xFF]) * CHUNK for i in range(n)]
for i, s in enumerate(socks):        # every WRITE in flight, then every READ
    s.sendall(req(1, 1, 2 * i, BASE + i * CHUNK, CHUNK) + pats[i])
for i, s in enumerate(socks):
    s.sendall(req(0, 0, 2 * i + 1, BASE + i * CHUNK, CHUNK))
for i, s in enumerate(socks):
    if reply(s, 2 * i):
        print("client %d: WRITE failed" % i); fail = 1
    if reply(s, 2 * i + 1):
        print("client %d: READ failed" % i); fail = 1
    elif rx(s, CHUNK) != pats[i]:
        print("client %d: READ returned other data" % i); fail = 1
print("%d connections at once: each wrote and read back its 64 KiB" % n)

v = connect()                       # vanishes with half a WRITE sent
v.sendall(req(1, 0, 99, VANISH, CHUNK) + b"\xee" * (CHUNK // 2))
v.close()
s = socks[0]                        # the others go on: a READ through the vanished range
s.sendall(req(0, 0, 1000, VANISH, CHUNK))
if reply(s, 1000):
    print("READ after the vanished client failed"); fail = 1
else:
    rx(s, CHUNK)
for s in socks:
    s.sendall(req(2, 0, 0, 0, 0))
    s.close()

after = open(backing, "rb").read()
for finding in backing_findings(before, after, [(BASE + i * CHUNK, pats[i]) for i in range(n)],
                                (VANISH, CHUNK // 2, CHUNK)):
    print(finding); fail = 1
print("vanished client: nothing past the bytes it sent changed; nothing else changed")
sys.exit(fail)
