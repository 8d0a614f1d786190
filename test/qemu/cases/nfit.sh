# ACPI and NFIT discovery cases (issue "ACPI and NFIT discovery").
#
# Each boot runs `list` and the discovery ktests from the shell, then
# powers off. nfit_expect_regions checks the boot lines and the JSON
# against the regions QEMU must have placed: the first nvdimm at 4 GiB
# (RAM <= 2 GiB here), each next one right after the previous (run-qemu
# gives every backend align=2M and all sizes are 2 MiB multiples).

NFIT_RUN='"run=list; ktest fw_tables_*,nvdimm_*; poweroff"'

# nfit_check_regions LOG "START SIZE PROVIDER HANDLE PERSISTENCE" ...:
# exactly these regions, in this order (HANDLE - for none), in the boot
# lines and in the `list` JSON, each with its one raw namespace.
nfit_check_regions() {
	python3 - "$@" <<'PY'
import json, re, sys
log = open(sys.argv[1], errors="replace").read().splitlines()
want = [w.split() for w in sys.argv[2:]]
def size(s):
    return int(s[:-1]) << {"M": 20, "G": 30}[s[-1]] if s[-1] in "MG" else int(s, 0)
lines = [re.sub(r"^\[ *[0-9.]+\] ", "", l) for l in log if re.search(r"\] nd_region region", l)]
assert len(lines) == len(want), "%d region lines, want %d: %s" % (len(lines), len(want), lines)
i = log.index("pmemk> list")
j = next(k for k in range(i + 1, len(log)) if log[k].startswith("pmemk>"))
doc = json.loads("\n".join(log[i + 1:j]))
# ndctl's shapes: one category is a bare array, several an object.
regions = doc if isinstance(doc, list) else doc.get("regions", [])
dimms = {d["dev"]: d for d in doc.get("dimms", [])} if isinstance(doc, dict) else {}
assert len(regions) == len(want), "JSON has %d regions" % len(regions)
for n, (w, line, r) in enumerate(zip(want, lines, regions)):
    start, sz, prov, handle, persist = int(w[0], 0), size(w[1]), w[2], w[3], w[4]
    head = "nd_region region%d: [mem %#x-%#x] %s pmem, " % (n, start, start + sz - 1, prov)
    assert line.startswith(head), "line %r, want %r..." % (line, head)
    assert line.endswith("persistence " + persist), line
    assert r["dev"] == "region%d" % n and r["size"] == sz and r["type"] == "pmem", r
    assert r["align"] == (16 << 20) and r["available_size"] == 0, r
    assert r["persistence_domain"] == persist, r
    if handle == "-":
        assert "mappings" not in r and "no dimms" in line, (r, line)
    else:
        m = r["mappings"]
        assert len(m) == 1 and m[0]["length"] == sz and m[0]["offset"] == 0, m
        assert dimms[m[0]["dimm"]]["handle"] == int(handle, 0), dimms
        assert "1 dimm (handle %#x)" % int(handle, 0) in line, line
    ns = r["namespaces"]
    assert ns == [{"dev": "namespace%d.0" % n, "mode": "raw", "size": sz, "sector_size": 512,
                   "blockdev": "pmem%d" % n, "numa_node": 0, "target_node": 0}], ns
print("    regions ok: " + "; ".join(l.split(": ", 1)[1].split(" pmem")[0] for l in lines))
PY
}

# nfit_expect_regions REGION...: nfit_check_regions on this boot's log; and
# every discovery ktest ran and passed (the e820 one where a region comes
# from e820: without e820 pmem it skips).
nfit_expect_regions() {
	local out
	if out=$(nfit_check_regions "$LOG" "$@" 2>&1); then
		echo "$out"
	else
		echo "$out" | tail -3 | sed 's/^/    FAIL: /'
		CASE_FAILED=1
	fi
	expect_ktest_ran fw_tables_listed_check_out nvdimm_regions_come_from_the_firmware \
		nvdimm_regions_ordered_with_namespaces nvdimm_region_edges_readable
	case " $* " in
	*" e820 "*) expect_ktest_ran nvdimm_e820_pmem_all_registered ;;
	esac
	expect_ktest_pass
}

# The regions of nvdimms of these sizes (in MiB), packed from 4 GiB.
nfit_packed() {
	local base=$((4 << 30)) h=1 s
	for s in "$@"; do
		printf '%#x %dM nfit %d unknown\n' $base "$s" $h
		base=$((base + (s << 20)))
		h=$((h + 1))
	done
}

case_nfit_one_dimm() {
	boot nfit_one 0 --ram 1G --nvdimm 1G --cmdline "$NFIT_RUN"
	expect '\] ACPI: NFIT 0x[0-9A-F]{16} 0000E0 \(v01 BOCHS  BXPC '
	expect '\] nvdimm nmem0: ndbus0 handle 0x1, phys_id 0, id 8680-56341200$'
	nfit_expect_regions "0x100000000 1G nfit 1 unknown"
}

# Acceptance: two nvdimms (1 GiB + 3 GiB), two nfit regions at QEMU's ranges.
case_nfit_two_dimms_bios() {
	boot nfit_two_bios 0 --ram 1G --nvdimm 1G --nvdimm 3G --cmdline "$NFIT_RUN"
	expect '\] ACPI: RSDP \(multiboot2 copy\) 000014 \(v00 BOCHS \)'
	expect '\] ACPI: RSDT 0x'
	nfit_expect_regions "0x100000000 1G nfit 1 unknown" "0x140000000 3G nfit 2 unknown"
}

case_nfit_two_dimms_uefi() {
	boot nfit_two_uefi 0 --firmware uefi --ram 1G --nvdimm 1G --nvdimm 3G --cmdline "$NFIT_RUN"
	expect '\] ACPI: RSDP \(multiboot2 copy\) 000024 \(v02 BOCHS \)'
	expect '\] ACPI: XSDT 0x'
	nfit_expect_regions "0x100000000 1G nfit 1 unknown" "0x140000000 3G nfit 2 unknown"
	# The same regions as on SeaBIOS.
	local efi bios
	efi=$(lines '\] nd_region ')
	LOG=$LOGDIR/nfit_two_bios.log
	bios=$(lines '\] nd_region ')
	if [ -z "$efi" ] || [ "$efi" != "$bios" ]; then
		echo "    FAIL: regions differ between SeaBIOS and OVMF:"
		echo "    bios: $bios"; echo "    efi:  $efi"
		CASE_FAILED=1
	fi
}

# Four nvdimms of different sizes; QEMU lists them out of address order.
case_nfit_four_dimms() {
	local regions
	mapfile -t regions < <(nfit_packed 512 1024 256 2048)
	boot nfit_four 0 --ram 1G --nvdimm 512M --nvdimm 1G --nvdimm 256M --nvdimm 2G \
		--cmdline "$NFIT_RUN"
	expect 'nfit: NFIT at 0x[0-9a-f]+ \(776 bytes\): 4 SPA, 4 MEMDEV, 4 DCR'
	nfit_expect_regions "${regions[@]}"
}

# label-size takes the label area off the end: 1 GiB - 2 MiB with align=2M.
case_nfit_label_size() {
	boot nfit_label 0 --ram 1G --nvdimm 1G --nvdimm-opts label-size=128K --cmdline "$NFIT_RUN"
	nfit_expect_regions "0x100000000 0x3fe00000 nfit 1 unknown"
}

case_nfit_persistence_cpu() {
	boot nfit_persist_cpu 0 --ram 1G --nvdimm 1G --persistence cpu --cmdline "$NFIT_RUN"
	expect 'nfit: NFIT at 0x[0-9a-f]+ \(240 bytes\): 1 SPA, 1 MEMDEV, 1 DCR, 0 IDT, 0 SMBIOS, 0 BDW, 0 FLUSH, 1 CAPS$'
	nfit_expect_regions "0x100000000 1G nfit 1 cpu_cache"
}

case_nfit_persistence_mem_ctrl() {
	boot nfit_persist_memctrl 0 --ram 1G --nvdimm 1G --persistence mem-ctrl --cmdline "$NFIT_RUN"
	nfit_expect_regions "0x100000000 1G nfit 1 memory_controller"
}

# Acceptance: memmap= legacy pmem without any nvdimm is one e820 region.
case_nfit_e820_memmap_only() {
	boot nfit_e820_only 0 --ram 2G --cmdline "memmap=512M!1G $NFIT_RUN"
	expect '\] user: \[mem 0x0000000040000000-0x000000005fffffff\] persistent \(type 12\)'
	expect_not '\] ACPI: NFIT'
	nfit_expect_regions "0x40000000 512M e820 - unknown"
}

# Acceptance: both together are three regions, none twice.
case_nfit_and_e820_together() {
	boot nfit_e820_both 0 --ram 2G --nvdimm 1G --nvdimm 3G --cmdline "memmap=512M!1G $NFIT_RUN"
	nfit_expect_regions "0x40000000 512M e820 - unknown" \
		"0x100000000 1G nfit 1 unknown" "0x140000000 3G nfit 2 unknown"
}

# NUMA (issue 33 item 6): nodes 0, 1 and 2, two CPUs on node 0, the
# nvdimm on node 2 (run-qemu --numa 2: QEMU lists it in its SRAT under
# domain 2 and gives the NFIT SPA proximity domain 2; node 1 is empty).
# Linux 6.1 on this machine numbered domain 2 node 1 (the next node when
# first named: "SRAT: Node 1 PXM 2 ... non-volatile") and printed
# numa_node 0 (node 1 has no CPU and no RAM: the nearest online node) and
# target_node 1 for region0 and namespace0.0; so must pmemk.
case_nfit_numa() {
	boot nfit_numa 0 --ram 1G --nvdimm 1G --numa 2 --smp 2 --cmdline '"run=list -RN; poweroff"'
	expect '\] srat: 2 CPU and 6 memory affinity entries, 2 proximity domains as nodes 0-1, 1 online$'
	expect '\] srat: node 0: proximity domain 0$'
	expect '\] srat: node 1: proximity domain 2, offline \(no CPU, no RAM\)$'
	local n t
	n=$(grep -c '^ *"numa_node":0,$' "$LOG")
	t=$(grep -cE '^ *"target_node":1,?$' "$LOG")
	if [ "$n" != 2 ] || [ "$t" != 2 ]; then
		echo "    FAIL: list -RN: $n numa_node 0 and $t target_node 1, want 2 each (region, namespace)"
		CASE_FAILED=1
	else
		echo "    list -RN: region0 and namespace0.0 numa_node 0, target_node 1"
	fi
}

# The RSDP from the BIOS scan and from the EFI configuration table, not the copy.
case_nfit_rsdp_bios_scan() {
	boot nfit_rsdp_bios 0 --ram 1G --nvdimm 1G --cmdline "acpi_rsdp=bios $NFIT_RUN"
	expect '\] ACPI: RSDP 0x00000000000[EF][0-9A-F]{4} 000014 \(v00 BOCHS \) from BIOS$'
	nfit_expect_regions "0x100000000 1G nfit 1 unknown"
}

case_nfit_rsdp_efi_config_table() {
	boot nfit_rsdp_efi 0 --firmware uefi --ram 1G --nvdimm 1G --cmdline "acpi_rsdp=efi $NFIT_RUN"
	expect '\] ACPI: RSDP 0x[0-9A-F]{16} 000024 \(v02 BOCHS \) from EFI$'
	nfit_expect_regions "0x100000000 1G nfit 1 unknown"
}

# nfit_make_table FILE KIND: an NFIT for -acpitable (QEMU recomputes the
# checksum). Each holds a valid group (SPA at 8 GiB + memdev + DCR, handle
# 0x20) and an SPA overlapping QEMU's nvdimm, then KIND's defect:
# zero (a subtable of length 0), past (one running past the end) or short
# (an SPA below its 56 bytes). An SPA after the defect must never be seen.
nfit_make_table() {
	python3 - "$@" <<'PY'
import struct, sys
path, kind = sys.argv[1], sys.argv[2]
PM = bytes.fromhex("79d3f066f3b47440ac430d3318b78cdb")
def spa(idx, base, length):
    return struct.pack("<HHHHII16sQQQ", 0, 56, idx, 3, 0, 0, PM, base, length, 0x8008)
memdev = struct.pack("<HHIHHHHQQQHHHH", 1, 48, 0x20, 0, 0, 2, 3, 256 << 20, 0, 0, 0, 1, 0, 0)
dcr = struct.pack("<HHHHHH", 4, 80, 3, 0x8086, 1, 1) + bytes(12) + struct.pack("<IHH", 0xabcd, 0x301, 0) + bytes(48)
subs = spa(2, 8 << 30, 256 << 20) + memdev + dcr + spa(4, (4 << 30) + (512 << 20), 1 << 30)
subs += {"zero": struct.pack("<HH", 1, 0) + bytes(44),
         "past": struct.pack("<HH", 6, 400) + bytes(12),
         "short": struct.pack("<HH", 0, 40) + bytes(36)}[kind]
subs += spa(6, 16 << 30, 256 << 20)
hdr = struct.pack("<4sIBB6s8sI4sI", b"NFIT", 40 + len(subs), 1, 0, b"PMEMK ", b"BADNFIT ", 1, b"PMEK", 1) + bytes(4)
t = bytearray(hdr + subs)
t[9] = -sum(t) & 0xff
open(path, "wb").write(t)
PY
}

# Acceptance: a malformed extra NFIT prints the parser's message, what is
# valid in it is registered, the overlapping range is refused, no crash.
# The three extra tables share DIMM handle 0x20: the first registers it,
# the other two are refused whole (never a second DIMM with that handle).
case_nfit_malformed_extra_table() {
	local kind dir=$LOGDIR/nfit_bad_tables args=()
	mkdir -p "$dir"
	for kind in zero past short; do
		nfit_make_table "$dir/$kind.bin" $kind
		args+=(--acpitable "$dir/$kind.bin")
	done
	boot nfit_malformed 0 --ram 1G --nvdimm 1G "${args[@]}" --cmdline "$NFIT_RUN"
	expect '\] nfit: MEMDEV \(type 1\) at offset 0x118 has length 0, walk stopped$'
	expect '\] nfit: FLUSH \(type 6\) at offset 0x118: length 400 runs past the table end 0x160, walk stopped$'
	expect '\] nfit: SPA \(type 0\) at offset 0x118: length 40 below its minimum 56, walk stopped$'
	expect '\] nd_region: nfit \[mem 0x120000000-0x15fffffff\] overlaps nfit \[mem 0x100000000-0x13fffffff\], rejected$'
	expect '\] nvdimm nmem1: ndbus1 handle 0x20, phys_id 0, id 8680-cdab0000$'
	if [ "$(lines 'nfit: NFIT at 0x[0-9a-f]+: DIMM handle 0x20 is already nmem1 from an earlier NFIT, this table refused$' | wc -l)" != 2 ]; then
		echo "    FAIL: want two extra NFITs refused for handle 0x20"
		CASE_FAILED=1
	fi
	expect_not 'nvdimm nmem2'
	expect_not '0x400000000'
	nfit_expect_regions "0x100000000 1G nfit 1 unknown" "0x200000000 256M nfit 0x20 unknown"
}
