/*
 * Ending the machine. Under QEMU with `-device isa-debug-exit,iobase=0xf4,
 * iosize=0x04`, writing status s to port 0xF4 exits QEMU with code 2s+1 (so
 * the kernel's 0 becomes 1). Elsewhere the write is ignored (only attempted
 * under a hypervisor) and the CPU halts.
 */
#include "arch.h"
#include "cpu_features.h"
#include "printk.h"
#include "x86.h"

#define ISA_DEBUG_EXIT_PORT 0xF4

void arch_exit_debug(int status)
{
	if (cpu_features.hypervisor)
		outl(ISA_DEBUG_EXIT_PORT, (u32)status);
}

void arch_exit(int status)
{
	arch_exit_debug(status);
	kprintf("pmemk: halted with status %d\n", status);
	halt_forever();
}
