#!/usr/bin/env python3
"""Bad sectors over NBD (test/qemu/cases/media_nbd.sh, issue 29): one
client's bad sector costs that client one error reply, and nothing else.

usage: nbd_media.py NBD_PORT ECHO_PORT DIR

The guest exports pmem0 (64 MiB, DIR/nvdimm0.img) and pmem1 (16 MiB,
DIR/nvdimm1.img), both random from 1 MiB on, with blocks 2051-2052 of
namespace0.0 listed bad (inject-error) and block 4100 only poisoned
(--no-notify), and waits in `net-echo ECHO_PORT`. Here: qemu-io's READs
over either range fail with "Input/output error"; at the same time another
client reads the good ranges of pmem0 (the device's bytes) and nbdcopy
copies pmem1; libnbd with structured replies gets EIO with the first bad
byte's offset (an ERROR_OFFSET chunk) and without them a plain EIO, each
connection going on to read good data afterwards; WRITEs over the ranges
(one sent in 700-byte segments, so that pieces end inside the bad
sectors, then qemu-io's) heal them and read back; nbdcopy then copies all
of pmem0, equal to its backing file. Then the guest is released. Prints
one line per finding; exits 1 on any failure."""
import errno, socket, subprocess, sys, threading, time

import nbd
from nbdwire import go, reply, req

port, eport, d = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
URI = "nbd://127.0.0.1:%d/%%s" % port
MiB = 1 << 20
BAD, BAD_LEN = MiB + 3 * 512, 1024          # blocks 2051-2052: listed
POISON = 4100 * 512                          # block 4100: poisoned, not listed
GOOD = [(0, BAD), (BAD + BAD_LEN, POISON), (POISON + 512, 9 * MiB)]
fail = 0
lock = threading.Lock()


def check(ok, what):
    global fail
    with lock:
        print(("" if ok else "FAIL: ") + what)
        fail |= not ok


def eio(e):
    """Is libnbd's error EIO? (its errno comes as a name)"""
    return e.errno in (errno.EIO, "EIO")


def run(argv, timeout=150):
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(argv, 124, "", "timed out")
    return r


def backing(i):
    return open("%s/nvdimm%d.img" % (d, i), "rb").read()


def qemu_io_bad_reads(n):
    """n READs over each bad range in one qemu-io connection: each fails with EIO."""
    cmds = []
    for _ in range(n):
        cmds += ["-c", "read %d 65536" % MiB, "-c", "read %d 4096" % (POISON - 1024)]
    r = run(["qemu-io", "-f", "raw"] + cmds + [URI % "pmem0"])
    out = r.stdout + r.stderr
    eio = out.count("read failed: Input/output error")
    check(eio == 2 * n and "read 65536/65536" not in out,
          "qemu-io: %d of %d READs over the bad ranges failed with Input/output error" % (eio, 2 * n))
    if eio != 2 * n:
        print("| " + out.strip().replace("\n", "\n| "))


def good_reader(img, rounds):
    """Another client, at the same time: the good ranges of pmem0 read back as the device's bytes."""
    h = nbd.NBD()
    h.connect_uri(URI % "pmem0")
    bad = 0
    for k in range(rounds):
        lo, hi = GOOD[k % len(GOOD)]
        n = min(256 * 1024, hi - lo)
        off = lo + (k * 77 * 4096) % (hi - lo - n + 1) // 512 * 512
        bad += h.pread(n, off) != img[off:off + n]
    h.shutdown()
    check(bad == 0, "another client's %d READs of good ranges meanwhile: %d wrong" % (rounds, bad))


def nbdcopy(name, img, what):
    out = "%s/%s.copy" % (d, name)
    r = run(["nbdcopy", URI % name, out])
    same = r.returncode == 0 and open(out, "rb").read() == img
    check(same, "nbdcopy of %s (%s): equal to its backing file" % (name, what))
    if not same:
        print("| status %d: %s" % (r.returncode, (r.stdout + r.stderr).strip()))


def structured_client(img):
    """libnbd's default: structured replies; EIO at the first bad byte, then the connection goes on."""
    h = nbd.NBD()
    h.connect_uri(URI % "pmem0")
    check(h.get_structured_replies_negotiated(), "libnbd negotiated structured replies")
    for off, n, first in ((MiB, 65536, BAD), (POISON - 1024, 4096, POISON)):
        chunks = []

        def cb(subbuf, offset, status, err):
            chunks.append((status, offset, err.value if hasattr(err, "value") else err))
            return 0

        try:
            h.pread_structured(n, off, cb)
            got = "success"
        except nbd.Error as e:
            got = "EIO" if eio(e) else "errno %s" % e.errno
        errs = [(o, e) for s, o, e in chunks if s == nbd.READ_ERROR]
        check(got == "EIO" and errs == [(first, errno.EIO)],
              "structured READ of %d at %#x: EIO, one error chunk at %#x (got %s, %s)" %
              (n, off, first, got, errs))
    off, n = BAD + BAD_LEN, 65536
    check(h.pread(n, off) == img[off:off + n], "the same structured connection then reads good data")
    h.shutdown()


def simple_client(img):
    """Simple replies: EIO and no payload, the stream in step after it."""
    h = nbd.NBD()
    h.set_request_structured_replies(False)
    h.connect_uri(URI % "pmem0")
    check(not h.get_structured_replies_negotiated(), "libnbd without structured replies")
    for off, n in ((MiB, 65536), (POISON, 512)):
        try:
            h.pread(n, off)
            got = "success"
        except nbd.Error as e:
            got = "EIO" if eio(e) else "errno %s" % e.errno
        check(got == "EIO", "simple READ of %d at %#x: EIO (got %s)" % (n, off, got))
        off2 = POISON + 512
        check(h.pread(8192, off2) == img[off2:off2 + 8192], "  then good data on the same connection")
    h.shutdown()


def heal():
    """
    WRITEs over the bad ranges succeed (they heal them) and read back: one
    sent in 700-byte TCP segments, so that pieces end inside the bad
    sectors (the server carries those sectors until they are whole), then
    qemu-io's.
    """
    data = bytes((i * 11 + 5) & 0xFF for i in range(4096))
    s, _ = go(port, b"pmem0")
    s.sendall(req(1, 0, 1, MiB + 1024, len(data)))
    for k in range(0, len(data), 700):
        time.sleep(0.05)
        s.sendall(data[k:k + 700])
    err = reply(s, 1)
    s.sendall(req(2, 0, 2, 0, 0))
    s.close()
    check(err == 0, "a WRITE over the listed range in 700-byte pieces: error %d" % err)
    r = run(["qemu-io", "-f", "raw", "-c", "write -P 0x6c %d 65536" % (2 * MiB),
             "-c", "read -P 0x6c %d 65536" % (2 * MiB), URI % "pmem0"])
    out = r.stdout + r.stderr
    ok = "wrote 65536/65536" in out and "read 65536/65536" in out and \
        "fail" not in out and "Pattern verification" not in out
    check(ok, "qemu-io: a WRITE over the poisoned block succeeds and reads back")
    if not ok:
        print("| " + out.strip().replace("\n", "\n| "))
    h = nbd.NBD()
    h.connect_uri(URI % "pmem0")
    check(h.pread(len(data), MiB + 1024) == data and h.pread(65536, 2 * MiB) == b"\x6c" * 65536,
          "both read back over NBD")
    h.shutdown()
    img = backing(0)
    check(img[MiB + 1024:MiB + 1024 + len(data)] == data and
          img[2 * MiB:2 * MiB + 65536] == b"\x6c" * 65536, "and are in the backing file")


def release_guest():
    """Connect to the guest's net-echo: it goes on with its next commands."""
    for _ in range(100):
        try:
            s = socket.create_connection(("127.0.0.1", eport), timeout=30)
            break
        except OSError:
            time.sleep(0.2)
    s.sendall(b"go")
    s.shutdown(socket.SHUT_WR)
    while s.recv(64):
        pass
    s.close()


img0, img1 = backing(0), backing(1)
r = run(["qemu-io", "-f", "raw", "-c", "read %d 65536" % MiB, URI % "pmem0"], 60)
check("read failed: Input/output error" in r.stdout + r.stderr,
      "qemu-io 'read 1M 64k' over the listed range: Input/output error")
workers = [threading.Thread(target=qemu_io_bad_reads, args=(10,)),
           threading.Thread(target=good_reader, args=(img0, 60)),
           threading.Thread(target=nbdcopy, args=("pmem1", img1, "another export, meanwhile"))]
for t in workers:
    t.start()
for t in workers:
    t.join(300)
    check(not t.is_alive(), "a client finished in time")
structured_client(img0)
simple_client(img0)
heal()
nbdcopy("pmem0", backing(0), "all of it, healed")
release_guest()
sys.exit(fail)
