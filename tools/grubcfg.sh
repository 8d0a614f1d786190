#!/usr/bin/env bash
# Print the grub.cfg that boots pmemk, shared by the ISO and the netboot tree:
#   tools/grubcfg.sh [--module PATH NAME]... KERNEL_PATH 'CMDLINE' ['MESSAGE']
# Serial console COM1 115200 8N1; the command line is written verbatim (GRUB
# quoting: wrap a value with spaces or ';' in double quotes, run="a; b").
# Each --module adds "module2 PATH NAME": the kernel gets the file at PATH as
# the boot file NAME (include/boot_info.h; e.g. nbd.psk, the NBD TLS keys).
set -euo pipefail
modules=
while [ "${1-}" = --module ]; do
	[[ ${3-} =~ ^[A-Za-z0-9._-]{1,31}$ ]] || { echo "grubcfg.sh: --module $2 ${3-}: bad name" >&2; exit 1; }
	modules+=$(printf '\tmodule2 %s %s\n' "$2" "$3")$'\n'
	shift 3
done
kernel=${1:?usage: grubcfg.sh [--module PATH NAME]... KERNEL_PATH CMDLINE [MESSAGE]}
cmdline=${2-}
echo_line=
[ -n "${3-}" ] && echo_line=$(printf '\techo "%s"\n' "$3")
cat <<CFG
set timeout=0
set default=0
serial --unit=0 --speed=115200 --word=8 --parity=no --stop=1
terminal_input serial
terminal_output serial
menuentry "pmemk" {
${echo_line}
	multiboot2 $kernel $cmdline
${modules}	boot
}
CFG
