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
import socket, struct, sys

IHAVEOPT = 0x49484156454F5054
port, export, backing, n = int(sys.argv[1]), sys.argv[2].encode(), sys.argv[3], int(sys.argv[4])
CHUNK = 65536
BASE = 8 << 20          # clients write at BASE + i * CHUNK
VANISH = 32 << 20       # the vanishing client's range

def rx(s, k):
    b = b""
    while len(b) < k:
        c = s.recv(k - len(b))
        if not c:
            raise RuntimeError("server closed after %d of %d bytes" % (len(b), k))
        b += c
    return b

def connect():
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    magic, opt, flags = struct.unpack(">QQH", rx(s, 18))
    assert magic == 0x4e42444d41474943 and opt == IHAVEOPT, "bad greeting"
    s.sendall(struct.pack(">I", 3))
    body = struct.pack(">I", len(export)) + export + struct.pack(">H", 0)
    s.sendall(struct.pack(">QII", IHAVEOPT, 7, len(body)) + body)
    while True:
        _, o, typ, ln = struct.unpack(">QIII", rx(s, 20))
        rx(s, ln)
        if typ == 1:
            return s
        if typ & 0x80000000:
            raise RuntimeError("GO refused: 0x%x" % typ)

def req(t, flags, cookie, off, ln):
    return struct.pack(">IHHQQI", 0x25609513, flags, t, cookie, off, ln)

def reply(s, cookie):
    magic, err, c = struct.unpack(">IIQ", rx(s, 16))
    assert magic == 0x67446698 and c == cookie, "bad reply"
    return err

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
for i in range(n):
    lo = BASE + i * CHUNK
    if after[lo:lo + CHUNK] != pats[i]:
        print("client %d's pattern is not in the backing file" % i); fail = 1
ranges = [(BASE, BASE + n * CHUNK), (VANISH, VANISH + CHUNK // 2)]
def outside(a, b):
    return all(not (lo <= a < hi) for lo, hi in ranges)
changed = [k for k in range(0, len(after), 4096)
           if after[k:k + 4096] != before[k:k + 4096] and outside(k, k + 4096)]
if changed:
    print("bytes changed outside every write, first at 0x%x" % changed[0]); fail = 1
tail = after[VANISH + CHUNK // 2:VANISH + CHUNK]
if tail != before[VANISH + CHUNK // 2:VANISH + CHUNK]:
    print("the vanished WRITE changed bytes it never sent"); fail = 1
print("vanished client: nothing past the bytes it sent changed; nothing else changed")
sys.exit(fail)
