#!/usr/bin/env bash
# Build a GRUB rescue ISO (BIOS and UEFI) that boots pmemk.elf with a command line.
# Usage: tools/mkiso.sh KERNEL.elf OUT.iso 'CMDLINE'
# The command line goes verbatim into grub.cfg (tools/grubcfg.sh).
set -euo pipefail
kernel=${1:?usage: mkiso.sh KERNEL OUT.iso CMDLINE}
out=${2:?usage: mkiso.sh KERNEL OUT.iso CMDLINE}
cmdline=${3-}
root=$(mktemp -d)
log=$(mktemp)
trap 'rm -rf "$root" "$log"' EXIT
mkdir -p "$root/boot/grub"
cp "$kernel" "$root/boot/pmemk.elf"
"$(dirname "$0")/grubcfg.sh" /boot/pmemk.elf "$cmdline" >"$root/boot/grub/grub.cfg"
grub-mkrescue -o "$out" "$root" >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
