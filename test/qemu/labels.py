#!/usr/bin/env python3
"""Host side of test/qemu/cases/labels.sh: nvdimm backing files with label
areas (QEMU label-size: the last LSA bytes of the file, FACTS-2 §3.4).

  labels.py fill IMG FIXTURE        put a Linux label fixture's chunks into IMG
  labels.py set IMG [LSA]           the live label set of IMG's label area, one
                                    line per label: "dpa rawsize uuid flags"
  labels.py setcheck AREA...        the label areas (dumped whole, one per DIMM
                                    in position order) of an interleave set:
                                    one line per uuid, "complete UUID" (a
                                    label on every DIMM: nlabel, position,
                                    cookie, dpa offset and rawsize agree),
                                    "partial UUID on K of N, no position 0"
                                    (an interrupted create or destroy), or
                                    "bad UUID: why" (exit 1); "torn nmemK
                                    index I" for a signed index that fails
  labels.py list LOG FIXTURE KEY    pmemk's `list -RN` in LOG against ndctl's
                                    ndctl_list.KEY in FIXTURE.txt
  labels.py json LOG FIXTURE KEY    pmemk's `read-labels -j` in LOG against
                                    ndctl's read_labels.KEY

The decoder is written from FACTS-2 §3.1, independently of nvdimm/label.c.
"""
import json
import re
import struct
import sys


def fletcher64(b):
    lo, hi = 0, 0
    for (w,) in struct.iter_unpack("<I", b):
        lo = (lo + w) & 0xFFFFFFFF
        hi = (hi + lo) & 0xFFFFFFFF
    return hi << 32 | lo


def index_size(lsa, label):
    guess = (lsa // label)
    isz = ((72 + (guess + 7) // 8) + 255) // 256 * 256
    nslot = (lsa - 2 * isz) // label
    return ((72 + (nslot + 7) // 8) + 255) // 256 * 256, nslot


def newer(a, b):
    nxt = {1: 2, 2: 3, 3: 1}
    a, b = a & 3, b & 3
    if a == 0 or a == b:
        return b
    if b == 0:
        return a
    return b if nxt[a] == b else a


def live_set(area):
    """The current index's live labels, or None when no index is valid."""
    labels = live_labels(area)
    if labels is None:
        return None
    out = []
    for lb in labels:
        uuid = lb[:16].hex()
        flags, = struct.unpack_from("<I", lb, 80)
        dpa, raw = struct.unpack_from("<QQ", lb, 104)
        out.append("%d %d %s %d" % (dpa, raw, uuid, flags))
    return sorted(out)


def live_labels(area, torn=None):
    """The current index's live labels (bytes each), or None when no index
    is valid; torn, a list, gets the number of each signed index block that
    fails its checks."""
    for label in (256, 128):
        isz, _ = index_size(len(area), label)
        ok = []
        for i in range(2):
            b = bytearray(area[i * isz:(i + 1) * isz])
            if b[:16] != b"NAMESPACE_INDEX\0":
                continue
            seq, = struct.unpack_from("<I", b, 20)
            nslot, major, minor = struct.unpack_from("<IHH", b, 56)
            lsz = 128 if minor == 1 else 128 << b[19]
            ck, = struct.unpack_from("<Q", b, 64)
            b[64:72] = bytes(8)
            if lsz != label or ck != fletcher64(bytes(b)) or seq & 3 == 0:
                if torn is not None and label == 256:
                    torn.append(i)
                continue
            ok.append((i, seq, nslot, bytes(b[72:72 + (nslot + 7) // 8])))
        if not ok:
            continue
        cur = ok[0]
        if len(ok) == 2:
            cur = ok[1] if newer(ok[1][1], ok[0][1]) == ok[1][1] & 3 else ok[0]
        out = []
        for s in range(cur[2]):
            if not cur[3][s // 8] >> (s % 8) & 1:
                off = 2 * isz + s * label
                out.append(area[off:off + label])
        return out
    return None


def uuid_str(b):
    h = b.hex()
    return "-".join((h[:8], h[8:12], h[12:16], h[16:20], h[20:]))


def cmd_setcheck(*paths):
    """UEFI 2.7 §13.19 across a set: a namespace is a label on every DIMM.
    Each DIMM's part starts at dpa 0 (tools/mkplatform), so the dpa offsets
    compare directly."""
    n, per, bad = len(paths), {}, 0
    for k, path in enumerate(paths):
        torn = []
        labels = live_labels(open(path, "rb").read(), torn)
        for i in torn:
            print("torn nmem%d index %d" % (k, i))
        if labels is None:
            print("noindex nmem%d" % k)
            continue
        for lb in labels:
            nlabel, pos, cookie = struct.unpack_from("<HHQ", lb, 84)
            dpa, raw = struct.unpack_from("<QQ", lb, 104)
            per.setdefault(uuid_str(lb[:16]), {})[k] = (nlabel, pos, cookie, dpa, raw)
    for u in sorted(per):
        got = per[u]
        why = []
        for k, (nlabel, pos, cookie, dpa, raw) in sorted(got.items()):
            if nlabel != n or pos != k:
                why.append("nmem%d: nlabel %d position %d" % (k, nlabel, pos))
        if len(set(v[2:] for v in got.values())) > 1:
            why.append("cookie, dpa or rawsize differ: %s" % sorted(set(v[2:] for v in got.values())))
        if len(got) < n and 0 in got:
            why.append("position 0's label without all the others (%d of %d)" % (len(got), n))
        if why:
            print("bad %s: %s" % (u, "; ".join(why)))
            bad += 1
        elif len(got) == n:
            print("complete %s" % u)
        else:
            print("partial %s on %d of %d, no position 0" % (u, len(got), n))
    return 1 if bad else 0


def cmd_set(img, lsa=128 * 1024):
    with open(img, "rb") as f:
        f.seek(-lsa, 2)
        area = f.read(lsa)
    s = live_set(area)
    if s is None:
        print("no valid index")
        return 1
    for line in s:
        print(line)
    return 0


def chunks(fixture):
    txt = open(fixture + ".txt").read()
    for m in re.finditer(r"^\s+\d+\s+0x([0-9a-f]+)\s+(\d+) \(0x[0-9a-f]+\)\s+(\d+)\s", txt, re.M):
        yield int(m.group(1), 16), int(m.group(2)), int(m.group(3))


def cmd_fill(img, fixture):
    binary = open(fixture + ".bin", "rb").read()
    txt = open(fixture + ".txt").read()
    with open(img, "r+b") as f:
        for boff, foff, n in chunks(fixture):
            f.seek(foff)
            f.write(binary[boff:boff + n])
        # The fixtures keep a BTT's info blocks, not its log; their decode says
        # the log was in Linux's initial state: lane i slot 0 = {lba i,
        # old_map = new_map = external_nlba + i, seq 1}, slots 1-3 zero.
        for m in re.finditer(r"arena 0: info block at file offset (\d+).*?external_nlba\s+60\s+4\s+[0-9a-f ]+?\s+(\d+) \(0x"
                             r".*?log\s+0x[0-9a-f]+\s+\d+ \(0x[0-9a-f]+\)\s+(\d+) \(0x", txt, re.S):
            nlba, logoff = int(m.group(2)), int(m.group(3))
            f.seek(logoff)
            f.write(b"".join(struct.pack("<4I", i, nlba + i, nlba + i, 1) + bytes(48)
                             for i in range(256)))
    return 0


def log_json(log, command):
    """The JSON a shell command printed in LOG."""
    text = open(log, errors="replace").read()
    at = text.index("pmemk> " + command + "\n") + len("pmemk> " + command + "\n")
    end = text.index("pmemk> ", at)
    return json.loads(text[at:end])


def ndctl(fixture, key):
    txt = open(fixture + ".txt").read()
    m = re.search(r"^  %s = (.*)$" % re.escape(key), txt, re.M)
    return json.loads(m.group(1))


# Namespace fields pmemk and ndctl share (pmemk names block devices its own way).
NS_FIELDS = ("mode", "map", "size", "uuid", "raw_uuid", "sector_size", "align")
REGION_FIELDS = ("available_size", "max_available_extent", "iset_id")


def cmd_list(log, fixture, key):
    got = log_json(log, "list -RN")[0]
    want = ndctl(fixture, "ndctl_list." + key)["regions"][0]
    bad = 0
    for f in REGION_FIELDS:
        if got.get(f) != want.get(f):
            print("region %s: pmemk %s, ndctl %s" % (f, got.get(f), want.get(f)))
            bad += 1
    mine = {n.get("raw_uuid"): n for n in got.get("namespaces", [])}
    theirs = {n.get("raw_uuid"): n for n in want.get("namespaces", [])}
    if set(mine) != set(theirs):
        print("namespaces (raw_uuid): pmemk %s, ndctl %s" % (sorted(mine), sorted(theirs)))
        return 1
    for u, n in theirs.items():
        for f in NS_FIELDS:
            if mine[u].get(f) != n.get(f):
                print("%s %s: pmemk %s, ndctl %s" % (n["dev"], f, mine[u].get(f), n.get(f)))
                bad += 1
    print("    %d namespaces as ndctl listed them (%s)" % (len(theirs), ", ".join(
        "%s %s %d" % (mine[u]["dev"], n["mode"], n["size"]) for u, n in sorted(theirs.items()))))
    return 1 if bad else 0


def cmd_json(log, fixture, key):
    got = log_json(log, "read-labels nmem0 -j")
    want = ndctl(fixture, "read_labels." + key)
    if got != want:
        print("read-labels -j differs from ndctl's:\n%s\n%s" % (json.dumps(got), json.dumps(want)))
        return 1
    print("    read-labels -j: %d labels, as ndctl read-labels -j" % len(got[0]["label"]))
    return 0


if __name__ == "__main__":
    cmds = {"fill": cmd_fill, "set": cmd_set, "setcheck": cmd_setcheck, "list": cmd_list, "json": cmd_json}
    if len(sys.argv) < 3 or sys.argv[1] not in cmds:
        print(__doc__)
        sys.exit(2)
    args = sys.argv[2:]
    if sys.argv[1] == "set" and len(args) > 1:
        args[1] = int(args[1])
    sys.exit(cmds[sys.argv[1]](*args))
