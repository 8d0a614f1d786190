#!/usr/bin/env bash
# Build a GRUB rescue ISO (BIOS and UEFI) that boots pmemk.elf with a command line.
# Usage: tools/mkiso.sh KERNEL.elf OUT.iso 'CMDLINE'
# The command line is written verbatim into grub.cfg (GRUB quoting: wrap a
# value with spaces or ';' in double quotes, e.g. run="e820; meminfo").
set -euo pipefail
kernel=${1:?usage: mkiso.sh KERNEL OUT.iso CMDLINE}
out=${2:?usage: mkiso.sh KERNEL OUT.iso CMDLINE}
cmdline=${3-}
root=$(mktemp -d)
log=$(mktemp)
trap 'rm -rf "$root" "$log"' EXIT
mkdir -p "$root/boot/grub"
cp "$kernel" "$root/boot/pmemk.elf"
cat >"$root/boot/grub/grub.cfg" <<CFG
set timeout=0
set default=0
serial --unit=0 --speed=115200 --word=8 --parity=no --stop=1
terminal_input serial
terminal_output serial
menuentry "pmemk" {
	multiboot2 /boot/pmemk.elf $cmdline
	boot
}
CFG
grub-mkrescue -o "$out" "$root" >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
