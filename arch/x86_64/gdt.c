/* The kernel's GDT: flat 64-bit code and data, and a TSS whose IST1 stack catches double faults. */
#include <string.h>

#include "types.h"
#include "x86.h"

#define GDT_KERNEL_CS 0x08
#define GDT_KERNEL_DS 0x10
#define GDT_TSS 0x18

static struct cpu_tables bsp_tables;
static u8 df_stack[16 * 1024] __aligned(16);

struct desc_ptr {
	u16 limit;
	u64 base;
} __packed;

/* 16-byte system descriptor for the 64-bit TSS (SDM vol. 3A §8.2.3). */
static void set_tss_desc(u64 *slot, u64 base, u32 limit)
{
	slot[0] = (limit & 0xFFFF) | ((base & 0xFFFFFF) << 16) | (0x89ULL << 40) |
		  ((u64)((limit >> 16) & 0xF) << 48) | (((base >> 24) & 0xFF) << 56);
	slot[1] = base >> 32;
}

void gdt_load(struct cpu_tables *t, u64 ist_top)
{
	struct desc_ptr ptr = { sizeof(t->gdt) - 1, (u64)t->gdt };

	t->gdt[0] = 0;
	t->gdt[1] = 0x00af9a000000ffffULL;	/* 64-bit code, DPL 0 */
	t->gdt[2] = 0x00cf92000000ffffULL;	/* data */
	memset(&t->tss, 0, sizeof(t->tss));
	t->tss.ist[0] = ist_top;
	t->tss.iomap_base = sizeof(t->tss);
	set_tss_desc(&t->gdt[3], (u64)&t->tss, sizeof(t->tss) - 1);

	__asm__ volatile("lgdt %0" : : "m"(ptr));
	__asm__ volatile("pushq %[cs]\n\t"
			 "leaq 1f(%%rip), %%rax\n\t"
			 "pushq %%rax\n\t"
			 "lretq\n"
			 "1:\n\t"
			 "movw %w[ds], %%ax\n\t"
			 "movw %%ax, %%ds\n\t"
			 "movw %%ax, %%es\n\t"
			 "movw %%ax, %%ss\n\t"
			 : : [cs] "i"(GDT_KERNEL_CS), [ds] "i"(GDT_KERNEL_DS)
			 : "rax", "memory");
	__asm__ volatile("ltr %w0" : : "r"(GDT_TSS));
}

void gdt_init(void)
{
	gdt_load(&bsp_tables, (u64)(df_stack + sizeof(df_stack)));
}
