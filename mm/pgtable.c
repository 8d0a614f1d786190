/*
 * Building, tearing down and walking page tables from portable code. Entries
 * are made and read only through the arch contract (arch_pte_*, arch.h),
 * always with the level of the table they live in.
 */
#include <errno.h>

#include "arch.h"
#include "pgtable.h"

/* The table a table entry of level l points to. */
static pte_t *child_of(enum pg_level l, pte_t entry)
{
	return phys_to_virt(arch_pte_table_pa(l, entry));
}

int pgtable_init(struct pgtable *pt)
{
	pt->root = pt->alloc_table();
	if (!pt->root)
		return -ENOMEM;
	pt->nr_tables = 1;
	return 0;
}

u64 pgtable_leaf_prot(const struct pgtable *pt, u64 prot)
{
	return pt->nx ? prot : prot | PGPROT_EXEC;
}

/* The next-level table under *entry (level l), allocating it if absent; NULL if out of memory. */
static pte_t *next_table(struct pgtable *pt, pte_t *entry, enum pg_level l)
{
	if (arch_pte_is_table(l, *entry))
		return child_of(l, *entry);
	u64 pa = pt->alloc_table();
	if (!pa)
		return NULL;
	pt->nr_tables++;
	*entry = arch_pte_table(l, pa);
	return phys_to_virt(pa);
}

static bool leaf_fits(enum pg_level max, enum pg_level l, u64 va, u64 pa, u64 len)
{
	u64 size = pg_level_size(l);

	return l <= max && arch_pte_leaf_allowed(l) && IS_ALIGNED(va, size) &&
	       IS_ALIGNED(pa, size) && len >= size;
}

/* Map one leaf at the largest level that fits; returns the bytes mapped or an errno. */
static s64 map_one(struct pgtable *pt, u64 va, u64 pa, u64 len, u64 prot, enum pg_level max)
{
	pte_t *table = phys_to_virt(pt->root);

	for (enum pg_level l = PG_LEVEL_512G;; l--) {
		pte_t *entry = &table[pg_level_index(va, l)];
		if (leaf_fits(max, l, va, pa, len)) {
			if (arch_pte_is_present(l, *entry))
				return -EEXIST;
			*entry = arch_pte_leaf(l, pa, prot);
			return (s64)pg_level_size(l);
		}
		if (l == PG_LEVEL_4K)
			return -EINVAL;	/* unreachable: 4 KiB always fits */
		if (arch_pte_is_leaf(l, *entry))
			return -EEXIST;
		table = next_table(pt, entry, l);
		if (!table)
			return -ENOMEM;
	}
}

/*
 * Does the table of level l map nothing? The scan starts at entry `from`
 * and wraps: a range unmapped in ascending order finds the next present
 * entry at once, so tearing down n leaves reads O(n) entries, not O(n^2).
 */
static bool table_empty_from(const pte_t *t, enum pg_level l, unsigned int from)
{
	for (unsigned int k = 0; k < 512; k++)
		if (arch_pte_is_present(l, t[(from + k) % 512]))
			return false;
	return true;
}

static bool table_empty(const pte_t *t, enum pg_level l)
{
	return table_empty_from(t, l, 0);
}

/* May the empty table under the level-l entry for va go? */
static bool may_free(const struct pgtable *pt, u64 va, enum pg_level l)
{
	return !pt->keep_table || !pt->keep_table(ALIGN_DOWN(va, pg_level_size(l)), l);
}

/* Clear the table entry *entry (level l) and free the table it pointed to. */
static void free_child(struct pgtable *pt, pte_t *entry, enum pg_level l)
{
	u64 child_pa = arch_pte_table_pa(l, *entry);

	*entry = arch_pte_absent(l);
	if (pt->free_table)
		pt->free_table(child_pa);
	pt->nr_tables--;
}

/* Free the tables below `table` (level l entries) over [va, end) that map nothing. */
static void prune_level(struct pgtable *pt, pte_t *table, enum pg_level l, u64 va, u64 end)
{
	u64 size = pg_level_size(l);

	for (u64 a = va, next; a < end; a = next) {
		pte_t *e = &table[pg_level_index(a, l)];

		next = MIN(end, ALIGN_DOWN(a, size) + size);
		if (l == PG_LEVEL_4K || !arch_pte_is_table(l, *e))
			continue;
		pte_t *child = child_of(l, *e);
		prune_level(pt, child, l - 1, a, next);
		if (table_empty(child, l - 1) && may_free(pt, a, l))
			free_child(pt, e, l);
	}
}

void pgtable_prune(struct pgtable *pt, u64 va, u64 end)
{
	if (va < end)
		prune_level(pt, phys_to_virt(pt->root), PG_LEVEL_512G, va, end);
}

int pgtable_map(struct pgtable *pt, u64 va, phys_addr_t phys, u64 len, u64 prot)
{
	return pgtable_map_leaves(pt, va, phys, len, prot, pt->max_leaf);
}

int pgtable_map_leaves(struct pgtable *pt, u64 va, phys_addr_t phys, u64 len, u64 prot,
		       enum pg_level max_leaf)
{
	u64 off = 0, pa = pa_addr(phys);
	enum pg_level max = MIN(max_leaf, pt->max_leaf);

	if (!IS_ALIGNED(va | pa | len, PAGE_SIZE))
		return -EINVAL;
	prot = pgtable_leaf_prot(pt, prot);
	while (off < len) {
		s64 done = map_one(pt, va + off, pa + off, len - off, prot, max);
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
static s64 unmap_one(struct pgtable *pt, pte_t *table, enum pg_level l, u64 va, u64 len)
{
	pte_t *entry = &table[pg_level_index(va, l)];
	u64 size = pg_level_size(l);

	if (!arch_pte_is_present(l, *entry))
		return -ENOENT;
	if (arch_pte_is_leaf(l, *entry)) {
		if (!IS_ALIGNED(va, size) || len < size)
			return -EINVAL;	/* would have to split a large leaf */
		*entry = arch_pte_absent(l);
		return (s64)size;
	}
	pte_t *child = child_of(l, *entry);
	s64 done = unmap_one(pt, child, l - 1, va, len);
	if (done > 0 && table_empty_from(child, l - 1, (unsigned int)pg_level_index(va, l - 1)) &&
	    may_free(pt, va, l))
		free_child(pt, entry, l);
	return done;
}

int pgtable_unmap(struct pgtable *pt, u64 va, u64 len)
{
	int err = pgtable_unmap_noflush(pt, va, len);

	if (err != -EINVAL || IS_ALIGNED(va | len, PAGE_SIZE))
		arch_flush_tlb_range(va, len);
	return err;
}

int pgtable_unmap_noflush(struct pgtable *pt, u64 va, u64 len)
{
	int err = 0;

	if (!IS_ALIGNED(va | len, PAGE_SIZE))
		return -EINVAL;
	for (u64 off = 0; off < len;) {
		s64 done = unmap_one(pt, phys_to_virt(pt->root), PG_LEVEL_512G, va + off, len - off);
		if (done == -ENOENT) {	/* a hole: on to the next leaf */
			off = pgtable_scan(pt, va + off, va + len, false) - va;
			continue;
		}
		if (done < 0) {
			err = (int)done;
			break;
		}
		off += (u64)done;
	}
	return err;
}

bool pgtable_walk(const struct pgtable *pt, u64 va, u64 *pa, u64 *flags,
		  enum pg_level *level)
{
	const pte_t *table = phys_to_virt(pt->root);
	u64 prot = PGPROT_WRITE | PGPROT_EXEC;

	for (enum pg_level l = PG_LEVEL_512G; l >= PG_LEVEL_4K; l--) {
		pte_t e = table[pg_level_index(va, l)];

		*level = l;
		if (!arch_pte_is_present(l, e))
			return false; /* the hole spans this entry */
		prot &= arch_pte_prot(l, e);
		if (arch_pte_is_leaf(l, e)) {
			*pa = arch_pte_leaf_pa(l, e) + (va & (pg_level_size(l) - 1));
			*flags = prot;
			return true;
		}
		table = child_of(l, e);
	}
	return false;
}

/* pgtable_scan below `table` (level l entries) over [va, end). */
static u64 scan_level(const pte_t *table, enum pg_level l, u64 va, u64 end, bool mapped)
{
	u64 size = pg_level_size(l);

	for (u64 a = va, next; a < end; a = next) {
		pte_t e = table[pg_level_index(a, l)];

		next = ALIGN_DOWN(a, size) + size;
		if (next <= a || next > end)
			next = end;	/* the range's end, or the top of the address space */
		if (!arch_pte_is_present(l, e)) {
			if (mapped)
				return a;
		} else if (l == PG_LEVEL_4K || arch_pte_is_leaf(l, e)) {
			if (!mapped)
				return a;
		} else {
			u64 r = scan_level(child_of(l, e), l - 1, a, next, mapped);
			if (r < next)
				return r;
		}
	}
	return end;
}

u64 pgtable_scan(const struct pgtable *pt, u64 va, u64 end, bool mapped)
{
	return va < end ? scan_level(phys_to_virt(pt->root), PG_LEVEL_512G, va, end, mapped) : end;
}

pte_t *pgtable_entry(const struct pgtable *pt, u64 va, enum pg_level level)
{
	pte_t *table = phys_to_virt(pt->root);

	for (enum pg_level l = PG_LEVEL_512G; l > level; l--) {
		pte_t e = table[pg_level_index(va, l)];

		if (!arch_pte_is_table(l, e))
			return NULL;
		table = child_of(l, e);
	}
	return &table[pg_level_index(va, level)];
}
