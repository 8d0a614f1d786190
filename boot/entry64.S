/*
 * First 64-bit code in the higher half: switch to the kernel stack, enable
 * SSE (newlib needs it, FACTS §9.3), and call multiboot2_entry(magic, mbi).
 */
#define CR0_MP	(1 << 1)
#define CR0_EM	(1 << 2)
#define CR4_OSFXSR	(1 << 9)
#define CR4_OSXMMEXCPT	(1 << 10)

	.text
	.globl kernel_entry64
kernel_entry64:
	movabsq $kernel_stack_top, %rsp
	xorl %ebp, %ebp

	movq %cr0, %rax
	andq $~CR0_EM, %rax
	orq $CR0_MP, %rax
	movq %rax, %cr0
	movq %cr4, %rax
	orq $(CR4_OSFXSR | CR4_OSXMMEXCPT), %rax
	movq %rax, %cr4

	movl mb2_magic, %edi
	movl mb2_info, %esi
	call multiboot2_entry
1:	cli
	hlt
	jmp 1b

	.bss
	.balign 4096
	.globl kernel_stack_bottom, kernel_stack_top
kernel_stack_bottom:
	.skip 64 * 1024
kernel_stack_top:
