"""The firmware store of a tools/mkplatform platform, in the guest's RAM file
(ram.img): its header, the ARS error and injected-error lists, the SMART
payloads, the call counters and the label areas; the edits the command
line offers, and the --show decode.
"""
import json
import os
import re
import struct

from nvplatform.layout import die, LINE, STORE_MAGIC, STORE_VERSION, H_VERSION, H_NERRORS, \
    H_NINJECTED, H_ERRORS, H_ARS_STATE, H_ARS_TYPE, H_ARS_ADDR, H_ARS_LEN, H_ARS_STARTS, \
    C_ROOT, C_DIMM, C_LSI, C_LSR, C_LSW, ERROR_REC, INJECT_REC, SMART_LEN, SMART_FLAGS, \
    HEALTH, SMART_FIELDS

class Store:
    def __init__(self, dirname, p, mode="r+b"):
        self.p = p
        self.st = p["store"]
        self.f = open(os.path.join(dirname, p["ram_file"]), mode)

    def close(self):
        self.f.close()

    def read(self, off, n):
        self.f.seek(self.st["base"] + off)
        return self.f.read(n)

    def write(self, off, data):
        self.f.seek(self.st["base"] + off)
        self.f.write(data)

    def u32(self, off):
        return struct.unpack("<I", self.read(off, 4))[0]

    def set_u32(self, off, v):
        self.write(off, struct.pack("<I", v))

    def check(self):
        if self.read(0, 8) != STORE_MAGIC or self.u32(H_VERSION) != STORE_VERSION:
            die("the store in %s has no PMKSTORE v%d header" % (self.p["ram_file"], STORE_VERSION))

    # The error lists: (handle, address, length) / (address, length).
    def errors(self):
        n = self.u32(H_NERRORS)
        raw = self.read(self.st["errors"], n * ERROR_REC)
        recs = [struct.unpack_from("<IIQQ", raw, i * ERROR_REC) for i in range(n)]
        return [(h, a, length) for h, _, a, length in recs]

    def set_errors(self, recs):
        if len(recs) > self.p["max_errors"]:
            die("more than %d errors" % self.p["max_errors"])
        self.write(self.st["errors"], b"".join(struct.pack("<IIQQ", h, 0, a, n) for h, a, n in recs))
        self.set_u32(H_NERRORS, len(recs))

    def injected(self):
        n = self.u32(H_NINJECTED)
        raw = self.read(self.st["injected"], n * INJECT_REC)
        return [struct.unpack_from("<QQ", raw, i * INJECT_REC) for i in range(n)]

    def set_injected(self, recs):
        self.write(self.st["injected"], b"".join(struct.pack("<QQ", a, n) for a, n in recs))
        self.set_u32(H_NINJECTED, len(recs))

    def smart(self, i):
        return bytearray(self.read(self.st["smart"] + i * SMART_LEN, SMART_LEN))

    def set_smart(self, i, data):
        self.write(self.st["smart"] + i * SMART_LEN, bytes(data))

    def label_off(self, i):
        return self.st["labels"] + i * self.p["label_size"]


def default_smart():
    b = bytearray(SMART_LEN)
    flags = sum(SMART_FLAGS[k] for k in ("health", "spares", "used", "mtemp", "ctemp",
                                         "shutdown_count", "shutdown"))
    struct.pack_into("<I", b, 0, flags)
    b[8], b[9], b[10] = HEALTH["ok"], 100, 1           # health, spares %, life used %
    struct.pack_into("<HHI", b, 12, 30 * 16, 35 * 16, 3)  # temperatures (1/16 C), shutdowns
    b[31] = 0                                           # shutdown state: clean
    return b


def init_store(dirname, p):
    st = p["store"]
    path = os.path.join(dirname, p["ram_file"])
    with open(path, "wb") as f:
        f.truncate(p["ram"])
    s = Store(dirname, p)
    hdr = bytearray(0x100)
    hdr[0:8] = STORE_MAGIC
    struct.pack_into("<IIIIIII", hdr, H_VERSION, STORE_VERSION, len(p["dimms"]), len(p["sets"]),
                     p["label_size"], p["max_errors"], p["clear_unit"], 0)
    struct.pack_into("<IIIII", hdr, H_ERRORS, st["errors"], st["injected"], st["smart"],
                     st["flush"], st["labels"])
    s.write(0, bytes(hdr))
    for d in p["dimms"]:
        s.set_smart(d["index"], default_smart())
    s.close()


def create_media(dirname, p):
    for s in p["sets"]:
        path = os.path.join(dirname, s["file"])
        with open(path, "wb") as f:
            f.truncate(s["size"])


# ---- store edits ----

def find_set(p, addr, length):
    for s in p["sets"]:
        if s["base"] <= addr and addr + length <= s["base"] + s["size"]:
            return s
    return None


def handle_of(p, addr):
    s = find_set(p, addr, 1)
    pos = ((addr - s["base"]) // LINE) % s["ways"]
    return p["dimms"][s["dimms"][pos]]["handle"]


def add_error(st, p, addr, length):
    if length <= 0 or not find_set(p, addr, length):
        die("--add-error %#x %#x: not inside one persistent-memory range" % (addr, length))
    recs = st.errors()
    recs.append((handle_of(p, addr), addr, length))
    st.set_errors(recs)


def dimm_index(p, name):
    m = re.fullmatch(r"(?:nmem)?(\d+)|(0x[0-9a-fA-F]+)", name)
    if m and m.group(1) is not None and int(m.group(1)) < len(p["dimms"]):
        return int(m.group(1))
    if m and m.group(2):
        for d in p["dimms"]:
            if d["handle"] == int(m.group(2), 16):
                return d["index"]
    die("no DIMM %r (an index 0..%d, or a handle 0x..)" % (name, len(p["dimms"]) - 1))


def smart_set(b, field, value):
    """One SMART field, by ndctl's JSON name; sets its valid flag."""
    flags = struct.unpack_from("<I", b, 0)[0]
    try:
        if field == "flags":
            flags = int(value, 0)
        elif field == "health_state":
            b[8] = HEALTH[value] if value in HEALTH else int(value, 0)
            flags |= SMART_FLAGS["health"]
        elif field == "spares_percentage":
            b[9] = int(value, 0)
            flags |= SMART_FLAGS["spares"]
        elif field == "life_used_percentage":
            b[10] = int(value, 0)
            flags |= SMART_FLAGS["used"]
        elif field == "alarm_flags":
            b[11] = int(value, 0)
            flags |= SMART_FLAGS["alarm"]
        elif field in ("temperature_celsius", "controller_temperature_celsius"):
            t = round(float(value) * 16)
            raw = (-t & 0x7FFF) | 0x8000 if t < 0 else t    # bit 15: negative
            struct.pack_into("<H", b, 12 if field == "temperature_celsius" else 14, raw)
            flags |= SMART_FLAGS["mtemp" if field == "temperature_celsius" else "ctemp"]
        elif field == "shutdown_count":
            struct.pack_into("<I", b, 16, int(value, 0))
            flags |= SMART_FLAGS["shutdown_count"]
        elif field == "shutdown_state":
            b[31] = {"clean": 0, "dirty": 1}[value] if value in ("clean", "dirty") else int(value, 0)
            flags |= SMART_FLAGS["shutdown"]
        else:
            die("--smart: unknown field %r (one of %s)" % (field, ", ".join(SMART_FIELDS)))
    except (ValueError, KeyError):
        die("--smart %s=%s: bad value" % (field, value))
    struct.pack_into("<I", b, 0, flags & 0xFFFFFFFF)


def smart_json(b):
    flags = struct.unpack_from("<I", b, 0)[0]
    j = {"flags": "%#x" % flags}
    name = {v: k for k, v in HEALTH.items()}

    def temp(raw):
        return -(raw & 0x7FFF) / 16 if raw & 0x8000 else raw / 16

    if flags & SMART_FLAGS["health"]:
        j["health_state"] = name.get(b[8], b[8])
    if flags & SMART_FLAGS["spares"]:
        j["spares_percentage"] = b[9]
    if flags & SMART_FLAGS["used"]:
        j["life_used_percentage"] = b[10]
    if flags & SMART_FLAGS["mtemp"]:
        j["temperature_celsius"] = temp(struct.unpack_from("<H", b, 12)[0])
    if flags & SMART_FLAGS["ctemp"]:
        j["controller_temperature_celsius"] = temp(struct.unpack_from("<H", b, 14)[0])
    if flags & SMART_FLAGS["shutdown_count"]:
        j["shutdown_count"] = struct.unpack_from("<I", b, 16)[0]
    if flags & SMART_FLAGS["shutdown"]:
        j["shutdown_state"] = "dirty" if b[31] else "clean"
    return j


def show(st, p):
    ars = {0: "none this boot", 1: "complete"}.get(st.u32(H_ARS_STATE), "?")
    out = {
        "ars": {"state": ars, "type": st.u32(H_ARS_TYPE),
                "address": "%#x" % struct.unpack("<Q", st.read(H_ARS_ADDR, 8))[0],
                "length": "%#x" % struct.unpack("<Q", st.read(H_ARS_LEN, 8))[0],
                "starts": st.u32(H_ARS_STARTS)},
        "errors": [{"handle": "%#x" % h, "address": "%#x" % a, "length": "%#x" % n}
                   for h, a, n in st.errors()],
        "injected": [{"address": "%#x" % a, "length": "%#x" % n} for a, n in st.injected()],
        "smart": {"nmem%d" % d["index"]: smart_json(st.smart(d["index"])) for d in p["dimms"]},
        "calls": {
            "root_dsm": {str(f): st.u32(C_ROOT + 4 * f) for f in range(16) if st.u32(C_ROOT + 4 * f)},
            "dimm_dsm": {str(f): st.u32(C_DIMM + 4 * f) for f in range(16) if st.u32(C_DIMM + 4 * f)},
            "_LSI": st.u32(C_LSI), "_LSR": st.u32(C_LSR), "_LSW": st.u32(C_LSW),
        },
    }
    print(json.dumps(out, indent=1))
