/*
 * The machine-check-safe copy (arch.h arch_copy_mc; Linux's copy_mc_fragile
 * in idea): every load and store that may fault is listed in the exception
 * table, so a machine check on poisoned memory (or a page fault) inside it
 * resumes at copy_mc_fault, which returns the bytes not yet copied. The
 * count in %rcx drops only after a whole step is stored, so the answer
 * errs high by less than one step (64, 8 or 1 bytes), never low: the first
 * n - r bytes are always copied. Plain 8-byte moves, 64 bytes a step, as
 * fast as newlib's memcpy under QEMU TCG and on hardware for the sizes the
 * block layer copies.
 *
 * Also a host test's: only unprivileged instructions.
 */
	.text

/* List the instruction at label \insn: a fault there resumes at \fixup. */
.macro EX insn, fixup=copy_mc_fault
	.pushsection ex_table, "a"
	.balign 4
	.long \insn - .
	.long \fixup - .
	.popsection
.endm

/* size_t arch_copy_mc(void *dst %rdi, const void *src %rsi, size_t n %rdx) */
	.globl arch_copy_mc
	.type arch_copy_mc, @function
arch_copy_mc:
	mov %rdx, %rcx
	cmp $64, %rcx
	jb 20f
10:	/* 64 bytes: four loads, four stores, twice */
.Ll0:	mov 0(%rsi), %rax
.Ll1:	mov 8(%rsi), %rdx
.Ll2:	mov 16(%rsi), %r8
.Ll3:	mov 24(%rsi), %r9
.Ls0:	mov %rax, 0(%rdi)
.Ls1:	mov %rdx, 8(%rdi)
.Ls2:	mov %r8, 16(%rdi)
.Ls3:	mov %r9, 24(%rdi)
.Ll4:	mov 32(%rsi), %rax
.Ll5:	mov 40(%rsi), %rdx
.Ll6:	mov 48(%rsi), %r8
.Ll7:	mov 56(%rsi), %r9
.Ls4:	mov %rax, 32(%rdi)
.Ls5:	mov %rdx, 40(%rdi)
.Ls6:	mov %r8, 48(%rdi)
.Ls7:	mov %r9, 56(%rdi)
	add $64, %rsi
	add $64, %rdi
	sub $64, %rcx
	cmp $64, %rcx
	jae 10b
20:	/* 8 bytes */
	cmp $8, %rcx
	jb 30f
.Llw:	mov (%rsi), %rax
.Lsw:	mov %rax, (%rdi)
	add $8, %rsi
	add $8, %rdi
	sub $8, %rcx
	jmp 20b
30:	/* bytes */
	test %rcx, %rcx
	jz 40f
.Llb:	movb (%rsi), %al
.Lsb:	movb %al, (%rdi)
	inc %rsi
	inc %rdi
	dec %rcx
	jmp 30b
40:	xor %eax, %eax
	ret
	.size arch_copy_mc, . - arch_copy_mc

	EX .Ll0
	EX .Ll1
	EX .Ll2
	EX .Ll3
	EX .Ll4
	EX .Ll5
	EX .Ll6
	EX .Ll7
	EX .Ls0
	EX .Ls1
	EX .Ls2
	EX .Ls3
	EX .Ls4
	EX .Ls5
	EX .Ls6
	EX .Ls7
	EX .Llw
	EX .Lsw
	EX .Llb
	EX .Lsb

/* A fault inside a copy: the bytes not copied, in %rcx. */
	.globl copy_mc_fault
copy_mc_fault:
	mov %rcx, %rax
	ret

/*
 * int arch_load32_mc(const void *src %rdi, u32 *val %rsi): one 4-byte load
 * (atomic when src is aligned); 0, or -EIO (-5) after a fault on it.
 */
	.globl arch_load32_mc
	.type arch_load32_mc, @function
arch_load32_mc:
	mov $-5, %rcx		/* what copy_mc_fault returns if the load faults */
.Ll32:	movl (%rdi), %eax
	movl %eax, (%rsi)
	xor %eax, %eax
	ret
	.size arch_load32_mc, . - arch_load32_mc
	EX .Ll32

/*
 * size_t copy_mc_raise(size_t n %rdi): the injector's poisoned load
 * (mce.c, arch_copy_mc_inject): with a machine-check bank already loaded,
 * raise vector 18 here. The #MC frame's RIP is the instruction after the
 * INT, which is listed, so the handler resumes at copy_mc_fault with n in
 * %rcx: nothing copied. Returns 0 only if no handler took it.
 */
	.globl copy_mc_raise
	.type copy_mc_raise, @function
copy_mc_raise:
	mov %rdi, %rcx
	int $18
.Lraised:	xor %eax, %eax
	ret
	.size copy_mc_raise, . - copy_mc_raise
	EX .Lraised

/*
 * int wrmsr_safe(u32 msr %edi, u64 val %rsi): WRMSR, 0; or -EIO (-5) when
 * the CPU refuses it with a #GP (the injector's bank writes on hardware).
 */
	.globl wrmsr_safe
	.type wrmsr_safe, @function
wrmsr_safe:
	mov %edi, %ecx
	mov %esi, %eax
	mov %rsi, %rdx
	shr $32, %rdx
.Lwrmsr:
	wrmsr
	xor %eax, %eax
	ret
wrmsr_refused:
	mov $-5, %eax
	ret
	.size wrmsr_safe, . - wrmsr_safe
	EX .Lwrmsr, wrmsr_refused

	.section .note.GNU-stack,"",@progbits
