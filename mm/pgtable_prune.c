/*
 * Freeing page-table pages that map nothing. pgtable_map() keeps the tables
 * it allocated when a later allocation fails, and pgtable_unmap() frees a
 * table only when removing a leaf empties it, so an unwind that must return
 * every page-table page (memremap_pages) prunes what is left empty.
 */
#include "arch.h"
#include "mm.h"
#include "pgtable.h"

static bool table_empty(const u64 *t)
{
	for (int i = 0; i < 512; i++)
		if (t[i])
			return false;
	return true;
}

/* Free the empty tables below `table` (entries of level l) for [va, end). */
static void prune_level(struct pgtable *pt, u64 *table, enum pg_level l, u64 va, u64 end)
{
	u64 size = pg_level_size(l);

	for (u64 a = va, next; a < end; a = next) {
		u64 *e = &table[(a / size) & 511];

		next = MIN(end, ALIGN_DOWN(a, size) + size);
		if (!(*e & PTE_PRESENT) || (*e & PTE_PSE))
			continue;
		u64 *child = phys_to_virt(*e & PTE_ADDR_MASK);
		if (l > PG_LEVEL_2M)
			prune_level(pt, child, l - 1, a, next);
		if (!table_empty(child))
			continue;
		u64 child_pa = *e & PTE_ADDR_MASK;
		*e = 0;
		if (pt->free_table)
			pt->free_table(child_pa);
		pt->nr_tables--;
	}
}

void pgtable_prune(struct pgtable *pt, u64 va, u64 len)
{
	prune_level(pt, phys_to_virt(pt->root), PG_LEVEL_512G, va, va + len);
	arch_flush_tlb_range(va, len);	/* paging-structure caches may hold the old entries */
}
