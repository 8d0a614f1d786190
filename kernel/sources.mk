kernel-y += kernel/kallsyms.c kernel/main.c kernel/meminfo.c kernel/panic.c kernel/shell.c kernel/idle.c kernel/ktest.c kernel/ktests.c
kernel-y += kernel/ktests_nfit.c
kernel-y += kernel/ktests_mm.c
kernel-y += kernel/ktests_smp.c kernel/shell_cpu.c
