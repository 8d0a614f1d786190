/* x86-64 instructions as inline functions: port I/O, MSRs, control registers. */
#ifndef PMEMK_X86_H
#define PMEMK_X86_H

#include "types.h"

/*
 * Port I/O of one width (SDM vol. 2, IN and OUT): outb/inb (u8), outw/inw
 * (u16), outl/inl (u32).
 */
#define X86_PORT_IO(sfx, type)                                                   \
	static inline void out##sfx(u16 port, type v)                           \
	{                                                                       \
		__asm__ volatile("out" #sfx " %0, %1" : : "a"(v), "Nd"(port)); \
	}                                                                       \
	static inline type in##sfx(u16 port)                                    \
	{                                                                       \
		type v;                                                         \
		__asm__ volatile("in" #sfx " %1, %0" : "=a"(v) : "Nd"(port));  \
		return v;                                                       \
	}
X86_PORT_IO(b, u8)
X86_PORT_IO(w, u16)
X86_PORT_IO(l, u32)
#undef X86_PORT_IO

static inline u64 rdmsr(u32 msr)
{
	u32 lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((u64)hi << 32) | lo;
}

static inline void wrmsr(u32 msr, u64 v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((u32)v), "d"((u32)(v >> 32)));
}

static inline void cpuid(u32 leaf, u32 sub, u32 *a, u32 *b, u32 *c, u32 *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d)
			 : "a"(leaf), "c"(sub));
}

/*
 * Control registers (SDM vol. 3A §2.5): read_cr0, read_cr2, read_cr3,
 * read_cr4, write_cr3, write_cr4.
 */
#define X86_READ_CR(n)                                                   \
	static inline u64 read_cr##n(void)                              \
	{                                                               \
		u64 v;                                                  \
		__asm__ volatile("mov %%cr" #n ", %0" : "=r"(v));       \
		return v;                                               \
	}
#define X86_WRITE_CR(n)                                                  \
	static inline void write_cr##n(u64 v)                           \
	{                                                               \
		__asm__ volatile("mov %0, %%cr" #n : : "r"(v) : "memory"); \
	}
X86_READ_CR(0)
X86_READ_CR(2)
X86_READ_CR(3)
X86_READ_CR(4)
X86_WRITE_CR(3)
X86_WRITE_CR(4)
#undef X86_READ_CR
#undef X86_WRITE_CR

static inline u64 rdtsc(void)
{
	u32 lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((u64)hi << 32) | lo;
}

/* Bumped by every TLB flush (arch.c); APs compare before each call (smp_call.c). */
extern u64 tlb_flush_gen;

static inline void invlpg(u64 va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

static inline void cpu_relax(void)
{
	__asm__ volatile("pause");
}

static inline __noreturn void halt_forever(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}

#define MSR_EFER 0xC0000080
#define EFER_NXE (1ULL << 11)
#define MSR_GS_BASE 0xC0000101

/* A macro's value as a string (for assembly written in C strings). */
#define __stringify_1(x) #x
#define __stringify(x) __stringify_1(x)

/* 64-bit TSS (SDM vol. 3A §8.7). */
struct x86_tss {
	u32 reserved0;
	u64 rsp[3];
	u64 reserved1;
	u64 ist[7];
	u64 reserved2;
	u16 reserved3;
	u16 iomap_base;
} __packed;

/* One CPU's GDT (null, code 0x08, data 0x10, TSS 0x18-0x27) and TSS. */
struct cpu_tables {
	u64 gdt[5] __aligned(16);
	struct x86_tss tss __aligned(16);
};

/* Fill and load `t` on this CPU: GDT, segment registers, TR; IST1 = ist_top. */
void gdt_load(struct cpu_tables *t, u64 ist_top);
/* Point `vector` at handler (an interrupt gate on the kernel's CS). */
void idt_set_gate(u8 vector, u64 handler);
/* Load the kernel's IDT (built once by idt_init) on this CPU. */
void idt_load(void);

/* The boot CPU's idle halt: its vectors, its local APIC timer's rate (idle.c; after lapic_map). */
void idle_timer_init(void);
/* cpuinfo's idle line: poll or halt, and the halts counted. */
void idle_info_print(void);
/* Can the boot CPU halt while idle (an APIC timer, and not idle=poll)? */
bool idle_can_halt(void);

struct smp_config;
/* The I/O APICs (ioapic.c; after lapic_map): mapped, every pin masked; wake-ups to boot_apic_id. */
void ioapic_init(const struct smp_config *cfg, u32 boot_apic_id);
extern u64 ioapic_wakes;	/* halts ended by a device's INTx line */

/* x86 bring-up steps, called in order by multiboot2_entry/kmain. */
void serial_init(void);
void gdt_init(void);
void idt_init(void);
void tsc_calibrate(void);
/* Print the caller's stack trace (symbolized). */
void dump_stack(void);

#endif
