kernel-y += kernel/kallsyms.c kernel/main.c kernel/panic.c kernel/shell.c kernel/ktest.c kernel/cmds.c kernel/ktests.c
kernel-y += kernel/ktests_nfit.c
kernel-y += kernel/ktests_mm.c
