/*
 * Persistence primitives (part of the arch contract): how a store reaches
 * the persistence domain. Chosen once at boot from CPUID (FACTS §10): the
 * cache write-back instruction clwb > clflushopt > clflush, and non-temporal
 * stores (movnti) for bulk copies; `pmem.flush=` and `pmem.copy=` override
 * the choice so tests can run every path. Nothing here orders anything by
 * itself except arch_wmb_pmem().
 */
#ifndef PMEMK_PERSIST_H
#define PMEMK_PERSIST_H

#include "types.h"

enum persist_flush {
	PERSIST_FLUSH_CLFLUSH,
	PERSIST_FLUSH_CLFLUSHOPT,
	PERSIST_FLUSH_CLWB,
};

enum persist_copy {
	PERSIST_COPY_NT,	/* movnti for the aligned body, flush the edges */
	PERSIST_COPY_CACHED,	/* ordinary stores, then flush every line */
};

struct persist_ops {
	enum persist_flush flush;
	enum persist_copy copy;
};

extern struct persist_ops persist_ops;

/* Pick the primitives from CPUID and the pmem.flush=/pmem.copy= parameters; print them. */
void persist_init(void);

/* Write back every cache line of [p, p+n) (no fence). */
void arch_flush_cache(const void *p, size_t n);

/*
 * Copy n bytes so that they leave the CPU caches (non-temporal stores or
 * write-back), without a fence: call arch_wmb_pmem() before relying on it.
 */
void arch_memcpy_flushcache(void *dst, const void *src, size_t n);

/* Order every earlier store, non-temporal store and write-back (SFENCE). */
void arch_wmb_pmem(void);

const char *persist_flush_name(enum persist_flush f);
const char *persist_copy_name(enum persist_copy c);

/* Counters for tests and benchmarks. */
struct persist_stats {
	u64 bytes_flushcache;	/* bytes copied by arch_memcpy_flushcache */
	u64 lines_flushed;	/* cache lines written back */
	u64 fences;
};
extern struct persist_stats persist_stats;

#endif
