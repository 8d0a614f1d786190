# Boot foundation cases (issue "Boot foundation").

BOOT_CMDLINE='memmap=256M!512M ktest=all'

case_bios_ktest() {
	boot bios_ktest 0 --firmware bios --ram 1G --nvdimm 1G --cmdline "$BOOT_CMDLINE"
	expect '\] boot: multiboot2 \(bios\)'
	expect '\] user: \[mem 0x0000000020000000-0x000000002fffffff\] persistent \(type 12\)'
	expect 'cpu: pse yes'
	expect '\] Memory: [0-9]+K/[0-9]+K available'
	expect_ktest_pass
}

case_uefi_ktest() {
	boot uefi_ktest 0 --firmware uefi --ram 1G --nvdimm 1G --cmdline "$BOOT_CMDLINE"
	expect '\] boot: multiboot2 \(efi\)'
	expect '\] user: \[mem 0x0000000020000000-0x000000002fffffff\] persistent \(type 12\)'
	expect_ktest_pass
	# The same pmem ranges as on SeaBIOS.
	local efi bios
	efi=$(lines '^\[.*\] user: .*persistent')
	LOG=$LOGDIR/bios_ktest.log
	bios=$(lines '^\[.*\] user: .*persistent')
	if [ -z "$efi" ] || [ "$efi" != "$bios" ]; then
		echo "    FAIL: pmem ranges differ between SeaBIOS and OVMF:"
		echo "    bios: $bios"; echo "    efi:  $efi"
		CASE_FAILED=1
	fi
}

case_cpu_without_1g_pages() {
	# qemu64 has no pdpe1gb: the direct map must use 2 MiB leaves.
	boot cpu_qemu64 0 --cpu qemu64 --ram 512M --cmdline 'ktest=paging_*'
	expect 'cpu: pse yes, pdpe1gb no'
	expect 'direct map with 2 MiB leaves'
	expect_ktest_ran paging_kernel_sections_have_their_permissions \
		paging_x86_entries_have_the_sdm_bits paging_null_and_identity_unmapped \
		paging_direct_map_covers_ram
	expect_ktest_pass
}

case_fault_reports_exception() {
	boot fault 3 --ram 512M --cmdline 'ktest=fault'
	expect 'exception 14 \(page fault\), error code 0x2'
	expect 'CR2: 0x000000000dead000'
	expect 'page fault: write access to 0xdead000 in kernel mode, page not present'
	expect '^\[.*\] Call Trace:'
	expect '\[<ffffffff8[0-9a-f]+>\] ktest_fault\+0x'
	expect '\[<ffffffff8[0-9a-f]+>\] kmain\+0x'
	expect 'kernel stopped after exception 14'
}

case_panic_reports_and_exits_2() {
	boot panic 2 --ram 512M --cmdline 'ktest=panic'
	expect 'Kernel panic: deliberate panic from ktest=panic'
	expect '\[<ffffffff8[0-9a-f]+>\] panic\+0x'
}

case_run_batch_commands() {
	boot run_batch 7 --ram 512M \
		--cmdline 'memmap=128M!256M "run=e820; meminfo; cpuinfo; help; poweroff 7"'
	expect '^pmemk> e820$'
	expect '^e820: \[mem 0x0000000010000000-0x0000000017ffffff\] persistent \(type 12\)$'
	expect '^MemTotal: +[0-9]+ kB'
	expect '^MemFree: +[0-9]+ kB'
	expect '^PageTables: +[0-9]+ kB'
	expect '^clwb'
	expect '^  poweroff \[status\]'
	# help: one heading per subsystem, in order, each command under its own.
	[ "$(grep -E '^[a-z].*:$' "$LOG" | grep -A5 '^nvdimm' | tr '\n' '|')" = \
		"nvdimm (ndctl's verbs):|block devices:|memory:|system:|network:|benchmarks:|" ] ||
		{ echo "    FAIL: help's subsystem headings"; CASE_FAILED=1; }
	expect '^block devices:$'
	[ "$(sed -n '/^block devices:$/,/^$/p' "$LOG" | grep -c '^  [a-z]')" = 5 ] ||
		{ echo "    FAIL: help lists write, cmp, read, wait-busy, dax under block devices"; CASE_FAILED=1; }
	expect 'poweroff: status 7'
}

case_bad_parameters_are_reported() {
	boot bad_params 0 --ram 512M \
		--cmdline 'memmap=garbage memmap=0!256M memmap=64M!64G loglevel=x ktest=cmdline_params_registered'
	# Anchored to the rejection lines (the Command line: echo names them too).
	expect '\] memmap=garbage: bad size \(not a number\)$'
	expect '\] memmap=0!256M: size is 0$'
	expect '\] memmap=64M!64G: \[mem .*\] is not usable RAM'
	expect '\] loglevel=x: expected a number'
	expect_not 'persistent \(type 12\)'
	expect_ktest_ran cmdline_params_registered
	expect_ktest_pass
}

# Regression (issue 11 item 1): memmap=8M!1M covered the kernel image (loaded
# at 2 MiB) and gave a writable pmem0 over it. Refused with one line naming
# both ranges; the next spec still applies and the boot goes on.
case_memmap_over_kernel_refused() {
	boot memmap_kernel 0 --ram 512M \
		--cmdline 'memmap=8M!1M memmap=64M!256M "run=list -N; poweroff"'
	expect '\] memmap=8M!1M: \[mem 0x0000000000100000-0x00000000008fffff\] covers the kernel image \[mem 0x0000000000200000-0x[0-9a-f]*\], refused$'
	expect '\] user: \[mem 0x0000000010000000-0x0000000013ffffff\] persistent \(type 12\)$'
	expect_not '\] user: \[mem 0x0000000000100000-0x00000000008fffff'
	expect 'nd_pmem namespace0.0: raw, pmem0, 64 MiB'
}

# What `make run` boots (BIOS, 1 GiB RAM, one 1 GiB nvdimm, the Makefile's
# default memmap=), driven through the shell instead of a terminal. The
# default's pmem holds no firmware data: nothing trimmed, nothing warned.
case_make_run_configuration() {
	local cmdline
	cmdline=$(sed -n 's/^CMDLINE *?= *//p' Makefile)
	boot make_run 0 --firmware bios --ram 1G --nvdimm 1G --nic "$(sed -n 's/^NIC *?= *//p' Makefile)" \
		--cmdline "$cmdline \"run=e820; list -R; poweroff\""
	expect '\] boot: multiboot2 \(bios\)'
	expect '^e820: \[mem 0x0000000020000000-0x000000002fffffff\] persistent \(type 12\)$'
	expect_not '\] memmap='
	expect 'nd_region region0: \[mem 0x20000000-0x2fffffff\] e820 pmem'
	expect 'nd_region region1: \[mem 0x100000000-0x13fffffff\] nfit pmem'
	acpi_tables_outside_region0
	expect '^pmemk> list -R$'
	expect '\] eth0: 10\.0\.2\.15/255\.255\.255\.0 gateway 10\.0\.2\.2 \(DHCP\)$'
}

# acpi_tables_outside_region0: every ACPI table the log names (the kernel's
# list and ACPICA's, which adds the DSDT and the FACS) lies outside the
# range of region0 (e820 pmem). Fails if either is missing from the log.
acpi_tables_outside_region0() {
	local region tables
	region=$(sed -n 's/.*nd_region region0: \[mem \(0x[0-9a-f]*\)-\(0x[0-9a-f]*\)\].*/\1 \2/p' "$LOG" | head -1)
	tables=$(sed -n 's/.*ACPI: \([A-Z0-9]\{4\}\) 0x\([0-9A-F]\{16\}\) \([0-9A-F]\{6\}\).*/\1 \2 \3/p' "$LOG" | sort -u)
	if [ -z "$region" ] || ! grep -q '^DSDT ' <<<"$tables" || ! grep -q '^FACS ' <<<"$tables"; then
		echo "    FAIL: no region0, or no DSDT and FACS in the log"
		CASE_FAILED=1
		return
	fi
	local rs re sig pa len n=0 inside=0
	read -r rs re <<<"$region"
	while read -r sig pa len; do
		n=$((n + 1))
		if (( 16#$pa <= re && 16#$pa + 16#$len - 1 >= rs )); then
			echo "    FAIL: ACPI $sig [0x$pa +0x$len] is inside region0 [$rs-$re]"
			inside=$((inside + 1))
			CASE_FAILED=1
		fi
	done <<<"$tables"
	echo "    $n ACPI tables, $inside of them in region0 [$rs-$re]"
}

# Regression (issue 29 item 5): memmap=256M!768M, the old default, made the
# last 128 KiB of pmem0 SeaBIOS's live ACPI tables (a write there corrupted
# the AML ACPICA runs). The range is trimmed to the 2 MiB blocks below the
# tables with one line; every byte of pmem0 can be written and ACPICA's
# methods still run; a write past its end is refused. And memmap= over
# nothing but the table pages is refused with one line.
case_memmap_over_acpi_tables_trimmed() {
	boot memmap_acpi 0 --firmware bios --ram 1G --nvdimm 1G --cmdline \
		'memmap=256M!768M "run=write pmem0 0 520192 pattern=0xff; write pmem0 520192 4096 pattern=0xff; acpi-eval _SB.NVDR.NV00._DSM u:4309ac30-0d11-11e4-9191-0800200c9a66 1 0 p:; acpi-eval _S5; e820; poweroff"'
	expect '\] memmap=256M!768M: \[mem 0x0000000030000000-0x000000003fffffff\] holds firmware data in use \(ACPI [A-Z]{4} \[mem 0x[0-9a-f]{16}-0x[0-9a-f]{16}\] and [0-9]+ more\); trimmed to \[mem 0x0000000030000000-0x000000003fdfffff\]$'
	expect_not 'memmap=256M!768M: covers reserved'
	expect 'nd_region region0: \[mem 0x30000000-0x3fdfffff\] e820 pmem'
	expect 'nd_pmem namespace0.0: raw, pmem0, 254 MiB'
	expect '^e820: \[mem 0x000000003fe00000-0x000000003fffffff\] reserved$'
	acpi_tables_outside_region0
	expect '^write pmem0: 266338304 bytes at 0'
	expect_not '^write pmem0: [0-9]+ bytes at 0xfe00000'
	expect '^Buffer \([0-9]+ bytes?\)'
	expect '^Package \(4 elements\)'
	expect_not 'AE_'
	# One page of nothing but tables (the FACS's): refused, the map as the firmware had it.
	local facs reserved
	facs=$(sed -n 's/^ACPI: FACS 0x\([0-9A-F]\{16\}\) .*/\1/p' "$LOG" | head -1)
	reserved=$(sed -n 's/.*BIOS-e820: \(\[mem 0x00000000[0-9a-f]*-0x000000003fffffff\] reserved\)$/\1/p' "$LOG")
	[ -n "$facs" ] && [ -n "$reserved" ] ||
		{ echo "    FAIL: no FACS or reserved range at the top of RAM in the log"; CASE_FAILED=1; return; }
	facs=$(printf '%#x' $((16#$facs & ~0xfff)))
	boot memmap_acpi_page 0 --firmware bios --ram 1G --nvdimm 1G --cmdline \
		"memmap=4K!$facs memmap=64M!512M \"run=e820; poweroff\""
	expect "\\] memmap=4K!$facs: \\[mem 0x[0-9a-f]{16}-0x[0-9a-f]{16}\\] holds firmware data in use \\(ACPI FACS \\[mem 0x[0-9a-f]{16}-0x[0-9a-f]{16}\\]( and [0-9]+ more)?\\); nothing usable is left, refused$"
	expect "^e820: ${reserved//[/\\[}$"
	expect 'nd_region region0: \[mem 0x20000000-0x23ffffff\] e820 pmem'
	expect_not 'nd_region region1: .* e820 pmem'
}
