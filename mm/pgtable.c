/* Building, tearing down and walking x86-64 page tables from portable code. */
#include <errno.h>

#include "arch.h"
#include "pgtable.h"

static u64 *table_of(u64 entry)
{
	return phys_to_virt(entry & PTE_ADDR_MASK);
}

static unsigned int index_at(u64 va, enum pg_level l)
{
	return (unsigned int)(va >> (PAGE_SHIFT + 9 * ((unsigned int)l - 1))) & 511;
}

int pgtable_init(struct pgtable *pt)
{
	pt->root = pt->alloc_table();
	if (!pt->root)
		return -ENOMEM;
	pt->nr_tables = 1;
	return 0;
}

/* The next-level table under *entry, allocating it if absent. */
static u64 *next_table(struct pgtable *pt, u64 *entry)
{
	if (*entry & PTE_PRESENT)
		return (*entry & PTE_PSE) ? NULL : table_of(*entry);
	u64 pa = pt->alloc_table();
	if (!pa)
		return NULL;
	pt->nr_tables++;
	*entry = pa | PTE_PRESENT | PTE_WRITE;	/* leaves carry the protection */
	return table_of(*entry);
}

static bool leaf_fits(const struct pgtable *pt, enum pg_level l, u64 va, u64 pa, u64 len)
{
	u64 size = pg_level_size(l);

	return l <= pt->max_leaf && IS_ALIGNED(va, size) && IS_ALIGNED(pa, size) && len >= size;
}

/* Map one leaf at the largest level that fits; returns the bytes mapped or an errno. */
static s64 map_one(struct pgtable *pt, u64 va, u64 pa, u64 len, u64 prot)
{
	u64 *table = phys_to_virt(pt->root);

	for (enum pg_level l = PG_LEVEL_512G;; l--) {
		u64 *entry = &table[index_at(va, l)];
		if (l <= PG_LEVEL_1G && leaf_fits(pt, l, va, pa, len)) {
			if (*entry & PTE_PRESENT)
				return -EEXIST;
			*entry = pa | prot | PTE_PRESENT | (l > PG_LEVEL_4K ? PTE_PSE : 0);
			return (s64)pg_level_size(l);
		}
		if (l == PG_LEVEL_4K)
			return -EINVAL;	/* unreachable: 4 KiB always fits */
		if ((*entry & PTE_PRESENT) && (*entry & PTE_PSE))
			return -EEXIST;
		table = next_table(pt, entry);
		if (!table)
			return -ENOMEM;
	}
}

static bool table_empty(const u64 *t)
{
	for (int i = 0; i < 512; i++)
		if (t[i])
			return false;
	return true;
}

static void free_child(struct pgtable *pt, u64 *entry)
{
	u64 child_pa = *entry & PTE_ADDR_MASK;

	*entry = 0;
	if (pt->free_table)
		pt->free_table(child_pa);
	pt->nr_tables--;
}

/* Free the tables below `table` (level l entries) over [va, end) that map nothing. */
static void prune_level(struct pgtable *pt, u64 *table, enum pg_level l, u64 va, u64 end)
{
	u64 size = pg_level_size(l);

	for (u64 a = va, next; a < end; a = next) {
		u64 *e = &table[index_at(a, l)];

		next = MIN(end, ALIGN_DOWN(a, size) + size);
		if (!(*e & PTE_PRESENT) || (*e & PTE_PSE) || l == PG_LEVEL_4K)
			continue;
		u64 *child = table_of(*e);
		prune_level(pt, child, l - 1, a, next);
		if (table_empty(child))
			free_child(pt, e);
	}
}

int pgtable_map(struct pgtable *pt, u64 va, u64 pa, u64 len, u64 prot)
{
	u64 off = 0;

	if (!IS_ALIGNED(va | pa | len, PAGE_SIZE))
		return -EINVAL;
	if (!pt->nx)
		prot &= ~PTE_NX;
	while (off < len) {
		s64 done = map_one(pt, va + off, pa + off, len - off, prot);
		if (done < 0) {
			/* All or nothing: undo this call's leaves and the tables they needed. */
			if (off)
				pgtable_unmap(pt, va, off);
			prune_level(pt, phys_to_virt(pt->root), PG_LEVEL_512G, va, va + len);
			return (int)done;
		}
		off += (u64)done;
	}
	return 0;
}

/* Clear the leaf for va below `table` at level l; free tables that empty. */
static s64 unmap_one(struct pgtable *pt, u64 *table, enum pg_level l, u64 va, u64 len)
{
	u64 *entry = &table[index_at(va, l)];
	u64 size = pg_level_size(l);

	if (!(*entry & PTE_PRESENT))
		return -ENOENT;
	if (l == PG_LEVEL_4K || (*entry & PTE_PSE)) {
		if (!IS_ALIGNED(va, size) || len < size)
			return -EINVAL;	/* would have to split a large leaf */
		*entry = 0;
		return (s64)size;
	}
	u64 *child = table_of(*entry);
	s64 done = unmap_one(pt, child, l - 1, va, len);
	if (done > 0 && table_empty(child))
		free_child(pt, entry);
	return done;
}

int pgtable_unmap(struct pgtable *pt, u64 va, u64 len)
{
	int err = 0;

	if (!IS_ALIGNED(va | len, PAGE_SIZE))
		return -EINVAL;
	for (u64 off = 0; off < len;) {
		s64 done = unmap_one(pt, phys_to_virt(pt->root), PG_LEVEL_512G, va + off, len - off);
		if (done == -ENOENT) {
			off += PAGE_SIZE;	/* hole: skip a page */
			continue;
		}
		if (done < 0) {
			err = (int)done;
			break;
		}
		off += (u64)done;
	}
	arch_flush_tlb_range(va, len);
	return err;
}

bool pgtable_walk(const struct pgtable *pt, u64 va, u64 *pa, u64 *flags,
		  enum pg_level *level)
{
	const u64 *table = phys_to_virt(pt->root);
	u64 eff_nx = 0, eff_w = PTE_WRITE;

	for (enum pg_level l = PG_LEVEL_512G; l >= PG_LEVEL_4K; l--) {
		u64 e = table[index_at(va, l)];
		if (!(e & PTE_PRESENT)) {
			*level = l;	/* the hole spans this entry */
			return false;
		}
		eff_nx |= e & PTE_NX;
		eff_w &= e & PTE_WRITE;
		if (l == PG_LEVEL_4K || (e & PTE_PSE)) {
			u64 size = pg_level_size(l);
			u64 base = e & PTE_ADDR_MASK & ~(size - 1);
			*pa = base + (va & (size - 1));
			*flags = (e & ~PTE_ADDR_MASK & ~PTE_NX & ~PTE_WRITE) | eff_nx | eff_w;
			*level = l;
			return true;
		}
		table = table_of(e);
	}
	return false;
}
