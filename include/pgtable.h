/*
 * x86-64 4-level page tables (SDM vol. 3A §4.5), built by portable code:
 * entries are written through phys_to_virt, so the host tests build real
 * tables in simulated memory and walk them in software.
 */
#ifndef PMEMK_PGTABLE_H
#define PMEMK_PGTABLE_H

#include "types.h"

#define PTE_PRESENT (1ULL << 0)
#define PTE_WRITE (1ULL << 1)
#define PTE_USER (1ULL << 2)
#define PTE_PWT (1ULL << 3)
#define PTE_PCD (1ULL << 4)
#define PTE_ACCESSED (1ULL << 5)
#define PTE_DIRTY (1ULL << 6)
#define PTE_PSE (1ULL << 7)	/* leaf at PDPT (1 GiB) or PD (2 MiB) level */
#define PTE_GLOBAL (1ULL << 8)
#define PTE_NX (1ULL << 63)
#define PTE_ADDR_MASK 0x000FFFFFFFFFF000ULL

/* Protections for leaves. */
#define PROT_KERNEL_RX 0ULL
#define PROT_KERNEL_RO PTE_NX
#define PROT_KERNEL_RW (PTE_WRITE | PTE_NX)

/* Levels, by the size one entry maps. */
enum pg_level {
	PG_LEVEL_4K = 1,
	PG_LEVEL_2M = 2,
	PG_LEVEL_1G = 3,
	PG_LEVEL_512G = 4,
};

struct pgtable {
	u64 root;			/* physical address of the PML4 */
	u64 (*alloc_table)(void);	/* a zeroed 4 KiB page, or 0 */
	void (*free_table)(u64 pa);
	enum pg_level max_leaf;		/* largest leaf size allowed */
	bool nx;			/* CPU supports NX; else strip it */
	u64 nr_tables;			/* table pages owned, root included */
};

/* Allocate the root table. -ENOMEM if alloc_table fails. */
int pgtable_init(struct pgtable *pt);

/*
 * Map [va, va+len) to [pa, pa+len) with `prot` (PTE_WRITE, PTE_NX, ...),
 * using the largest leaves that alignment, length and max_leaf allow. All
 * three must be 4 KiB aligned. Fails with -EEXIST if any part is already
 * mapped, -ENOMEM when a table cannot be allocated; on failure nothing this
 * call mapped or allocated remains (leaves unmapped, empty tables freed).
 */
int pgtable_map(struct pgtable *pt, u64 va, u64 pa, u64 len, u64 prot);

/*
 * Unmap [va, va+len). A leaf larger than the range at an edge is an error
 * (-EINVAL; nothing is split). Tables left empty are freed.
 */
int pgtable_unmap(struct pgtable *pt, u64 va, u64 len);

/*
 * Translate va. Returns true and fills *pa, *leaf_flags (the leaf entry's
 * flags, effective NX/W folded in from upper levels) and *level when mapped.
 * When not mapped, returns false with *level set to the level whose entry is
 * empty: the whole aligned pg_level_size(*level) block around va is a hole.
 */
bool pgtable_walk(const struct pgtable *pt, u64 va, u64 *pa, u64 *flags,
		  enum pg_level *level);

/* Bytes mapped by one entry at each level. */
static inline u64 pg_level_size(enum pg_level l)
{
	return 1ULL << (PAGE_SHIFT + 9 * ((unsigned int)l - 1));
}

/* The kernel's own page tables (arch/x86_64/paging.c; host tests make theirs). */
extern struct pgtable kernel_pgtable;

#endif
