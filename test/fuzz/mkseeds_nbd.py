#!/usr/bin/env python3
"""Seeds for fuzz_nbd (test/fuzz/fuzz_nbd.c): client byte streams of the
option and request sequences real clients send (FACTS-2 §4.3), written to
test/fuzz/seeds/fuzz_nbd/. Bytes 0 and 1 are the harness's configuration
(byte 1: TLS offered, export policy, work in steps, a long LIST)."""
import os, struct

IHAVEOPT = 0x49484156454F5054
out = os.path.join(os.path.dirname(__file__), "seeds", "fuzz_nbd")

def opt(o, data=b""):
    return struct.pack(">QII", IHAVEOPT, o, len(data)) + data

def go(o, name, reqs=()):
    n = name.encode()
    return opt(o, struct.pack(">I", len(n)) + n + struct.pack(">H", len(reqs)) +
               b"".join(struct.pack(">H", r) for r in reqs))

def req(t, off, ln, flags=0, cookie=1):
    return struct.pack(">IHHQQI", 0x25609513, flags, t, cookie, off, ln)

flags = struct.pack(">I", 3)
seeds = {
    # nbdinfo: STRUCTURED_REPLY, INFO, LIST_META_CONTEXT, GO, READ, DISC
    "nbdinfo": b"\x00" + flags + opt(8) + go(6, "a", (3, 1, 2)) + opt(9, b"\0" * 8) +
               go(7, "a", (3, 1, 2)) + req(0, 0, 8192) + req(2, 0, 0),
    # qemu-io: GO with BLOCK_SIZE, READ probe, FUA WRITE, FLUSH, DISC
    "qemu-io": b"\x12" + flags + opt(8) + go(7, "a", (3,)) + req(0, 0, 512) +
               req(1, 4096, 4096, flags=1) + b"\x5a" * 4096 + req(3, 0, 0) + req(2, 0, 0),
    # old clients: LIST then EXPORT_NAME without NO_ZEROES
    "export-name": b"\x21" + struct.pack(">I", 1) + opt(3) + opt(1, b"b") +
                   req(6, 0, 65536, flags=1) + req(0, 0, 65536) + req(2, 0, 0),
    # errors: read-only export, past the end, unknown options and commands, ABORT
    "errors": b"\x31" + flags + opt(5) + opt(0x99, b"xyz") + go(7, "a") +
              req(1, 0, 512) + b"\0" * 512 + req(0, 0xFFFFF000, 8192) + req(4, 0, 512) +
              req(0x77, 0, 0) + req(2, 0, 0),
    "abort": b"\x40" + flags + go(6, "nope") + opt(2),
    # zero copy (bit 3): pipelined reads handed out by reference
    "zero-copy": b"\x58" + flags + go(7, "a", (3,)) + req(0, 0, 65536, cookie=1) +
                 req(0, 65536, 4096, cookie=2) + req(0, 0, 512, cookie=3) + req(2, 0, 0),
    # structured replies on "b" (copied even with zero copy): READs pipelined, READ errors
    "structured": b"\x68" + flags + opt(8) + go(7, "b", (3,)) + req(0, 0, 65536, cookie=1) +
                  req(0, 4096, 65024, cookie=2) + req(0, 0xFFFFF000, 8192, cookie=3) +
                  req(0, 1, 512, flags=0x80, cookie=4) + req(0, 0, 512, cookie=5) + req(2, 0, 0),
    # bad sectors found by reading (bits 3, 4, 5: zero copy, write_bytes, a bad range at
    # 512 KiB that first_bad does not know): READs over it by reference turn copied and
    # fail mid-chunk, a WRITE over it heals it, then it reads
    "bad-sectors": b"\x38" + flags + opt(8) + go(7, "a", (3,)) + req(0, 0x70000, 0x20000, cookie=1) +
                   req(0, 0x80200, 512, cookie=2) + req(1, 0x7FE00, 4096, cookie=3) + b"\xa5" * 4096 +
                   req(0, 0x7F000, 8192, cookie=4) + req(2, 0, 0),
    # the same known to first_bad (bit 6), simple replies: EIO before any data
    "bad-sectors-known": b"\x78" + flags + go(7, "a", (3,)) + req(0, 0x7F000, 8192, cookie=1) +
                         req(0, 0, 4096, cookie=2) + req(1, 0x80000, 1536, cookie=3) + b"\x3c" * 1536 +
                         req(0, 0x80000, 4096, cookie=4) + req(2, 0, 0),
}
# Byte 1 of the sessions above: TLS off, no policy, zeroes at once.
seeds = {name: data[:1] + b"\x00" + data[1:] for name, data in seeds.items()}
# The harness's TLS "handshake" after an acknowledged STARTTLS: a byte, then an identity.
def tls(identity):
    return bytes([len(identity)]) + identity.encode()
seeds.update({
    # nbds:// as alice (TLS on, policy, steps): STARTTLS, the handshake, then LIST,
    # STRUCTURED_REPLY again, GO "a", a WRITE_ZEROES of "a", READ, DISC
    "tls-alice": b"\x00\x0d" + flags + opt(5) + tls("alice") + opt(3) + opt(8) +
                 go(7, "a", (3,)) + req(6, 0, 0x100000, flags=1) + req(0, 0, 4096) + req(2, 0, 0),
    # TLS required, a plain client first: INFO, LIST, GO refused, then STARTTLS as bob:
    # "a" refused (policy), "b" zeroed whole in slices (3 MiB)
    "tls-require": b"\x00\x0e" + flags + go(6, "a") + opt(3) + go(7, "b") + opt(5) + tls("bob") +
                   go(7, "a") + go(7, "b") + req(6, 0, 0x300000, cookie=2) + req(2, 0, 0),
    # TLS on, no STARTTLS: LIST hides "a" and "c", GO "a" gets TLS_REQD, EXPORT_NAME "a" closes
    "tls-selective": b"\x00\x15" + flags + opt(3) + go(7, "a") + opt(1, b"a"),
    # a failed handshake, and STARTTLS twice / with data
    "tls-failed": b"\x00\x01" + flags + opt(5, b"x") + opt(5) + b"\x80",
    "tls-twice": b"\x00\x01" + flags + opt(5) + tls("carol") + opt(5) + opt(3) + opt(2),
})
os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
print("wrote %d seeds to %s" % (len(seeds), out))
