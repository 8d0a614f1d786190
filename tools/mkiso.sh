#!/usr/bin/env bash
# Build a GRUB rescue ISO (BIOS and UEFI) that boots pmemk.elf with a command line.
# Usage: tools/mkiso.sh [--boot-file NAME=PATH]... KERNEL.elf OUT.iso 'CMDLINE'
# The command line goes verbatim into grub.cfg (tools/grubcfg.sh). Each
# --boot-file is copied to /boot/NAME on the ISO and loaded as the boot file
# NAME (module2 /boot/NAME NAME): the ISO then holds the file as it is.
set -euo pipefail
files=()
while [ "${1-}" = --boot-file ]; do
	files+=("$2")
	shift 2
done
kernel=${1:?usage: mkiso.sh [--boot-file NAME=PATH]... KERNEL OUT.iso CMDLINE}
out=${2:?usage: mkiso.sh [--boot-file NAME=PATH]... KERNEL OUT.iso CMDLINE}
cmdline=${3-}
root=$(mktemp -d)
log=$(mktemp)
trap 'rm -rf "$root" "$log"' EXIT
mkdir -p "$root/boot/grub"
cp "$kernel" "$root/boot/pmemk.elf"
modules=()
for f in "${files[@]}"; do
	cp "${f#*=}" "$root/boot/${f%%=*}"
	modules+=(--module "/boot/${f%%=*}" "${f%%=*}")
done
"$(dirname "$0")/grubcfg.sh" "${modules[@]}" /boot/pmemk.elf "$cmdline" >"$root/boot/grub/grub.cfg"
grub-mkrescue -o "$out" "$root" >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
