# SMP bring-up (issue 14 item 1): 1, 2, 4 and 8 vCPUs on SeaBIOS, 2 and 8 on
# OVMF, each with ktest=all; nr_cpus= and nosmp; cpuinfo lists every CPU.

# Run alone, never beside another case (test/run-cases.sh): several vCPUs, and races timed against them.
SERIAL_CASES+=" smp_bios_4 smp_bios_8 smp_uefi_8 smp_efi_image_4 smp_memmap_parallel smp_btt_writes_on_two_cpus smp_destroy_during_write memmap_deferred"

SMP_CMDLINE='memmap=256M!512M ktest=all'

# boot_smp NAME FIRMWARE N: N vCPUs all online, every ktest passes.
boot_smp() {
	local name=$1 fw=$2 n=$3
	boot "$name" 0 --firmware "$fw" --smp "$n" --ram 1G --nvdimm 1G --cmdline "$SMP_CMDLINE"
	expect "\] madt: $n CPUs listed, $n enabled, 1 I/O APIC, local APIC at 0xfee00000\$"
	expect "\] smp: $n of $n CPUs online \(boot CPU APIC ID 0\)\$"
	expect_not 'did not start'
	expect_ktest_ran smp_enabled_cpus_are_online smp_each_cpu_reported_itself \
		smp_call_runs_on_every_cpu smp_spinlock_excludes_every_cpu
	[ "$n" -lt 2 ] || expect_ktest_ran smp_idle_work_runs_on_idle_cpus_and_yields_to_calls
	expect_ktest_pass
}

case_smp_bios_1() { boot_smp smp_bios_1 bios 1; }
case_smp_bios_2() { boot_smp smp_bios_2 bios 2; }
case_smp_bios_4() { boot_smp smp_bios_4 bios 4; }
case_smp_bios_8() { boot_smp smp_bios_8 bios 8; }
case_smp_uefi_2() { boot_smp smp_uefi_2 uefi 2; }
case_smp_uefi_8() { boot_smp smp_uefi_8 uefi 8; }

# nr_cpus=3 of 4: three online, the fourth listed but not started; nosmp: one.
case_smp_nr_cpus_and_nosmp() {
	boot smp_nr_cpus 0 --smp 4 --ram 512M \
		--cmdline 'nr_cpus=3 "run=cpuinfo; ktest smp_*; poweroff"'
	expect '\] smp: 3 of 4 CPUs online \(boot CPU APIC ID 0, nr_cpus= or nosmp\)$'
	expect '^cpus		: 4 listed, 3 online'
	expect '^cpu 0		: apic id 0, acpi uid 0, online \(boot CPU\)'
	expect '^cpu 2		: apic id 2, acpi uid 2, online'
	expect '^cpu 3		: apic id 3, acpi uid 3, not started'
	expect_ktest_pass
	boot smp_nosmp 0 --smp 2 --ram 512M --cmdline 'nosmp "run=cpuinfo; ktest smp_*; poweroff"'
	expect '\] smp: 1 of 2 CPUs online'
	expect '^cpu 1		: apic id 1, acpi uid 1, not started'
	expect_ktest_pass
}

# The EFI image (BOOTX64.EFI on OVMF, no GRUB): the trampoline page comes
# from its memory map. Every ktest, so 4 vCPUs on OVMF pass ktest=all too.
case_smp_efi_image_4() {
	boot smp_efi_image_4 0 --efi --smp 4 --ram 1G --nvdimm 1G --cmdline "$SMP_CMDLINE"
	expect '\] boot: efi \(gnu-efi\)'
	expect '\] smp: 4 of 4 CPUs online \(boot CPU APIC ID 0\)$'
	expect_ktest_pass
}

# qemu64 (AMD family 15, no 1 GiB pages, FACTS-2 §6.2's model): the APs copy the BSP's CR0/CR4/EFER.
case_smp_qemu64_2() {
	boot smp_qemu64_2 0 --cpu qemu64 --smp 2 --ram 512M --cmdline 'ktest=smp_*'
	expect 'cpu: AuthenticAMD .*family 15'
	expect '\] smp: 2 of 2 CPUs online \(boot CPU APIC ID 0\)$'
	expect_ktest_pass
}

# Parallel struct page init (issue 14 item 3): the same three devices made
# on fresh nvdimms with 4 vCPUs, with 2, and with 2 and memmap_parallel=off
# (the boot CPU alone) must hold the same struct pages (memmap-hash makes
# the owner and compound-head pointers boot-independent). map=dev is
# created, so written fresh by the init; map=mem and devdax 2M (compound
# pages, vmemmap dedup) live in RAM. Within each boot the init runs again
# serially and on every CPU, storing every struct page (rewrite): the hash
# stays, and the parallel run reports its CPUs.
SMP_MEMMAP_RUN='create-namespace -f -e namespace0.0 -m fsdax -M dev; create-namespace -f -e namespace1.0 -m fsdax -M mem; create-namespace -f -e namespace2.0 -m devdax -M mem -a 2M; memmap-hash pmem0m; memmap-hash pmem1m; memmap-hash dax2.0; memmap-init pmem0m cpus=1 rewrite; memmap-init pmem0m rewrite; memmap-hash pmem0m; memmap-init dax2.0 cpus=1; memmap-init dax2.0; memmap-hash dax2.0; poweroff'

boot_memmap() {
	local name=$1 smp=$2 extra=$3
	boot "$name" 0 --smp "$smp" --ram 1G --nvdimm 1G --nvdimm 1G --nvdimm 1G \
		--cmdline "$extra \"run=$SMP_MEMMAP_RUN\""
	expect "\] smp: $smp of $smp CPUs online"
	expect '^memmap-hash: pmem0m pfns 262144 hash [0-9a-f]{16}$'
	expect '^memmap-hash: dax2.0 pfns 262144 hash [0-9a-f]{16}$'
	expect "^memmap-init: pmem0m cpus 1 of 1 pages 262144 stored 262144 ns "
	expect "^memmap-init: pmem0m cpus $smp of $smp pages 262144 stored 262144 ns "
	expect "^memmap-init: dax2.0 cpus $smp of $smp pages 262144 stored 0 ns "
	expect_not 'error|panic'
	# Before and after the serial and parallel re-inits: one hash per device.
	[ "$(lines '^memmap-hash: pmem0m' | sort -u | wc -l)" = 1 ] ||
		{ echo "    FAIL: $name: pmem0m's hash changed with memmap-init"; CASE_FAILED=1; }
	[ "$(lines '^memmap-hash: dax2.0' | sort -u | wc -l)" = 1 ] ||
		{ echo "    FAIL: $name: dax2.0's hash changed with memmap-init"; CASE_FAILED=1; }
}

case_smp_memmap_parallel() {
	local want
	boot_memmap smp_memmap_parallel_4 4 'memmap_init=sync'
	expect '\] nd_pfn pfn0.0: 262144 struct pages initialised on 4 CPUs$'
	want=$(lines '^memmap-hash:' | sort -u)
	boot_memmap smp_memmap_parallel_2 2 'memmap_init=sync'
	expect '\] nd_pfn pfn0.0: 262144 struct pages initialised on 2 CPUs$'
	[ "$(lines '^memmap-hash:' | sort -u)" = "$want" ] ||
		{ echo "    FAIL: struct pages differ between 4 and 2 vCPUs"; CASE_FAILED=1; }
	boot_memmap smp_memmap_serial_2 2 'memmap_init=sync memmap_parallel=off'
	expect '\] nd_pfn pfn0.0: 262144 struct pages initialised on 1 CPU$'
	[ "$(lines '^memmap-hash:' | sort -u)" = "$want" ] ||
		{ echo "    FAIL: struct pages differ between parallel and memmap_parallel=off"; CASE_FAILED=1; }
	# Deferred (the default): the same bytes, whoever stored them.
	boot_memmap smp_memmap_deferred_2 2 ''
	expect '\] nd_pfn pfn0.0: 262144 struct pages left to idle CPUs and first users'
	[ "$(lines '^memmap-hash:' | sort -u)" = "$want" ] ||
		{ echo "    FAIL: struct pages differ between deferred and sync init"; CASE_FAILED=1; }
	[ "$(echo "$want" | wc -l)" = 3 ] || { echo "    FAIL: want 3 hashes, got: $want"; CASE_FAILED=1; }
}

# Deferred struct page init (issue 14 item 4) on an 8 GiB map=dev namespace
# (64 sections: progress lines). One vCPU, commands from run=, so no idle
# time: the device is listed at 0% and serves block I/O with no struct page
# stored; a dax lookup makes one section ready on the spot; memmap-hash
# (a user of every page) makes the rest ready, printing every 10%; the hash
# equals that of a memmap_init=sync boot. Then two vCPUs: CPU 1's idle loop
# does it all while the boot CPU waits (memmap-wait: 0 sections on demand).
MEMMAP_DEFER_RUN='create-namespace -f -e namespace0.0 -m fsdax -M dev; list -N; meminfo; write pmem0m 0 4096 seq=0x77; cmp pmem0m 0 4096 seq=0x77; list -N; dax pmem0m 4000000 1; list -N; memmap-hash pmem0m; list -N; meminfo; poweroff'

case_memmap_deferred() {
	local hash
	boot memmap_deferred_1 0 --smp 1 --ram 1G --nvdimm 8G --cmdline "\"run=$MEMMAP_DEFER_RUN\""
	expect '\] nd_pfn pfn0.0: 2097152 struct pages left to idle CPUs and first users'
	expect '^MemmapPending: +8388608 kB$'
	expect '^cmp pmem0m: 2097152 bytes at 0 match$'
	expect '^dax pmem0m: sector 4000000 at pfn '
	expect '\] pfn0.0: struct pages 10% ready \('
	expect '\] pfn0.0: struct pages 100% ready \(64 of 64 sections, '
	expect '^MemmapPending: +0 kB$'
	expect_not 'error|panic'
	# create-namespace's, list's and list's after the I/O at 0%; after the dax lookup 1 of 64.
	[ "$(lines '^ *"memmap_init":"0%"' | wc -l)" = 3 ] && [ "$(lines '^ *"memmap_init":' | wc -l)" = 4 ] &&
		[ "$(lines '^ *"memmap_init":"1%"' | wc -l)" = 1 ] ||
		{ echo "    FAIL: want memmap_init 0% three times, then 1%, then no more"; CASE_FAILED=1; }
	[ "$(lines '\] pfn0.0: struct pages [0-9]+% ready' | wc -l)" = 10 ] ||
		{ echo "    FAIL: want 10 progress lines"; CASE_FAILED=1; }
	hash=$(lines '^memmap-hash:')
	boot memmap_sync_1 0 --smp 1 --ram 1G --nvdimm 8G \
		--cmdline 'memmap_init=sync "run=create-namespace -f -e namespace0.0 -m fsdax -M dev; memmap-hash pmem0m; poweroff"'
	expect '\] nd_pfn pfn0.0: 2097152 struct pages initialised on 1 CPU$'
	[ -n "$hash" ] && [ "$(lines '^memmap-hash:')" = "$hash" ] ||
		{ echo "    FAIL: deferred and sync struct pages differ ($hash)"; CASE_FAILED=1; }
	boot memmap_deferred_2 0 --smp 2 --ram 1G --nvdimm 8G \
		--cmdline '"run=create-namespace -f -e namespace0.0 -m fsdax -M dev; memmap-wait pmem0m; memmap-hash pmem0m; poweroff"'
	expect '^memmap-wait: pmem0m ready: 64 sections, 0 on demand, [0-9]+ us after it appeared$'
	expect '\] pfn0.0: struct pages 100% ready \(64 of 64 sections, '
	[ "$(lines '^memmap-hash:')" = "$hash" ] ||
		{ echo "    FAIL: struct pages made by the idle CPU differ"; CASE_FAILED=1; }
}

# Destroy during write (issue 14 item 2, Linux's 32b2397c1e56): CPU 1 writes
# 1 GiB - 18 MiB to pmem0m (on-cpu); once the write holds the device
# (wait-busy), the boot CPU tries to destroy the namespace and to
# reconfigure it: both are refused as busy and change nothing, the write
# completes and reads back, and nothing faults. Once it is done the
# namespace can go. The ktest smp_destroy_refused_while_another_cpu_writes
# checks the same at the block-device level.
# Two CPUs write one BTT at once, each through its own lane (nvdimm/btt.c):
# CPU 1 the first half, CPU 0 the second while CPU 1 is still in its write
# (wait-busy); both halves read back, check-namespace is clean, and no lock
# order is broken.
case_smp_btt_writes_on_two_cpus() {
	boot smp_btt_two_cpus 0 --smp 2 --ram 1G --nvdimm 256M \
		--cmdline '"run=create-namespace -f -e namespace0.0 -m sector -l 4096; on-cpu 1 write pmem0s 0 30000 seq=0x51; wait-busy pmem0s; write pmem0s 30000 30000 seq=0x52; wait-cpu 1; cmp pmem0s 0 30000 seq=0x51; cmp pmem0s 30000 30000 seq=0x52; check-namespace namespace0.0; poweroff"'
	expect '^wait-busy pmem0s: held by 1$'
	expect "^on-cpu 1: 'write pmem0s 0 30000 seq=0x51' returned 0$"
	expect '^wait-cpu 1: idle; last on-cpu command returned 0$'
	expect '^cmp pmem0s: 122880000 bytes at 0 match$'
	expect '^cmp pmem0s: 122880000 bytes at 0x7530000 match$'
	expect '^checked 1 namespace'
	expect_not 'panic|exception|Oops|spinlock:|mismatch|error checking'
}

case_smp_destroy_during_write() {
	boot smp_destroy_during_write 0 --smp 2 --ram 1G --nvdimm 1G \
		--cmdline '"run=create-namespace -f -e namespace0.0 -m fsdax -M dev; on-cpu 1 write pmem0m 0 2023424 seq=0x77; wait-busy pmem0m; destroy-namespace -f namespace0.0; create-namespace -f -e namespace0.0 -m fsdax -M mem; wait-cpu 1; cmp pmem0m 0 2023424 seq=0x77; list -N; ktest smp_*; destroy-namespace -f namespace0.0; poweroff"'
	expect '^on-cpu 1: started .write pmem0m 0 2023424 seq=0x77.$'
	expect '^wait-busy pmem0m: held by 1$'
	expect_not 'panic|exception|Oops|spinlock:'
	[ "$(grep -c 'pmem0m: busy: in use by 1 command (write on CPU 1)$' "$LOG")" = 2 ] ||
		{ echo "    FAIL: want both the destroy and the reconfigure refused"; CASE_FAILED=1; }
	expect "^on-cpu 1: 'write pmem0m 0 2023424 seq=0x77' returned 0$"
	expect '^write pmem0m: 1035993088 bytes at 0$'
	expect '^wait-cpu 1: idle; last on-cpu command returned 0$'
	expect '^cmp pmem0m: 1035993088 bytes at 0 match$'
	expect '"map":"dev"'
	expect_not '"map":"mem"'
	expect_ktest_ran smp_destroy_refused_while_another_cpu_writes smp_spinlock_excludes_every_cpu
	expect_ktest_pass
	expect '^destroyed 1 namespace$'
}
