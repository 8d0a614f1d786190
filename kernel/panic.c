/* panic(): report a broken kernel invariant and stop with EXIT_PANIC. */
#include <stdarg.h>
#include <stdio.h>

#include "acpica.h"
#include "arch.h"
#include "kernel.h"
#include "printk.h"
#include "x86.h"

void panic(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pr_emerg("Kernel panic: %s\n", msg);
	dump_stack();
	arch_exit(EXIT_PANIC);
}

void kernel_poweroff(int status)
{
	pr_info("poweroff: status %d\n", status);
	/* QEMU's isa-debug-exit first (the status reaches the host), then ACPI S5. */
	arch_exit_debug(status);
	acpica_poweroff();
	arch_exit(status);
}
