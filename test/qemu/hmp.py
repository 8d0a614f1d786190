#!/usr/bin/env python3
"""Type commands into QEMU's human monitor (tools/run-qemu --monitor PATH)
and print what it answers, one command after the other. The monitor echoes
what it is sent with terminal escapes: those and the echo are left out, so
the output is QEMU's answer only (empty for a command that succeeds
silently, like `mce`).

usage: hmp.py [--wait SECS] PATH 'CMD' ['CMD'...]
  --wait SECS  how long to wait for the socket to appear (default 10)
Exit status 0, or 1 when the monitor could not be reached.
"""
import re
import socket
import sys
import time

PROMPT = b"(qemu) "
ESCAPES = re.compile(rb"\x1b\[[0-9;]*[A-Za-z]|\x1b[A-Za-z]")


def until_prompt(s):
    buf = b""
    while not buf.endswith(PROMPT):
        d = s.recv(4096)
        if not d:
            break
        buf += d
    return buf


def connect(path, wait):
    deadline = time.monotonic() + wait
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return s
        except OSError:
            s.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def answer(raw, cmd):
    """The monitor's answer to cmd: after the echoed line, before the prompt."""
    text = ESCAPES.sub(b"", raw).replace(b"\r", b"").decode(errors="replace")
    if text.endswith(PROMPT.decode()):
        text = text[: -len(PROMPT)]
    lines = text.split("\n")
    if lines and lines[0].strip().endswith(cmd.strip()):
        lines = lines[1:]
    return "\n".join(lines).strip("\n")


def main(argv):
    wait = 10.0
    if len(argv) > 1 and argv[0] == "--wait":
        wait = float(argv[1])
        argv = argv[2:]
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        s = connect(argv[0], wait)
    except OSError as e:
        print(f"hmp.py: {argv[0]}: {e}", file=sys.stderr)
        return 1
    with s:
        until_prompt(s)  # the banner
        for cmd in argv[1:]:
            s.sendall(cmd.encode() + b"\n")
            out = answer(until_prompt(s), cmd)
            if out:
                print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
