#!/usr/bin/env python3
"""A sector (BTT) and a devdax export under real clients
(test/qemu/cases/net.sh, case_nbd_exports_every_kind).

usage: nbd_kinds.py NBD_PORT ECHO_PORT SERIAL_LOG DIR

The guest (pmem0s: BTT of namespace0.0; dax1.0: devdax of namespace1.0,
backing files DIR/nvdimm0.img and DIR/nvdimm1.img) wrote 256 KiB of 0x77
to pmem0s and of 0x66 to dax1.0 at 4 MiB, then waits in `net-echo
ECHO_PORT`. Here: nbdinfo --list; qemu-io writes 0x5a to pmem0s at 1 MiB and
0xc3 to dax1.0 at 2 MiB (found in nvdimm1.img at dataoff + 2 MiB, dataoff
from the guest's log); nbdcopy reads both whole (pmem0s: zero but for the
two patterns; dax1.0: equal to nvdimm1.img from dataoff); nbdsh (structured
replies) reads both patterns and gets EINVAL past the end; then one raw
client holds each export while the guest, released through net-echo,
checks the host's patterns itself and tries to destroy and unexport
(busy); at its second net-echo the clients go and it is released again.
Prints one line per finding; exits 1 on any failure."""
import os, re, socket, subprocess, sys, time

from nbdwire import go

port, eport, serial, d = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
URI = "nbd://127.0.0.1:%d/%%s" % port
NBDSH = ["env", "PATH=/usr/bin:" + os.environ.get("PATH", ""), "nbdsh"]	# Debian's python3 has the module
fail = 0


def check(ok, what):
    global fail
    print(("" if ok else "FAIL: ") + what)
    fail |= not ok


def run(argv, timeout=150):
    r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if r.returncode:
        print("| %s: status %d\n| %s" % (" ".join(argv[:3]), r.returncode,
                                         (r.stdout + r.stderr).strip().replace("\n", "\n| ")))
    return r


def log():
    return open(serial, "rb").read().decode("utf-8", "replace")


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


def hold(name):
    """A raw client in transmission on export `name`, left open."""
    return go(port, name.encode())[0]


m = re.search(r"nd_pfn dax1\.0: namespace1\.0 devdax map=\w+ align 0x\w+ dataoff (0x[0-9a-f]+): dax1\.0, (\d+) MiB", log())
check(m is not None, "the guest's log has dax1.0's dataoff")
dataoff, dsize = (int(m.group(1), 16), int(m.group(2)) << 20) if m else (0, 0)

r = run(["nbdinfo", "--list", "nbd://127.0.0.1:%d" % port], 60)
check(r.returncode == 0 and 'export="pmem0s":' in r.stdout and 'export="dax1.0":' in r.stdout,
      "nbdinfo --list: pmem0s and dax1.0")
r1 = run(["qemu-io", "-f", "raw", "-c", "write -P 0x5a 1M 64k", URI % "pmem0s"], 60)
r2 = run(["qemu-io", "-f", "raw", "-c", "write -P 0xc3 2M 64k", URI % "dax1.0"], 60)
check(r1.returncode == 0 and r2.returncode == 0, "qemu-io wrote 64 KiB to each")
back1 = open(os.path.join(d, "nvdimm1.img"), "rb").read()
check(back1[dataoff + (2 << 20):dataoff + (2 << 20) + 65536] == b"\xc3" * 65536,
      "dax1.0: qemu-io's write is in the backing file at dataoff %#x + 2 MiB" % dataoff)

for name in ("pmem0s", "dax1.0"):
    out = os.path.join(d, name + ".copy")
    if os.path.exists(out):
        os.unlink(out)
    r = run(["nbdcopy", URI % name, out])
    got = open(out, "rb").read() if r.returncode == 0 else b""
    if name == "pmem0s":	# a fresh BTT reads zero where nobody wrote
        want = bytearray(len(got))
        want[1 << 20:(1 << 20) + 65536] = b"\x5a" * 65536
        want[4 << 20:(4 << 20) + (256 << 10)] = b"\x77" * (256 << 10)
        ok = len(got) > (8 << 20) and got == want
    else:
        ok = len(got) == dsize and got == back1[dataoff:dataoff + dsize] and \
            got[4 << 20:(4 << 20) + (256 << 10)] == b"\x66" * (256 << 10)
    check(ok, "nbdcopy read %s whole (%d bytes): %s" % (name, len(got), "as expected" if ok else "DIFFERENT"))

for name, byte in (("pmem0s", 0x77), ("dax1.0", 0x66)):
    r = run(NBDSH + ["-u", URI % name,
                     "-c", "assert h.get_structured_replies_negotiated()",
                     "-c", "assert h.pread(4096, 4 << 20) == bytes([%d]) * 4096" % byte,
                     "-c", "h.set_strict_mode(0)",	# no bounds check in libnbd: the server's
                     "-c", "try:\n  h.pread(8192, h.get_size() - 4096)\nexcept nbd.Error as e:\n  print('past the end:', e.errno)",
                     ], 60)
    if "past the end: EINVAL" not in r.stdout:
        print("| " + (r.stdout + r.stderr).strip().replace("\n", "\n| "))
    check(r.returncode == 0 and "past the end: EINVAL" in r.stdout,
          "nbdsh on %s: structured replies, the guest's pattern read, EINVAL past the end" % name)

held = [hold("pmem0s"), hold("dax1.0")]
release_guest()
for _ in range(600):	# the guest's second net-echo: it has tried to destroy
    if log().count("net-echo: listening") >= 2:
        break
    time.sleep(0.1)
check(log().count("net-echo: listening") >= 2, "the guest got to its second net-echo")
for s in held:
    s.close()
time.sleep(1)
release_guest()
sys.exit(fail)
