#!/usr/bin/env bash
# Print the grub.cfg that boots pmemk, shared by the ISO and the netboot tree:
#   tools/grubcfg.sh KERNEL_PATH 'CMDLINE' ['MESSAGE']
# Serial console COM1 115200 8N1; the command line is written verbatim (GRUB
# quoting: wrap a value with spaces or ';' in double quotes, run="a; b").
set -euo pipefail
kernel=${1:?usage: grubcfg.sh KERNEL_PATH CMDLINE [MESSAGE]}
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
	boot
}
CFG
