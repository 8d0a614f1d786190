#!/usr/bin/env python3
"""Clients that try to hold the NBD server (issue 30 item 4; the cases in
test/qemu/cases/nbd_limits.sh drive the guest's shell around them).

usage: nbd_hold.py busy PORT EXPORT      GO, then a FLUSH every second until
                                         the server drops the connection
       nbd_hold.py silent PORT EXPORT    GO, then nothing: the server must
                                         close it within 30 s
       nbd_hold.py flood PORT EXPORT N   N connections that send nothing,
                                         then one real client must be served
                                         (GO and a 4 KiB READ) within 20 s

Prints one line per finding; exits 1 on a failure."""
import socket, struct, sys, time

from nbdwire import go, reply, req, rx

mode, port, export = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode()
CMD_READ, CMD_FLUSH = 0, 3


def closed_by_server(s, secs):
    """Seconds until the server closed s (end of file or reset), or None after secs."""
    t0 = time.monotonic()
    s.settimeout(secs)
    try:
        while s.recv(4096):
            pass
    except socket.timeout:
        return None
    except OSError:
        pass
    return time.monotonic() - t0


def busy():
    s, _ = go(port, export, 30)
    print("busy: in transmission on %s" % export.decode(), flush=True)
    flushes = 0
    try:
        while flushes < 120:
            s.sendall(req(CMD_FLUSH, 0, flushes, 0, 0))
            if reply(s, flushes) != 0:
                print("FAIL: busy: FLUSH answered with an error")
                return 1
            flushes += 1
            time.sleep(1)
    except (OSError, RuntimeError) as e:
        print("busy: dropped by the server after %d flushes (%s)" % (flushes, type(e).__name__))
        return 0
    print("FAIL: busy: still connected after %d flushes" % flushes)
    return 1


def silent():
    s, _ = go(port, export, 30)
    print("silent: in transmission on %s, sending nothing" % export.decode(), flush=True)
    t = closed_by_server(s, 30)
    if t is None:
        print("FAIL: silent: the server kept the connection for 30 s")
        return 1
    print("silent: closed by the server after %d s" % round(t))
    return 0


def flood(n):
    idle = []
    for _ in range(n):
        c = socket.socket()
        c.settimeout(10)
        try:
            c.connect(("127.0.0.1", port))
        except OSError:
            pass        # refused or reset: the server is free to
        idle.append(c)
    # Until the guest has seen each one: QEMU's slirp accepts on the host at
    # once but connects to the guest at its own pace (a SYN the guest's
    # backlog drops is sent again seconds later).
    greeted = closed = 0
    deadline = time.monotonic() + 90
    for c in idle:
        c.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            if len(c.recv(18)) == 18:
                greeted += 1
            else:
                closed += 1
        except socket.timeout:
            pass
        except OSError:
            closed += 1
    print("flood: %d connections opened, sending nothing: %d greeted, %d closed by the server"
          % (n, greeted, closed), flush=True)
    t0 = time.monotonic()
    try:
        s, _ = go(port, export, 20)
        s.sendall(req(CMD_READ, 0, 7, 0, 4096))
        if reply(s, 7) != 0:
            raise RuntimeError("READ answered with an error")
        rx(s, 4096)
        s.close()
    except (OSError, RuntimeError, AssertionError) as e:
        print("FAIL: flood: the real client was not served: %s" % (e or type(e).__name__))
        return 1
    finally:
        for c in idle:
            c.close()
    t = time.monotonic() - t0
    if t > 20:
        print("FAIL: flood: the real client took %.1f s" % t)
        return 1
    print("flood: a real client was served (GO and a 4 KiB READ) behind %d idle connections" % n)
    return 0


if mode == "busy":
    sys.exit(busy())
elif mode == "silent":
    sys.exit(silent())
elif mode == "flood":
    sys.exit(flood(int(sys.argv[4])))
sys.exit(__doc__)
