/*
 * The jump from the EFI loader into the kernel, after ExitBootServices.
 * main.c copies this position-independent blob into a page below 4 GiB
 * (EfiLoaderCode, so executable under the firmware's page tables) and calls
 * it as
 *   void trampoline(u64 boot_info_phys, u64 cr3, u64 entry, u64 nx)
 * (System V: RDI, RSI, RDX, RCX). It loads the boot page tables (which
 * identity map this page), enables EFER.NXE if nx, loads its own GDT, reloads
 * CS (lretq) and the data segments and jumps to the kernel's EFI entry with
 * RDI = boot_info_phys. Everything it touches lies in this page: the
 * firmware's stack, GDT and code may be above 4 GiB, which the new tables do
 * not map. The GDT matches boot/multiboot2.S's (code 0x08, data 0x10).
 */
#define MSR_EFER	0xC0000080
#define EFER_NXE	(1 << 11)
#define CR4_PGE		(1 << 7)

	.text
	.balign 16
	.globl efi_trampoline_start, efi_trampoline_end
	.hidden efi_trampoline_start, efi_trampoline_end
efi_trampoline_start:
	cli
	movq %rdx, %r8			/* entry: rdmsr/wrmsr use %edx */
	movq %rcx, %r9			/* nx: wrmsr uses %ecx */

	/* Firmware global pages would survive the CR3 load: drop them. */
	movq %cr4, %rax
	andq $~CR4_PGE, %rax
	movq %rax, %cr4
	movq %rsi, %cr3
	leaq tramp_stack_top(%rip), %rsp

	testq %r9, %r9
	jz 1f
	movl $MSR_EFER, %ecx
	rdmsr
	orl $EFER_NXE, %eax
	wrmsr
1:
	/* The page is writable under the boot tables: patch the GDT base in. */
	leaq tramp_gdt(%rip), %rax
	movq %rax, tramp_gdt_ptr + 2(%rip)
	lgdt tramp_gdt_ptr(%rip)
	leaq 2f(%rip), %rax
	pushq $0x08
	pushq %rax
	lretq
2:
	movl $0x10, %eax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	xorl %eax, %eax
	movw %ax, %fs
	movw %ax, %gs
	xorl %ebp, %ebp
	jmp *%r8

	.balign 8
tramp_gdt:
	.quad 0
	.quad 0x00af9a000000ffff	/* 0x08: 64-bit code, DPL 0 */
	.quad 0x00cf92000000ffff	/* 0x10: data */
tramp_gdt_end:
	.balign 8
	.skip 6				/* puts the base on an 8-byte boundary */
tramp_gdt_ptr:
	.short tramp_gdt_end - tramp_gdt - 1
	.quad 0				/* base, set above */
	.balign 16
	.skip 64			/* lretq's two words */
tramp_stack_top:
efi_trampoline_end:

	.section .note.GNU-stack, "", @progbits
