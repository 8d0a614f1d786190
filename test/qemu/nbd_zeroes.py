#!/usr/bin/env python3
"""A WRITE_ZEROES of a whole large export must not stall other clients
(issue 30 item 4): the server zeroes it in slices across poll passes.

  nbd_zeroes.py PORT EXPORT

Writes a pattern at three places, then one client keeps 64 KiB READs going
while another sends one WRITE_ZEROES over the whole export. Counts the
READs that complete between the WRITE_ZEROES going out and its reply (they
must keep completing: at least MIN_READS), then checks the pattern is gone
(zeros read back). Exit status 1 on a failed check."""
import struct, sys, threading, time
from nbdwire import go, req, reply

CMD_READ, CMD_WRITE, CMD_WRITE_ZEROES = 0, 1, 6
FLAG_SEND_WRITE_ZEROES = 1 << 6
MIN_READS = 10

port, export = int(sys.argv[1]), sys.argv[2].encode()
failed = False


def check(ok, what):
    global failed
    print("%s%s" % ("" if ok else "FAIL: ", what))
    failed |= not ok


def read(s, cookie, off, n):
    s.sendall(req(CMD_READ, 0, cookie, off, n))
    err = reply(s, cookie)
    data = b""
    while len(data) < n and not err:
        data += s.recv(n - len(data))
    return err, data


w, tflags = go(port, export, timeout=600)
check(tflags & FLAG_SEND_WRITE_ZEROES, "the export offers WRITE_ZEROES")
# The export's size from a zero-length probe is not in nbdwire: take it from INFO_EXPORT via go().
size = int(sys.argv[3]) if len(sys.argv) > 3 else 4 << 30
zlen = min(size, 1 << 32) - 65536	# a request's length is 32 bits
marks = [0, size // 2, zlen - 65536]
for k, off in enumerate(marks):
    w.sendall(req(CMD_WRITE, 0, 100 + k, off, 65536) + bytes([0x5a]) * 65536)
    check(reply(w, 100 + k) == 0, "pattern written at %#x" % off)

r, _ = go(port, export, timeout=600)
done = threading.Event()
times = []


def reader():
    cookie = 1
    while not done.is_set():
        err, _ = read(r, cookie, (cookie * 65536) % (size // 4), 65536)
        if err:
            break
        times.append(time.monotonic())
        cookie += 1


t = threading.Thread(target=reader, daemon=True)
t.start()
time.sleep(1)
t_sent = time.monotonic()
w.sendall(req(CMD_WRITE_ZEROES, 0, 7, 0, zlen))
err = reply(w, 7)
t_reply = time.monotonic()
done.set()
t.join(60)
during = sum(1 for x in times if t_sent < x < t_reply)
check(err == 0, "WRITE_ZEROES of %d MiB answered without an error after %.1f s" % (zlen >> 20, t_reply - t_sent))
check(during >= MIN_READS, "the other client's READs kept completing meanwhile: %d" % during)
for k, off in enumerate(marks):
    e, data = read(w, 200 + k, off, 65536)
    check(e == 0 and data == bytes(65536), "zeros read back at %#x" % off)
sys.exit(1 if failed else 0)
