/* The multiboot2 path into the kernel: bring up the console, parse the MBI, call kmain. */
#include <string.h>

#include "arch.h"
#include "kernel.h"
#include "multiboot2.h"
#include "printk.h"
#include "x86.h"

extern char _kernel_phys_start[], _kernel_phys_end[];

static struct boot_info boot_info;

void multiboot2_entry(u32 magic, u32 mbi_phys);
void multiboot2_entry(u32 magic, u32 mbi_phys)
{
	struct boot_info *bi = &boot_info;

	serial_init();
	cpu_features_init();
	gdt_init();
	idt_init();
	if (magic != MB2_BOOTLOADER_MAGIC) {
		pr_emerg("boot: bad multiboot2 magic %#x\n", magic);
		arch_exit(EXIT_PANIC);
	}
	/* The boot page tables direct map the first 4 GiB, where the MBI is. */
	if (multiboot2_parse(phys_to_virt(mbi_phys), mbi_phys, bi) < 0)
		arch_exit(EXIT_PANIC);
	bi->kernel_start = (u64)_kernel_phys_start;
	bi->kernel_end = (u64)_kernel_phys_end;
	kmain(bi);
}
