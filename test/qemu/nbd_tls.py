#!/usr/bin/env python3
"""Plaintext clients of a server that requires TLS (issue 30): each must be
refused with the protocol's answer (doc/proto.md, "TLS support"; FACTS-3
§1.1) and none may reach an export.

  nbd_tls.py PORT EXPORT

- INFO, GO and LIST before STARTTLS: NBD_REP_ERR_TLS_REQD each, and the
  connection stays open for the next option;
- EXPORT_NAME before STARTTLS: the server closes (that option cannot fail
  any other way);
- STARTTLS followed at once by a second STARTTLS in the same segment: the
  first is acknowledged, and the second's bytes are taken as the start of
  the TLS handshake, which they are not: the server closes, and no option
  reply follows the ACK.
Prints one line per check; exit status 1 when one fails."""
import socket, struct, sys
from nbdwire import IHAVEOPT, rx

OPT_EXPORT_NAME, OPT_ABORT, OPT_LIST, OPT_STARTTLS, OPT_INFO, OPT_GO = 1, 2, 3, 5, 6, 7
REP_MAGIC = 0x3e889045565a9
REP_ACK = 1
ERR_TLS_REQD = (1 << 31) + 5

port, export = int(sys.argv[1]), sys.argv[2].encode()
failed = False


def check(ok, what):
    global failed
    print("    %s%s" % ("" if ok else "FAIL: ", what))
    failed |= not ok


def connect():
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    magic, opt, _ = struct.unpack(">QQH", rx(s, 18))
    assert magic == 0x4e42444d41474943 and opt == IHAVEOPT, "bad greeting"
    s.sendall(struct.pack(">I", 3))	# FIXED_NEWSTYLE | NO_ZEROES
    return s


def option(opt, data=b""):
    return struct.pack(">QII", IHAVEOPT, opt, len(data)) + data


def reply(s):
    magic, opt, typ, ln = struct.unpack(">QIII", rx(s, 20))
    assert magic == REP_MAGIC, "bad reply magic"
    return opt, typ, rx(s, ln)


def closed(s):
    """True when the server closes without sending anything more."""
    try:
        return s.recv(1) == b""
    except (ConnectionResetError, socket.timeout):
        return False


go_data = struct.pack(">I", len(export)) + export + struct.pack(">H", 0)
s = connect()
for name, opt, data in (("INFO", OPT_INFO, go_data), ("GO", OPT_GO, go_data), ("LIST", OPT_LIST, b"")):
    s.sendall(option(opt, data))
    o, typ, _ = reply(s)
    check(o == opt and typ == ERR_TLS_REQD,
          "%s before STARTTLS: %s" % (name, "NBD_REP_ERR_TLS_REQD" if typ == ERR_TLS_REQD else hex(typ)))
s.sendall(option(OPT_EXPORT_NAME, export))
check(closed(s), "EXPORT_NAME before STARTTLS: the server closed")
s.close()

s = connect()
s.sendall(option(OPT_STARTTLS) + option(OPT_STARTTLS))
o, typ, _ = reply(s)
check(o == OPT_STARTTLS and typ == REP_ACK, "STARTTLS: acknowledged")
rest = b""
try:
    while True:
        b = s.recv(4096)
        if not b:
            break
        rest += b
except (ConnectionResetError, socket.timeout):
    pass
# What may follow the ACK is a TLS alert record (content type 21), never an option reply.
check(REP_MAGIC.to_bytes(8, "big") not in rest and (not rest or rest[0] == 21),
      "a second STARTTLS in the TLS stream: %d bytes (a TLS alert at most), then closed" % len(rest))
s.close()
sys.exit(1 if failed else 0)
