/*
 * Multiboot2 header and the 32-bit entry: checks the loader's magic and the
 * CPU's long mode, builds boot page tables (identity + direct map + kernel
 * image mappings of the first 4 GiB, 2 MiB pages), enters long mode and
 * jumps to the higher-half kernel (boot/entry64.S). Layout: FACTS §5.1-5.2.
 */
#include "memlayout.h"

#define MB2_MAGIC		0xE85250D6
#define MB2_ARCH_I386		0
#define MB2_BOOTLOADER_MAGIC	0x36D76289

#define CR0_PE		(1 << 0)
#define CR0_WP		(1 << 16)
#define CR0_PG		(1 << 31)
#define CR4_PAE		(1 << 5)
#define MSR_EFER	0xC0000080
#define EFER_LME	(1 << 8)
#define EFER_NXE	(1 << 11)
#define PTE_P_W		0x003
#define PDE_2M		0x083		/* present, writable, page size */

#define COM1		0x3F8

	.section .multiboot, "a"
	.balign 8
mb2_header:
	.long MB2_MAGIC
	.long MB2_ARCH_I386
	.long mb2_header_end - mb2_header
	.long -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
	/* end tag */
	.balign 8
	.short 0, 0
	.long 8
mb2_header_end:

	.section .boot.text, "ax"
	.code32
	.globl _start
_start:
	cli
	cld
	movl $boot_stack_top, %esp
	movl %eax, mb2_magic
	movl %ebx, mb2_info

	cmpl $MB2_BOOTLOADER_MAGIC, %eax
	movl $msg_magic, %esi
	jne die32

	/* Long mode: CPUID.80000001H:EDX[29]. NX: [20]. */
	movl $0x80000000, %eax
	cpuid
	cmpl $0x80000001, %eax
	movl $msg_lm, %esi
	jb die32
	movl $0x80000001, %eax
	cpuid
	testl $(1 << 29), %edx
	jz die32
	movl %edx, %ebp			/* keep the NX bit for EFER below */

	/* Zero the boot page tables (6 pages: PML4, 2 PDPTs... see below). */
	movl $boot_pgtables, %edi
	movl $(boot_pgtables_end - boot_pgtables) / 4, %ecx
	xorl %eax, %eax
	rep stosl

	/* PD[0..2047]: 2 MiB leaves covering [0, 4 GiB). */
	movl $boot_pd, %edi
	movl $PDE_2M, %eax
	xorl %edx, %edx			/* high dword of each entry */
	movl $2048, %ecx
1:	movl %eax, (%edi)
	movl %edx, 4(%edi)
	addl $0x200000, %eax
	adcl $0, %edx
	addl $8, %edi
	loop 1b

	/* PDPT_low[0..3] -> the four PD pages (identity and direct map). */
	movl $boot_pdpt_low, %edi
	movl $boot_pd + PTE_P_W, %eax
	movl $4, %ecx
2:	movl %eax, (%edi)
	addl $4096, %eax
	addl $8, %edi
	loop 2b

	/* PDPT_high[510], [511] -> first two PD pages: KERNEL_VMA + [0, 2 GiB). */
	movl $boot_pd + PTE_P_W, boot_pdpt_high + 510 * 8
	movl $boot_pd + 4096 + PTE_P_W, boot_pdpt_high + 511 * 8

	/* PML4: [0] identity, [273] direct map (PAGE_OFFSET), [511] kernel. */
	movl $boot_pdpt_low + PTE_P_W, boot_pml4
	movl $boot_pdpt_low + PTE_P_W, boot_pml4 + ((PAGE_OFFSET >> 39) & 511) * 8
	movl $boot_pdpt_high + PTE_P_W, boot_pml4 + 511 * 8

	movl %cr4, %eax
	orl $CR4_PAE, %eax
	movl %eax, %cr4
	movl $boot_pml4, %eax
	movl %eax, %cr3

	movl $MSR_EFER, %ecx
	rdmsr
	orl $EFER_LME, %eax
	testl $(1 << 20), %ebp
	jz 3f
	orl $EFER_NXE, %eax
3:	wrmsr

	movl %cr0, %eax
	orl $(CR0_PG | CR0_WP | CR0_PE), %eax
	movl %eax, %cr0

	lgdt boot_gdt_ptr
	ljmp $0x08, $long_mode_entry

/* Print the NUL-terminated string at %esi on COM1 and halt. */
die32:
	movb (%esi), %al
	testb %al, %al
	jz 2f
	movw $COM1 + 5, %dx
1:	inb %dx, %al
	testb $0x20, %al
	jz 1b
	movb (%esi), %al
	movw $COM1, %dx
	outb %al, %dx
	incl %esi
	jmp die32
2:	hlt
	jmp 2b

	.code64
long_mode_entry:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	xorw %ax, %ax
	movw %ax, %fs
	movw %ax, %gs
	movabsq $kernel_entry64, %rax
	jmp *%rax

	.section .boot.data, "aw"
	.balign 8
boot_gdt:
	.quad 0
	.quad 0x00af9a000000ffff	/* 0x08: 64-bit code, DPL 0 */
	.quad 0x00cf92000000ffff	/* 0x10: data */
boot_gdt_end:
boot_gdt_ptr:
	.short boot_gdt_end - boot_gdt - 1
	.long boot_gdt
	.globl mb2_magic, mb2_info
mb2_magic:
	.long 0
mb2_info:
	.long 0
msg_magic:
	.asciz "pmemk: not started by a multiboot2 loader (bad magic)\r\n"
msg_lm:
	.asciz "pmemk: this CPU has no long mode (x86-64); cannot boot\r\n"

	.section .boot.bss, "aw", @nobits
	.balign 4096
	.globl boot_pml4
boot_pgtables:
boot_pml4:
	.skip 4096
boot_pdpt_low:
	.skip 4096
boot_pdpt_high:
	.skip 4096
boot_pd:
	.skip 4 * 4096
boot_pgtables_end:
	.skip 4096
boot_stack_top:
