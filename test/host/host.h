/* Host test support: the simulated machine behind include/arch.h. */
#ifndef PMEMK_TEST_HOST_H
#define PMEMK_TEST_HOST_H

#include "arch.h"
#include "pgtable.h"

/* Size of the simulated physical address space (sparse, on demand). */
#define HOST_PHYS_SIZE (64ULL << 30)

/* Everything written to the console since the last reset. */
const char *host_console_text(void);
void host_console_reset(void);
/* True if the console output since the last reset contains `needle`. */
bool host_console_has(const char *needle);
/* Echo console output to stdout too (default: off, set HOST_CONSOLE=1). */
extern bool host_console_echo;

/* Count of TLB flushes requested (page-table tests check them). */
extern u64 host_tlb_flushes;

/*
 * mm tests: a fresh machine with RAM [ram_base, ram_base + ram_size) in
 * memblock and the page allocator, empty kernel page tables whose table
 * pages come from it (failing when mm_alloc_should_fail() says so), an
 * empty section table and pgmap registry, zeroed counters, PSE on.
 * Simulated memory is zeroed and the vmemmap window emptied first.
 */
void host_mm_boot(u64 ram_base, u64 ram_size);
/* Zero all simulated memory (hands it back to the host), empty the window. */
void host_phys_discard(void);
/* The same but for [keep, keep+size): a reboot keeps the pmem. */
void host_phys_discard_except(u64 keep, u64 size);
/* A hash of [start, start+size)'s non-zero pages and where they are (sparse-aware). */
u64 host_phys_hash(u64 start, u64 size);
/* host_mm_boot, keeping [keep, keep+size) of simulated memory as it is. */
void host_mm_reboot(u64 ram_base, u64 ram_size, u64 keep, u64 size);
/*
 * Walk kernel_pgtable for va with a walker independent of mm/pgtable.c.
 * Mapped: true, *pa, the leaf *level and, unless prot is NULL, the PGPROT_*
 * protection in effect. Hole: false, *level whose entry is empty.
 */
bool host_walk(u64 va, u64 *pa, enum pg_level *level, u64 *prot);

#endif
