/* Address-to-symbol lookup over the table tools/kallsyms.sh generates. */
#include "kallsyms.h"

extern const u64 kallsyms_num;
extern const u64 kallsyms_addrs[];
extern const u32 kallsyms_offsets[];
extern const char kallsyms_names[];
extern char _etext[];

const char *kallsyms_lookup(u64 addr, u64 *offset)
{
	u64 lo = 0, hi = kallsyms_num;

	if (!kallsyms_num || addr < kallsyms_addrs[0] || addr >= (u64)_etext)
		return NULL;
	/* The last symbol at or below addr. */
	while (hi - lo > 1) {
		u64 mid = lo + (hi - lo) / 2;
		if (kallsyms_addrs[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	*offset = addr - kallsyms_addrs[lo];
	return kallsyms_names + kallsyms_offsets[lo];
}
