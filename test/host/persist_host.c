/* Persistence primitives for host tests: plain copies, counted like the kernel's. */
#include <string.h>

#include "persist.h"

struct persist_ops persist_ops = { PERSIST_FLUSH_CLWB, PERSIST_COPY_NT };
struct persist_stats persist_stats;

void persist_init(void)
{
}

void arch_flush_cache(const void *p, size_t n)
{
	if (n)
		persist_stats.lines_flushed += (((u64)p + n + 63) / 64) - ((u64)p / 64);
}

void arch_memcpy_flushcache(void *dst, const void *src, size_t n)
{
	memmove(dst, src, n);
	persist_stats.bytes_flushcache += n;
}

void arch_wmb_pmem(void)
{
	persist_stats.fences++;
}

const char *persist_flush_name(enum persist_flush f)
{
	return f == PERSIST_FLUSH_CLWB ? "clwb" : f == PERSIST_FLUSH_CLFLUSHOPT ? "clflushopt" : "clflush";
}

const char *persist_copy_name(enum persist_copy c)
{
	return c == PERSIST_COPY_NT ? "nt" : "cached";
}
