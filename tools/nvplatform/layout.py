"""The layout of a tools/mkplatform platform: constants from the
specifications and of our firmware store, the sets and DIMMs (addresses,
NFIT handles, serials, where each DIMM's label area and SMART payload lie
in the store), and the small helpers the other modules share.
"""
import argparse
import re
import struct
import sys

# ---- constants from the specifications ----

# ACPI 6.4 5.2.25.2: the persistent-memory range type GUID, table byte order.
PM_GUID = bytes.fromhex("79d3f066f3b47440ac430d3318b78cdb")
# UEFI memory attributes EFI_MEMORY_WB | EFI_MEMORY_NV (what QEMU gives).
PM_ATTR = 0x8008
ROOT_DSM_UUID = "2f10e7a4-9e91-11e4-89d3-123b93f75cba"   # ACPI 6.4 9.20.7
INTEL_DSM_UUID = "4309ac30-0d11-11e4-9191-0800200c9a66"  # Intel NVDIMM DSM family
HYPERV_DSM_UUID = "5746c5f2-a9a2-4264-ad0e-e4ddc9e09e80"  # Hyper-V family ("Virtual NVDIMM 0x1901")
LINE = 4096            # interleave granularity (one 4 KiB line per DIMM)
MAX_XFER = 4096        # label bytes per _DSM 5/6 or _LSR/_LSW call (FACTS-4 2)
# Identity of the DIMMs, as the FACTS-4 fixture (Linux id 8980-a2-1918-5e0001NN).
VENDOR, DEVICE, REVISION = 0x8089, 0x0979, 0x0018
MFG_LOCATION, MFG_DATE = 0xA2, 0x1819      # the date as stored (big-endian 0x1918)
SERIAL0 = 0x5E000101                       # Linux prints the serial big-endian
FORMAT_CODE = 0x0301                       # byte-addressable, energy backed

# ---- the firmware store (our layout; docs/PLATFORM.md) ----

STORE_MAGIC = b"PMKSTORE"
STORE_VERSION = 1
H_MAGIC, H_VERSION, H_NDIMMS, H_NSETS = 0x00, 0x08, 0x0C, 0x10
H_LABEL_SIZE, H_MAX_ERRORS, H_CLEAR_UNIT = 0x14, 0x18, 0x1C
H_ARS_STATE, H_ARS_TYPE, H_ARS_ADDR, H_ARS_LEN = 0x20, 0x24, 0x28, 0x30
H_NERRORS, H_NINJECTED = 0x38, 0x3C
H_ERRORS, H_INJECTED, H_SMART, H_FLUSH, H_LABELS = 0x40, 0x44, 0x48, 0x4C, 0x50
H_ARS_STARTS = 0x54
C_ROOT, C_DIMM, C_LSI, C_LSR, C_LSW = 0x100, 0x140, 0x180, 0x184, 0x188
ERROR_REC, INJECT_REC, SMART_LEN = 24, 16, 128

# Intel DSM function 1 (SMART) payload, ndctl's ndctl/lib/intel.h
# struct nd_intel_smart: offsets in the 128 bytes after the status.
SMART_FLAGS = {"health": 1 << 0, "spares": 1 << 1, "used": 1 << 2, "mtemp": 1 << 3,
               "ctemp": 1 << 4, "shutdown_count": 1 << 5, "alarm": 1 << 9,
               "shutdown": 1 << 10}
HEALTH = {"ok": 0, "non-critical": 1, "critical": 2, "fatal": 4}
SMART_FIELDS = ("flags", "health_state", "spares_percentage", "life_used_percentage",
                "alarm_flags", "temperature_celsius", "controller_temperature_celsius",
                "shutdown_count", "shutdown_state")


def die(msg):
    print("mkplatform: " + msg, file=sys.stderr)
    sys.exit(2)


def size_arg(text):
    m = re.fullmatch(r"(0x[0-9a-fA-F]+|\d+)([KMGT]?)", text.strip())
    if not m:
        raise argparse.ArgumentTypeError("%r: a size (bytes, or with K, M, G, T)" % text)
    return int(m.group(1), 0) << {"": 0, "K": 10, "M": 20, "G": 30, "T": 40}[m.group(2)]


def int_arg(text):
    try:
        return size_arg(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError("%r: a number (0x.. or decimal, K/M/G allowed)" % text)


def align_up(v, a):
    return (v + a - 1) // a * a


def human(n):
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if n and n % (1 << shift) == 0:
            return "%d%s" % (n >> shift, unit)
    return str(n)


# ---- the layout ----

def dimm_handle(i):
    """ACPI 6.4 5.2.25.3 NFIT device handle: DIMM 1 of channel i%3 of memory
    controller i//3 (the fixture's 0x1, 0x11, 0x21, 0x101, ...)."""
    return ((i // 3) << 8) | ((i % 3) << 4) | 1


def layout(a):
    ways = a.sets
    ndimms = sum(ways)
    if ndimms > 48:
        die("at most 48 DIMMs (4-bit memory controller field of the handle)")
    if any(w < 1 or w > 16 for w in ways):
        die("--sets: each set interleaves 1 to 16 DIMMs")
    if a.dimm_size % (16 << 20):
        die("--dimm-size must be a multiple of 16M (Linux's region alignment)")
    if a.label_size % 4096 or a.label_size < (128 << 10):
        die("--label-size must be a multiple of 4K and at least 128K")
    if a.numa_node is not None and not 1 <= a.numa_node <= 7:
        die("--numa-node 1..7 (node 0 holds the RAM and the CPUs)")
    if a.clear_unit & (a.clear_unit - 1) or not 64 <= a.clear_unit <= 4096:
        die("--clear-unit must be a power of 2 from 64 to 4096")
    # The store: header and counters, lists, SMART, flush lines, label areas.
    errors_off = 0x1000
    injected_off = align_up(errors_off + a.max_errors * ERROR_REC, 4096)
    smart_off = align_up(injected_off + a.max_errors * INJECT_REC, 4096)
    flush_off = align_up(smart_off + ndimms * SMART_LEN, 4096)
    labels_off = align_up(flush_off + ndimms * a.flush_hints * 64, 64 << 10)
    # A label method reads a whole 4 KiB window: one spare page after the last area.
    store_size = align_up(labels_off + ndimms * a.label_size + 4096, 2 << 20)
    store_base = (1 << 30) - store_size         # FACTS-4: 0x3fe00000 for 2 MiB
    if store_base < (512 << 20):
        die("the firmware store (%s) does not fit below 1 GiB" % human(store_size))
    sets, dimms, base = [], [], 1 << 32
    for s, w in enumerate(ways):
        size = w * a.dimm_size
        members = list(range(len(dimms), len(dimms) + w))
        sets.append({"index": s + 1, "base": base, "size": size, "ways": w,
                     "file": "pmem%d.img" % s, "dimms": members})
        for pos in range(w):
            i = len(dimms)
            serial = SERIAL0 + i
            dimms.append({
                "index": i, "handle": dimm_handle(i), "phys_id": i, "set": s,
                "position": pos, "size": a.dimm_size, "dpa": 0,
                "region_offset": pos * LINE if w > 1 else 0,
                "dcr_index": 0x10 + i, "idt_index": 0,
                "serial": "%08x" % serial,
                "id": "%04x-%02x-%04x-%08x" % (
                    struct.unpack(">H", struct.pack("<H", VENDOR))[0], MFG_LOCATION,
                    struct.unpack(">H", struct.pack("<H", MFG_DATE))[0], serial),
                "acpi": "\\_SB.NVDR.NV%02X" % i,
                "label_addr": store_base + labels_off + i * a.label_size,
                "smart_addr": store_base + smart_off + i * SMART_LEN,
                "flush_hints": [store_base + flush_off + (i * a.flush_hints + k) * 64
                                for k in range(a.flush_hints)],
            })
        base = align_up(base + size, 128 << 20)
    idt = 0
    for d in dimms:
        if sets[d["set"]]["ways"] > 1:
            idt += 1
            d["idt_index"] = idt
    span = base - (1 << 32)
    return {
        "version": 1,
        "ram": a.ram, "ram_file": "ram.img",
        "memmap": "%s$%s" % (human(store_size), human(store_base)),
        "maxmem": a.ram + span,
        "label_size": a.label_size, "label_methods": a.label_methods,
        "persistence": a.persistence, "flush_hints": a.flush_hints,
        "numa_node": a.numa_node,
        "max_errors": a.max_errors, "clear_unit": a.clear_unit,
        "max_xfer": MAX_XFER,
        "store": {"base": store_base, "size": store_size, "file": "ram.img",
                  "errors": errors_off, "injected": injected_off, "smart": smart_off,
                  "flush": flush_off, "labels": labels_off},
        "sets": sets, "dimms": dimms,
    }
