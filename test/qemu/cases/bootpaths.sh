# Every way in (issue 6): the same kernel booted five ways must find the same
# pmem and pass the same in-kernel tests; and a bad command-line value given
# through the EFI image's load options must be reported as through GRUB.
# make test-boot runs only these cases.

# One 1 GiB nvdimm, legacy pmem carved from RAM, every ktest. The quoted
# run= value is never run (ktest powers off first); it checks that the
# command line reaches the kernel byte for byte through GRUB's quoting and
# through the C-escaped default built into BOOTX64.EFI.
BOOTPATH_CMDLINE='memmap=256M!512M ktest=all "run=e820; poweroff 9"'
BOOTPATH_OPTS=(--ram 1G --nvdimm 1G --cmdline "$BOOTPATH_CMDLINE")
# What every path must report identically: the command line, the pmem
# ranges of the memory map and every region line there is.
BOOTPATH_SAME='\] (Command line: |user: .*persistent|nd_region )'
BOOTPATH_REF= BOOTPATH_REF_NAME=

# bootpath_common NAME BOOT_LINE: the checks every path shares. The first
# path in a run is the reference the others are compared with.
bootpath_common() {
	local name=$1 got
	expect "\] boot: $2"
	expect '\] Command line: memmap=256M!512M ktest=all "run=e820; poweroff 9"$'
	expect '\] user: \[mem 0x0000000020000000-0x000000002fffffff\] persistent \(type 12\)'
	expect_ktest_pass
	got=$(lines "$BOOTPATH_SAME")
	if [ -z "$BOOTPATH_REF" ]; then
		BOOTPATH_REF=$got BOOTPATH_REF_NAME=$name
	elif [ "$got" != "$BOOTPATH_REF" ]; then
		echo "    FAIL: $name and $BOOTPATH_REF_NAME report different pmem:"
		diff <(echo "$BOOTPATH_REF") <(echo "$got") | sed 's/^/    | /'
		CASE_FAILED=1
	fi
}

case_bootpath_grub_bios() {
	boot bootpath_grub_bios 0 --firmware bios "${BOOTPATH_OPTS[@]}"
	bootpath_common grub_bios 'multiboot2 \(bios\), loader GRUB'
}

case_bootpath_grub_uefi() {
	boot bootpath_grub_uefi 0 --firmware uefi "${BOOTPATH_OPTS[@]}"
	bootpath_common grub_uefi 'multiboot2 \(efi\), loader GRUB'
}

# BOOTX64.EFI on EFI/BOOT of a FAT drive: OVMF's removable-media boot, no GRUB.
case_bootpath_efi_fat() {
	boot bootpath_efi_fat 0 --efi "${BOOTPATH_OPTS[@]}"
	expect '^BdsDxe: starting Boot[0-9A-F]+ "UEFI QEMU HARDDISK'
	expect '^pmemk: EFI loader$'
	expect '^pmemk: built-in command line: memmap=256M!512M ktest=all "run=e820; poweroff 9"$'
	bootpath_common efi_fat 'efi \(gnu-efi\), loader GNU-EFI'
	expect '\] e820: firmware map \(from EFI memory map\)'
}

# SeaBIOS -> iPXE -> GRUB's PXE image (core.0) -> pmemk.elf, all over TFTP.
case_bootpath_pxe_bios() {
	boot bootpath_pxe_bios 0 --pxe bios "${BOOTPATH_OPTS[@]}"
	expect 'pmemk: netboot from \(tftp,10\.0\.2\.2\)'
	bootpath_common pxe_bios 'multiboot2 \(bios\), loader GRUB'
}

# OVMF -> iPXE's EFI driver -> BOOTX64.EFI by TFTP.
case_bootpath_pxe_uefi() {
	boot bootpath_pxe_uefi 0 --pxe uefi "${BOOTPATH_OPTS[@]}"
	expect 'tftp://10\.0\.2\.2/BOOTX64\.EFI\.\.\..* ok'
	expect '^pmemk: load options name only the image$'
	bootpath_common pxe_uefi 'efi \(gnu-efi\), loader GNU-EFI'
}

# The UEFI shell starts the image with arguments: they arrive as UCS-2 load
# options, image path first, and win over the built-in default. Debian's
# OVMF_CODE_4M.fd boots its built-in shell ("EFI Internal Shell") when no
# boot option works; the image is outside EFI/BOOT so none does. The shell
# runs startup.nsh from FS0: after a 5 s countdown; if the image returns,
# the script powers the machine off (QEMU exits without a status: 126).
# The image is a test build whose first memory-map key goes stale, so the
# GetMemoryMap + ExitBootServices retry runs too. Before it the shell starts
# an image whose kernel lacks the handover header: the loader must say so
# and return to the shell, which then goes on.
case_bootpath_efi_shell_load_options() {
	local args='memmap=garbage ktest=cmdline_params_registered'
	local esp=build/qemu/bootpath_efi_shell-esp grub efi
	rm -rf "$esp"
	mkdir -p "$esp"
	LC_ALL=C sed 's/PMEMKEFI/PMEMKEFX/' build/pmemk.elf >"$esp/broken.elf"
	if ! tools/mkefi.sh --test-stale-map-key build/pmemk.elf build/efi/loader.a \
		"$esp/pmemk.efi" 'ktest=all' ||
	   ! tools/mkefi.sh "$esp/broken.elf" build/efi/loader.a "$esp/broken.efi" ''; then
		echo "    FAIL: tools/mkefi.sh"
		CASE_FAILED=1
		return
	fi
	printf 'fs0:\\broken.efi\r\nfs0:\\pmemk.efi %s\r\nreset -s\r\n' "$args" \
		>"$esp/startup.nsh"

	boot bootpath_efi_shell 0 --esp "$esp" --ram 512M --timeout 120
	expect '^BdsDxe: starting Boot[0-9A-F]+ "EFI Internal Shell"'
	expect '^pmemk: the embedded kernel is unusable: no EFI handover header \("PMEMKEFI"\)'
	expect "^pmemk: command line from the load options \(UCS-2\): $args\$"
	expect '\] boot: EFI loader: ExitBootServices succeeded on try 2 \(map key went stale\)'
	expect '\] boot: efi \(gnu-efi\)'
	expect "\] Command line: $args\$"
	expect_ktest_ran cmdline_params_registered
	expect_ktest_pass
	efi=$(lines '\] memmap=garbage')

	boot bootpath_grub_bad_value 0 --ram 512M --cmdline "$args"
	expect_ktest_ran cmdline_params_registered
	expect_ktest_pass
	grub=$(lines '\] memmap=garbage')
	if [ -z "$efi" ] || [ "$efi" != "$grub" ]; then
		echo "    FAIL: memmap=garbage reported differently:"
		echo "    grub: $grub"
		echo "    efi:  $efi"
		CASE_FAILED=1
	fi
}
