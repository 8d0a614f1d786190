#!/usr/bin/env bash
# Build a TFTP tree that PXE-boots pmemk on BIOS and UEFI machines alike:
#   tools/mknetboot.sh [--boot-file NAME=PATH]... KERNEL.elf BOOTX64.EFI OUTDIR 'CMDLINE'
# OUTDIR (replaced) then holds
#   boot/grub/i386-pc/core.0   BIOS PXE boot file (GRUB, grub-mknetdir; FACTS §8.1)
#   boot/grub/grub.cfg         loads /pmemk.elf by TFTP with CMDLINE (GRUB quoting)
#   pmemk.elf                  the multiboot2 kernel
#   BOOTX64.EFI                UEFI PXE boot file (x64, arch 7/9), kernel inside;
#                              build it with the same CMDLINE (make netboot does)
#   boot/NAME                  each --boot-file, loaded by GRUB as the boot
#                              file NAME (module2 /boot/NAME NAME)
#   boot-files.ipxe            with --boot-file: the UEFI boot file for iPXE
#                              clients instead of BOOTX64.EFI: fetches each
#                              file (imgfetch --name NAME), then chains
#                              BOOTX64.EFI, which finds them in iPXE's file
#                              system. Firmware's own PXE cannot run it.
#                              TFTP has no access control: any host that
#                              reaches the server can fetch the files.
# DHCP settings for a lab: README.md "PXE boot".
set -euo pipefail
usage='usage: mknetboot.sh [--boot-file NAME=PATH]... KERNEL.elf BOOTX64.EFI OUTDIR CMDLINE'
files=()
while [ "${1-}" = --boot-file ]; do
	files+=("$2")
	shift 2
done
kernel=${1:?$usage}
efi=${2:?$usage}
out=${3:?$usage}
cmdline=${4-}

tmp=$out.tmp.$$
trap 'rm -rf "$tmp"' EXIT
rm -rf "$tmp"
mkdir -p "$tmp"
# No fonts, locales or themes: the console is text (serial and VGA), 2.6 MB.
grub-mknetdir --net-directory="$tmp" --subdir=boot/grub -d /usr/lib/grub/i386-pc \
	--fonts= --locales= --themes= >"$tmp/mknetdir.log" 2>&1 || { cat "$tmp/mknetdir.log" >&2; exit 1; }
rm -f "$tmp/mknetdir.log"
cp "$kernel" "$tmp/pmemk.elf"
cp "$efi" "$tmp/BOOTX64.EFI"
modules=()
for f in "${files[@]}"; do
	cp "${f#*=}" "$tmp/boot/${f%%=*}"
	modules+=(--module "/boot/${f%%=*}" "${f%%=*}")
done
if [ ${#files[@]} -gt 0 ]; then
	{
		echo '#!ipxe'
		for f in "${files[@]}"; do
			echo "imgfetch --name ${f%%=*} /boot/${f%%=*}"
		done
		echo 'chain /BOOTX64.EFI'
	} >"$tmp/boot-files.ipxe"
fi
# The ISO's grub.cfg; paths are relative to the TFTP root.
"$(dirname "$0")/grubcfg.sh" "${modules[@]}" /pmemk.elf "$cmdline" 'pmemk: netboot from ($root)' \
	>"$tmp/boot/grub/grub.cfg"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
