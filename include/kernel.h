/* Kernel core: entry, panic, shell and in-kernel tests. */
#ifndef PMEMK_KERNEL_H
#define PMEMK_KERNEL_H

#include "boot_info.h"
#include "types.h"

__noreturn void kmain(const struct boot_info *bi);

/* The boot's "Memory:" lines: RAM available and where the rest went (kernel/meminfo.c). */
void meminfo_print_boot(const struct boot_info *bi);

/*
 * The end of boot for bench= on the command line (bench/runner.c): run the
 * benchmarks, then power off (status 0, or 1 if a figure could not be
 * taken). Returns at once without bench=.
 */
void bench_boot(void);

/* Stop on a broken kernel invariant (never for bad input): print, exit 2. */
__noreturn __attribute__((format(printf, 1, 2))) void panic(const char *fmt, ...);

#define BUG_ON(cond)                                                        \
	do {                                                                \
		if (cond)                                                   \
			panic("BUG at %s:%d: %s", __FILE__, __LINE__, #cond); \
	} while (0)

/* Exit the machine with a status (see enum kernel_exit in arch.h). */
__noreturn void kernel_poweroff(int status);

#endif
