/*
 * Exception entry points for vectors 0-31. Each pushes a dummy error code
 * where the CPU pushes none, then the vector, and jumps to the common path,
 * which saves the general registers and the SSE state (newlib's printf uses
 * SSE) and calls trap_handler(struct trap_frame *).
 */
	.text

.macro TRAP_NOERR vec
	.globl trap_entry_\vec
trap_entry_\vec:
	pushq $0
	pushq $\vec
	jmp trap_common
.endm

.macro TRAP_ERR vec
	.globl trap_entry_\vec
trap_entry_\vec:
	pushq $\vec
	jmp trap_common
.endm

TRAP_NOERR 0
TRAP_NOERR 1
TRAP_NOERR 2
TRAP_NOERR 3
TRAP_NOERR 4
TRAP_NOERR 5
TRAP_NOERR 6
TRAP_NOERR 7
TRAP_ERR 8
TRAP_NOERR 9
TRAP_ERR 10
TRAP_ERR 11
TRAP_ERR 12
TRAP_ERR 13
TRAP_ERR 14
TRAP_NOERR 15
TRAP_NOERR 16
TRAP_ERR 17
TRAP_NOERR 18
TRAP_NOERR 19
TRAP_NOERR 20
TRAP_ERR 21
TRAP_NOERR 22
TRAP_NOERR 23
TRAP_NOERR 24
TRAP_NOERR 25
TRAP_NOERR 26
TRAP_NOERR 27
TRAP_NOERR 28
TRAP_ERR 29
TRAP_ERR 30
TRAP_NOERR 31

trap_common:
	pushq %rax
	pushq %rbx
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %rbp
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rsp, %rbx			/* struct trap_frame * */
	subq $512, %rsp
	andq $~15, %rsp
	fxsave (%rsp)
	movq %rbx, %rdi
	cld
	call trap_handler
	fxrstor (%rsp)
	movq %rbx, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rbp
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rbx
	popq %rax
	addq $16, %rsp			/* vector, error code */
	iretq

	.section .rodata
	.balign 8
	.globl trap_entries
trap_entries:
	.irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	.quad trap_entry_\v
	.endr
