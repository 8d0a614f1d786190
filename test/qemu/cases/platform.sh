# The App Direct platform of tools/mkplatform (issue 33 item 1,
# docs/PLATFORM.md): interleave sets on pc-dimms, our NFIT and SSDT, the
# firmware store in file-backed RAM. Host checks of the tool and its AML,
# then pmemk booted on a 4-way set and on two 2-way sets, on a set whose
# label areas hold the labels Linux wrote (its namespace comes up; with one
# DIMM's area blank the set is refused), creating namespaces across sets,
# and SIGKILLs during creates and destroys across a 4-way set.
# Helpers: test/qemu/platform_check.py; the AML test: test/qemu/platform_aml.asl.

PLATFORM_FIXTURE=test/fixtures/synthetic-4way
ROOT_UUID=2f10e7a4-9e91-11e4-89d3-123b93f75cba
INTEL_UUID=4309ac30-0d11-11e4-9191-0800200c9a66
INFOBLOCK=${INFOBLOCK:-build/tools/pmemk-infoblock}

# platform_make DIR ARGS...: tools/mkplatform DIR ARGS, failing the case on an
# error or on any iasl warning (the generator's ASL must compile clean).
platform_make() {
	local out
	if ! out=$(tools/mkplatform "$@" 2>&1) || grep -q 'iasl:' <<<"$out"; then
		echo "    FAIL: tools/mkplatform $*:"
		sed 's/^/    | /' <<<"$out" | tail -8
		CASE_FAILED=1
		return 1
	fi
}

# platform_py ARGS...: test/qemu/platform_check.py, its lines shown, failing the case on exit 1.
platform_py() {
	local out
	if out=$(python3 test/qemu/platform_check.py "$@" 2>&1); then
		[ -z "$out" ] || echo "$out"
	else
		sed 's/^/    FAIL: /' <<<"$out" | tail -4
		CASE_FAILED=1
	fi
}

# want_eq WHAT GOT WANT
want_eq() {
	if [ "$2" != "$3" ]; then
		echo "    FAIL: $1 is '$2', want '$3'"
		CASE_FAILED=1
	fi
}

# platform_calls DIR PATH: one call counter of the store (e.g. dimm_dsm.5).
platform_calls() {
	python3 test/qemu/platform_check.py show-field "$(tools/mkplatform "$1" --show)" "calls.$2"
}

# The tool on the host, no boot: the 4-way NFIT equals the one Linux
# accepted (FACTS-4, the fixture) once flush hints are left out; each NFIT
# decodes to what platform.json says; the SSDT's methods answer right under
# acpiexec with 32-bit integers; the store edits read back.
case_platform_tool() {
	local d=build/qemu/platform_tool out
	rm -rf "$d"
	mkdir -p "$d"
	platform_make "$d/fx" --sets 4 --flush-hints 0 || return
	platform_py nfit-vs-fixture "$d/fx/nfit.bin" "$PLATFORM_FIXTURE/nfit.bin"
	platform_make "$d/p4" --sets 4 || return
	platform_py decode "$d/p4/nfit.bin" "$d/p4/platform.json"
	platform_make "$d/p22" --sets 2,2 --label-methods dsm || return
	platform_py decode "$d/p22/nfit.bin" "$d/p22/platform.json"
	platform_make "$d/p111" --sets 1,1,2 --dimm-size 512M --label-size 256K \
		--persistence cpu_cache --flush-hints 2 --label-methods acpi || return
	platform_py decode "$d/p111/nfit.bin" "$d/p111/platform.json"
	want_eq "2,2 memmap" "$(tools/mkplatform "$d/p22" --memmap)" '2M$1022M'
	grep -q 'Method (_LSR' "$d/p22/ssdt.asl" && { echo "    FAIL: --label-methods dsm has _LSR"; CASE_FAILED=1; }
	grep -q 'Method (_LSR' "$d/p4/ssdt.asl" || { echo "    FAIL: --label-methods both has no _LSR"; CASE_FAILED=1; }
	grep -q 'HDSM (Arg0' "$d/p111/ssdt.asl" || { echo "    FAIL: --label-methods acpi has no Hyper-V _DSM"; CASE_FAILED=1; }

	# The AML, run by ACPICA's acpiexec on a revision-1 DSDT (32-bit integers).
	printf 'DefinitionBlock ("", "DSDT", 1, "PMEMK ", "DSDT32", 1)\n{\n}\n' >"$d/dsdt.asl"
	cp test/qemu/platform_aml.asl "$d/"
	if ! iasl -p "$d/dsdt" "$d/dsdt.asl" >"$d/iasl.log" 2>&1 ||
		! iasl -p "$d/platform_aml" "$d/platform_aml.asl" >>"$d/iasl.log" 2>&1; then
		tail -5 "$d/iasl.log" | sed 's/^/    FAIL: /'
		CASE_FAILED=1
		return
	fi
	out=$(timeout 120 acpiexec -b "execute MAIN" "$d/dsdt.aml" "$d/p4/ssdt.aml" \
		"$d/platform_aml.aml" 2>&1)
	if grep -q 'ACPI Debug:  "PASS [0-9]*"' <<<"$out" && ! grep -q 'FAIL' <<<"$out"; then
		echo "    AML under acpiexec: $(grep -o 'PASS [0-9]*' <<<"$out") checks"
	else
		grep -A2 'FAIL\|Error\|AE_' <<<"$out" | head -20 | sed 's/^/    FAIL: /'
		CASE_FAILED=1
	fi

	# Store edits: an error outside every set is refused; the rest read back.
	if tools/mkplatform "$d/p22" --add-error 0x80000000 4096 2>/dev/null; then
		echo "    FAIL: --add-error outside the sets accepted"
		CASE_FAILED=1
	fi
	platform_make "$d/p22" --add-error 0x120003000 512 --smart nmem2 health_state=fatal \
		temperature_celsius=-2.5 shutdown_state=dirty || return
	out=$(tools/mkplatform "$d/p22" --show)
	want_eq "error handle" "$(platform_py show-field "$out" errors.0.handle)" 0x101
	want_eq "SMART health" "$(platform_py show-field "$out" smart.nmem2.health_state)" fatal
	want_eq "SMART temperature" "$(platform_py show-field "$out" smart.nmem2.temperature_celsius)" -2.5
	want_eq "SMART shutdown" "$(platform_py show-field "$out" smart.nmem2.shutdown_state)" dirty
	want_eq "SMART default" "$(platform_py show-field "$out" smart.nmem1.controller_temperature_celsius)" 35.0
	platform_make "$d/p22" --label-area 3 "$PLATFORM_FIXTURE/labels-nmem3.bin" \
		--dump-label-area 0x101 "$d/nmem3.bin" --clear-errors || return
	cmp -s "$d/nmem3.bin" "$PLATFORM_FIXTURE/labels-nmem3.bin" ||
		{ echo "    FAIL: label area round trip"; CASE_FAILED=1; }
	want_eq "errors after --clear-errors" "$(tools/mkplatform "$d/p22" --show | grep -c '"handle"')" 0
}

# pmemk on one 4-way set with blank label areas but nmem1's, which holds a
# pattern (no index): the NFIT parsed (its interleave and flush-hint
# structures too), the four DIMMs found by ACPICA with the Intel label
# functions, every label area read through _DSM 5 (nmem1's bytes as the
# store holds them), one region of four mappings at positions 0-3 with
# Linux's label-less namespace over it. Then init-labels nmem2 writes an
# index through _DSM 6 into the store, and the set closes at once.
case_platform_4way() {
	local d=build/qemu/platform_4way/plat
	platform_make "$d" --sets 4 || return
	python3 -c 'import sys; sys.stdout.buffer.write(bytes((i * 7 + i // 256) & 255 for i in range(131072)))' \
		>"$d/../nmem1-pattern.bin"
	tools/mkplatform "$d" --label-area 1 "$d/../nmem1-pattern.bin" --reset-counters
	local f64
	f64=$(python3 test/qemu/platform_check.py fletcher64 "$d/../nmem1-pattern.bin")
	boot platform_4way 0 --platform "$d" --timeout 120 --cmdline \
		'"run=list -RDN; acpi-nvdimms; read-labels nmem1; init-labels nmem2; list -RN; poweroff"'
	expect "memmap=2M\\\$1022M"
	expect '\] nfit: NFIT at 0x[0-9a-f]+ \(800 bytes\): 1 SPA, 4 MEMDEV, 4 DCR, 4 IDT, 0 SMBIOS, 0 BDW, 4 FLUSH, 1 CAPS$'
	expect '\] nvdimm nmem0: ndbus0 handle 0x1, phys_id 0, id 8980-a2-1918-5e000101, 1 flush hint at 0x3fe04000$'
	expect '\] nvdimm nmem3: ndbus0 handle 0x101, phys_id 0x3, id 8980-a2-1918-5e000104, 1 flush hint at 0x3fe040c0$'
	want_eq "label areas read" "$(grep -cE '\] nvdimm nmem[0-3]: label area 131072 bytes \(32 reads of <= 4096\)$' "$LOG")" 4
	expect '\] nd_region region0: \[mem 0x100000000-0x13fffffff\] nfit pmem, 4 dimms \(handles 0x1, 0x11, 0x21, 0x101\), persistence memory_controller$'
	expect '\] nd_pmem namespace0.0: raw, pmem0, 1024 MiB$'
	expect 'root _DSM functions 0x39f'
	want_eq "DIMM devices" "$(grep -cE '^  \\_SB_\.NVDR\.NV0[0-3]: _ADR 0x(1|11|21|101) \(nmem[0-3]\), _DSM functions 0x73$' "$LOG")" 4
	expect "^nmem1: handle 0x11 label area 131072 bytes, max transfer 4096, 32 reads, fletcher64 $f64\$"
	expect '^initialized 1 nmem$'
	expect 'nd_label region0: disabled, no namespace: 1 of its 4 DIMMs hold a label index, nmem0 has no valid label index'
	platform_py list "$LOG" "$d/platform.json"
	# The reads and the writes went through the store.
	want_eq "_DSM 5 calls" "$(platform_calls "$d" dimm_dsm.5)" 160
	want_eq "_DSM 4 calls" "$(platform_calls "$d" dimm_dsm.4)" 5
	[ "$(platform_calls "$d" dimm_dsm.6)" -gt 0 ] || { echo "    FAIL: no _DSM 6 call"; CASE_FAILED=1; }
	tools/mkplatform "$d" --dump-label-area 2 "$d/../nmem2.bin"
	want_eq "nmem2 index signature" "$(head -c 15 "$d/../nmem2.bin")" NAMESPACE_INDEX
}

# pmemk on two 2-way sets: two regions of two DIMMs each. A media error
# stored before boot (0x120001000, 4 KiB: set 2, line 1, its second DIMM
# 0x101), and pmemk's acpi-eval drives the root _DSM: ARS status before any
# start, a start over set 2, the status with the record, a clear, the
# status without it; the store's list is empty afterwards. nmem3's SMART
# fields, set on the host, come back through the DIMM _DSM; nmem1-3's
# (dirty, non-critical with alarms, critical) give boot lines and list -DH.
case_platform_2x2() {
	local d=build/qemu/platform_2x2/plat r="acpi-eval _SB.NVDR._DSM u:$ROOT_UUID 1"
	local set2=0000002001000000 len2=0000002000000000 err=0010002001000000 page=0010000000000000
	platform_make "$d" --sets 2,2 --add-error 0x120001000 4096 --smart 3 health_state=critical \
		temperature_celsius=41.5 life_used_percentage=7 --smart 2 health_state=non-critical \
		temperature_celsius=-2.5 controller_temperature_celsius=52.5 alarm_flags=5 \
		--smart 1 shutdown_state=dirty shutdown_count=12 || return
	tools/mkplatform "$d" --reset-counters
	boot platform_2x2 0 --platform "$d" --timeout 120 --cmdline \
		"nd.ars=off \"run=list -RDN; list -DH; $r 3 p:b:; $r 2 p:b:$set2${len2}0200000000000000; $r 3 p:b:; $r 4 p:b:$err$page; $r 3 p:b:; acpi-eval _SB.NVDR.NV03._DSM u:$INTEL_UUID 1 1 p:b:; poweroff\""
	expect '\] nfit: NFIT at 0x[0-9a-f]+ \(856 bytes\): 2 SPA, 4 MEMDEV, 4 DCR, 4 IDT, 0 SMBIOS, 0 BDW, 4 FLUSH, 1 CAPS$'
	expect '\] nd_region region0: \[mem 0x100000000-0x11fffffff\] nfit pmem, 2 dimms \(handles 0x1, 0x11\), persistence memory_controller$'
	expect '\] nd_region region1: \[mem 0x120000000-0x13fffffff\] nfit pmem, 2 dimms \(handles 0x21, 0x101\), persistence memory_controller$'
	expect '\] nd_pmem namespace0.0: raw, pmem0, 512 MiB$'
	expect '\] nd_pmem namespace1.0: raw, pmem1, 512 MiB$'
	platform_py list "$LOG" "$d/platform.json"
	# Health: a boot line for each DIMM not ok or shut down dirty, none for
	# nmem0; list -DH gives every DIMM the store's SMART fields, ndctl's way.
	expect '\] nvdimm nmem1: health ok, media 30\.0 C, controller 35\.0 C, spares 100%, life used 1%, shutdown dirty, 12 unsafe shutdowns$'
	expect '\] nvdimm nmem2: health non-critical, media -2\.5 C, controller 52\.5 C, .*, shutdown clean, 3 unsafe shutdowns$'
	expect '\] nvdimm nmem3: health critical, media 41\.5 C, .*life used 7%'
	expect_not '\] nvdimm nmem0: health'
	platform_py health "$LOG" "$d/platform.json" "$(tools/mkplatform "$d" --show)"
	# nmem2's alarm trips 5: spares and controller temperature (nd_smart.h).
	expect '"alarm_temperature":false,'
	expect '"alarm_controller_temperature":true,'
	expect '"alarm_spares":true,'
	local hdr=0000000000000000000000000000000000000000000000000000000000000000 got
	# Status (extended 2: no ARS performed), length 44, then zeros.
	got=$(platform_py eval-buffer "$LOG" "$r 3 p:b:" 1)
	want_eq "ARS status before a start" "$got" "000002002c000000${hdr}0000000000000000"
	want_eq "ARS start" "$(platform_py eval-buffer "$LOG" "$r 2 p:b:$set2${len2}0200000000000000")" 0000000000000000
	# Status 0, length 68, the range, no restart, type 2, 1 record {0x101, 0, address, 4 KiB}.
	want_eq "ARS status with the error" "$(platform_py eval-buffer "$LOG" "$r 3 p:b:" 2)" \
		"0000000044000000$set2$len2${hdr:0:32}02000000010000000101000000000000$err$page"
	want_eq "clear" "$(platform_py eval-buffer "$LOG" "$r 4 p:b:$err$page")" "0000000000000000$page"
	want_eq "ARS status after the clear" "$(platform_py eval-buffer "$LOG" "$r 3 p:b:" 3)" \
		"000000002c000000$set2$len2${hdr:0:32}0200000000000000"
	want_eq "errors left in the store" "$(tools/mkplatform "$d" --show | grep -c '"handle"')" 0
	want_eq "ARS starts" "$(platform_calls "$d" root_dsm.2)" 1
	# SMART: status 0, flags 0x43f, reserved, health 2 (critical), spares 100,
	# life used 7, alarms 0, temperatures 41.5 and 35.0 C (x16), 3 shutdowns.
	want_eq "SMART" "$(platform_py eval-buffer "$LOG" "acpi-eval _SB.NVDR.NV03._DSM u:$INTEL_UUID 1 1 p:b:" | head -c 48)" \
		"000000003f04000000000000026407009802300203000000"
}

# ars_out CMD: what the shell printed for the command line CMD (the first
# one so written), blanks and newlines removed.
ars_out() {
	awk -v c="pmemk> $1" '$0 == c { on = 1; next } on && /^pmemk> / { exit } on' "$LOG" | tr -d ' \n'
}

# ars_want WHAT GOT PATTERN: GOT holds the fixed string PATTERN.
ars_want() {
	if ! grep -qF -- "$3" <<<"$2"; then
		echo "    FAIL: $1 has no '$3'"
		CASE_FAILED=1
	fi
}

# Address Range Scrub (issue 33 item 3): two errors stored before boot
# (region0 sectors 128-135, region1 sector 16) are found by the boot scrub
# and listed; reads of them fail with an I/O error; a write over region0's
# clears it through the firmware (function 4) and the next read works; the
# store no longer has it after poweroff, while region1's, never written,
# stays. Then injection through the firmware (functions 7/9) with
# --no-notify: listed only after start-scrub / wait-scrub; --status shows it;
# --uninject takes it out of the firmware (function 8); a notified one is
# listed at once (pmemk answers the notification with a scrub).
case_platform_ars() {
	local d=build/qemu/platform_ars/plat show
	platform_make "$d" --sets 2,2 --add-error 0x100010000 4096 --add-error 0x120002000 512 || return
	tools/mkplatform "$d" --reset-counters
	boot platform_ars 0 --platform "$d" --timeout 120 --cmdline \
		'"run=list -RNM; read pmem0 128 1; read pmem0 135 1; read pmem1 16 1; write pmem0 128 8 pattern=0x5a; cmp pmem0 128 8 pattern=0x5a; list -RM -r region0; inject-error namespace0.0 -B 100 -n 2 -N; list -RNM -r region0; inject-error namespace0.0 --status; start-scrub region0; wait-scrub region0; list -RNM -r region0; inject-error namespace0.0 -B 100 -n 2 --uninject; inject-error namespace0.0 -t; inject-error namespace1.0 --block=300; list -RM -r region1; poweroff"'
	expect '\] nfit: the firmware offers Address Range Scrub \(root _DSM functions 0x39f: clear error, error injection\)$'
	expect '\] region0: Address Range Scrub \(started at boot\): 1 error record, 8 bad sectors listed; clear unit 256 bytes$'
	expect '\] region1: Address Range Scrub \(started at boot\): 1 error record, 1 bad sector listed; clear unit 256 bytes$'
	ars_want "list -RNM at boot" "$(ars_out 'list -RNM')" \
		'"blockdev":"pmem0","numa_node":0,"target_node":0,"badblock_count":8,"badblocks":[{"offset":128,"length":8}]'
	ars_want "list -RNM at boot" "$(ars_out 'list -RNM')" '"badblock_count":1,"badblocks":[{"offset":16,"length":1}]'
	expect '^read pmem0: I/O error at sector 128$'
	expect '^read pmem0: I/O error at sector 135$'
	expect '^read pmem1: I/O error at sector 16$'
	expect_not "^write pmem0: I/O error|'(write|cmp) pmem0 128 8 pattern=0x5a' returned"
	expect '^cmp pmem0: 4096 bytes at 0x10000 match$'
	ars_want "list after the write" "$(ars_out 'list -RM -r region0')" '"dev":"region0"'
	if grep -q badblock <<<"$(ars_out 'list -RM -r region0')"; then
		echo "    FAIL: region0 still lists bad blocks after the write"
		CASE_FAILED=1
	fi
	expect '^inject-error namespace0.0: the firmware injected an error at blocks 100-101 \(1024 bytes at 0x10000c800\); the next scrub lists them'
	if grep -q badblock <<<"$(ars_out 'list -RNM -r region0')"; then
		echo "    FAIL: an injection without notification was listed before a scrub"
		CASE_FAILED=1
	fi
	want_eq "inject-error --status" "$(ars_out 'inject-error namespace0.0 --status')" '{"badblocks":[{"block":100,"count":2}]}'
	expect '^region0: scrub started$'
	expect '^region0: scrub complete: 1 error record, 2 bad sectors listed$'
	ars_want "list after the scrub" "$(awk '/^pmemk> wait-scrub/ { on = 1 } on' "$LOG" | tr -d ' \n')" \
		'"badblock_count":2,"badblocks":[{"offset":100,"length":2}]'
	expect '^inject-error namespace0.0: the firmware.s injection at blocks 100-101 \(1024 bytes at 0x10000c800\) removed; listed blocks stay listed until written$'
	want_eq "inject-error -t after --uninject" "$(ars_out 'inject-error namespace0.0 -t')" '{"badblocks":[]}'
	# The default notifies: pmemk answers with a scrub, as Linux does.
	expect '^inject-error namespace1.0: the firmware injected an error at blocks 300-300 \(512 bytes at 0x120025800\); listed by the scrub answering the notification$'
	ars_want "region1 after the notified injection" "$(ars_out 'list -RM -r region1')" \
		'"badblock_count":2,"badblocks":[{"offset":16,"length":1},{"offset":300,"length":1}]'
	want_eq "clears" "$(platform_calls "$d" root_dsm.4)" 1
	show=$(tools/mkplatform "$d" --show)
	want_eq "errors left in the store" "$(grep -c '"handle"' <<<"$show")" 2
	grep -q '"0x120002000"' <<<"$show" || { echo "    FAIL: region1's error left the store"; CASE_FAILED=1; }
	grep -q '"0x100010000"' <<<"$show" && { echo "    FAIL: the written error is still in the store"; CASE_FAILED=1; }
}

# platform_linux_set DIR: a 4-way platform whose label areas hold the
# labels Linux wrote for its 512 MiB fsdax namespace across the set
# (test/fixtures/synthetic-4way), with the head of the set (its info block).
platform_linux_set() {
	local k
	platform_make "$1" --sets 4 || return
	for k in 0 1 2 3; do
		tools/mkplatform "$1" --label-area $k "$PLATFORM_FIXTURE/labels-nmem$k.bin"
	done
	dd if="$PLATFORM_FIXTURE/set-head.bin" of="$1/pmem0.img" conv=notrunc status=none
}

# platform_state DIR: a hash of the four label areas and the set's first 16 KiB.
platform_state() {
	local k
	for k in 0 1 2 3; do tools/mkplatform "$1" --dump-label-area $k /dev/stdout; done |
		cat - <(head -c 16384 "$1/pmem0.img") | sha256sum
}

# Issue 33 item 2: Linux's namespace across the 4-way set (one label per
# DIMM, nlabel 4, positions 0-3, the set's cookie) is pmemk's namespace0.0,
# fsdax through Linux's info block (read through the interleave: 4 KiB
# into the set is nmem1's first line), and `list -RDN` shows region0 and the
# namespace with ndctl's fields and values; nmem0's labels read as ndctl
# read them; nothing is written.
case_platform_linux_labels() {
	local d=build/qemu/platform_linux_labels/plat before info
	platform_linux_set "$d" || return
	before=$(platform_state "$d")
	boot platform_linux_labels 0 --platform "$d" --timeout 120 --cmdline \
		'"run=list -RDN; read-infoblock namespace0.0; read-labels nmem0 -j; poweroff"'
	want_eq "label areas read" "$(grep -cE '\] nvdimm nmem[0-3]: label area 131072 bytes' "$LOG")" 4
	expect '\] nd_label region0: namespace0\.0 from nmem0 label slot 1 and 3 more DIMMs \(nlabel 4\): uuid 3888bc1f-eb17-47ac-b3e9-947f0d6c2185, 512 MiB at dpa 0, raw$'
	expect '\] nd_label region0: 1 labelled namespace \(labels v1\.1, index 0 seq 2, 1020 slots on the first DIMM\)$'
	expect '\] nd_pfn pfn0\.0: namespace0\.0 fsdax map=dev align 0x200000 dataoff 0xa00000: pmem0m?, 502 MiB$'
	expect_not 'refused|disabled'
	platform_py linux-list "$LOG" "$PLATFORM_FIXTURE/linux-6.1.txt"
	info=$("$INFOBLOCK" read "$PLATFORM_FIXTURE/set-head.bin" --size 512M 2>/dev/null)
	expect '"uuid":"37a9dce5-ee85-4c2b-83de-b3f8294c51dc"'
	expect "\"npfns\":$(sed 's/.*"npfns":\([0-9]*\).*/\1/' <<<"$info"),"
	platform_py labels-json "$LOG" nmem0 "$PLATFORM_FIXTURE/linux-6.1.txt"
	want_eq "label areas and the set's head after the boot" "$(platform_state "$d")" "$before"
}

# One DIMM's labels gone (nmem2's area blank: Linux's namespace is missing
# there): region0 closed with one line naming nmem2, no namespace, no raw
# device, create-namespace refused, nothing written.
case_platform_set_refused() {
	local d=build/qemu/platform_set_refused/plat before
	platform_linux_set "$d" || return
	head -c 131072 /dev/zero >"$d/../blank.bin"
	tools/mkplatform "$d" --label-area 2 "$d/../blank.bin"
	before=$(platform_state "$d")
	boot platform_set_refused 0 --platform "$d" --timeout 120 --cmdline \
		'"run=list -RDN; create-namespace -r region0 -s 16M -m fsdax; poweroff"'
	expect '\] nd_label region0: disabled, no namespace: 3 of its 4 DIMMs hold a label index, nmem2 has no valid label index; init-labels each DIMM of the set \(or nd\.labels=off\)$'
	want_eq "nd_label refusal lines" "$(grep -c '\] nd_label' "$LOG")" 1
	expect '\] region0: disabled: a DIMM of its interleave set holds no label index$'
	expect_not 'nd_pmem|nd_pfn|pmem0|namespace0\.0'
	platform_py list "$LOG" "$d/platform.json" closed
	want_eq "label areas and the set's head after the boot" "$(platform_state "$d")" "$before"
}

# pmemk creates namespaces across a 4-way set and across each 2-way set
# (one platform: --sets 4,2,2): blank label areas get index blocks on every
# DIMM, then one label per DIMM (nlabel = ways, its position); the next boot
# finds them again, read-labels -j shows each DIMM's position, and a
# destroy frees set 2's label on both its DIMMs (the stores decoded on the
# host by test/qemu/labels.py).
case_platform_set_create() {
	local d=build/qemu/platform_set_create/plat
	platform_make "$d" --sets 4,2,2 || return
	boot platform_set_create 0 --platform "$d" --timeout 150 --cmdline \
		'"run=create-namespace -r region0 -s 512M -m fsdax -n four; create-namespace -r region1 -s 256M -m fsdax; create-namespace -r region2 -s 128M -m devdax; poweroff"'
	expect '\] nd_label region0: namespace0\.0 from nmem0 label slot 0 and 3 more DIMMs \(nlabel 4\): uuid [0-9a-f-]+, name .four., 512 MiB at dpa 0, fsdax$'
	expect '\] nd_label region1: namespace1\.0 from nmem4 label slot 0 and 1 more DIMM \(nlabel 2\): uuid [0-9a-f-]+, 256 MiB at dpa 0, fsdax$'
	expect '\] nd_label region2: namespace2\.0 from nmem6 label slot 0 and 1 more DIMM \(nlabel 2\): uuid [0-9a-f-]+, 128 MiB at dpa 0, devdax$'
	expect_not 'refused|disabled'
	boot platform_set_create_again 0 --platform "$d" --timeout 150 --cmdline \
		'"run=list -RN; read-labels nmem3 -j; read-labels nmem7 -j; destroy-namespace -f namespace2.0; poweroff"'
	expect '\] nd_label region0: namespace0\.0 from nmem0 label slot 0 and 3 more DIMMs \(nlabel 4\): uuid [0-9a-f-]+, name .four., 512 MiB at dpa 0, fsdax$'
	expect '\] nd_label region1: namespace1\.0 from nmem4 label slot 0 and 1 more DIMM \(nlabel 2\)'
	expect '\] nd_label region2: namespace2\.0 from nmem6 label slot 0 and 1 more DIMM \(nlabel 2\)'
	expect '\] nd_pfn pfn0\.0: namespace0\.0 fsdax map=dev'
	expect '\] nd_pfn pfn1\.0: namespace1\.0 fsdax map=dev'
	expect '\] nd_pfn dax2\.0: namespace2\.0 devdax'
	expect '"position":3'
	expect '"nlabel":4'
	expect '"dev":"nmem7"'
	expect_not 'refused|disabled'
	# The stores, by labels.py's own decoder: one label per DIMM (dpa, rawsize = size / ways),
	# none left on set 2's DIMMs after the destroy.
	local k got
	for k in 0 1 2 3 4 5 6 7; do
		tools/mkplatform "$d" --dump-label-area $k "$d/../nmem$k.bin"
		python3 test/qemu/labels.py set "$d/../nmem$k.bin" >/dev/null ||
			{ echo "    FAIL: nmem$k's label area has no valid index"; CASE_FAILED=1; }
		got=$(python3 test/qemu/labels.py set "$d/../nmem$k.bin" | awk '{print $1, $2}' | tr '\n' ' ')
		case $k in
		[0-3]) want_eq "nmem$k's live labels (dpa rawsize)" "$got" "0 134217728 " ;;
		[4-5]) want_eq "nmem$k's live labels (dpa rawsize)" "$got" "0 134217728 " ;;
		*) want_eq "nmem$k's live labels after the destroy" "$got" "" ;;
		esac
	done
}

# --label-methods acpi: the DIMM _DSM is the Hyper-V family (no label
# functions), so pmemk, as Linux, reads labels with _LSI/_LSR and writes
# them with _LSW. Two one-DIMM sets: init-labels and a named fsdax
# namespace on the first; the next boot brings it back from the labels;
# the store's counters show the methods were used and the Intel label
# functions were not.
case_platform_label_methods_acpi() {
	local d=build/qemu/platform_lsx/plat
	platform_make "$d" --sets 1,1 --label-methods acpi || return
	tools/mkplatform "$d" --reset-counters
	boot platform_lsx 0 --platform "$d" --timeout 120 --cmdline \
		'"run=init-labels nmem0; create-namespace -r region0 -s 64M -m fsdax -n lsx; read-labels nmem1; poweroff"'
	want_eq "label areas read with _LSR" "$(grep -cE '\] nvdimm nmem[01]: label area 131072 bytes \(32 reads of <= 4096 with _LSR\)$' "$LOG")" 2
	expect '^initialized 1 nmem$'
	expect "\\] nd_label region0: namespace0\\.0 from nmem0 label slot 0: uuid [0-9a-f-]+, name 'lsx', 64 MiB at dpa 0, fsdax$"
	expect '^nmem1: handle 0x11 label area 131072 bytes, max transfer 4096, 32 reads, fletcher64 0 \(_LSI/_LSR\)$'
	[ "$(platform_calls "$d" _LSW)" -gt 0 ] || { echo "    FAIL: no _LSW call"; CASE_FAILED=1; }
	want_eq "_LSR calls" "$(platform_calls "$d" _LSR)" 96
	want_eq "Intel label reads" "$(platform_calls "$d" dimm_dsm.5)" 0
	boot platform_lsx_again 0 --platform "$d" --timeout 120 --cmdline '"run=list -N; poweroff"'
	expect "\\] nd_label region0: namespace0\\.0 from nmem0 label slot 0: uuid [0-9a-f-]+, name 'lsx', 64 MiB at dpa 0, fsdax$"
	expect '\] nd_label region0: 1 labelled namespace \(labels v1\.2, index 1 seq 1, 510 slots\)$'
	expect '\] nd_pfn pfn0\.0: namespace0\.0 fsdax map=dev align 0x200000 dataoff 0x200000: pmem0m, 62 MiB$'
	expect '"name":"lsx"'
}

# Run alone, never beside another case (test/run-cases.sh): kill timing.
SERIAL_CASES+=" platform_set_crash"

# platform_set_crash_check HEAD STATE: pmemk's boot lines HEAD (the log up
# to the shell's first prompt) against the host's reading STATE of the four
# label areas (labels.py setcheck): each complete uuid one namespace (nlabel
# 4) with its raw device, each partial one refused with its line and never a
# namespace, nothing else exposed.
platform_set_crash_check() {
	local head=$1 state=$2 u nc
	nc=$(grep -c '^complete ' "$state")
	for u in $(awk '$1 == "complete" { print $2 }' "$state"); do
		grep -Eq "\] nd_label region0: namespace0\.[0-9]+ from nmem0 label slot [0-9]+ and 3 more DIMMs \(nlabel 4\): uuid $u, 16 MiB at dpa (0|0x[0-9a-f]+), raw$" "$head" ||
			{ echo "    FAIL: $head: namespace $u (on all 4 DIMMs) not found"; CASE_FAILED=1; }
	done
	for u in $(awk '$1 == "partial" { print $2 }' "$state"); do
		grep -Eq "\] nd_label region0: namespace $u refused, not exposed: nmem[0-3] holds no label of it \([1-3] of 4 DIMMs do; position 0's is missing: an interrupted create or destroy\)$" "$head" ||
			{ echo "    FAIL: $head: leftover $u not refused with its line"; CASE_FAILED=1; }
		! grep -q "uuid $u," "$head" || { echo "    FAIL: $head: leftover $u exposed"; CASE_FAILED=1; }
	done
	grep -Eq "\] nd_label region0: $nc labelled namespaces? \(labels v1\.2, index [01] seq [1-3], 510 slots on the first DIMM\)$" "$head" ||
		{ echo "    FAIL: $head: not '$nc labelled namespaces'"; CASE_FAILED=1; }
	# No raw device but the labelled namespaces' (never one over label space).
	want_eq "$head: raw devices" "$(grep -cE '\] nd_pmem namespace0\.[0-9]+: raw, pmem0(\.[0-9]+)?, 16 MiB$' "$head")" "$nc"
	want_eq "$head: block devices" "$(grep -cE '\] nd_(pmem|pfn|btt)' "$head")" "$nc"
	! grep -Eq 'disabled|no valid label index' "$head" ||
		{ echo "    FAIL: $head: $(grep -E 'disabled|no valid label index' "$head" | head -1)"; CASE_FAILED=1; }
}

# platform_set_crash_ops OP NC: PSC_OPS, the shell commands of a round
# with NC namespaces at its start: eight creates, or destroys of every
# namespace after PSC_SETUP creates that make at least six (many commands:
# a kill, late by the host's polling, still lands among them).
platform_set_crash_ops() {
	local j
	PSC_OPS= PSC_SETUP=0
	if [ "$1" = create ]; then
		for j in 1 2 3 4 5 6 7 8; do PSC_OPS+="create-namespace -r region0 -s 16M -m raw; "; done
		return
	fi
	while [ $(($2 + PSC_SETUP)) -lt 6 ]; do
		PSC_OPS+="create-namespace -r region0 -s 16M -m raw; "
		PSC_SETUP=$((PSC_SETUP + 1))
	done
	for ((j = 0; j < $2 + PSC_SETUP; j++)); do PSC_OPS+="destroy-namespace -f namespace0.$j; "; done
}

# platform_set_crash_judge OP DIR WHAT: DIR/state (after the kill) against
# DIR/before (the complete namespaces the commands started from): a create
# loses none, a destroy gains none, at most one is partial. PSC_OUTCOME
# says what the kill left.
platform_set_crash_judge() {
	local op=$1 dir=$2 gained lost np done_
	gained=$(grep '^complete ' "$dir/state" | grep -cvxFf "$dir/before")
	lost=$(grep -cvxFf <(grep '^complete ' "$dir/state") "$dir/before")
	np=$(grep -c '^partial ' "$dir/state")
	if { [ "$op" = create ] && [ "$lost" != 0 ]; } || { [ "$op" = destroy ] && [ "$gained" != 0 ]; } ||
		[ "$np" -gt 1 ]; then
		echo "    FAIL: $3 ($op): $gained gained, $lost lost, $np partial"
		sed 's/^/    | /' "$dir/all"
		CASE_FAILED=1
	fi
	done_=$gained
	[ "$op" = destroy ] && done_=$lost
	if [ "$np" = 1 ]; then
		PSC_OUTCOME="$done_ done, one cut short: refused leftover on $(awk '$1 == "partial" { print $4 }' "$dir/state") of 4 DIMMs"
	elif [ "$done_" = 0 ]; then
		PSC_OUTCOME="old set"
	else
		PSC_OUTCOME="new set ($done_ done)"
	fi
}

# Issue 33: labels across a 4-way set survive SIGKILL during create and
# destroy. QEMU is killed PLATFORM_SET_KILLS times (20 by default), half
# while `create-namespace -r region0` runs (eight in a row), half while
# `destroy-namespace -f` does (every namespace), at a random moment in a
# window that adapts as labels_crash_sigkill's (a kill after the commands
# returned does not count and narrows it). After each kill the four label
# areas are read on the host (labels.py setcheck, its own decoder): every
# uuid is on all 4 DIMMs consistently (nlabel 4, positions 0-3, one cookie,
# dpa and rawsize) or on some without position 0's label (an interrupted
# create or destroy), never position 0's without the others; no complete
# namespace of before lost by a create, none gained by a destroy. The next
# boot (each round's; one more at the end) must show exactly that: the
# complete ones as namespaces with raw devices, the partial ones refused
# with their line, nothing else. A leftover blocks create in the region, so
# the round after one starts with init-labels -f on the four DIMMs, as an
# operator would (counted). A destroy round first creates namespaces when
# fewer than six are there.
case_platform_set_crash() {
	local dir=build/qemu/platform_set_crash seed=${CRASH_SEED:-$RANDOM} t0=$SECONDS
	local want=${PLATFORM_SET_KILLS:-20} d kills=0 tries=0 lo=0 hi=15 ms delay op prefix
	local ck=0 dk=0 cleanups=0 torn=0 nc np summary=
	d=$dir/plat
	RANDOM=$seed
	echo "    CRASH_SEED=$seed"
	rm -rf "$dir"
	platform_make "$d" --sets 4 --dimm-size 64M || return
	: >"$dir/state"
	prefix="init-labels nmem0; init-labels nmem1; init-labels nmem2; init-labels nmem3; "
	while [ $kills -lt "$want" ] && [ $tries -lt $((want * 2 + 10)) ] && [ $CASE_FAILED = 0 ]; do
		tries=$((tries + 1))
		nc=$(grep -c '^complete ' "$dir/state")
		np=$(grep -c '^partial ' "$dir/state")
		if [ "$np" -gt 0 ]; then
			prefix="init-labels -f nmem0; init-labels -f nmem1; init-labels -f nmem2; init-labels -f nmem3; "
			cleanups=$((cleanups + 1))
			nc=0
		fi
		if [ $ck -ge $((want / 2)) ] || { [ $dk -lt $((want / 2)) ] && [ $((kills % 2)) = 1 ]; } ||
			[ "$nc" -ge 8 ]; then
			op=destroy
		else
			op=create
		fi
		# The complete namespaces the ops start from (none after init-labels).
		if [ -n "$prefix" ]; then : >"$dir/before"; else grep '^complete ' "$dir/state" >"$dir/before"; fi
		platform_set_crash_ops $op "$nc"
		ms=$((lo + RANDOM % (hi - lo + 1)))
		delay=$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))
		# "list -R" after the ops: its prompt says they had all returned at the kill.
		boot_kill "platform_set_crash_$tries" "pmemk> $op-namespace" "$delay" --platform "$d" \
			--cmdline "\"run=$prefix${PSC_OPS}list -R; poweroff\""
		# This boot's lines before its first prompt: what the last kill left.
		sed '/^pmemk> /q' "$LOG" >"$LOG.head"
		[ $tries = 1 ] || platform_set_crash_check "$LOG.head" "$dir/state"
		prefix=
		# The namespaces the setup creates made (their boot lines) were there too.
		[ "$PSC_SETUP" = 0 ] || sed -n '/^pmemk> create-namespace/,$p' "$LOG" |
			grep -oE "\] nd_label region0: namespace0\.[0-9]+ from nmem0 .*\(nlabel 4\): uuid [0-9a-f-]+" |
			awk '{ print "complete", $NF }' | sort -u | grep -vxFf "$dir/before" >>"$dir/before"
		tools/mkplatform "$d" --dump-label-area 0 "$dir/nmem0.bin" --dump-label-area 1 "$dir/nmem1.bin" \
			--dump-label-area 2 "$dir/nmem2.bin" --dump-label-area 3 "$dir/nmem3.bin"
		if ! python3 test/qemu/labels.py setcheck "$dir"/nmem[0-3].bin >"$dir/all"; then
			sed 's/^/    FAIL: /' "$dir/all"
			CASE_FAILED=1
			break
		fi
		torn=$((torn + $(grep -c '^torn ' "$dir/all")))
		grep -E '^(complete|partial) ' "$dir/all" >"$dir/state"
		if [ "$KILLED" = 0 ] || grep -q '^pmemk> list -R' "$LOG"; then
			# After the ops returned (or QEMU powered off): not counted; aim earlier.
			hi=$((ms - 1 > lo + 5 ? ms - 1 : lo + 5))
			continue
		fi
		kills=$((kills + 1))
		if [ $op = create ]; then ck=$((ck + 1)); else dk=$((dk + 1)); fi
		platform_set_crash_judge $op "$dir" "kill $kills"
		echo "    kill $kills: $op, ${delay}s in: $PSC_OUTCOME; $(grep -c '^complete ' "$dir/state") namespaces"
		summary+="$op: $PSC_OUTCOME"$'\n'
	done
	# The last kill's state, as pmemk finds it.
	boot platform_set_crash_last 0 --platform "$d" --timeout 120 --cmdline '"run=list -RN; poweroff"'
	sed '/^pmemk> /q' "$LOG" >"$LOG.head"
	platform_set_crash_check "$LOG.head" "$dir/state"
	[ $kills -ge "$want" ] || { echo "    FAIL: $kills kills of $want in $tries boots"; CASE_FAILED=1; }
	echo "    $kills kills ($ck in create, $dk in destroy) in $tries boots, $((SECONDS - t0))s; window ${lo}-${hi} ms"
	sort <<<"${summary%$'\n'}" | uniq -c | sed 's/^ */      /'
	echo "    leftovers cleaned with init-labels -f on the 4 DIMMs: $cleanups times; torn index blocks seen: $torn"
}
