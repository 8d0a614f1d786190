# ACPICA cases (issue 15, first part): the AML interpreter on QEMU's own
# tables, and the NVDIMM label _DSMs read through it.
#
# One boot: a 256 MiB nvdimm with label-size=128K whose label area (the last
# 128 KiB of the backing file, FACTS-2 §3.4) holds the label area Linux
# wrote in the fixture linux-6.1-labels-v1.2-create (its chunk 3, bin offset
# 0x5000, 131072 bytes; a copy of ../shared/fixtures/, described in its README). pmemk then
#  - evaluates \_S5 (a package of integers on QEMU's pc machine),
#  - evaluates the DIMM's _DSM function 4 (label size) with acpi-eval,
#  - reads the whole label area with read-labels (_DSM 4, then 5 in chunks
#    of the reported max transfer) and dumps it in hex;
# and the dump must equal the fixture's label area byte for byte.

ACPICA_FIXTURE=test/fixtures/linux-6.1-labels-v1.2-create.bin
ACPICA_DSM_UUID=4309ac30-0d11-11e4-9191-0800200c9a66

# acpica_check_labels LOG FIXTURE: the outputs of the boot below, against the fixture.
acpica_check_labels() {
	python3 - "$@" <<'PY'
import re, struct, sys
log = open(sys.argv[1], errors="replace").read().splitlines()
want = open(sys.argv[2], "rb").read()[0x5000:0x5000 + 131072]
def after(cmd):
    i = log.index("pmemk> " + cmd)
    j = next(k for k in range(i + 1, len(log)) if log[k].startswith("pmemk>"))
    # Not the kernel log, nor ACPICA's own lines (its table list at bring-up).
    return [l for l in log[i + 1:j] if not re.match(r"^(\[ *[0-9.]+\] |ACPI: )", l)]
# \_S5: a package whose first elements are integers (SLP_TYPa, SLP_TYPb).
s5 = after("acpi-eval _S5")
assert s5[0].startswith("Package (") and s5[1].strip().startswith("Integer "), s5
# _DSM 4: {status 0, label size, max transfer} as a 12-byte buffer.
dsm = after("acpi-eval _SB.NVDR.NV00._DSM u:4309ac30-0d11-11e4-9191-0800200c9a66 1 4 p:b:")
assert dsm[0] == "Buffer (12 bytes)", dsm
status, size, xfer = struct.unpack("<III", bytes.fromhex(dsm[1].strip()))
assert status == 0 and size == len(want) and 0 < xfer <= 4096, (status, size, xfer)
# read-labels: the summary, then the hex dump, equal to the fixture.
rl = after("read-labels nmem0 -x")
m = re.match(r"nmem0: handle 0x1 label area (\d+) bytes, max transfer (\d+), (\d+) reads, fletcher64 (0x[0-9a-f]+)$", rl[0])
assert m, rl[0]
assert int(m.group(1)) == size and int(m.group(2)) == xfer, rl[0]
assert int(m.group(3)) == -(-size // xfer), rl[0]
lo = hi = 0
for (w,) in struct.iter_unpack("<I", want):
    lo = (lo + w) & 0xffffffff
    hi = (hi + lo) & 0xffffffff
assert int(m.group(4), 16) == (hi << 32 | lo), (m.group(4), hex(hi << 32 | lo))
got = bytearray()
for n, l in enumerate(rl[1:]):
    off, hexs = l.split(":")
    assert int(off, 16) == 32 * n, l
    got += bytes.fromhex(hexs)
assert bytes(got) == want, "label area differs from the fixture at byte %d" % next(
    i for i in range(min(len(got), len(want)) + 1) if i == len(got) or got[i] != want[i])
assert want[:16] == b"NAMESPACE_INDEX\0"
print("    label area through _DSM 5: %d bytes in %s reads of <= %d, equal to the fixture" % (size, m.group(3), xfer))
PY
}

case_acpica_label_dsm() {
	local name=acpica_labels dir=build/qemu/acpica_labels
	if [ ! -f "$ACPICA_FIXTURE" ]; then
		echo "    FAIL: fixture $ACPICA_FIXTURE missing"
		CASE_FAILED=1
		return
	fi
	# The backing file run-qemu keeps (right size), label area from the fixture.
	mkdir -p "$dir"
	rm -f "$dir/nvdimm0.img"
	truncate -s 256M "$dir/nvdimm0.img"
	dd if="$ACPICA_FIXTURE" of="$dir/nvdimm0.img" bs=4096 skip=$((0x5000 / 4096)) count=32 \
		seek=$(((256 << 20) / 4096 - 32)) conv=notrunc status=none
	boot "$name" 0 --ram 1G --nvdimm 256M --nvdimm-opts label-size=128K --cmdline \
		"\"run=acpi-nvdimms; acpi-eval _S5; acpi-eval _SB.NVDR.NV00._DSM u:$ACPICA_DSM_UUID 1 4 p:b:; read-labels nmem0 -x; read-labels nmem9; acpi-eval _SB.NOPE; poweroff\""
	expect '\] acpica: ACPICA [0-9a-f]{8} up, AML tables loaded'
	# The root device and its one child, function bitmap 0x71 (0, 4, 5, 6: FACTS §4.4).
	expect '^\\_SB_\.NVDR: NVDIMM root device \(ACPI0012\)$'
	expect '^  \\_SB_\.NVDR\.NV00: _ADR 0x1 \(nmem0\), _DSM functions 0x71$'
	expect '^read-labels: no DIMM nmem9$'
	expect '^acpi-eval: \\_SB\.NOPE: AE_NOT_FOUND$'
	local out
	if out=$(acpica_check_labels "$LOG" "$ACPICA_FIXTURE" 2>&1); then
		echo "$out"
	else
		echo "$out" | tail -3 | sed 's/^/    FAIL: /'
		CASE_FAILED=1
	fi
}

# No isa-debug-exit, as on a real machine: `reboot` tries the FADT reset
# register (QEMU's pc FADT is revision 1, 116 bytes, without one: the
# command must say so and go on), then `poweroff` enters S5 through
# ACPICA, which makes QEMU quit with no kernel status (run-qemu: 126). A
# kernel that only halted would time out instead (124). On the way, two
# refusals that must cost one line each: an nvdimm without label-size
# answers the label-size _DSM with status 1 (not supported, FACTS §4.4),
# and an argument acpi-eval cannot parse.
case_acpica_poweroff_s5() {
	boot acpica_s5 126 --no-debug-exit --timeout 120 --ram 1G --nvdimm 256M --fresh \
		--cmdline '"run=acpi-nvdimms; read-labels nmem0; acpi-eval _S5 zz; reboot; poweroff 3"'
	# Without label-size QEMU's DIMM _DSM supports no function (bitmap 0).
	expect '^  \\_SB_\.NVDR\.NV00: _ADR 0x1 \(nmem0\), _DSM functions 0$'
	expect '^read-labels: _DSM function 4: status 0x1$'
	expect "^acpi-eval: argument 1 'zz': not a number"
	expect '^acpica: reset: the FADT \(revision 1\) has no reset register$'
	expect '\] poweroff: status 3$'
	expect '^acpica: entering S5 \(soft off\)$'
	expect_not 'halted with status|still running after S5'
}
