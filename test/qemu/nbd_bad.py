#!/usr/bin/env python3
"""A misbehaving NBD client (issue 12 item 7), from the host through
hostfwd on 127.0.0.1: bad magic, bad client flags, unknown options, option
lengths that lie, an option too long, requests over 32 MiB, past the end,
wrapping, unaligned, writes to a read-only export, unknown commands and
flags, and a WRITE and a READ sent one byte per TCP segment. Each must get
the protocol's error or a clean close, and no byte of either backing file
may change outside the one valid write (checked against copies taken
before). FACTS-2 §4; the NBD project's doc/proto.md.

usage: nbd_bad.py PORT RW_IMG RO_IMG   (exports pmem0 = RW_IMG, pmem1:ro = RO_IMG)
"""
import hashlib
import socket
import struct
import sys
import time

PORT = int(sys.argv[1])
RW_IMG, RO_IMG = sys.argv[2], sys.argv[3]
IHAVEOPT = 0x49484156454F5054
OPT_REPLY = 0x0003e889045565a9
REQ_MAGIC, REPLY_MAGIC = 0x25609513, 0x67446698
ACK, INFO = 1, 3
ERR_UNSUP, ERR_INVALID, ERR_UNKNOWN, ERR_TOO_BIG = (1 << 31) + 1, (1 << 31) + 3, (1 << 31) + 6, (1 << 31) + 9
EPERM, EINVAL, ENOSPC, EOVERFLOW = 1, 22, 28, 75
READ, WRITE, DISC, FLUSH, TRIM, WZ = 0, 1, 2, 3, 4, 6
FUA = 1
failed = 0


def check(ok, what):
    global failed
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failed += 1


def connect():
    for _ in range(100):
        try:
            s = socket.create_connection(("127.0.0.1", PORT), timeout=30)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            s.settimeout(30)
            return s
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"cannot connect to 127.0.0.1:{PORT}")


def recvn(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise EOFError(f"closed after {len(b)} of {n} bytes")
        b += c
    return b


def closed(s):
    """True if the server closes (EOF or reset) without sending more."""
    try:
        return s.recv(1) == b""
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


def greet(flags=3):
    s = connect()
    g = recvn(s, 18)
    assert g[:16] == b"NBDMAGICIHAVEOPT", g
    s.sendall(struct.pack(">I", flags))
    return s


def opt(s, o, data=b"", length=None):
    s.sendall(struct.pack(">QII", IHAVEOPT, o, len(data) if length is None else length) + data)


def opt_reply(s):
    magic, o, typ, ln = struct.unpack(">QIII", recvn(s, 20))
    assert magic == OPT_REPLY, hex(magic)
    return o, typ, recvn(s, ln)


def go(s, name):
    opt(s, 7, struct.pack(">I", len(name)) + name + struct.pack(">H", 0))
    while True:
        o, typ, data = opt_reply(s)
        if typ != INFO:
            return typ


def session(name=b"pmem0"):
    s = greet()
    assert go(s, name) == ACK
    return s


def req(s, cmd, off, ln, flags=0, payload=b"", cookie=0x1234):
    s.sendall(struct.pack(">IHHQQI", REQ_MAGIC, flags, cmd, cookie, off, ln) + payload)


def reply(s, data_len=0):
    magic, err, cookie = struct.unpack(">IIQ", recvn(s, 16))
    assert magic == REPLY_MAGIC, hex(magic)
    return err, cookie, (recvn(s, data_len) if data_len and not err else b"")


def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


rw_before, ro_before = open(RW_IMG, "rb").read(), digest(RO_IMG)
SIZE = len(rw_before)

# Handshake misbehaviour: each closes.
s = connect()
recvn(s, 18)
s.sendall(struct.pack(">I", 0))
check(closed(s), "client flags without FIXED_NEWSTYLE: closed")
s = connect()
recvn(s, 18)
s.sendall(struct.pack(">I", 3 | 0x80))
check(closed(s), "unknown client flag: closed")
s = greet()
s.sendall(struct.pack(">QII", 0x4241444D41474943, 7, 0))
check(closed(s), "option with a bad magic: closed")

# Options: unknown ones, lengths that lie, too long; the session goes on after each.
s = greet()
opt(s, 99, b"xyz")
check(opt_reply(s)[1] == ERR_UNSUP, "unknown option 99: ERR_UNSUP")
opt(s, 8, b"x")	# STRUCTURED_REPLY takes no data (this session keeps simple replies)
check(opt_reply(s)[1] == ERR_INVALID, "STRUCTURED_REPLY with data: ERR_INVALID")
opt(s, 6, struct.pack(">I", 50000) + b"pmem0" + struct.pack(">H", 0))	# name length lies
check(opt_reply(s)[1] == ERR_INVALID, "INFO whose name length exceeds the option: ERR_INVALID")
opt(s, 7, struct.pack(">I", 5) + b"pmem0" + struct.pack(">H", 9))	# 9 info requests, none sent
check(opt_reply(s)[1] == ERR_INVALID, "GO whose request count exceeds the option: ERR_INVALID")
opt(s, 3, b"junk")
check(opt_reply(s)[1] == ERR_INVALID, "LIST with data: ERR_INVALID")
opt(s, 7, b"\0" * 10000)
check(opt_reply(s)[1] == ERR_TOO_BIG, "GO with 10000 bytes of data: skipped, ERR_TOO_BIG")
opt(s, 7, struct.pack(">I", 5) + b"pmemX" + struct.pack(">H", 0))
check(opt_reply(s)[1] == ERR_UNKNOWN, "GO for an unknown export: ERR_UNKNOWN")
check(go(s, b"pmem0") == ACK, "then GO pmem0 still works")
req(s, READ, 0, 4096)
err, _, data = reply(s, 4096)
check(err == 0 and data == rw_before[:4096], "and READ returns the device's bytes")

# Requests: the protocol's errors, the connection stays in step.
cases = [
    ("READ of 32 MiB + 4 KiB", READ, 0, (32 << 20) + 4096, 0, EOVERFLOW),
    ("READ past the end", READ, SIZE - 4096, 8192, 0, EINVAL),
    ("READ wrapping past 2^64", READ, (1 << 64) - 4096, 8192, 0, EINVAL),
    ("READ unaligned", READ, 100, 4096, 0, EINVAL),
    ("READ of 0 bytes", READ, 0, 0, 0, EINVAL),
    ("READ with an unknown flag", READ, 0, 4096, 0x80, EINVAL),
    ("TRIM (not offered)", TRIM, 0, 4096, 0, EINVAL),
    ("unknown command 77", 77, 0, 4096, 0, EINVAL),
    ("FLUSH with a range", FLUSH, 0, 4096, 0, EINVAL),
    ("WRITE_ZEROES past the end", WZ, SIZE - 4096, 8192, 0, ENOSPC),
    ("WRITE_ZEROES wrapping", WZ, (1 << 64) - 4096, 8192, 0, ENOSPC),
]
for what, cmd, off, ln, fl, want in cases:
    req(s, cmd, off, ln, fl, cookie=len(what))
    err, cookie, _ = reply(s)
    check(err == want and cookie == len(what), f"{what}: error {err}, want {want}")
for what, off, ln, want in [("WRITE past the end", SIZE - 4096, 8192, ENOSPC),
                            ("WRITE wrapping past 2^64", (1 << 64) - 4096, 8192, ENOSPC),
                            ("WRITE unaligned", 512 + 1, 4096, EINVAL)]:
    req(s, WRITE, off, ln, FUA, b"\xee" * ln)	# the payload is read and dropped
    err, _, _ = reply(s)
    check(err == want, f"{what} (payload drained): error {err}, want {want}")
req(s, WRITE, 0, (32 << 20) + 4096, 0, b"\xee" * ((32 << 20) + 4096))
err, _, _ = reply(s)
check(err == EOVERFLOW, f"WRITE of 32 MiB + 4 KiB (payload drained): error {err}, want {EOVERFLOW}")
req(s, READ, 4096, 4096)
err, _, data = reply(s, 4096)
check(err == 0 and data == rw_before[4096:8192], "after all that, READ is in step and the data unchanged")
s.sendall(struct.pack(">IHHQQI", 0xdeadbeef, 0, READ, 1, 0, 4096))
check(closed(s), "request with a bad magic: closed")

# The read-only export: writes and zeroes refused, FLUSH and READ fine.
s = session(b"pmem1")
for what, cmd, payload in [("WRITE", WRITE, b"\x11" * 4096), ("WRITE with FUA", WRITE, b"\x22" * 4096),
                           ("WRITE_ZEROES", WZ, b"")]:
    req(s, cmd, 8192, 4096, FUA if "FUA" in what else 0, payload)
    err, _, _ = reply(s)
    check(err == EPERM, f"{what} to a read-only export: error {err}, want {EPERM}")
req(s, FLUSH, 0, 0)
check(reply(s)[0] == 0, "FLUSH on the read-only export: fine")
req(s, DISC, 0, 0)
check(closed(s), "DISC: closed")

# One byte per segment: a whole handshake, then a WRITE (FUA) and a READ.
W_OFF = 5 << 20
pattern = bytes((i * 13 + 7) & 0xFF for i in range(4096))
s = connect()


def trickle(b):
    for i in range(len(b)):
        s.send(b[i:i + 1])
        time.sleep(0.0005)


recvn(s, 18)
trickle(struct.pack(">I", 3))
trickle(struct.pack(">QII", IHAVEOPT, 7, 4 + 5 + 2) + struct.pack(">I", 5) + b"pmem0" + struct.pack(">H", 0))
while True:
    o, typ, _ = opt_reply(s)
    if typ != INFO:
        break
check(typ == ACK, "GO sent one byte per segment: ACK")
trickle(struct.pack(">IHHQQI", REQ_MAGIC, FUA, WRITE, 77, W_OFF, 4096) + pattern)
err, cookie, _ = reply(s)
check(err == 0 and cookie == 77, "WRITE (FUA) sent one byte per segment: acknowledged")
trickle(struct.pack(">IHHQQI", REQ_MAGIC, 0, READ, 78, W_OFF, 4096))
err, cookie, data = reply(s, 4096)
check(err == 0 and cookie == 78 and data == pattern, "READ sent one byte per segment: the pattern back")
# A request cut in the middle and then the client gone: at most the bytes it sent written
# (WRITE data goes into pmem as it arrives), nothing past them.
s2 = session()
s2.sendall(struct.pack(">IHHQQI", REQ_MAGIC, 0, WRITE, 79, 6 << 20, 8192) + b"\x99" * 3000)
time.sleep(0.5)
s2.close()
trickle(struct.pack(">IHHQQI", REQ_MAGIC, 0, DISC, 80, 0, 0))
check(closed(s), "DISC sent one byte per segment: closed")
time.sleep(1)

# The backing files: only [W_OFF, W_OFF + 4096) of pmem0 changed, to the pattern,
# and of the cut WRITE's 8 KiB at 6 MiB at most the 3000 bytes it sent, to 0x99.
after = open(RW_IMG, "rb").read()
check(after[W_OFF:W_OFF + 4096] == pattern, "the valid write is in pmem0's backing file")
CUT = 6 << 20
same = after[:W_OFF] == rw_before[:W_OFF] and after[W_OFF + 4096:CUT] == rw_before[W_OFF + 4096:CUT] \
    and after[CUT + 3000:] == rw_before[CUT + 3000:]
check(same, "no other byte of pmem0's backing file changed (none past the cut WRITE's 3000 bytes)")
check(all(a == b or a == 0x99 for a, b in zip(after[CUT:CUT + 3000], rw_before[CUT:CUT + 3000])),
      "the cut WRITE's 3000 bytes: each as before or as sent")
check(digest(RO_IMG) == ro_before, "no byte of pmem1's (read-only) backing file changed")
print(f"nbd_bad: {failed} failed")
sys.exit(1 if failed else 0)
