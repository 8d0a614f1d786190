#!/usr/bin/env python3
"""Host checks for test/qemu/cases/platform.sh (tools/mkplatform's platform).

  platform_check.py nfit-vs-fixture NFIT FIXTURE
      the subtables of NFIT (after the 40-byte header) equal FIXTURE's, and
      both tables sum to 0 (the 4-way set Linux accepted, FACTS-4)
  platform_check.py decode NFIT PLATFORM_JSON
      decode NFIT here, by ACPI 6.4 5.2.25 offsets, and check it against the
      sets and DIMMs platform.json describes
  platform_check.py list LOG PLATFORM_JSON [closed]
      pmemk's `list -RDN` in LOG shows the platform's DIMMs, one region per
      set with its DIMMs at their positions, and one raw namespace over each
      region (or, with `closed`, regions in state disabled, no namespace)
  platform_check.py linux-list LOG TXT
      pmemk's `list -RDN` in LOG shows region0 and its namespace with the
      fields and values Linux's `ndctl list -RNDMv` had in the fixture's TXT
      (ndctl_list_RNDMv.created; mappings in any order; the fsdax block
      device is pmemk's pmem0m for Linux's pmem0)
  platform_check.py eval-buffer LOG CMD [N]
      the hex of the buffer acpi-eval printed for the shell command CMD (its
      Nth run, default the first)
  platform_check.py fletcher64 FILE
      Fletcher-64 of FILE (32-bit words), as pmemk's read-labels prints it
  platform_check.py labels-json LOG DIMM TXT
      pmemk's `read-labels DIMM -j` equals Linux's read_labels.created.DIMM
      in the fixture's TXT (whitespace aside)
  platform_check.py linux LOG PLATFORM_JSON
      Linux's reading of a 4-way platform (test/linux/cases/platform.sh):
      the bus and DIMM commands, one region of the set's DIMMs at their
      positions, the SMART fields the case set on nmem1 (handle 0x11), the
      stored error as region badblocks after the boot's scrub, and the
      fsdax namespace it made with the FACTS-4 fixture's interleave-set cookie
  platform_check.py health LOG PLATFORM_JSON SHOW
      pmemk's `list -DH` in LOG gives each DIMM the health object of the
      SMART payload the store holds (SHOW: `tools/mkplatform DIR --show`;
      the alarm booleans, which --show does not decode, are left out)
  platform_check.py health-vs-linux LOG LINUX_LOG
      pmemk's `list -DH` in LOG equals Linux's `ndctl list -DH` (the
      "==== json health" of LINUX_LOG) DIMM by DIMM on the fields both print
  platform_check.py numa-vs-linux LOG LINUX_LOG
      the regions' numa_node and target_node in pmemk's `list -RDN` equal
      Linux's `ndctl list -Rv` (the "==== json numa" of LINUX_LOG)
  platform_check.py linux-reads LOG PMEMK_LOG
      Linux (test/linux/cases/platform.sh, its second boot) lists its own
      fsdax namespace and the one pmemk made across the set (named pmemk,
      the uuid of pmemk's boot line in PMEMK_LOG), and read-labels -j of
      nmem0..3 shows pmemk's label at each DIMM's position, nlabel 4
  platform_check.py list-vs-linux LOG N LINUX_LOG NAME
      pmemk's Nth `list -RDNM` in LOG equals Linux's `ndctl list -RNDMv`
      (the "==== json NAME" of LINUX_LOG) on the fields both print: regions
      matched by iset_id, their namespaces by uuid, mappings by DIMM handle,
      badblocks; device names (dev, blockdev, chardev, a daxregion's id)
      aside, as each kernel numbers its own (pmemk's fsdax pmemNm, Linux's
      pmemN); a field only one side prints fails but pmemk's memmap_init
  platform_check.py labels-vs-linux LOG N LINUX_LOG
      pmemk's Nth `read-labels nmemK -j` in LOG lists the labels Linux's
      `ndctl read-labels -j nmemK` ("==== json labelsK") does, K = 0, 1, ...,
      DIMMs matched by handle: uuid, name, position, nlabel, isetcookie,
      dpa, rawsize, lbasize, flags of each
  platform_check.py show-field JSON PATH
      a field of `tools/mkplatform --show` (PATH like calls.dimm_dsm.5)
Exits 1 with one line per problem.
"""
import json
import re
import struct
import sys

PM_GUID = bytes.fromhex("79d3f066f3b47440ac430d3318b78cdb")


def fail(msg):
    print("platform_check.py: " + msg)
    sys.exit(1)


def table(path):
    t = open(path, "rb").read()
    if t[:4] != b"NFIT" or struct.unpack_from("<I", t, 4)[0] != len(t):
        fail("%s: not a whole NFIT" % path)
    if sum(t) & 0xFF:
        fail("%s: checksum does not sum to 0" % path)
    return t


def subtables(t):
    off, out = 40, []
    while off < len(t):
        typ, length = struct.unpack_from("<HH", t, off)
        if length < 4 or off + length > len(t):
            fail("subtable at %#x: length %d" % (off, length))
        out.append((typ, t[off:off + length]))
        off += length
    return out


def nfit_vs_fixture(gen, fixture):
    a, b = table(gen), table(fixture)
    if a[40:] != b[40:]:
        i = next(i for i in range(40, min(len(a), len(b)) + 1)
                 if i == len(a) or i == len(b) or a[i] != b[i])
        fail("%s differs from %s at byte %#x" % (gen, fixture, i))
    print("    NFIT subtables equal the fixture's (%d bytes, %d subtables)"
          % (len(a) - 40, len(subtables(a))))


def decode(nfit, pj):
    p = json.load(open(pj))
    t = table(nfit)
    spa, memdev, idt, dcr, flush, caps = {}, {}, {}, {}, {}, []
    for typ, s in subtables(t):
        if typ == 0:
            _, _, idx, flags, _, _, guid, base, length, attr = struct.unpack("<HHHHII16sQQQ", s)
            if guid != PM_GUID or attr != 0x8008 or flags != 2:
                fail("SPA %d: guid %s attr %#x flags %#x" % (idx, guid.hex(), attr, flags))
            spa[idx] = (base, length)
        elif typ == 1:
            f = struct.unpack("<HHIHHHHQQQHHHH", s)
            memdev[f[2]] = {"phys_id": f[3], "spa": f[5], "dcr": f[6], "size": f[7],
                            "region_offset": f[8], "dpa": f[9], "idt": f[10], "ways": f[11],
                            "flags": f[12]}
        elif typ == 2:
            _, _, idx, _, lines, line_size, off0 = struct.unpack("<HHHHIII", s)
            idt[idx] = (lines, line_size, off0)
        elif typ == 4:
            idx, vendor, device = struct.unpack_from("<HHH", s, 4)
            serial = s[24:28].hex()
            fic = struct.unpack_from("<H", s, 28)[0]
            dcr[idx] = (vendor, device, serial, fic, len(s))
        elif typ == 6:
            handle, n = struct.unpack_from("<IH", s, 4)
            flush[handle] = list(struct.unpack_from("<%dQ" % n, s, 16))
        elif typ == 7:
            caps.append(struct.unpack_from("<BxxxI", s, 4))
    if sorted(spa) != [s["index"] for s in p["sets"]]:
        fail("SPA indexes %s" % sorted(spa))
    for s in p["sets"]:
        if spa[s["index"]] != (s["base"], s["size"]):
            fail("SPA %d is %#x+%#x, platform.json says %#x+%#x" % (
                s["index"], *spa[s["index"]], s["base"], s["size"]))
    if len(memdev) != len(p["dimms"]):
        fail("%d memdevs for %d DIMMs" % (len(memdev), len(p["dimms"])))
    for d in p["dimms"]:
        m = memdev.get(d["handle"])
        s = p["sets"][d["set"]]
        if not m:
            fail("no memdev for handle %#x" % d["handle"])
        want = {"phys_id": d["index"], "spa": s["index"], "size": d["size"], "dpa": 0,
                "ways": s["ways"], "flags": 0,
                "region_offset": d["position"] * 4096 if s["ways"] > 1 else 0}
        for k, v in want.items():
            if m[k] != v:
                fail("handle %#x: memdev %s %#x, want %#x" % (d["handle"], k, m[k], v))
        if s["ways"] > 1 and idt.get(m["idt"]) != (1, 4096, 0):
            fail("handle %#x: interleave %d is %s" % (d["handle"], m["idt"], idt.get(m["idt"])))
        if dcr.get(m["dcr"]) != (0x8089, 0x0979, d["serial"], 0x0301, 80):
            fail("handle %#x: control region %s" % (d["handle"], dcr.get(m["dcr"])))
        if flush.get(d["handle"], []) != d["flush_hints"]:
            fail("handle %#x: flush hints %s" % (d["handle"], flush.get(d["handle"])))
    if sum(s["ways"] > 1 for s in p["sets"]) and len(idt) != sum(
            s["ways"] for s in p["sets"] if s["ways"] > 1):
        fail("%d interleave structures" % len(idt))
    want_caps = {"memory_controller": [(1, 2)], "cpu_cache": [(1, 3)], "none": []}[p["persistence"]]
    if caps != want_caps:
        fail("platform capabilities %s, want %s" % (caps, want_caps))
    print("    NFIT decoded: %d SPA, %d memdev, %d interleave, %d control region, %d flush hint, "
          "%d capabilities: as platform.json" % (len(spa), len(memdev), len(idt), len(dcr),
                                                 len(flush), len(caps)))


def command_output(log, cmd, nth=1):
    lines = open(log, errors="replace").read().splitlines()
    at = [k for k, l in enumerate(lines) if l == "pmemk> " + cmd]
    if len(at) < nth:
        fail("the log has no command %r (time %d)" % (cmd, nth))
    i = at[nth - 1]
    j = next(k for k in range(i + 1, len(lines)) if lines[k].startswith("pmemk>"))
    return "\n".join(l for l in lines[i + 1:j] if not re.match(r"^(\[ *[0-9.]+\] |ACPI: )", l))


def check_list(log, pj, closed=False):
    p = json.load(open(pj))
    doc = json.loads(command_output(log, "list -RDN"))
    dimms = {d["dev"]: d for d in doc["dimms"]}
    handles = sorted(d["handle"] for d in doc["dimms"])
    if handles != sorted(d["handle"] for d in p["dimms"]):
        fail("DIMM handles %s" % handles)
    for d in p["dimms"]:
        got = [x for x in doc["dimms"] if x["handle"] == d["handle"]][0]
        if got["id"] != d["id"] or got["phys_id"] != d["phys_id"]:
            fail("DIMM %#x: %s" % (d["handle"], got))
    regions = doc["regions"]
    if len(regions) != len(p["sets"]):
        fail("%d regions for %d sets" % (len(regions), len(p["sets"])))
    for n, (r, s) in enumerate(zip(regions, p["sets"])):
        if r["dev"] != "region%d" % n or r["size"] != s["size"]:
            fail("region %d: %s" % (n, r))
        maps = sorted((m["position"], dimms[m["dimm"]]["handle"], m["length"], m["offset"])
                      for m in r["mappings"])
        want = [(p["dimms"][i]["position"], p["dimms"][i]["handle"], p["dimms"][i]["size"], 0)
                for i in s["dimms"]]
        if maps != want:
            fail("region%d mappings %s, want %s" % (n, maps, want))
        if closed:
            if r.get("state") != "disabled" or "namespaces" in r:
                fail("region%d is not closed: %s" % (n, r))
            continue
        ns = r.get("namespaces", [])
        if len(ns) != 1 or ns[0]["mode"] != "raw" or ns[0]["size"] != s["size"]:
            fail("region%d namespaces %s" % (n, ns))
    print("    list -RDN: %d DIMMs, %s" % (len(doc["dimms"]), "; ".join(
        "region%d %d-way %s" % (n, s["ways"], "closed" if closed else "raw %s" % r["namespaces"][0]["blockdev"])
        for n, (r, s) in enumerate(zip(regions, p["sets"])))))


def linux_list(log, txt):
    doc = json.loads(command_output(log, "list -RDN"))
    key = "REF: ndctl_list_RNDMv.created="
    line = next((l for l in open(txt).read().splitlines() if l.startswith(key)), None)
    if not line:
        fail("%s has no %s" % (txt, key))
    want = json.loads(line[len(key):])["regions"][0]
    got = doc["regions"][0]
    for k, v in want.items():
        if k == "mappings":
            key_of = lambda m: (m["dimm"], m["offset"], m["length"], m["position"])
            if sorted(map(key_of, got.get(k, []))) != sorted(map(key_of, v)):
                fail("region0 mappings %s, want %s" % (got.get(k), v))
        elif k == "namespaces":
            gns = got.get(k, [{}])[0]
            for f, fv in v[0].items():
                # pmemk names an fsdax namespace's block device pmemNm (docs/NAMESPACES.md)
                if f == "blockdev" and gns.get(f) == fv + "m":
                    continue
                if gns.get(f) != fv:
                    fail("namespace0.0 %s is %r, want Linux's %r" % (f, gns.get(f), fv))
        elif got.get(k) != v:
            fail("region0 %s is %r, want Linux's %r" % (k, got.get(k), v))
    ns = want["namespaces"][0]
    print("    list -RDN: region0 and namespace0.0 as ndctl list -RNDMv (%s %s, raw_uuid %s, iset_id %d)" % (
        ns["mode"], ns["uuid"], ns["raw_uuid"], want["iset_id"]))


def eval_buffer(log, cmd, nth=1):
    out = command_output(log, cmd, nth).splitlines()
    m = re.match(r"Buffer \((\d+) bytes\)$", out[0]) if out else None
    if not m:
        fail("%s printed %s" % (cmd, out[:1]))
    hexs = "".join(l.split(":", 1)[-1].strip().replace(" ", "") for l in out[1:])
    if len(hexs) != 2 * int(m.group(1)):
        fail("%s: %d hex digits for %s bytes" % (cmd, len(hexs), m.group(1)))
    print(hexs)


def fletcher64(path):
    lo = hi = 0
    for (w,) in struct.iter_unpack("<I", open(path, "rb").read()):
        lo = (lo + w) & 0xFFFFFFFF
        hi = (hi + lo) & 0xFFFFFFFF
    print("%#x" % (hi << 32 | lo))


def labels_json(log, dimm, txt):
    got = json.loads(command_output(log, "read-labels %s -j" % dimm))
    key = "REF: read_labels.created.%s=" % dimm
    line = next((l for l in open(txt).read().splitlines() if l.startswith(key)), None)
    if not line:
        fail("%s has no %s" % (txt, key))
    want = json.loads(line[len(key):])
    want = want[0] if isinstance(want, list) else want
    got = got[0] if isinstance(got, list) else got
    if got != want:
        fail("read-labels %s -j differs from Linux's:\n%s\n%s" % (dimm, got, want))
    print("    read-labels %s -j: as ndctl read-labels (%d labels, index seq %s)" % (
        dimm, len(got["label"]), [i["seq"] for i in got["index"]]))


def guest_json(text, name):
    marker = "==== json %s\n" % name
    if marker not in text:
        fail("the guest printed no %r" % marker.strip())
    rest = text[text.rindex(marker) + len(marker):].lstrip()
    return json.JSONDecoder().raw_decode(rest)[0]


def check_linux(log, pj):
    p = json.load(open(pj))
    text = open(log, errors="replace").read().replace("\r", "")
    if "==== bus ars_cap ars_start ars_status clear_error cmd_call" not in text:
        fail("bus commands: %s" % re.findall(r"==== bus .*", text))
    dimm_lines = re.findall(r"==== dimm (nmem\d+) (0x[0-9a-f]+) (.*)", text)
    if len(dimm_lines) != 4 or any(c.strip() != "smart get_size get_data set_data cmd_call"
                                   for _, _, c in dimm_lines):
        fail("DIMM commands: %s" % dimm_lines)
    doc = guest_json(text, "regions")
    handle = {d["dev"]: d["handle"] for d in doc["dimms"]}
    (r,) = doc["regions"]
    maps = sorted((m["position"], handle[m["dimm"]]) for m in r["mappings"])
    if r["size"] != p["sets"][0]["size"] or maps != [(d["position"], d["handle"]) for d in p["dimms"]] \
            or r["persistence_domain"] != "memory_controller":
        fail("Linux's region: %s" % r)
    health = {d["handle"]: d["health"] for d in guest_json(text, "health")}
    want = {"health_state": "ok", "temperature_celsius": 45.0, "controller_temperature_celsius": 35.0,
            "spares_percentage": 100, "life_used_percentage": 1, "shutdown_state": "dirty",
            "shutdown_count": 9}
    if health.get(0x11) != want:
        fail("nmem1's health %s, want %s" % (health.get(0x11), want))
    if health.get(0x1, {}).get("shutdown_state") != "clean":
        fail("nmem0's health %s" % health.get(0x1))
    (r,) = guest_json(text, "badblocks")["regions"] if isinstance(guest_json(text, "badblocks"), dict) \
        else guest_json(text, "badblocks")
    if r.get("badblocks") != [{"offset": 8208, "length": 8}]:
        fail("badblocks after the boot's scrub: %s" % r.get("badblocks"))
    created = guest_json(text, "created")
    (r,) = created["regions"] if isinstance(created, dict) else created
    ns = r.get("namespaces", [])
    if r.get("iset_id") != 4333179448401879416 or len(ns) != 1 or ns[0]["mode"] != "fsdax":
        fail("Linux's namespace: %s" % r)
    print("    Linux: one region of 4 DIMMs at positions 0-3, ARS commands, SMART of nmem1, "
          "the stored error as badblocks, fsdax %s (iset_id as the fixture)" % ns[0]["uuid"])


def pmemk_health(log):
    """pmemk's `list -DH` in LOG: {handle: health object}."""
    doc = json.loads(command_output(log, "list -DH"))
    dimms = doc["dimms"] if isinstance(doc, dict) else doc
    return {d["handle"]: d.get("health") for d in dimms}


def check_health(log, pj, show_text):
    """pmemk's list -DH health of every DIMM equals the store's SMART (mkplatform --show)."""
    p = json.load(open(pj))
    store = json.loads(show_text)["smart"]
    got = pmemk_health(log)
    alarms = {h: {k: v for k, v in (j or {}).items() if k.startswith("alarm_")} for h, j in got.items()}
    got = {h: {k: v for k, v in (j or {}).items() if not k.startswith("alarm_")} for h, j in got.items()}
    for d in p["dimms"]:
        want = {k: v for k, v in store["nmem%d" % d["index"]].items() if k != "flags"}
        if got.get(d["handle"]) != want:
            fail("DIMM %#x health %s, want %s" % (d["handle"], got.get(d["handle"]), want))
    print("    list -DH: %d DIMMs' health as the store holds it (%s)" % (len(got), "; ".join(
        "%#x %s%s" % (h, got[h].get("health_state", "-"), " alarms %s" % alarms[h] if alarms[h] else "")
        for h in sorted(got))))


def health_vs_linux(log, linux_log):
    """pmemk's list -DH health against Linux's ndctl list -DH, DIMM by DIMM, on the fields both print."""
    text = open(linux_log, errors="replace").read().replace("\r", "")
    linux = {d["handle"]: d.get("health", {}) for d in guest_json(text, "health")}
    ours = pmemk_health(log)
    if sorted(linux) != sorted(ours):
        fail("DIMM handles: Linux %s, pmemk %s" % (sorted(linux), sorted(ours)))
    both = set()
    for h in sorted(linux):
        common = set(linux[h]) & set(ours[h] or {})
        if not {"health_state", "temperature_celsius", "shutdown_state"} <= common:
            fail("DIMM %#x: Linux %s, pmemk %s" % (h, linux[h], ours[h]))
        diff = {k: (linux[h][k], ours[h][k]) for k in common if linux[h][k] != ours[h][k]}
        if diff:
            fail("DIMM %#x: (Linux, pmemk) differ: %s" % (h, diff))
        both |= common
    only = sorted((set().union(*map(set, linux.values())) ^ set().union(*map(set, ours.values()))))
    print("    list -DH: pmemk = Linux on %d DIMMs, fields %s%s" % (
        len(linux), ", ".join(sorted(both)), "; only one side: " + ", ".join(only) if only else ""))


def numa_vs_linux(log, linux_log):
    """region0's numa_node and target_node: pmemk's list -RDN against Linux's ndctl list -Rv."""
    text = open(linux_log, errors="replace").read().replace("\r", "")
    linux = guest_json(text, "numa")
    linux = linux["regions"] if isinstance(linux, dict) else linux
    ours = json.loads(command_output(log, "list -RDN"))["regions"]
    keys = ("numa_node", "target_node")
    want = [{k: r.get(k) for k in keys} for r in linux]
    got = [{k: r.get(k) for k in keys} for r in ours]
    if want != got or any(v is None for r in want for v in r.values()):
        fail("regions' nodes: Linux %s, pmemk %s" % (want, got))
    print("    list -R: pmemk = Linux on %d region(s): %s" % (len(got), got))


def linux_reads(log, pmemk_log):
    text = open(log, errors="replace").read().replace("\r", "")
    m = re.search(r"namespace0\.1 from nmem0 label slot \d+ and 3 more DIMMs \(nlabel 4\): uuid ([0-9a-f-]+)",
                  open(pmemk_log, errors="replace").read())
    if not m:
        fail("pmemk made no namespace across the set")
    uuid = m.group(1)
    after = guest_json(text, "after")
    (r,) = after["regions"] if isinstance(after, dict) else after
    ns = {n.get("raw_uuid", n.get("uuid")): n for n in r.get("namespaces", [])}
    mine = ns.get(uuid)
    if not mine or mine.get("name") != "pmemk" or mine.get("mode") != "fsdax" or len(ns) != 2:
        fail("Linux's listing of pmemk's namespace %s: %s" % (uuid, r.get("namespaces")))
    for k in range(4):
        doc = guest_json(text, "labels%d" % k)
        doc = doc[0] if isinstance(doc, list) else doc
        got = [(l["position"], l["nlabel"], l["isetcookie"]) for l in doc["label"] if l["uuid"] == uuid]
        if (k, 4, r["iset_id"]) not in got:
            fail("nmem%d: pmemk's labels as Linux reads them: %s" % (k, got))
    print("    Linux: pmemk's namespace %s across the set is fsdax '%s', %d bytes; "
          "read-labels: position k on nmemk, nlabel 4, iset_id %d" % (uuid, mine["name"], mine["size"], r["iset_id"]))


# Fields each kernel names its own way: device names, the NUMA fields ndctl
# prints for some objects only, pmemk's progress of deferred struct pages.
NAMES = {"dev", "blockdev", "chardev", "numa_node", "target_node", "memmap_init"}


# Printed by one side only, by design: pmemk's progress of deferred struct
# page init (Linux has none).
ONE_SIDED = {"memmap_init"}


def common(a, b, where, diffs, skip=()):
    """Keys both dicts print, compared; nested dicts recursively, a
    daxregion's id (its region's number) aside. A key only one prints is a
    difference too (but ONE_SIDED)."""
    for k in sorted((set(a) ^ set(b)) - ONE_SIDED - set(skip)):
        diffs.append("%s %s: only %s prints it" % (where, k, "pmemk" if k in a else "Linux"))
    for k in sorted(set(a) & set(b) - NAMES - set(skip)):
        x, y = a[k], b[k]
        if isinstance(x, dict) and isinstance(y, dict):
            common(x, y, "%s.%s" % (where, k), diffs, ("id",) if k == "daxregion" else ())
        elif isinstance(x, list) and isinstance(y, list) and all(isinstance(e, dict) for e in x + y) \
                and len(x) == len(y) and k != "badblocks":
            for n, (e, f) in enumerate(zip(x, y)):
                common(e, f, "%s.%s[%d]" % (where, k, n), diffs)
        elif x != y:
            diffs.append("%s %s: pmemk %s, Linux %s" % (where, k, json.dumps(x), json.dumps(y)))


def regions_of(doc):
    return doc["regions"] if isinstance(doc, dict) else doc


def list_vs_linux(log, nth, linux_log, name):
    ours = json.loads(command_output(log, "list -RDNM", nth))
    text = open(linux_log, errors="replace").read().replace("\r", "")
    theirs = guest_json(text, name)
    lhandle = {d["dev"]: d["handle"] for d in theirs.get("dimms", [])} if isinstance(theirs, dict) else {}
    phandle = {d["dev"]: d["handle"] for d in ours.get("dimms", [])}
    lregions = {r["iset_id"]: r for r in regions_of(theirs)}
    pregions = {r.get("iset_id"): r for r in ours["regions"]}
    diffs, seen, nns = [], [], 0
    if sorted(lregions) != sorted(pregions):
        fail("iset_ids: pmemk %s, Linux %s" % (sorted(pregions), sorted(lregions)))
    ldimms = {d["handle"]: d for d in (theirs.get("dimms", []) if isinstance(theirs, dict) else [])}
    pdimms = {d["handle"]: d for d in ours.get("dimms", [])}
    if sorted(ldimms) != sorted(pdimms):
        diffs.append("DIMM handles: pmemk %s, Linux %s" % (sorted(pdimms), sorted(ldimms)))
    for h in sorted(set(ldimms) & set(pdimms)):
        common(pdimms[h], ldimms[h], "%s/%s" % (pdimms[h]["dev"], ldimms[h]["dev"]), diffs)
    for iset, lr in sorted(lregions.items()):
        pr = pregions[iset]
        where = "%s/%s" % (pr["dev"], lr["dev"])
        common(pr, lr, where, diffs, ("mappings", "namespaces"))
        if lhandle:
            key = lambda h: lambda m: (h[m["dimm"]], m["offset"], m["length"], m["position"])
            lm = sorted(map(key(lhandle), lr.get("mappings", [])))
            pm = sorted(map(key(phandle), pr.get("mappings", [])))
            if lm != pm:
                diffs.append("%s mappings: pmemk %s, Linux %s" % (where, pm, lm))
        lns = {n.get("raw_uuid", n.get("uuid")): n for n in lr.get("namespaces", [])}
        pns = {n.get("raw_uuid", n.get("uuid")): n for n in pr.get("namespaces", [])}
        if sorted(lns) != sorted(pns):
            diffs.append("%s namespaces (uuid): pmemk %s, Linux %s" % (where, sorted(pns), sorted(lns)))
        for u in sorted(set(lns) & set(pns)):
            common(pns[u], lns[u], "%s %s/%s" % (where, pns[u]["dev"], lns[u]["dev"]), diffs)
            seen.append("%s %s %s/%s" % (lns[u]["mode"], lns[u].get("name", "-"),
                                         pns[u].get("blockdev", pns[u].get("chardev", pns[u]["dev"])),
                                         lns[u].get("blockdev", lns[u].get("chardev", lns[u]["dev"]))))
            nns += 1
    if diffs:
        fail("list -RDNM (pmemk) against ndctl list -RNDMv (Linux):\n" + "\n".join(diffs))
    print("    list -RDNM = ndctl list -RNDMv on %d DIMMs (by handle), %d regions (by iset_id), %d namespaces (by uuid): %s; "
          "badblocks %s" % (len(pdimms), len(lregions), nns, ", ".join(seen),
                            [(r["dev"], r.get("badblocks")) for r in ours["regions"]]))


LABEL_KEYS = ("uuid", "name", "position", "nlabel", "isetcookie", "dpa", "rawsize", "lbasize",
              "flags", "slot")


def labels_vs_linux(log, nth, linux_log):
    text = open(linux_log, errors="replace").read().replace("\r", "")
    summary = []
    for k in range(64):
        if "==== json labels%d\n" % k not in text:
            break
        ours = json.loads(command_output(log, "read-labels nmem%d -j" % k, nth))
        theirs = guest_json(text, "labels%d" % k)
        ours = ours[0] if isinstance(ours, list) else ours
        theirs = theirs[0] if isinstance(theirs, list) else theirs
        pick = lambda doc: sorted(tuple((f, l.get(f)) for f in LABEL_KEYS if f in l) for l in doc.get("label", []))
        if pick(ours) != pick(theirs):
            fail("read-labels nmem%d -j: pmemk %s, Linux %s" % (k, pick(ours), pick(theirs)))
        summary.append("nmem%d %d" % (k, len(ours.get("label", []))))
    if not summary:
        fail("Linux printed no read-labels -j")
    print("    read-labels -j: pmemk = Linux on uuid, position, nlabel, isetcookie, dpa, rawsize "
          "(labels: %s)" % ", ".join(summary))


def show_field(text, path):
    v = json.loads(text)
    for k in path.split("."):
        v = v.get(k, 0) if isinstance(v, dict) else v[int(k)]
    print(v)


def main():
    a = sys.argv[1:]
    if a[:1] == ["nfit-vs-fixture"] and len(a) == 3:
        nfit_vs_fixture(a[1], a[2])
    elif a[:1] == ["decode"] and len(a) == 3:
        decode(a[1], a[2])
    elif a[:1] == ["list"] and len(a) in (3, 4):
        check_list(a[1], a[2], a[3:] == ["closed"])
    elif a[:1] == ["linux-list"] and len(a) == 3:
        linux_list(a[1], a[2])
    elif a[:1] == ["eval-buffer"] and len(a) in (3, 4):
        eval_buffer(a[1], a[2], int(a[3]) if len(a) == 4 else 1)
    elif a[:1] == ["fletcher64"] and len(a) == 2:
        fletcher64(a[1])
    elif a[:1] == ["labels-json"] and len(a) == 4:
        labels_json(a[1], a[2], a[3])
    elif a[:1] == ["linux"] and len(a) == 3:
        check_linux(a[1], a[2])
    elif a[:1] == ["health"] and len(a) == 4:
        check_health(a[1], a[2], a[3])
    elif a[:1] == ["health-vs-linux"] and len(a) == 3:
        health_vs_linux(a[1], a[2])
    elif a[:1] == ["numa-vs-linux"] and len(a) == 3:
        numa_vs_linux(a[1], a[2])
    elif a[:1] == ["linux-reads"] and len(a) == 3:
        linux_reads(a[1], a[2])
    elif a[:1] == ["list-vs-linux"] and len(a) == 5:
        list_vs_linux(a[1], int(a[2]), a[3], a[4])
    elif a[:1] == ["labels-vs-linux"] and len(a) == 4:
        labels_vs_linux(a[1], int(a[2]), a[3])
    elif a[:1] == ["show-field"] and len(a) == 3:
        show_field(a[1], a[2])
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
