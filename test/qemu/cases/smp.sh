# SMP bring-up (issue 14 item 1): 1, 2, 4 and 8 vCPUs on SeaBIOS, 2 and 8 on
# OVMF, each with ktest=all; nr_cpus= and nosmp; cpuinfo lists every CPU.

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

# The EFI image (BOOTX64.EFI on OVMF, no GRUB): the trampoline page comes from its memory map.
case_smp_efi_image_4() {
	boot smp_efi_image_4 0 --efi --smp 4 --ram 512M --cmdline 'ktest=smp_*'
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
