#!/usr/bin/env python3
"""Write the seed corpora of the fuzz targets (test/fuzz/seeds/<target>/).

Run from the top directory: test/fuzz/mkseeds.py [TARGET...]. Real data
where it exists (test/fixtures: QEMU's NFITs and ACPI tables, Linux's info
blocks, GRUB's multiboot2 information from SeaBIOS and OVMF boots), and
inputs built per FACTS for what real data does not show. Each seed's
layout is the one its harness (test/fuzz/fuzz_<target>.c) documents.
"""
import glob
import os
import struct
import sys

FIX = "test/fixtures"
GiB, MiB, KiB = 1 << 30, 1 << 20, 1 << 10


def write(target, name, data):
    d = os.path.join("test/fuzz/seeds", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


# ---- fuzz_pfn_info: flags, le64 start, le64 size, then a block or a request ----

def pfn_info():
    ns = struct.pack("<QQ", 4 * GiB, 4 * GiB)
    for path in sorted(glob.glob(FIX + "/linux-6.1-*.head.bin")):
        name = os.path.basename(path)[:-len(".head.bin")]
        head = read(path)
        # The block Linux wrote at 4 KiB, exactly as on media.
        write("fuzz_pfn_info", name, b"\x00" + ns + head[4096:8192])
    req = [(4 * GiB, 4 * GiB), (4 * GiB, 1 * GiB + 1 * MiB), (4 * GiB + 2 * MiB, 16 * GiB),
           (1 * GiB, 12 * KiB), (8 * GiB, 2 * MiB + 8 * KiB)]
    for i, (start, size) in enumerate(req):
        for mode in (1, 2):
            for align in (4 * KiB, 2 * MiB, 1 * GiB):
                write("fuzz_pfn_info", "init-%d-%s-%d" % (i, "mem" if mode == 1 else "dev", align),
                      b"\x01" + struct.pack("<QQQQ", start, size, mode, align) + bytes(range(16)))


# ---- fuzz_multiboot2: the MBI itself ----

def mbi(tags):
    """An MBI from (type, payload) tags, each 8-byte aligned, end tag added."""
    body = b""
    for t, payload in tags + [(0, b"")]:
        tag = struct.pack("<II", t, 8 + len(payload)) + payload
        body += tag + bytes(-len(tag) % 8)
    return struct.pack("<II", 8 + len(body), 0) + body


def mmap_tag(entries):
    return (6, struct.pack("<II", 24, 0) + b"".join(struct.pack("<QQII", a, n, t, 0)
                                                   for a, n, t in entries))


def efi_desc(typ, start, pages, attr, size=48):
    d = struct.pack("<IIQQQQ", typ, 0, start, 0, pages, attr)
    return d + bytes(size - len(d))


def multiboot2():
    for fw in ("seabios", "ovmf"):
        write("fuzz_multiboot2", "grub-2.06-" + fw, read(FIX + "/mbi/grub-2.06-%s.mbi" % fw))
    rsdp1 = b"RSD PTR " + bytes([0]) + b"BOCHS " + bytes([0]) + struct.pack("<I", 0x3ffe14ad)
    rsdp2 = b"RSD PTR " + bytes([0]) + b"BOCHS " + bytes([2]) + struct.pack("<IIQ", 0, 36, 0x3f77c0e8) + bytes(4)
    cmd = (1, b"memmap=256M!768M pmem.ns0.0=fsdax,map=dev \"run=list; poweroff\"\0")
    write("fuzz_multiboot2", "end-only", mbi([]))
    write("fuzz_multiboot2", "bios-pmem-types", mbi([
        (21, struct.pack("<I", 0x200000)), cmd, (2, b"GRUB 2.06\0"),
        mmap_tag([(0, 0x9fc00, 1), (0x100000, 0x3fee0000, 1), (0x40000000, 1 << 30, 12),
                  (0x100000000, 1 << 30, 7), (0x140000000, 1 << 30, 7), (0x180000000, 4096, 20)]),
        (3, struct.pack("<II", 0x800000, 0x900000) + b"initrd\0"),
        (14, rsdp1)]))
    efimap = struct.pack("<II", 48, 1) + efi_desc(7, 0, 0xa0, 0xf) + \
        efi_desc(14, 0x100000000, 0x40000, 0x8008) + efi_desc(7, 0x140000000, 0x40000, 0x8008 | 0x8000)
    write("fuzz_multiboot2", "efi-map-and-rsdps", mbi([
        cmd, (12, struct.pack("<Q", 0x3f5eb018)), (14, rsdp1), (15, rsdp2),
        mmap_tag([(0, 0x1000, 1)]), (17, efimap)]))
    write("fuzz_multiboot2", "cmdline-unterminated", mbi([(1, b"a" * 3000)]))


# ---- fuzz_efi_memmap: le64 DescriptorSize, then the map ----

def efi_memmap():
    m = read(FIX + "/mbi/grub-2.06-ovmf.mbi")
    off = 8
    while True:
        t, sz = struct.unpack_from("<II", m, off)
        if t == 17:
            dsize = struct.unpack_from("<I", m, off + 8)[0]
            write("fuzz_efi_memmap", "ovmf", struct.pack("<Q", dsize) + m[off + 16:off + sz])
        if t == 0:
            break
        off = (off + sz + 7) & ~7
    write("fuzz_efi_memmap", "pmem-40", struct.pack("<Q", 40) + b"".join([
        efi_desc(7, 0, 0x9f, 0xf, 40), efi_desc(3, 0x9f000, 1, 0xf, 40),
        efi_desc(14, 0x100000000, 0x40000, 0x8008, 40), efi_desc(14, 0x140000000, 0x40000, 0x8008, 40),
        efi_desc(7, 0x180000000, 0x40000, 0x8008 | 0x8000, 40), efi_desc(11, 0xfec00000, 1, 1 << 63, 40)]))
    write("fuzz_efi_memmap", "huge-desc", struct.pack("<Q", 0xffffffffffffffd8) + efi_desc(7, 0x1000, 1, 0))


# ---- fuzz_memmap: flags, 10-byte e820 entries, then the memmap= value ----

def e820_entry(addr, size, typ):
    for sh in (0, 12, 20, 30):
        if addr % (1 << sh) == 0 and size % (1 << sh) == 0 and \
           addr >> sh < 1 << 32 and size >> sh < 1 << 32:
            best = sh
    return struct.pack("<IIBB", addr >> best, size >> best, typ, (0, 12, 20, 30).index(best))


def memmap():
    # QEMU's SeaBIOS map, from GRUB's tag 6 (test/fixtures/mbi/grub-2.06-seabios.mbi).
    qemu = [(0, 0x9fc00, 1), (0x9fc00, 0x400, 2), (0xf0000, 0x10000, 2), (0x100000, 0x3fedf000, 1),
            (0x3ffdf000, 0x21000, 2), (0xfffc0000, 0x40000, 2), (0xfd00000000, 0x300000000, 2)]
    table = bytes([len(qemu)]) + b"".join(e820_entry(*e) for e in qemu)
    specs = ["256M!768M", "512M!1G", "4G!4G", "16M!4G,32M$64M", "0!1G", "1G!0x40000000",
             "garbage", "16E!1G", "12K!0x1000", "256M#512M", "2G@0", "64M!2M",
             "256M!512M,256M!768M", "1M!0x3ffdf000", "8M!1M"]
    for i, spec in enumerate(specs):
        write("fuzz_memmap", "qemu-seabios-%02d" % i, table + spec.encode())
    big = bytes([0x80 | 3]) + b"".join(e820_entry(*e) for e in
                                      [(0, 1 << 30, 1), (1 << 30, 1 << 30, 12), (2 << 30, 1 << 30, 7)])
    write("fuzz_memmap", "full-table", big + b"16M!256M,16M!512M")


# ---- fuzz_acpi: flags, then chunks (le16 length + bytes); chunk k>=1 at CHUNK_PA(k) ----

def chunks(flags, parts):
    return bytes([flags]) + b"".join(struct.pack("<H", len(p)) + p for p in parts)


def root_table(sig, entries, esize, base=None):
    body = b"".join(struct.pack("<I" if esize == 4 else "<Q", e) for e in entries)
    hdr = base[:36] if base else sig + bytes(32)
    t = bytearray(hdr[:4] + struct.pack("<I", 36 + len(body)) + hdr[8:36] + body)
    return bytes(t)


def firmware(name):
    d = FIX + "/acpi/" + name
    files = sorted(os.listdir(d))
    rsdp = read(d + "/rsdp.bin")
    root = [f for f in files if f[:4] in ("RSDT", "XSDT")][0]
    raw = read(d + "/" + root)
    esize = 8 if root.startswith("XSDT") else 4
    addrs = [struct.unpack_from("<I" if esize == 4 else "<Q", raw, o)[0]
             for o in range(36, len(raw), esize)]
    tables = [read("%s/%s-%#x.bin" % (d, f.split("-")[0], a))
              for a in addrs for f in files if f.endswith("-%#x.bin" % a)]
    return rsdp, raw, esize, tables


def link_rsdp(rsdp):
    r = bytearray(rsdp)
    r[16:20] = struct.pack("<I", 1 if len(r) < 36 else 0)
    if len(r) >= 36:
        r[24:32] = struct.pack("<Q", 1)
    return bytes(r)


def acpi():
    for name in ("qemu-7.2-seabios", "qemu-7.2-ovmf"):
        rsdp, raw, esize, tables = firmware(name)
        root = root_table(raw[:4], range(2, 2 + len(tables)), esize, raw)
        parts = [link_rsdp(rsdp), root] + tables
        for where, wname in ((0, "copy"), (1, "efi"), (2 | 0x30, "bios"), (3 | 0x20, "ebda")):
            write("fuzz_acpi", "%s-%s" % (name, wname), chunks(where | 4, parts))
        nfit = tables.index([t for t in tables if t[:4] == b"NFIT"][0]) + 2
        twice = root_table(raw[:4], list(range(2, 2 + len(tables))) + [nfit, 1], esize, raw)
        write("fuzz_acpi", name + "-nfit-twice", chunks(4, [link_rsdp(rsdp), twice] + tables))
    # Every QEMU NFIT fixture behind a v0 RSDP and an RSDT; then two of them at once.
    rsdp0 = link_rsdp(read(FIX + "/acpi/qemu-7.2-seabios/rsdp.bin"))
    nfits = sorted(glob.glob(FIX + "/nfit/*.bin"))
    for path in nfits:
        base = os.path.basename(path)[:-4]
        write("fuzz_acpi", "nfit-" + base, chunks(4, [rsdp0, root_table(b"RSDT", [2], 4), read(path)]))
    write("fuzz_acpi", "nfit-two-tables", chunks(4, [rsdp0, root_table(b"RSDT", [2, 3], 4),
                                                      read(nfits[0]), read(nfits[-1])]))


# ---- fuzz_madt: a whole "APIC" table, or its entries alone ----

def madt():
    for fw in ("seabios", "ovmf"):
        t = read(glob.glob(FIX + "/acpi/qemu-7.2-%s/APIC-*.bin" % fw)[0])
        write("fuzz_madt", "qemu-" + fw + ".table", t)
        write("fuzz_madt", "qemu-" + fw + ".entries", t[44:])
    # FACTS-2 §6.1 APIC.cphp: UID/ID/flags; absent CPUs listed disabled.
    cphp = b"".join(struct.pack("<BBBBI", 0, 8, u, i, f) for u, i, f in
                    [(0, 0, 1), (1, 1, 1), (2, 2, 0), (3, 4, 0), (4, 5, 0), (5, 6, 0)])
    cphp += struct.pack("<BBBBII", 1, 12, 0, 0, 0xfec00000, 0)
    write("fuzz_madt", "cphp.entries", cphp)
    # x2APIC entries (type 9), an online-capable CPU and a 64-bit address override (type 5).
    x2 = struct.pack("<BBBBI", 0, 8, 0, 0, 1)
    x2 += struct.pack("<BBHIII", 9, 16, 0, 300, 1, 1) + struct.pack("<BBHIII", 9, 16, 0, 301, 2, 2)
    x2 += struct.pack("<BBHQ", 5, 12, 0, 0x1fee00000)
    write("fuzz_madt", "x2apic-override.entries", x2)


# ---- fuzz_badblocks: 4-byte operations [op | max << 3, le16 sector, len] ----

def bb_op(kind, sector, length, room=0):
    return struct.pack("<BHB", kind | room << 3, sector, length)


def badblocks():
    SET, CLEAR, CHECK, RANGE, WRAP = range(5)
    look = bb_op(RANGE, 0, 255, 31) + bb_op(RANGE, 256, 255, 31) + bb_op(CHECK, 0, 255)
    # A full list (64 extents of one sector, 7 apart), then sets in its gaps:
    # nearer the one before, nearer the one after, a tie, past either end.
    full = b"".join(bb_op(SET, 7 + 7 * i, 1) for i in range(64))
    write("fuzz_badblocks", "full-absorb", full + bb_op(SET, 10, 1) + bb_op(SET, 19, 1) +
          bb_op(SET, 24, 2) + bb_op(SET, 0, 3) + bb_op(SET, 500, 4) + look +
          bb_op(CLEAR, 0, 255) + look)
    # A full list of 3-sector extents: a split fails, a head, a tail and a
    # whole extent clear, then the split goes through.
    full3 = b"".join(bb_op(SET, 8 * i, 3) for i in range(64))
    write("fuzz_badblocks", "full-split", full3 + bb_op(CLEAR, 9, 1) + bb_op(CLEAR, 8, 1) +
          bb_op(CLEAR, 18, 1) + bb_op(CLEAR, 24, 3) + bb_op(CLEAR, 33, 1) + look)
    # Merges: overlapping, adjacent, swallowing several; clears across extents.
    write("fuzz_badblocks", "merge-clear", bb_op(SET, 10, 5) + bb_op(SET, 15, 5) +
          bb_op(SET, 5, 5) + bb_op(SET, 30, 2) + bb_op(SET, 34, 2) + bb_op(SET, 8, 30) +
          bb_op(CLEAR, 12, 4) + bb_op(CLEAR, 0, 13) + bb_op(SET, 0, 0) + bb_op(CLEAR, 0, 0) +
          look + bb_op(RANGE, 14, 10, 1) + bb_op(RANGE, 14, 10, 0))
    write("fuzz_badblocks", "wrapping", b"".join(bb_op(WRAP | 0, k, 3, w) for w in range(4)
                                                  for k in (0, 5)) + bb_op(SET, 1, 1))
    # Pseudo-random operations (a fixed LCG: the same seed every run).
    x, ops = 29, b""
    for _ in range(400):
        x = (x * 1103515245 + 12345) % (1 << 31)
        kind = (x >> 8) % 4
        ops += bb_op(kind, (x >> 12) % 512, (x >> 3) % 24, (x >> 20) % 32)
    write("fuzz_badblocks", "random-400", ops)


# ---- fuzz_ars: byte 0 (bit 0: a small maximum output), then an ARS status output ----

def ars_status(status, recs, addr=4 * GiB, length=2 * GiB - 2 * MiB, restart=(0, 0), flags=0,
               count=None, out_len=None):
    body = b"".join(struct.pack("<IIQQ", 0x11, 0, a, l) for a, l in recs)
    n = len(recs) if count is None else count
    ol = 44 + 24 * len(recs) if out_len is None else out_len
    return struct.pack("<IIQQQQHHI", status, ol, addr, length, restart[0], restart[1], 2,
                       flags, n) + body


def ars():
    R = 4 * GiB
    # The platform's answers (docs/PLATFORM.md): none yet, one record, two.
    write("fuzz_ars", "none", b"\x00" + struct.pack("<II", 2 << 16, 44) + bytes(40))
    write("fuzz_ars", "one-record", b"\x00" + ars_status(0, [(R + 0x1000, 4096)]))
    write("fuzz_ars", "edges", b"\x00" + ars_status(0, [(R - 4096, 8192), (R + 2 * GiB - 2 * MiB - 512, 4096),
                                                        (R + 100, 1), (R + 0x20000, 0)]))
    # Stopped with the output full: restart from the third record.
    write("fuzz_ars", "overflow", b"\x01" + ars_status(3 << 16, [(R, 512), (R + 0x10000, 512)],
                                                         restart=(R + 0x20000, 2 * GiB - 2 * MiB - 0x20000),
                                                         flags=1))
    # Lies: more records counted than held; Linux's 48 + 24 n length; in progress.
    write("fuzz_ars", "count-lies", b"\x00" + ars_status(0, [(R, 512)], count=1000))
    write("fuzz_ars", "len-48", b"\x00" + ars_status(0, [(R, 512), (R + 4096, 512)], out_len=48 + 48))
    write("fuzz_ars", "busy", b"\x00" + struct.pack("<II", 1 << 16, 4))


# ---- fuzz_srat: a SRAT's entries (the harness adds the 48-byte header) ----

def srat():
    for d in ("qemu-7.2-seabios", "qemu-7.2-numa"):
        t = read(glob.glob(FIX + "/acpi/%s/SRAT-*.bin" % d)[0])
        write("fuzz_srat", d + ".entries", t[48:])
    # x2APIC CPUs in two domains, a wrapping range, a short entry.
    e = struct.pack("<BBHIIIII", 2, 24, 0, 5, 0x100, 1, 0, 0)
    e += struct.pack("<BBHIIIII", 2, 24, 0, 6, 0x101, 1, 0, 0)
    e += struct.pack("<BBIHQQIIQ", 1, 40, 6, 0, 0xfffffffffffff000, 0x2000, 0, 1, 0)
    e += struct.pack("<BB", 1, 8) + bytes(6)
    write("fuzz_srat", "x2apic-bad.entries", e)


# ---- fuzz_smart: Intel _DSM function 1 output, {u32 status, 128-byte payload} ----

def smart():
    def out(flags, health=0, temp=30 * 16, status=0, shutdown=0):
        p = bytearray(128)
        struct.pack_into("<I", p, 0, flags)
        p[8], p[9], p[10], p[11] = health, 100, 1, 0x3
        struct.pack_into("<HHI", p, 12, temp, 35 * 16, 3)
        p[31] = shutdown
        return struct.pack("<I", status) + bytes(p)
    write("fuzz_smart", "platform-default", out(0x47f))
    write("fuzz_smart", "critical-dirty-alarms", out(0x67f, health=2, temp=0x8000 | 40, shutdown=1))
    write("fuzz_smart", "status-not-supported", out(0x47f, status=1))
    write("fuzz_smart", "truncated", out(0x47f)[:40])


TARGETS = {"fuzz_pfn_info": pfn_info, "fuzz_multiboot2": multiboot2,
           "fuzz_efi_memmap": efi_memmap, "fuzz_memmap": memmap, "fuzz_acpi": acpi,
           "fuzz_madt": madt, "fuzz_badblocks": badblocks, "fuzz_ars": ars, "fuzz_smart": smart,
           "fuzz_srat": srat}

if __name__ == "__main__":
    for t in sys.argv[1:] or TARGETS:
        TARGETS[t]()
