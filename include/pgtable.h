/*
 * 4-level page tables built by portable code: tables are written through
 * phys_to_virt and entries made and read only through the arch contract
 * (arch_pte_*, include/arch.h), so the host tests build real tables in
 * simulated memory, in the host fake's own entry format, and walk them.
 */
#ifndef PMEMK_PGTABLE_H
#define PMEMK_PGTABLE_H

#include "arch.h"
#include "types.h"

struct pgtable {
	u64 root; /* physical address of the root table */
	u64 (*alloc_table)(void); /* a zeroed 4 KiB page, or 0 */
	void (*free_table)(u64 pa);
	enum pg_level max_leaf; /* largest leaf size allowed */
	bool nx; /* the CPU can forbid execution; else every leaf gets PGPROT_EXEC */
	u64 nr_tables; /* table pages owned, root included */
	/*
	 * May be NULL. True: the table the level-l entry for va points to
	 * stays even when empty (unmap and prune leave it): someone will map
	 * into it without allocating (mm/vmemmap.c's lazy leaves).
	 */
	bool (*keep_table)(u64 va, enum pg_level l);
};

/* Allocate the root table. -ENOMEM if alloc_table fails. */
int pgtable_init(struct pgtable *pt);

/*
 * Map [va, va+len) to [pa, pa+len) with `prot` (PGPROT_*, e.g. PROT_KERNEL_RW),
 * using the largest leaves that alignment, length and max_leaf allow. All
 * three must be 4 KiB aligned. Fails with -EEXIST if any part is already
 * mapped, -ENOMEM when a table cannot be allocated; on failure nothing this
 * call mapped or allocated remains (leaves unmapped, empty tables freed).
 */
int pgtable_map(struct pgtable *pt, u64 va, phys_addr_t pa, u64 len, u64 prot);

/* pgtable_map with leaves no larger than max_leaf (nor pt->max_leaf). */
int pgtable_map_leaves(struct pgtable *pt, u64 va, phys_addr_t pa, u64 len, u64 prot,
		       enum pg_level max_leaf);

/*
 * Unmap [va, va+len). A leaf larger than the range at an edge is an error
 * (-EINVAL; nothing is split). Tables left empty are freed.
 */
int pgtable_unmap(struct pgtable *pt, u64 va, u64 len);

/*
 * pgtable_unmap without the TLB flush: for a caller that unmaps many
 * pieces and flushes once (arch_flush_tlb_range) before it frees or
 * reuses what they mapped.
 */
int pgtable_unmap_noflush(struct pgtable *pt, u64 va, u64 len);

/*
 * Free the tables over [va, end) that map nothing (and that keep_table
 * does not keep). For a range whose leaves went some other way.
 */
void pgtable_prune(struct pgtable *pt, u64 va, u64 end);

/*
 * Translate va. Returns true and fills *pa, *flags (the PGPROT_* protection
 * in effect: the leaf's, restricted by every table above it) and *level when
 * mapped. When not mapped, returns false with *level set to the level whose
 * entry is empty: the whole aligned pg_level_size(*level) block around va is
 * a hole.
 */
bool pgtable_walk(const struct pgtable *pt, u64 va, u64 *pa, u64 *flags,
		  enum pg_level *level);

/*
 * The first address in [va, end) whose state differs from `mapped` (true:
 * the first not mapped by a leaf; false: the first mapped), or `end` if
 * none does. One descent, then entry by entry at each level: n leaves or
 * holes cost O(n) entry reads, not n walks from the root.
 */
u64 pgtable_scan(const struct pgtable *pt, u64 va, u64 end, bool mapped);

/*
 * The entry for va in the table of `level`, or NULL when the walk from the
 * root does not reach that table (an entry above is absent or a leaf).
 */
pte_t *pgtable_entry(const struct pgtable *pt, u64 va, enum pg_level level);

/* prot as pt's leaves get it: with PGPROT_EXEC added when the CPU cannot forbid it. */
u64 pgtable_leaf_prot(const struct pgtable *pt, u64 prot);

/* The kernel's own page tables (built by mm/paging.c; host tests set up theirs). */
extern struct pgtable kernel_pgtable;

#endif
