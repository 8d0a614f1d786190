#!/usr/bin/env python3
"""Host side of the Linux interop suite (test/linux): patterns and JSON.

usage:
  interop.py seq SEED OFFSET LENGTH        the seq=SEED bytes at byte OFFSET of a
                                           block device (nd_seq_word in
                                           include/nd_util.h), to stdout
  interop.py sha-seq SEED OFFSET LENGTH    their sha256
  interop.py sha-byte BYTE LENGTH          sha256 of LENGTH bytes of BYTE
  interop.py json LOG MARKER [NS]          the JSON value printed after the last
                                           line of LOG starting with MARKER,
                                           compact (a list of one: its element);
                                           with NS, the namespace of that name
                                           in it (a list, an object, or
                                           ndctl's regions); NS name=X: the
                                           namespace whose "name" is X
  interop.py same NAME1 JSON1 NAME2 JSON2  compare two namespaces' JSON: every
                                           field but dev, blockdev, chardev,
                                           numa_node, target_node, memmap_init
                                           (at any depth) and a daxregion's id
                                           must be in
                                           both with the same value; one line
                                           per difference, exit 1 if any
  interop.py field JSON KEY                one field's value (empty if absent)
"""
import hashlib
import json
import struct
import sys

MASK = (1 << 64) - 1
# Names that differ by design: the device names each kernel gives, NUMA
# fields pmemk prints for raw namespaces where ndctl 76.1 prints none, and
# pmemk's progress of deferred struct page init (Linux has none).
IGNORED = {'dev', 'blockdev', 'chardev', 'numa_node', 'target_node', 'memmap_init'}


def strip(value, key=None):
    """value without the IGNORED keys at any depth, nor a devdax daxregion's
    id (its region number: Linux numbers regions in NFIT order)."""
    if isinstance(value, dict):
        return {k: strip(v, k) for k, v in value.items()
                if k not in IGNORED and not (key == 'daxregion' and k == 'id')}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value


def seq_bytes(seed, off, length):
    """nd_seq_word(seed, o) = (o * 0x9E3779B97F4A7C15) ^ seed for each 8-byte word."""
    if off % 8 or length % 8:
        sys.exit('interop.py: seq OFFSET and LENGTH must be multiples of 8')
    words = ((((off + i) * 0x9E3779B97F4A7C15) & MASK) ^ seed for i in range(0, length, 8))
    return struct.pack('<%dQ' % (length // 8), *words)


def find_ns(value, name):
    """The namespace object named `name` (its dev, or name=X: its "name")
    anywhere in ndctl-shaped JSON."""
    if isinstance(value, dict):
        if value.get('dev') == name or (name.startswith('name=') and
                                        value.get('name') == name[5:]):
            return value
        value = [v for k, v in value.items() if k in ('regions', 'namespaces')]
    if isinstance(value, list):
        for v in value:
            found = find_ns(v, name)
            if found is not None:
                return found
    return None


def json_after(log, marker, ns=None):
    with open(log, errors='replace') as f:
        text = f.read()
    start = None
    pos = 0
    for line in text.splitlines(keepends=True):
        if line.startswith(marker):
            start = pos + len(line)
        pos += len(line)
    if start is None:
        sys.exit('interop.py: %s: no line starting with %r' % (log, marker))
    rest = text[start:]
    first = min([i for i in (rest.find('{'), rest.find('[')) if i >= 0], default=-1)
    if first < 0:
        sys.exit('interop.py: %s: no JSON after %r' % (log, marker))
    try:
        value, _ = json.JSONDecoder().raw_decode(rest[first:])
    except ValueError as e:
        sys.exit('interop.py: %s: bad JSON after %r: %s' % (log, marker, e))
    if ns is None and isinstance(value, list) and len(value) == 1:
        value = value[0]  # ndctl list -n NS: a list of one
    if ns is not None:
        value = find_ns(value, ns)
        if value is None:
            sys.exit('interop.py: %s: no namespace %s in the JSON after %r' % (log, ns, marker))
    return value


def main(argv):
    if len(argv) < 2 or argv[1] in ('-h', '--help'):
        print(__doc__.strip())
        return 0
    cmd, args = argv[1], argv[2:]
    if cmd == 'seq' and len(args) == 3:
        seed, off, length = (int(a, 0) for a in args)
        sys.stdout.buffer.write(seq_bytes(seed, off, length))
    elif cmd == 'sha-seq' and len(args) == 3:
        seed, off, length = (int(a, 0) for a in args)
        print(hashlib.sha256(seq_bytes(seed, off, length)).hexdigest())
    elif cmd == 'sha-byte' and len(args) == 2:
        byte, length = (int(a, 0) for a in args)
        print(hashlib.sha256(bytes([byte]) * length).hexdigest())
    elif cmd == 'json' and len(args) in (2, 3):
        print(json.dumps(json_after(*args), sort_keys=True, separators=(',', ':')))
    elif cmd == 'same' and len(args) == 4:
        n1, j1, n2, j2 = args
        a, b = strip(json.loads(j1)), strip(json.loads(j2))
        diffs = 0
        for k in sorted((set(a) | set(b)) - IGNORED):
            if a.get(k) != b.get(k):
                print('%s: %s %s, %s %s' % (k, n1, json.dumps(a.get(k)), n2, json.dumps(b.get(k))))
                diffs += 1
        return 1 if diffs else 0
    elif cmd == 'field' and len(args) == 2:
        try:
            v = json.loads(args[0]).get(args[1])
        except (ValueError, AttributeError):
            sys.exit('interop.py: field %s: not a JSON object: %.60s' % (args[1], args[0]))
        print('' if v is None else v)
    else:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
