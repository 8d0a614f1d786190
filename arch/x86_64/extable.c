/* The exception table (trap.h): which instructions may fault, and where they resume. */
#include "trap.h"

extern const struct ex_entry __start_ex_table[], __stop_ex_table[];

u64 ex_table_fixup(u64 rip)
{
	for (const struct ex_entry *e = __start_ex_table; e < __stop_ex_table; e++) {
		u64 insn = (u64)&e->insn + (u64)(s64)e->insn;
		if (insn == rip)
			return (u64)&e->fixup + (u64)(s64)e->fixup;
	}
	return 0;
}
