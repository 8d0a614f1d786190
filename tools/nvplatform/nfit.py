"""The NFIT of a tools/mkplatform platform (ACPI 6.4 5.2.25): one SPA range
per interleave set, a memory-device-to-SPA mapping, interleave (for sets of
more than one DIMM), control region and flush hint structure per DIMM, and
the platform capabilities, in the order of the FACTS-4 fixture.
"""
import struct

from nvplatform.layout import LINE, PM_ATTR, PM_GUID, VENDOR, DEVICE, REVISION, \
    MFG_LOCATION, MFG_DATE, FORMAT_CODE

def nfit_spa(s, pxm=0):
    # 5.2.25.2 System Physical Address Range: flags bit 1 = proximity domain
    # valid; the domain (u32 at +12) is the NUMA node's (QEMU's SRAT uses
    # node ids as proximity domains).
    return struct.pack("<HHHHII16sQQQ", 0, 56, s["index"], 0x2, 0, pxm, PM_GUID,
                       s["base"], s["size"], PM_ATTR)


def nfit_memdev(d, p):
    # 5.2.25.3 Memory Device to System Physical Address Range Mapping.
    ways = p["sets"][d["set"]]["ways"]
    return struct.pack("<HHIHHHHQQQHHHH", 1, 48, d["handle"], d["phys_id"], 0,
                       d["set"] + 1, d["dcr_index"], d["size"], d["region_offset"],
                       d["dpa"], d["idt_index"], ways, 0, 0)


def nfit_idt(d):
    # 5.2.25.4 Interleave: one line of LINE bytes at offset 0; the memdev's
    # region offset (position x LINE) places the DIMM's lines in the set.
    return struct.pack("<HHHHIII", 2, 20, d["idt_index"], 0, 1, LINE, 0)


def nfit_dcr(d):
    # 5.2.25.6 NVDIMM Control Region (80 bytes, no block windows).
    return struct.pack("<HHHHHHHHHBBHH4sHH", 4, 80, d["dcr_index"], VENDOR, DEVICE,
                       REVISION, VENDOR, DEVICE, 0, 1, MFG_LOCATION, MFG_DATE, 0,
                       int(d["serial"], 16).to_bytes(4, "big"), FORMAT_CODE, 0) + bytes(48)


def nfit_flush(d):
    # 5.2.25.8 Flush Hint Address.
    n = len(d["flush_hints"])
    return struct.pack("<HHIH6x", 6, 16 + 8 * n, d["handle"], n) + \
        b"".join(struct.pack("<Q", h) for h in d["flush_hints"])


def nfit_caps(persistence):
    # 5.2.25.9 Platform Capabilities: bit 0 CPU cache flush (eADR), bit 1
    # memory controller flush (ADR); highest valid capability 1.
    caps = {"cpu_cache": 0x3, "memory_controller": 0x2}[persistence]
    return struct.pack("<HHB3xII", 7, 16, 1, caps, 0)


def acpi_table(sig, rev, body, oem_table):
    length = 36 + len(body)
    hdr = struct.pack("<4sIBB6s8sI4sI", sig, length, rev, 0, b"PMEMK ", oem_table, 1,
                      b"PMKF", 1)
    t = bytearray(hdr + body)
    t[9] = (-sum(t)) & 0xFF
    return bytes(t)


def build_nfit(p):
    body = bytearray(4)     # reserved
    for s in p["sets"]:
        body += nfit_spa(s, p.get("numa_node") or 0)
    for d in p["dimms"]:
        body += nfit_memdev(d, p)
    for d in p["dimms"]:
        if d["idt_index"]:
            body += nfit_idt(d)
    for d in p["dimms"]:
        body += nfit_dcr(d)
    for d in p["dimms"]:
        if d["flush_hints"]:
            body += nfit_flush(d)
    if p["persistence"] != "none":
        body += nfit_caps(p["persistence"])
    return acpi_table(b"NFIT", 1, bytes(body), b"PLATFORM")
