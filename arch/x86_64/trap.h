/*
 * The frame traps.S saves for an exception, and the exception table: the
 * instructions allowed to fault, each with the address to resume at
 * (Linux's extable, in relative form so the host tests can run it too).
 */
#ifndef PMEMK_TRAP_H
#define PMEMK_TRAP_H

#include "types.h"

struct trap_frame {
	u64 r15, r14, r13, r12, r11, r10, r9, r8;
	u64 rbp, rdi, rsi, rdx, rcx, rbx, rax;
	u64 vector, error;
	u64 rip, cs, rflags, rsp, ss;
};

/* One entry of section ex_table: offsets from the fields themselves. */
struct ex_entry {
	s32 insn;
	s32 fixup;
};

/* Where to resume after a fault at rip, or 0 when rip may not fault. */
u64 ex_table_fixup(u64 rip);

/* The #MC handler (mce.c): true when the machine may go on. */
bool mce_handle(struct trap_frame *f);

#endif
