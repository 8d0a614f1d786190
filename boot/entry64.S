/*
 * First 64-bit code in the higher half, one entry per boot path. Both switch
 * to the kernel stack, enable SSE (newlib needs it, FACTS §9.3) and call C:
 *   kernel_entry64      from boot/multiboot2.S -> multiboot2_entry(magic, mbi)
 *   kernel_efi_entry64  from the GNU-EFI loader's trampoline (boot/efi/) ->
 *                       efi_handover_entry(boot_info_phys), found by the loader
 *                       through the handover header below.
 */
#define CR0_MP	(1 << 1)
#define CR0_EM	(1 << 2)
#define CR4_OSFXSR	(1 << 9)
#define CR4_OSXMMEXCPT	(1 << 10)

/*
 * The EFI handover header (struct efi_handover, include/boot_info.h). Linked
 * into .boot right after the multiboot2 header (linker.ld), so it lies in the
 * first 32 KiB of the first PT_LOAD segment where the loader looks for it.
 */
	.section .efi_handover, "a"
	.balign 8
efi_handover:
	.ascii "PMEMKEFI"		/* EFI_HANDOVER_MAGIC */
	.long 1				/* EFI_HANDOVER_VERSION */
	.long efi_handover_end - efi_handover
	.quad kernel_efi_entry64
efi_handover_end:

	.text
	.globl kernel_entry64
kernel_entry64:
	movabsq $kernel_stack_top, %rsp
	xorl %ebp, %ebp
	call sse_enable
	movl mb2_magic, %edi
	movl mb2_info, %esi
	call multiboot2_entry
	jmp halt_forever

/*
 * Entered from boot/efi/trampoline.S: 64-bit mode on the loader's boot page
 * tables (identity and direct map of [0, 4 GiB), image at KERNEL_VMA),
 * interrupts off, CS 0x08, data segments 0x10, RDI = physical address of the
 * loader's struct boot_info. Nothing of the loader's stack is used.
 */
	.globl kernel_efi_entry64
kernel_efi_entry64:
	movabsq $kernel_stack_top, %rsp
	xorl %ebp, %ebp
	call sse_enable			/* preserves %rdi */
	call efi_handover_entry
	jmp halt_forever

/* CR0.EM=0, CR0.MP=1, CR4.OSFXSR=1, CR4.OSXMMEXCPT=1. Clobbers %rax only. */
sse_enable:
	movq %cr0, %rax
	andq $~CR0_EM, %rax
	orq $CR0_MP, %rax
	movq %rax, %cr0
	movq %cr4, %rax
	orq $(CR4_OSFXSR | CR4_OSXMMEXCPT), %rax
	movq %rax, %cr4
	ret

halt_forever:
1:	cli
	hlt
	jmp 1b

	.bss
	.balign 4096
	.globl kernel_stack_bottom, kernel_stack_top
kernel_stack_bottom:
	.skip 64 * 1024
kernel_stack_top:
