kernel-y += arch/x86_64/arch.c arch/x86_64/cpu.c arch/x86_64/exit.c arch/x86_64/gdt.c arch/x86_64/idt.c arch/x86_64/serial.c arch/x86_64/traps.S arch/x86_64/tsc.c arch/x86_64/paging.c arch/x86_64/pte.c arch/x86_64/persist.c arch/x86_64/random.c
# For now the host tests use the x86 entry format too.
host-y += arch/x86_64/pte.c
