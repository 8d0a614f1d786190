/*
 * The vmemmap: struct page of pfn p at VMEMMAP_BASE + 64 * p, mapped on
 * demand in the kernel page tables. One section (128 MiB of memory) has
 * exactly 2 MiB of struct pages, so a section wholly owned by one range
 * gets one PMD leaf; a partly owned one gets 4 KiB pages, a run of 8 per
 * 2 MiB subsection. Data pages are therefore never shared between owners;
 * page-table pages are, and pgtable_unmap() frees them once empty.
 *
 * A devdax range of compound pages (VMEMMAP_DEDUP, FACTS-2 §2.2) is the
 * exception that shares on purpose, inside one owner: each compound gets two
 * vmemmap pages of its own and every further vmemmap page of the compound
 * maps the second one's frame, all with 4 KiB PTEs.
 *
 * Prepare, then commit (docs/STYLE.md): vmemmap_prepare() walks the
 * existing tables to count every table page, RAM block and altmap block
 * the range needs, takes the altmap blocks on a copy and the RAM, and
 * installs the copy once both succeeded; only then does vmemmap_commit()
 * write entries, a step with nothing left to fail. Both take whole
 * sections a PD table at a time (PD_PFNS), and the altmap blocks in one
 * call: registering a device costs a few stores per section, not a few
 * page walks.
 *
 * Lazy (vmemmap_populate_lazy, for deferred struct page init): the whole
 * sections get their altmap blocks and the tables above their PMD entries,
 * but not the leaves; vmemmap_install_lazy writes each when its section's
 * struct pages are about to be stored. Registering then stores nothing per
 * section. Until vmemmap_free those tables are kept even while empty
 * (keep_table), since a leaf is written into them without the mm lock.
 */
#include <errno.h>
#include <string.h>

#include "arch.h"
#include "memlayout.h"
#include "memremap.h"
#include "mm.h"
#include "page_alloc.h"
#include "pgtable.h"
#include "printk.h"
#include "sparse.h"

#define SECTION_MEMMAP_BYTES (PAGES_PER_SECTION * sizeof(struct page))
#define SUBSECTION_MEMMAP_BYTES (PAGES_PER_SUBSECTION * sizeof(struct page))
#define SUBSECTION_MEMMAP_ORDER 3
#define SUBSECTION_MEMMAP_PAGES (1U << SUBSECTION_MEMMAP_ORDER)

_Static_assert(SECTION_MEMMAP_BYTES == PMD_SIZE, "a section's memmap is one PMD leaf");
_Static_assert(SUBSECTION_MEMMAP_BYTES == SUBSECTION_MEMMAP_PAGES * PAGE_SIZE,
	       "a subsection's memmap is a run of 4 KiB pages");

/* What a range needs, counted by the prepare step. */
struct vmemmap_need {
	u64 tables;		/* page-table pages (RAM) */
	u64 blocks;		/* 2 MiB blocks of RAM */
	u64 runs;		/* 32 KiB runs of 4 KiB pages (RAM), one per subsection */
	u64 alt_blocks;		/* 2 MiB blocks from the altmap */
	u64 frames;		/* 4 KiB pages (RAM), two per deduplicated compound */
};

/*
 * What the prepare step took: RAM in lists threaded through the pages
 * themselves, and a run of altmap blocks.
 */
struct vmemmap_reserve {
	u64 tables, blocks, runs, frames;
	u64 alt_pfn;	/* the next altmap block the commit maps (taken by the prepare) */
};

/* 4 KiB vmemmap pages holding the struct pages of one compound of 2^shift pages. */
static u64 compound_vmemmap_pages(unsigned int shift)
{
	return ((1ULL << shift) * sizeof(struct page)) >> PAGE_SHIFT;
}

/* The entry mapping va at `level`, or NULL if a table above it is missing. */
static pte_t *entry_at(u64 va, enum pg_level level)
{
	return pgtable_entry(&kernel_pgtable, va, level);
}

static bool present(const pte_t *entry, enum pg_level level)
{
	return entry && arch_pte_is_present(level, *entry);
}

/* A 2 MiB leaf in the PMD entry? */
static bool pmd_is_block(const pte_t *pmd)
{
	return pmd && arch_pte_is_leaf(PG_LEVEL_2M, *pmd);
}

/*
 * The PMD entries of one PD table map 1 GiB of vmemmap: the struct pages of
 * 512 sections (64 GiB of memory). Runs of whole sections are handled a PD
 * table at a time, one walk from the root each and then a tight loop over
 * its entries: a device costs a few stores per section to register.
 */
#define PD_PFNS (PAGES_PER_SECTION * (PUD_SIZE / PMD_SIZE))

_Static_assert(VMEMMAP_BASE % PUD_SIZE == 0, "a PD table maps the memmap of PD_PFNS pfns");

/* End of the run of whole sections from the section-aligned s: within [s, end) and s's PD table. */
static u64 block_run_end(u64 s, u64 end)
{
	return MIN(ALIGN_DOWN(end, PAGES_PER_SECTION), ALIGN_DOWN(s, PD_PFNS) + PD_PFNS);
}

/* Does the part [s, e) of a section get a PMD leaf? */
static bool use_block(u64 s, u64 e, unsigned int flags)
{
	return e - s == PAGES_PER_SECTION && arch_pte_leaf_allowed(PG_LEVEL_2M) &&
	       !(flags & VMEMMAP_BASE_PAGES);
}

static u64 leaf_prot(void)
{
	return pgtable_leaf_prot(&kernel_pgtable, PROT_KERNEL_RW);
}

/* Upper tables missing for the section whose memmap starts at va. */
static u64 count_upper(u64 va, bool first)
{
	u64 n = 0;

	if (first || IS_ALIGNED(va, pg_level_size(PG_LEVEL_512G)))
		n += !present(entry_at(va, PG_LEVEL_512G), PG_LEVEL_512G); /* a PDPT */
	if (first || IS_ALIGNED(va, pg_level_size(PG_LEVEL_1G)))
		n += !present(entry_at(va, PG_LEVEL_1G), PG_LEVEL_1G); /* a PD */
	return n;
}

/*
 * Count the PMD leaves of the whole sections [s, e) (one PD table); -EEXIST
 * if one has any. Lazy leaves are not looked at: that is a read per
 * section, and vmemmap_install_lazy checks each when it writes it.
 */
static int count_blocks(u64 s, u64 e, bool alt, bool lazy, struct vmemmap_need *need)
{
	pte_t *pmd = lazy ? NULL : entry_at(memmap_va(s), PG_LEVEL_2M);
	u64 n = (e - s) / PAGES_PER_SECTION;

	for (u64 i = 0; pmd && i < n; i++)
		if (arch_pte_is_present(PG_LEVEL_2M, pmd[i]))
			return -EEXIST;
	*(alt ? &need->alt_blocks : &need->blocks) += n;
	return 0;
}

/* Count what the section part [s, e) needs in 4 KiB pages; -EEXIST if it has struct pages. */
static int count_section(u64 s, u64 e, struct vmemmap_need *need)
{
	pte_t *pmd = entry_at(memmap_va(ALIGN_DOWN(s, PAGES_PER_SECTION)), PG_LEVEL_2M);

	if (present(pmd, PG_LEVEL_2M) && pmd_is_block(pmd))
		return -EEXIST;
	need->tables += !present(pmd, PG_LEVEL_2M); /* a PT */
	for (u64 p = s; p < e; p += PAGES_PER_SUBSECTION) {
		if (present(entry_at(memmap_va(p), PG_LEVEL_4K), PG_LEVEL_4K))
			return -EEXIST;
		need->runs++;
	}
	return 0;
}

/* The same for a deduplicated section part: a PT, no PMD leaf, no PTE yet. */
static int count_dedup_section(u64 s, u64 e, struct vmemmap_need *need)
{
	pte_t *pmd = entry_at(memmap_va(ALIGN_DOWN(s, PAGES_PER_SECTION)), PG_LEVEL_2M);

	if (pmd_is_block(pmd))
		return -EEXIST;
	need->tables += !present(pmd, PG_LEVEL_2M); /* a PT */
	for (u64 p = s; p < e; p += PAGES_PER_SUBSECTION)
		if (present(entry_at(memmap_va(p), PG_LEVEL_4K), PG_LEVEL_4K))
			return -EEXIST;
	return 0;
}

static int count_range(u64 start, u64 end, bool alt, bool lazy, unsigned int flags,
		       struct vmemmap_need *need)
{
	unsigned int shift = VMEMMAP_DEDUP_SHIFT(flags);

	for (u64 s = start, e; s < end; s = e) {
		int err;

		e = section_part_end(s, end);
		/* Only a run's first section can start a PD table (runs end where it does). */
		need->tables += count_upper(memmap_va(ALIGN_DOWN(s, PAGES_PER_SECTION)), s == start);
		if (shift) {
			err = count_dedup_section(s, e, need);
		} else if (use_block(s, e, flags)) {
			e = block_run_end(s, end);
			err = count_blocks(s, e, alt, lazy && alt, need);
		} else {
			err = count_section(s, e, need);
		}
		if (err)
			return err;
	}
	if (shift)
		need->frames = VMEMMAP_RESERVE_NR * ((end - start) >> shift);
	return 0;
}

/*
 * Take `n` 2 MiB blocks from a copy of the altmap (*trial, the first at
 * *pfn): the prepare step installs the copy once the RAM is reserved too.
 */
static int altmap_check(const struct vmem_altmap *altmap, u64 n, u64 start, u64 end,
			struct vmem_altmap *trial, u64 *pfn)
{
	u64 fit;

	*trial = *altmap;
	if (!n || altmap_alloc_blocks(trial, PMD_SIZE, n, pfn, &fit) == 0)
		return 0;
	pr_err("vmemmap: altmap too small for pfns [%#llx-%#llx): %llu blocks of 2 MiB needed, "
	       "%llu fit in its %llu free pages (%llu left)\n",
	       start, end, n, fit, altmap->free, altmap_avail(altmap));
	return -ENOMEM;
}

static void push(u64 *list, u64 pa)
{
	*(u64 *)phys_to_virt(pa) = *list;
	*list = pa;
}

static u64 pop(u64 *list)
{
	u64 pa = *list;

	if (pa)
		*list = *(u64 *)phys_to_virt(pa);
	return pa;
}

static void release_list(u64 *list, unsigned int order, enum mm_stat_item item)
{
	u64 pa;

	while ((pa = pop(list)))
		mm_free_pages(pa, order, item);
}

/* Return whatever is still reserved (all of it after a failed prepare). */
static void release_reserve(struct vmemmap_reserve *res)
{
	release_list(&res->tables, 0, MM_NR_STATS);
	release_list(&res->blocks, PMD_ORDER, MM_VMEMMAP);
	release_list(&res->runs, SUBSECTION_MEMMAP_ORDER, MM_VMEMMAP);
	release_list(&res->frames, 0, MM_VMEMMAP);
}

static int reserve_list(u64 *list, u64 n, unsigned int order, enum mm_stat_item item)
{
	for (u64 i = 0; i < n; i++) {
		u64 pa = mm_alloc_pages(order, false, item);

		if (!pa)
			return -ENOMEM;
		push(list, pa);
	}
	return 0;
}

static int reserve_ram(const struct vmemmap_need *need, struct vmemmap_reserve *res)
{
	if (reserve_list(&res->tables, need->tables, 0, MM_NR_STATS) ||
	    reserve_list(&res->blocks, need->blocks, PMD_ORDER, MM_VMEMMAP) ||
	    reserve_list(&res->runs, need->runs, SUBSECTION_MEMMAP_ORDER, MM_VMEMMAP) ||
	    reserve_list(&res->frames, need->frames, 0, MM_VMEMMAP)) {
		release_reserve(res);
		pr_err("vmemmap: out of RAM: %llu table pages, %llu 2 MiB blocks, %llu KiB of pages\n",
		       need->tables, need->blocks,
		       ((need->runs * SUBSECTION_MEMMAP_BYTES + need->frames * PAGE_SIZE) >> 10));
		return -ENOMEM;
	}
	return 0;
}

/* Count, then take everything the commit maps: altmap blocks and RAM; all or nothing. */
static int vmemmap_prepare(u64 start, u64 end, struct vmem_altmap *altmap,
			   unsigned int flags, bool lazy, struct vmemmap_reserve *res)
{
	struct vmemmap_need need = { 0 };
	struct vmem_altmap trial;
	int err = count_range(start, end, altmap != NULL, lazy, flags, &need);

	if (err)
		return err;
	if (altmap) {
		err = altmap_check(altmap, need.alt_blocks, start, end, &trial, &res->alt_pfn);
		if (err)
			return err;
	}
	err = reserve_ram(&need, res);
	if (!err && altmap)
		*altmap = trial;	/* the blocks, one call's worth of what one per section takes */
	return err;
}

/* The table under *entry (level l), installing a reserved (zeroed) page if absent. */
static pte_t *install_table(pte_t *entry, enum pg_level l, struct vmemmap_reserve *res)
{
	if (!arch_pte_is_present(l, *entry)) {
		u64 pa = pop(&res->tables);

		memset(phys_to_virt(pa), 0, PAGE_SIZE);
		*entry = arch_pte_table(l, pa);
		kernel_pgtable.nr_tables++;
	}
	return phys_to_virt(arch_pte_table_pa(l, *entry));
}

/* The PMD entry for va, with the PDPT and PD installed. */
static pte_t *install_pmd(u64 va, struct vmemmap_reserve *res)
{
	pte_t *table = phys_to_virt(kernel_pgtable.root);

	for (enum pg_level l = PG_LEVEL_512G; l > PG_LEVEL_2M; l--)
		table = install_table(&table[pg_level_index(va, l)], l, res);
	return &table[pg_level_index(va, PG_LEVEL_2M)];
}

/*
 * The PMD leaves of the whole sections [s, e) (one PD table): the next of
 * the altmap blocks the prepare took, else reserved RAM blocks. Lazy
 * (with the altmap): the tables only; the blocks are noted in *lazy.
 */
static void commit_blocks(u64 s, u64 e, bool alt, struct vmemmap_reserve *res,
			  struct vmemmap_lazy *lazy)
{
	pte_t *pmd = install_pmd(memmap_va(s), res);
	u64 n = (e - s) / PAGES_PER_SECTION, prot = leaf_prot();

	if (alt && lazy) {
		if (lazy->end_pfn == lazy->first_pfn)
			*lazy = (struct vmemmap_lazy){ s, s, res->alt_pfn };
		lazy->end_pfn = e;	/* whole sections are one run: this one follows the last */
		res->alt_pfn += n * PFN_DOWN(PMD_SIZE);
		return;
	}

	for (u64 i = 0; i < n; i++) {
		u64 pa;

		if (alt) {
			pa = PFN_PHYS(res->alt_pfn);
			res->alt_pfn += PFN_DOWN(PMD_SIZE);
		} else {
			pa = pop(&res->blocks);
		}
		pmd[i] = arch_pte_leaf(PG_LEVEL_2M, pa, prot);
	}
}

/* 4 KiB pages for the subsections of [s, e), one zeroed run of 8 each. */
static void commit_runs(u64 s, u64 e, struct vmemmap_reserve *res)
{
	pte_t *pt = install_table(install_pmd(memmap_va(s), res), PG_LEVEL_2M, res);
	u64 prot = leaf_prot();

	for (u64 p = s; p < e; p += PAGES_PER_SUBSECTION) {
		u64 pa = pop(&res->runs);
		unsigned int first = pg_level_index(memmap_va(p), PG_LEVEL_4K);

		memset(phys_to_virt(pa), 0, SUBSECTION_MEMMAP_BYTES);
		for (unsigned int i = 0; i < SUBSECTION_MEMMAP_PAGES; i++)
			pt[first + i] = arch_pte_leaf(PG_LEVEL_4K, pa + i * PAGE_SIZE, prot);
	}
}

/*
 * One compound's struct pages, deduplicated (FACTS-2 §2.2): vmemmap page 0
 * (head, tails 1-63) and page 1 (tails 64-127) get zeroed frames of their
 * own; pages 2.. map page 1's frame read-write, as Linux's
 * vmemmap_populate_compound_pages does (for a compound larger than a
 * section Linux reuses the previous section's last tail frame: the same one).
 */
static void commit_compound(u64 head, unsigned int shift, struct vmemmap_reserve *res)
{
	u64 n = compound_vmemmap_pages(shift), va = memmap_va(head), prot = leaf_prot();
	u64 frame[VMEMMAP_RESERVE_NR];
	pte_t *pt = NULL;

	for (int i = 0; i < VMEMMAP_RESERVE_NR; i++) {
		frame[i] = pop(&res->frames);
		memset(phys_to_virt(frame[i]), 0, PAGE_SIZE);
	}
	for (u64 i = 0; i < n; i++, va += PAGE_SIZE) {
		if (!pt || IS_ALIGNED(va, PMD_SIZE))
			pt = install_table(install_pmd(va, res), PG_LEVEL_2M, res);
		pt[pg_level_index(va, PG_LEVEL_4K)] =
			arch_pte_leaf(PG_LEVEL_4K, frame[MIN(i, VMEMMAP_RESERVE_NR - 1)], prot);
	}
	mm_stat_add(MM_VMEMMAP_SHARED, (s64)((n - VMEMMAP_RESERVE_NR) * PAGE_SIZE));
}

static void vmemmap_commit(u64 start, u64 end, struct vmem_altmap *altmap,
			   unsigned int flags, struct vmemmap_reserve *res,
			   struct vmemmap_lazy *lazy)
{
	unsigned int shift = VMEMMAP_DEDUP_SHIFT(flags);

	if (shift) {
		for (u64 head = start; head < end; head += 1ULL << shift)
			commit_compound(head, shift, res);
		return;
	}
	for (u64 s = start, e; s < end; s = e) {
		e = section_part_end(s, end);
		if (use_block(s, e, flags)) {
			e = block_run_end(s, end);
			commit_blocks(s, e, altmap != NULL, res, lazy);
		} else {
			commit_runs(s, e, res);
		}
	}
}

/*
 * The lazy ranges' vmemmap, [va, end) each: the tables over them stay while
 * they are listed. Changed under the mm lock, as every unmap and prune of
 * the kernel's tables runs.
 */
#define LAZY_MAX 64

static struct { u64 va, end; } lazy_ranges[LAZY_MAX];
static u32 nr_lazy;

/* The reserved ranges' vmemmap (vmemmap_reserve_tables): kept for good. */
#define RESERVED_MAX 64

static struct { u64 va, end; } reserved[RESERVED_MAX];
static u32 nr_reserved;

void vmemmap_reset(void)
{
	nr_lazy = nr_reserved = 0;
}

/* PDs and PDPTs only: a PT (4 KiB pages of an edge section, dedup) goes when empty. */
static bool keep_table(u64 va, enum pg_level l)
{
	u64 end = va + pg_level_size(l);

	if (l < PG_LEVEL_1G)
		return false;

	for (u32 i = 0; i < nr_lazy; i++)
		if (lazy_ranges[i].va < end && va < lazy_ranges[i].end)
			return true;
	for (u32 i = 0; i < nr_reserved; i++)
		if (reserved[i].va < end && va < reserved[i].end)
			return true;
	return false;
}

int vmemmap_reserve_tables(u64 start_pfn, u64 nr_pages)
{
	u64 va = memmap_va(ALIGN_DOWN(start_pfn, PAGES_PER_SECTION));
	u64 end = memmap_va(ALIGN_UP(start_pfn + nr_pages, PAGES_PER_SECTION));
	struct vmemmap_reserve res = { 0 };
	struct vmemmap_need need = { 0 };

	if (nr_reserved == RESERVED_MAX)
		return -ENOMEM;
	for (u64 a = va; a < end; a = ALIGN_DOWN(a, PUD_SIZE) + PUD_SIZE)
		need.tables += count_upper(a, a == va);
	int err = reserve_ram(&need, &res);
	if (err)
		return err;
	for (u64 a = va; a < end; a = ALIGN_DOWN(a, PUD_SIZE) + PUD_SIZE)
		install_pmd(a, &res);
	release_reserve(&res);	/* empty: the count was exact */
	reserved[nr_reserved].va = va;
	reserved[nr_reserved].end = end;
	nr_reserved++;
	kernel_pgtable.keep_table = keep_table;
	return 0;
}

/* Drop the lazy ranges inside [va, end) and free the tables they kept that map nothing. */
static void lazy_forget(u64 va, u64 end)
{
	for (u32 i = 0; i < nr_lazy;) {
		u64 lva = lazy_ranges[i].va, lend = lazy_ranges[i].end;

		if (lva < va || lend > end) {
			i++;
			continue;
		}
		lazy_ranges[i] = lazy_ranges[--nr_lazy];
		pgtable_prune(&kernel_pgtable, lva, lend);
	}
}

static int populate(u64 start_pfn, u64 nr_pages, struct vmem_altmap *altmap,
		    unsigned int flags, struct vmemmap_lazy *lazy)
{
	struct vmemmap_reserve res = { 0 };
	u64 end = start_pfn + nr_pages;
	int err;

	if (!nr_pages || !IS_ALIGNED(start_pfn | nr_pages, PAGES_PER_SUBSECTION) ||
	    end > MAX_PFN || end < start_pfn)
		return -EINVAL;
	unsigned int shift = VMEMMAP_DEDUP_SHIFT(flags);
	if (shift && (shift < VMEMMAP_DEDUP_MIN_SHIFT || (1ULL << shift) > PFN_DOWN(PUD_SIZE) || altmap ||
		      !IS_ALIGNED(start_pfn | nr_pages, 1ULL << shift)))
		return -EINVAL;
	bool pse = arch_pte_leaf_allowed(PG_LEVEL_2M);
	if (altmap && (!pse || (flags & VMEMMAP_BASE_PAGES))) {
		pr_err("vmemmap: struct pages in an altmap need 2 MiB pages (%s)\n",
		       pse ? "4 KiB pages were asked for" : "the CPU has no PSE");
		return -EOPNOTSUPP;
	}
	err = vmemmap_prepare(start_pfn, end, altmap, flags, lazy != NULL, &res);
	if (err)
		return err;
	vmemmap_commit(start_pfn, end, altmap, flags, &res, lazy);
	release_reserve(&res);	/* empty: the count was exact */
	if (lazy && lazy->end_pfn > lazy->first_pfn) {
		lazy_ranges[nr_lazy].va = memmap_va(lazy->first_pfn);
		lazy_ranges[nr_lazy].end = memmap_va(lazy->end_pfn);
		nr_lazy++;
		kernel_pgtable.keep_table = keep_table;
	}
	arch_sync_kernel_mappings(memmap_va(start_pfn), nr_pages * sizeof(struct page));
	return 0;
}

int vmemmap_populate(u64 start_pfn, u64 nr_pages, struct vmem_altmap *altmap,
		     unsigned int flags)
{
	return populate(start_pfn, nr_pages, altmap, flags, NULL);
}

int vmemmap_populate_lazy(u64 start_pfn, u64 nr_pages, struct vmem_altmap *altmap,
			  struct vmemmap_lazy *lazy)
{
	*lazy = (struct vmemmap_lazy){ 0 };
	/* Without an altmap, or with no room to list it: every leaf now. */
	return populate(start_pfn, nr_pages, altmap, 0, altmap && nr_lazy < LAZY_MAX ? lazy : NULL);
}

void vmemmap_install_lazy(const struct vmemmap_lazy *lazy, u64 section_pfn)
{
	u64 va = memmap_va(section_pfn);
	pte_t *pmd = entry_at(va, PG_LEVEL_2M);	/* its tables are kept: never NULL */
	u64 block = lazy->block_pfn + (section_pfn - lazy->first_pfn) / PAGES_PER_SECTION *
					      PFN_DOWN(PMD_SIZE);

	if (!pmd) {	/* a broken invariant: the access that follows faults */
		pr_err("vmemmap: the page tables of lazy section %#llx are gone\n", section_pfn);
		return;
	}
	if (arch_pte_is_present(PG_LEVEL_2M, *pmd)) {
		if (!arch_pte_is_leaf(PG_LEVEL_2M, *pmd) ||
		    arch_pte_leaf_pa(PG_LEVEL_2M, *pmd) != PFN_PHYS(block))
			pr_err("vmemmap: lazy section %#llx is mapped by someone else\n", section_pfn);
		return;	/* populated before (or, never expected, by another range) */
	}
	/* Not present before: no CPU can hold a translation to flush. */
	*pmd = arch_pte_leaf(PG_LEVEL_2M, PFN_PHYS(block), leaf_prot());
	arch_sync_kernel_mappings(va, PMD_SIZE);
}

/*
 * Unmap a section's PMD leaf, the TLB flushed later by vmemmap_free, once
 * for the range; a RAM block waits on *blocks until then (the altmap's
 * need no freeing).
 */
static void free_block(u64 va, u64 pa, const struct vmem_altmap *altmap, u64 *blocks)
{
	pgtable_unmap_noflush(&kernel_pgtable, va, PMD_SIZE);
	if (!altmap_contains(altmap, PFN_DOWN(pa)))
		push(blocks, pa);
}

/* Unmap and free the 4 KiB runs of the subsections of [s, e). */
static void free_runs(u64 s, u64 e)
{
	for (u64 p = s; p < e; p += PAGES_PER_SUBSECTION) {
		pte_t *pte = entry_at(memmap_va(p), PG_LEVEL_4K);
		u64 pa;

		if (!present(pte, PG_LEVEL_4K))
			continue;
		pa = arch_pte_leaf_pa(PG_LEVEL_4K, *pte);
		pgtable_unmap(&kernel_pgtable, memmap_va(p), SUBSECTION_MEMMAP_BYTES);
		mm_free_pages(pa, SUBSECTION_MEMMAP_ORDER, MM_VMEMMAP);
	}
}

/* Unmap deduplicated compounds; each one's two frames go back to RAM once. */
static void free_compounds(u64 start, u64 end, unsigned int shift)
{
	u64 n = compound_vmemmap_pages(shift);

	for (u64 head = start; head < end; head += 1ULL << shift) {
		u64 va = memmap_va(head), frame[VMEMMAP_RESERVE_NR];
		for (int i = 0; i < VMEMMAP_RESERVE_NR; i++) {
			pte_t *pte = entry_at(va + (u64)i * PAGE_SIZE, PG_LEVEL_4K);
			frame[i] = present(pte, PG_LEVEL_4K) ? arch_pte_leaf_pa(PG_LEVEL_4K, *pte) : 0;
		}
		if (!frame[0] || !frame[1])
			continue;
		pgtable_unmap(&kernel_pgtable, va, n * PAGE_SIZE);	/* flushes the TLB */
		for (int i = 0; i < VMEMMAP_RESERVE_NR; i++)
			mm_free_pages(frame[i], 0, MM_VMEMMAP);
		mm_stat_add(MM_VMEMMAP_SHARED, -(s64)((n - VMEMMAP_RESERVE_NR) * PAGE_SIZE));
	}
}

void vmemmap_free(u64 start_pfn, u64 nr_pages, struct vmem_altmap *altmap, unsigned int flags)
{
	u64 end = start_pfn + nr_pages;

	if (VMEMMAP_DEDUP_SHIFT(flags)) {
		free_compounds(start_pfn, end, VMEMMAP_DEDUP_SHIFT(flags));
		arch_sync_kernel_mappings(memmap_va(start_pfn), nr_pages * sizeof(struct page));
		return;
	}
	u64 blocks = 0;	/* RAM blocks unmapped, freed after the flush */
	bool unmapped = false;

	for (u64 s = start_pfn, e; s < end; s = e) {
		u64 va = memmap_va(ALIGN_DOWN(s, PAGES_PER_SECTION));
		pte_t *pmd = entry_at(va, PG_LEVEL_2M);

		e = section_part_end(s, end);
		if (!present(pmd, PG_LEVEL_2M))
			continue;
		if (!pmd_is_block(pmd)) {
			free_runs(s, e);
		} else if (e - s == PAGES_PER_SECTION) {
			free_block(va, arch_pte_leaf_pa(PG_LEVEL_2M, *pmd), altmap, &blocks);
			unmapped = true;
		} else {
			pr_err("vmemmap: pfns [%#llx-%#llx) are part of a 2 MiB leaf; not freed\n",
			       s, e);
		}
	}
	/* One flush for every leaf, not one a section (each a full flush); then the RAM. */
	if (unmapped)
		arch_flush_tlb_range(memmap_va(start_pfn), nr_pages * sizeof(struct page));
	release_list(&blocks, PMD_ORDER, MM_VMEMMAP);
	lazy_forget(memmap_va(start_pfn), memmap_va(end));	/* sections never populated */
	arch_sync_kernel_mappings(memmap_va(start_pfn), nr_pages * sizeof(struct page));
}

bool vmemmap_in_altmap(u64 pfn, const struct vmem_altmap *altmap)
{
	const pte_t *pmd;

	if (!altmap)
		return false;
	pmd = entry_at(memmap_va(pfn), PG_LEVEL_2M);
	return pmd_is_block(pmd) &&
	       altmap_contains(altmap, PFN_DOWN(arch_pte_leaf_pa(PG_LEVEL_2M, *pmd)));
}

u64 vmemmap_ram_estimate(u64 nr_pages, unsigned int dedup_shift)
{
	if (!dedup_shift)
		return nr_pages * sizeof(struct page);
	return (nr_pages >> dedup_shift) * VMEMMAP_RESERVE_NR * PAGE_SIZE +
	       ((nr_pages + PAGES_PER_SECTION - 1) / PAGES_PER_SECTION) * PAGE_SIZE;
}
