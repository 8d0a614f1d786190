"""The NBD wire for the QEMU cases' own clients (nbd_many.py, nbd_slow.py,
nbd_kinds.py): fixed newstyle GO on an export, requests, simple replies.
FACTS-2 §4; big-endian throughout."""
import socket, struct

IHAVEOPT = 0x49484156454F5054
REQUEST_MAGIC = 0x25609513
SIMPLE_REPLY_MAGIC = 0x67446698
FLAG_CAN_MULTI_CONN = 1 << 8


def rx(s, k):
    """Exactly k bytes, or RuntimeError when the server closes first."""
    b = b""
    while len(b) < k:
        c = s.recv(k - len(b))
        if not c:
            raise RuntimeError("server closed after %d of %d bytes" % (len(b), k))
        b += c
    return b


def go(port, export, timeout=60, rcvbuf=None):
    """A connection in transmission on `export` (bytes); returns (socket, transmission flags)."""
    s = socket.socket()
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(timeout)
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
        if typ == 3 and data[:2] == b"\0\0":	# NBD_INFO_EXPORT
            tflags = struct.unpack(">H", data[10:12])[0]
        if typ == 1:
            return s, tflags
        if typ & 0x80000000:
            raise RuntimeError("GO %s refused: 0x%x" % (export.decode(), typ))


def req(t, flags, cookie, off, ln):
    return struct.pack(">IHHQQI", REQUEST_MAGIC, flags, t, cookie, off, ln)


def reply(s, cookie):
    """A simple reply's error; AssertionError on a bad magic or cookie."""
    magic, err, c = struct.unpack(">IIQ", rx(s, 16))
    assert magic == SIMPLE_REPLY_MAGIC and c == cookie, "bad reply"
    return err


def backing_findings(before, after, writes, vanished):
    """What is wrong with a backing file after clients wrote `writes`
    ((offset, bytes) each, acknowledged) and one vanished after sending the
    first `sent` bytes of a WRITE of `length` at `offset` (vanished =
    (offset, sent, length)): a pattern missing, a 4 KiB block changed
    outside every write, a byte changed past what the vanished one sent.
    [] when all is well."""
    out = ["the write at %#x is not in the backing file" % off
           for off, data in writes if after[off:off + len(data)] != data]
    voff, sent, vlen = vanished
    ranges = [(off, off + len(data)) for off, data in writes] + [(voff, voff + sent)]
    changed = [k for k in range(0, len(after), 4096) if after[k:k + 4096] != before[k:k + 4096] and
               all(not (lo <= k < hi) for lo, hi in ranges)]
    if changed:
        out.append("bytes changed outside every write, first at %#x" % changed[0])
    if after[voff + sent:voff + vlen] != before[voff + sent:voff + vlen]:
        out.append("the vanished WRITE changed bytes it never sent")
    return out
