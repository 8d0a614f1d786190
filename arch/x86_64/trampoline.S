/*
 * The AP start-up trampoline (FACTS-2 §6.2): copied by trampoline.c to a
 * 4 KiB page below 1 MiB, where a STARTUP IPI with vector = page number
 * starts an AP in real mode at CS = vector << 8, IP = 0. It goes 16 -> 32
 * -> 64 bit on its own GDT and on a PML4 of its own (identity map of the
 * low 2 MiB in entry 0, the kernel's upper-half entries copied), then
 * jumps to smp_ap_entry in the kernel image, which loads the kernel's CR3:
 * the kernel's own page tables never get an identity map.
 *
 * trampoline.c fills struct smp_tramp_data (the block at smp_tramp_data,
 * layout shared with it) and patches the two far jumps' offsets with
 * physical addresses before each STARTUP IPI. The code only uses
 * offsets from its start (EBX = its physical base), so it runs at any page.
 */
	.section .rodata
	.balign 16
	.globl smp_tramp_start, smp_tramp_end, smp_tramp_data
	.globl smp_tramp_far32, smp_tramp_far64, smp_tramp_pm32, smp_tramp_lm64

	.code16
smp_tramp_start:
	cli
	cld
	mov	%cs, %ax
	mov	%ax, %ds
	xor	%ebx, %ebx
	mov	%cs, %bx
	shl	$4, %ebx			/* EBX = physical base of the page */
	lgdtl	tr_gdtr - smp_tramp_start	/* DS-relative: DS = CS */
	mov	%cr0, %eax
	or	$1, %eax			/* PE */
	mov	%eax, %cr0
	.byte	0x66, 0xea			/* ljmpl $0x08, $(base + pm32) */
smp_tramp_far32:
	.long	0
	.word	0x08

	.code32
smp_tramp_pm32:
	mov	$0x18, %ax
	mov	%ax, %ds
	mov	%ax, %es
	mov	%ax, %ss
	mov	tr_cr4 - smp_tramp_start(%ebx), %eax	/* PAE and what the BSP runs with */
	mov	%eax, %cr4
	mov	tr_pml4 - smp_tramp_start(%ebx), %eax	/* below 1 MiB: fits CR3 here */
	mov	%eax, %cr3
	mov	$0xC0000080, %ecx			/* EFER: LME, NXE as on the BSP */
	mov	tr_efer - smp_tramp_start(%ebx), %eax
	xor	%edx, %edx
	wrmsr
	mov	tr_cr0 - smp_tramp_start(%ebx), %eax	/* PG|PE and the BSP's other bits */
	mov	%eax, %cr0
	.byte	0xea				/* ljmp $0x10, $(base + lm64) */
smp_tramp_far64:
	.long	0
	.word	0x10

	.code64
smp_tramp_lm64:
	mov	%ebx, %ebx			/* upper halves are undefined after the switch */
	mov	tr_stack - smp_tramp_start(%rbx), %rsp
	mov	tr_percpu - smp_tramp_start(%rbx), %rdi
	mov	tr_kcr3 - smp_tramp_start(%rbx), %rsi
	mov	tr_entry - smp_tramp_start(%rbx), %rax
	jmp	*%rax

	.balign 16
smp_tramp_data:
tr_gdt:	/* null, 32-bit code 0x08, 64-bit code 0x10, data 0x18 */
	.quad	0, 0x00cf9a000000ffff, 0x00af9a000000ffff, 0x00cf92000000ffff
tr_gdtr:
	.word	4 * 8 - 1
	.long	0				/* patched: physical address of tr_gdt */
	.word	0
tr_pml4:	.long 0
tr_cr0:		.long 0
tr_cr4:		.long 0
tr_efer:	.long 0
tr_stack:	.quad 0
tr_percpu:	.quad 0
tr_kcr3:	.quad 0
tr_entry:	.quad 0
smp_tramp_end:

/* Where the trampoline lands, on the kernel's upper-half mapping. */
	.text
	.globl smp_ap_entry
smp_ap_entry:
	mov	%rsi, %cr3		/* the kernel's page tables: the low page is gone */
	xor	%ebp, %ebp		/* ends stack traces */
	call	smp_ap_start		/* (struct percpu *) in RDI; does not return */
1:	cli
	hlt
	jmp	1b

/*
 * The wake-up IPI (SMP_IPI_VECTOR): save what the C ABI lets a call
 * clobber, acknowledge it in C, return. The CPU aligned RSP to 16 before
 * pushing its 40-byte frame, so after 9 pushes the call sees the ABI's
 * alignment.
 */
	.globl smp_ipi_entry
smp_ipi_entry:
	push	%rax
	push	%rcx
	push	%rdx
	push	%rsi
	push	%rdi
	push	%r8
	push	%r9
	push	%r10
	push	%r11
	cld
	call	smp_ipi_handler
	pop	%r11
	pop	%r10
	pop	%r9
	pop	%r8
	pop	%rdi
	pop	%rsi
	pop	%rdx
	pop	%rcx
	pop	%rax
	iretq

/* The local APIC's spurious vector (0xFF): no EOI is due, nothing to do. */
	.globl smp_spurious_entry
smp_spurious_entry:
	iretq
