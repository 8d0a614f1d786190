kernel-y += arch/x86_64/arch.c arch/x86_64/cpu.c arch/x86_64/exit.c arch/x86_64/gdt.c arch/x86_64/idt.c arch/x86_64/serial.c arch/x86_64/traps.S arch/x86_64/tsc.c arch/x86_64/persist.c arch/x86_64/random.c arch/x86_64/pci_cfg.c arch/x86_64/ioport.c \
	arch/x86_64/lapic.c arch/x86_64/smp_boot.c arch/x86_64/smp_call.c arch/x86_64/trampoline.c \
	arch/x86_64/idle.c arch/x86_64/ioapic.c arch/x86_64/trampoline.S \
	arch/x86_64/copy_mc.S arch/x86_64/extable.c arch/x86_64/mce.c arch/x86_64/mce_decode.c
