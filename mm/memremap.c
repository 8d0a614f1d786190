/*
 * ZONE_DEVICE registration (memremap_pages) and lifetime: a sorted table of
 * registered dev_pagemaps for pfn lookups, pins that keep a map alive, and
 * a teardown that waits for the last pin. The unwind of a failed
 * registration and the teardown share their undo helpers.
 */
#include <errno.h>

#include "arch.h"
#include "direct_map.h"
#include "memblock.h"
#include "memlayout.h"
#include "memremap.h"
#include "mm.h"
#include "params.h"
#include "pgtable.h"
#include "printk.h"
#include "sparse.h"
#include "spinlock.h"
#include "workqueue.h"

#define PGMAP_MAX 64

static struct dev_pagemap *pgmaps[PGMAP_MAX];	/* sorted by range.start, disjoint */
static u32 nr_pgmaps;
/* The table, each pgmap's state and pins (LOCK_RANK_PGMAP: inside the mm lock). */
static struct spinlock pgmap_lock = SPINLOCK_INIT("pgmap", LOCK_RANK_PGMAP);

void memremap_reset(void)
{
	nr_pgmaps = 0;
}

static u64 pgmap_pfn(const struct dev_pagemap *pgmap)
{
	return PFN_DOWN(pgmap->range.start);
}

static u64 pgmap_nr_pages(const struct dev_pagemap *pgmap)
{
	return PFN_DOWN(range_len(&pgmap->range));
}

static struct vmem_altmap *pgmap_altmap(struct dev_pagemap *pgmap)
{
	return (pgmap->flags & PGMAP_ALTMAP_VALID) ? &pgmap->altmap : NULL;
}

/* Index of the first pgmap whose range ends at or after pa. */
static u32 pgmap_index(u64 pa)
{
	u32 lo = 0, hi = nr_pgmaps;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (pgmaps[mid]->range.end < pa)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct dev_pagemap *pgmap_lookup_locked(u64 pfn)
{
	u64 pa = PFN_PHYS(pfn);
	u32 i = pgmap_index(pa);

	if (pfn >= MAX_PFN || i == nr_pgmaps || pgmaps[i]->range.start > pa)
		return NULL;
	return pgmaps[i];
}

struct dev_pagemap *pgmap_lookup(u64 pfn)
{
	spin_lock(&pgmap_lock);
	struct dev_pagemap *pgmap = pgmap_lookup_locked(pfn);
	spin_unlock(&pgmap_lock);
	return pgmap;
}

/* Under pgmap_lock. */
static void pgmap_insert(struct dev_pagemap *pgmap)
{
	u32 i = pgmap_index(pgmap->range.start);

	for (u32 j = nr_pgmaps; j > i; j--)
		pgmaps[j] = pgmaps[j - 1];
	pgmaps[i] = pgmap;
	nr_pgmaps++;
}

static void pgmap_remove(struct dev_pagemap *pgmap)
{
	u32 i = pgmap_index(pgmap->range.start);

	if (i == nr_pgmaps || pgmaps[i] != pgmap)
		return;
	for (; i + 1 < nr_pgmaps; i++)
		pgmaps[i] = pgmaps[i + 1];
	nr_pgmaps--;
}

static bool overlaps_pgmap(const struct range *r)
{
	spin_lock(&pgmap_lock);
	u32 i = pgmap_index(r->start);
	bool overlap = i < nr_pgmaps && pgmaps[i]->range.start <= r->end;
	spin_unlock(&pgmap_lock);
	return overlap;
}

static int pgmap_reject(const struct range *r, int err, const char *why)
{
	pr_err("memremap: [mem %#llx-%#llx] %s\n", r->start, r->end, why);
	return err;
}

static int check_range(const struct range *r)
{
	if (r->end <= r->start || !IS_ALIGNED(r->start, PMD_SIZE) ||
	    !IS_ALIGNED(r->end + 1, PMD_SIZE))
		return pgmap_reject(r, -EINVAL, "is not a 2 MiB aligned range");
	if (PFN_DOWN(r->end) >= MAX_PFN)
		return pgmap_reject(r, -EINVAL, "lies beyond 64 TiB");
	return 0;
}

static int check_altmap(const struct range *r, const struct vmem_altmap *a)
{
	u64 first = PFN_DOWN(r->start), last = PFN_DOWN(r->end);

	if (a->base_pfn != first)
		return pgmap_reject(r, -EINVAL, "altmap base_pfn is not the range's first pfn");
	if (a->end_pfn < a->base_pfn || a->end_pfn > last)
		return pgmap_reject(r, -EINVAL, "altmap end_pfn is outside the range");
	if (a->reserve + a->free > a->end_pfn - a->base_pfn + 1)
		return pgmap_reject(r, -EINVAL, "altmap reserve + free exceed the range");
	if (a->alloc || a->align)
		return pgmap_reject(r, -EINVAL, "altmap already in use (alloc/align not 0)");
	return 0;
}

static int pgmap_validate(const struct dev_pagemap *pgmap, const struct vmem_altmap *altmap)
{
	const struct range *r = &pgmap->range;
	int err = check_range(r);

	if (!err && altmap)
		err = check_altmap(r, altmap);
	if (err)
		return err;
	if (pgmap->state != PGMAP_UNREGISTERED)
		return pgmap_reject(r, -EINVAL, "pgmap is already registered");
	if (pgmap->vmemmap_shift > PFN_SECTION_SHIFT + 3)	/* 1 GiB */
		return pgmap_reject(r, -EINVAL, "compound pages larger than 1 GiB");
	if (nr_pgmaps == PGMAP_MAX)
		return pgmap_reject(r, -ENOSPC, "too many device ranges");
	if (memblock_ram_overlapping(r->start, range_len(r)))
		return pgmap_reject(r, -EBUSY, "overlaps RAM");
	if (overlaps_pgmap(r))
		return pgmap_reject(r, -EBUSY, "overlaps a registered device range");
	if (sparse_range_has_memmap(PFN_DOWN(r->start), PFN_DOWN(range_len(r))))
		return pgmap_reject(r, -EBUSY, "shares a 2 MiB subsection that has struct pages");
	return 0;
}

static void pgmap_unmap_direct(struct dev_pagemap *pgmap)
{
	u64 start = pgmap->range.start, len = range_len(&pgmap->range);

	if (pgmap->own_direct_map)
		direct_map_remove(start, len);
	pgmap->own_direct_map = false;
}

/*
 * The direct map: left alone if the range was wholly mapped already (its
 * driver's); otherwise added, and removed again by pgmap_unmap_direct.
 */
static int pgmap_map_direct(struct dev_pagemap *pgmap)
{
	int err;

	pgmap->own_direct_map = !direct_map_covers(pgmap->range.start, range_len(&pgmap->range));
	if (!pgmap->own_direct_map)
		return 0;
	err = direct_map_add(pgmap->range.start, range_len(&pgmap->range));
	if (err) {
		pr_err("memremap: direct map of [mem %#llx-%#llx] failed: %d\n", pgmap->range.start,
		       pgmap->range.end, err);
		pgmap_unmap_direct(pgmap);	/* what was mapped before the failure */
	}
	return err;
}

/*
 * Store copies of *tmpl into the struct pages of [s, e) clipped to the job's
 * [lo, hi), section by section: where a section's struct pages lie in the
 * altmap (pmem), only those that differ are stored; returns how many were.
 */
static u64 init_span(u64 s, u64 e, const struct page *tmpl, const struct vmem_altmap *altmap,
		     u64 lo, u64 hi)
{
	u64 stored = 0;

	s = MAX(s, lo);
	e = MIN(e, hi);
	for (u64 next; s < e; s = next) {
		next = MIN(e, ALIGN_DOWN(s, PAGES_PER_SECTION) + PAGES_PER_SECTION);
		if (vmemmap_in_altmap(s, altmap))
			stored += memmap_init_range_pmem(s, next, tmpl);
		else
			memmap_init_range(s, next, tmpl);
	}
	return stored;
}

/*
 * One compound page at `head` (Linux's memmap_init_compound), the part of
 * it inside [lo, hi): the head with PG_head, the first tail with the order,
 * every tail with the head's address. Deduplicated, only the struct pages
 * of its two own vmemmap pages are written (128 of them): every later tail
 * reads the second page's frame.
 */
static u64 init_compound(struct dev_pagemap *pgmap, u64 head, const struct vmem_altmap *altmap,
			 u64 lo, u64 hi)
{
	u64 nr = pgmap_vmemmap_nr(pgmap);
	u64 own = pgmap->vmemmap_dedup ? VMEMMAP_RESERVE_NR * PAGE_SIZE / sizeof(struct page) : nr;
	struct page h = { .flags = ZONE_DEVICE | PG_head, .pgmap = pgmap };
	struct page tail = { .flags = ZONE_DEVICE, .pgmap = pgmap };
	struct page first;

	tail.compound_head = (u64)pfn_to_page(head) | 1;
	first = tail;
	first.compound_order = pgmap->vmemmap_shift;
	return init_span(head, head + 1, &h, altmap, lo, hi) +
	       init_span(head + 1, head + 2, &first, altmap, lo, hi) +
	       init_span(head + 2, head + own, &tail, altmap, lo, hi);
}

/*
 * The struct pages of the pgmap's pfns in [lo, hi): zone DEVICE and the
 * owner in every one but the altmap's reserve, stored from one template
 * (init_span); compound pages as init_compound makes them. The altmap's
 * reserve gets PG_reserved pages with no pgmap: every struct page of the
 * range is initialised, so a walker never reads garbage. What a pfn gets
 * depends on the pfn alone, so any split of the range into jobs stores the
 * same bytes as one pass over it. Returns the struct pages stored to pmem.
 */
u64 pgmap_init_pfns(struct dev_pagemap *pgmap, u64 lo, u64 hi)
{
	struct page tmpl = { .flags = ZONE_DEVICE, .pgmap = pgmap };
	/* The altmap's reserve (info block, padding): no page of the device's (B8). */
	struct page reserved = { .flags = ZONE_DEVICE | PG_reserved };
	const struct vmem_altmap *altmap = pgmap_altmap(pgmap);
	u64 start = pgmap_pfn(pgmap), end = start + pgmap_nr_pages(pgmap);
	u64 cs = pgmap->compound_start, ce = pgmap->compound_end, nr = pgmap_vmemmap_nr(pgmap);
	u64 stored = 0, s = start;

	if (altmap) {
		u64 rsv_end = MIN(end, altmap->base_pfn + altmap->reserve);
		stored += init_span(start, rsv_end, &reserved, altmap, lo, hi);
		s = MAX(start, rsv_end);
	}
	if (cs < ce) {
		stored += init_span(s, cs, &tmpl, altmap, lo, hi);
		/* The compounds overlapping [lo, hi): cs is aligned to nr. */
		for (u64 head = ALIGN_DOWN(MAX(lo, cs), nr); head < MIN(ce, hi); head += nr)
			stored += init_compound(pgmap, head, altmap, lo, hi);
		s = ce;
	}
	return stored + init_span(s, end, &tmpl, altmap, lo, hi);
}

int memmap_parallel = 1;	/* memmap_parallel=: 0 off, 1 on */

KERNEL_PARAM_CHOICE("memmap_parallel", memmap_parallel, -1,
		    "struct page init on every idle CPU in section-sized jobs: on (default) or off (the "
		    "boot CPU alone)",
		    "off", "on");

/* One job of a parallel init: the pfns of one section (clipped to the range). */
struct init_batch {
	struct dev_pagemap *pgmap;
	u64 first_section_pfn;
	u64 stored;		/* atomic */
	u32 caller;		/* the CPU that called work_run */
	u64 caller_jobs;	/* atomic: jobs it ran itself */
};

static void init_job(void *ctx, u64 job)
{
	struct init_batch *b = ctx;
	u64 lo = b->first_section_pfn + job * PAGES_PER_SECTION;
	u64 n = pgmap_init_pfns(b->pgmap, lo, lo + PAGES_PER_SECTION);

	__atomic_fetch_add(&b->stored, n, __ATOMIC_RELAXED);
	if (arch_cpu_id() == b->caller)
		__atomic_fetch_add(&b->caller_jobs, 1, __ATOMIC_RELAXED);
}

static u64 pgmap_compound_pages(const struct dev_pagemap *pgmap)
{
	u64 cs = pgmap->compound_start, ce = pgmap->compound_end;

	return cs < ce ? (ce - cs) >> pgmap->vmemmap_shift : 0;
}

/*
 * Initialise every struct page of the pgmap: serially on this CPU when
 * max_cpus is 1, else in section-sized jobs on up to max_cpus CPUs (0: all
 * idle ones) through the work queue. Fills the init fields of *st.
 */
static void pgmap_init_pages(struct dev_pagemap *pgmap, u32 max_cpus, struct memremap_stats *st)
{
	u64 start = pgmap_pfn(pgmap), end = start + pgmap_nr_pages(pgmap);
	u64 stored, t0 = arch_cycles();

	if (max_cpus == 1) {
		stored = pgmap_init_pfns(pgmap, start, end);
		st->init_cpus = 1;
		st->init_jobs = st->init_jobs_caller = 1;
	} else {
		struct init_batch b = { pgmap, ALIGN_DOWN(start, PAGES_PER_SECTION), 0, arch_cpu_id(),
					0 };
		u64 jobs = (ALIGN_UP(end, PAGES_PER_SECTION) - b.first_section_pfn) / PAGES_PER_SECTION;

		st->init_cpus = work_run_cpus(init_job, jobs, &b, max_cpus);
		stored = b.stored;
		st->init_jobs = jobs;
		st->init_jobs_caller = b.caller_jobs;
	}
	st->init_cycles = arch_cycles() - t0;
	pmem_written_add(PMEM_WR_MEMMAP, stored * sizeof(struct page));
	st->pages_init = end - start;
	st->pmem_pages_stored = stored;
	st->compound_pages = pgmap_compound_pages(pgmap);
}

int memremap_reinit_pages(struct dev_pagemap *pgmap, u32 max_cpus, struct memremap_stats *st)
{
	int err = 0;

	mm_lock();	/* no teardown meanwhile */
	if (pgmap->state != PGMAP_LIVE) {
		err = -EINVAL;
	} else {
		*st = (struct memremap_stats){ 0 };
		memmap_ready_range(pgmap, 0, ~0ULL);	/* a deferred init first runs out */
		pgmap_init_pages(pgmap, max_cpus, st);
	}
	mm_unlock();
	return err;
}

/* Where the compound pages go (struct dev_pagemap's vmemmap_shift) and whether they dedup. */
static void pgmap_place_compounds(struct dev_pagemap *pgmap)
{
	const struct vmem_altmap *altmap = pgmap_altmap(pgmap);
	u64 nr = pgmap_vmemmap_nr(pgmap), first = pgmap_pfn(pgmap);
	u64 end = first + pgmap_nr_pages(pgmap);

	pgmap->compound_start = pgmap->compound_end = 0;
	pgmap->vmemmap_dedup = false;
	if (nr == 1)
		return;
	if (altmap)
		first = altmap->base_pfn + vmem_altmap_offset(altmap);
	first = ALIGN_UP(first, nr);
	if (first >= ALIGN_DOWN(end, nr))
		return;
	pgmap->compound_start = first;
	pgmap->compound_end = ALIGN_DOWN(end, nr);
	/* FACTS-2 §2.2 vmemmap_can_optimize: no altmap, more than two vmemmap pages a compound. */
	pgmap->vmemmap_dedup = !altmap && pgmap->vmemmap_shift >= VMEMMAP_DEDUP_MIN_SHIFT;
}

/*
 * The vmemmap's parts: without dedup one range; with it the compounds with
 * VMEMMAP_DEDUP and the order-0 pages before and after them without.
 */
struct pgmap_part {
	u64 start, end;
	unsigned int flags;
};

static int pgmap_parts(const struct dev_pagemap *pgmap, struct pgmap_part part[3])
{
	u64 start = pgmap_pfn(pgmap), end = start + pgmap_nr_pages(pgmap);
	unsigned int base = (pgmap->flags & PGMAP_BASE_PAGES) ? VMEMMAP_BASE_PAGES : 0;

	if (!pgmap->vmemmap_dedup) {
		part[0] = (struct pgmap_part){ start, end, base };
		return 1;
	}
	part[0] = (struct pgmap_part){ start, pgmap->compound_start, base };
	part[1] = (struct pgmap_part){ pgmap->compound_start, pgmap->compound_end,
				       VMEMMAP_DEDUP(pgmap->vmemmap_shift) };
	part[2] = (struct pgmap_part){ pgmap->compound_end, end, base };
	return 3;
}

static void pgmap_sparse_remove(struct dev_pagemap *pgmap, int upto)
{
	struct pgmap_part part[3];
	int n = pgmap_parts(pgmap, part);

	for (int i = MIN(n, upto) - 1; i >= 0; i--)
		if (part[i].end > part[i].start)
			sparse_remove_range(part[i].start, part[i].end - part[i].start,
					    pgmap_altmap(pgmap), part[i].flags);
}

/*
 * Will the struct pages be stored after registration (memmap_defer.c)?
 * Then a map=dev range's whole sections are mapped lazily as well.
 */
static bool pgmap_wants_defer(const struct dev_pagemap *pgmap)
{
	return (pgmap->flags & PGMAP_DEFER_INIT) && memmap_init_deferred;
}

/* Sections and vmemmap for every part; all or nothing. */
static int pgmap_sparse_add(struct dev_pagemap *pgmap)
{
	struct pgmap_part part[3];
	int n = pgmap_parts(pgmap, part);

	pgmap->lazy = (struct vmemmap_lazy){ 0 };
	if (n == 1 && !part[0].flags && pgmap_altmap(pgmap) && pgmap_wants_defer(pgmap))
		return sparse_add_range_lazy(part[0].start, part[0].end - part[0].start,
					     pgmap_altmap(pgmap), &pgmap->lazy);
	for (int i = 0; i < n; i++) {
		if (part[i].end == part[i].start)
			continue;
		int err = sparse_add_range(part[i].start, part[i].end - part[i].start,
					   pgmap_altmap(pgmap), part[i].flags, true);
		if (err) {
			pgmap_sparse_remove(pgmap, i);
			return err;
		}
	}
	return 0;
}

/* Map what sparse_add_range_lazy left: struct pages are stored here after all. */
static void pgmap_populate_lazy(struct dev_pagemap *pgmap)
{
	for (u64 s = pgmap->lazy.first_pfn; s < pgmap->lazy.end_pfn; s += PAGES_PER_SECTION)
		sparse_populate_lazy(&pgmap->lazy, s);
}

static void pgmap_account(struct dev_pagemap *pgmap, s64 sign)
{
	const struct vmem_altmap *altmap = pgmap_altmap(pgmap);

	mm_stat_add(MM_DEVICE_MAPPED, sign * (s64)range_len(&pgmap->range));
	if (altmap) {
		mm_stat_add(MM_ALTMAP_USED, sign * (s64)PFN_PHYS(altmap->alloc));
		mm_stat_add(MM_ALTMAP_WASTE, sign * (s64)PFN_PHYS(altmap->align));
	}
}

static int memremap_pages_locked(struct dev_pagemap *pgmap, const struct vmem_altmap *altmap,
				 struct memremap_stats *stats)
{
	int err = pgmap_validate(pgmap, altmap);
	struct memremap_stats st = { 0 };
	u64 t0, t1, t2, ram0 = mm_stat(MM_VMEMMAP), tables0 = kernel_pgtable.nr_tables;

	if (err)
		return err;
	pgmap->flags &= ~PGMAP_ALTMAP_VALID;
	if (altmap) {
		pgmap->altmap = *altmap;
		pgmap->flags |= PGMAP_ALTMAP_VALID;
	}
	pgmap->pins = 0;
	pgmap_place_compounds(pgmap);
	t0 = arch_cycles();
	err = pgmap_map_direct(pgmap);
	if (err)
		goto err_direct_map;	/* it undid itself */
	t1 = arch_cycles();
	err = pgmap_sparse_add(pgmap);
	if (err)
		goto err_sparse;
	t2 = arch_cycles();
	pgmap->defer = NULL;
	pgmap->memmap_pending = false;
	/* Deferred: idle CPUs and users store the struct pages (memmap_defer.c). */
	st.deferred = pgmap_wants_defer(pgmap) && !memmap_defer_start(pgmap);
	if (!st.deferred) {
		pgmap_populate_lazy(pgmap);	/* if the deferred init could not start */
		pgmap_init_pages(pgmap, memmap_parallel ? 0 : 1, &st);
	}
	st.compound_pages = pgmap_compound_pages(pgmap);	/* formed now or by the deferred init */
	st.map_cycles = t1 - t0;
	st.sparse_cycles = t2 - t1;
	st.vmemmap_ram = mm_stat(MM_VMEMMAP) - ram0;
	st.pgtable_pages = kernel_pgtable.nr_tables - tables0;
	pgmap_account(pgmap, 1);
	/* Room checked by pgmap_validate: every insert runs under the mm lock. */
	spin_lock(&pgmap_lock);
	pgmap_insert(pgmap);
	pgmap->state = PGMAP_LIVE;
	spin_unlock(&pgmap_lock);
	if (stats)
		*stats = st;
	if (st.deferred)
		arch_idle_kick();	/* the other CPUs' idle work has sections to store */
	return 0;

err_sparse:
	pgmap_unmap_direct(pgmap);
err_direct_map:
	pgmap->flags &= ~PGMAP_ALTMAP_VALID;
	pr_err("memremap: [mem %#llx-%#llx] not registered: error %d\n", pgmap->range.start,
	       pgmap->range.end, err);
	return err;
}

int memremap_pages(struct dev_pagemap *pgmap, const struct vmem_altmap *altmap,
		   struct memremap_stats *stats)
{
	u64 t0 = arch_cycles();

	mm_lock();
	int err = memremap_pages_locked(pgmap, altmap, stats);
	mm_unlock();
	if (!err && stats)
		stats->total_cycles = arch_cycles() - t0;
	return err;
}

/* Undo memremap_pages(): the same helpers as its unwind, in reverse order. Under the mm lock. */
static void pgmap_teardown(struct dev_pagemap *pgmap)
{
	struct vmem_altmap *altmap = pgmap_altmap(pgmap);

	memmap_defer_stop(pgmap);	/* no idle CPU is inside it any more */
	spin_lock(&pgmap_lock);
	pgmap_remove(pgmap);
	spin_unlock(&pgmap_lock);
	pgmap_account(pgmap, -1);
	pgmap_sparse_remove(pgmap, 3);
	pgmap_unmap_direct(pgmap);
	if (altmap)
		altmap_reset(altmap);	/* its blocks are free again */
	pgmap->state = PGMAP_UNREGISTERED;
}

/*
 * A deferred teardown's callback, called with no lock held: the owner may
 * do anything there (the memremap command re-probes the namespace, which
 * registers a block device: LOCK_RANK_PMEM, outside the mm lock).
 */
static void pgmap_done(struct dev_pagemap *pgmap)
{
	if (pgmap->done)
		pgmap->done(pgmap);
}

int memunmap_pages(struct dev_pagemap *pgmap)
{
	int err = 0;

	mm_lock();
	spin_lock(&pgmap_lock);
	if (pgmap->state != PGMAP_LIVE)
		err = -EINVAL;
	else if (pgmap->state = PGMAP_DYING, pgmap->pins)	/* no new pins from here on */
		err = -EINPROGRESS;	/* the last unpin tears it down */
	spin_unlock(&pgmap_lock);
	if (!err)
		pgmap_teardown(pgmap);
	mm_unlock();
	if (!err)
		pgmap_done(pgmap);
	return err;
}

struct dev_pagemap *pgmap_pin(u64 pfn)
{
	spin_lock(&pgmap_lock);
	struct dev_pagemap *pgmap = pgmap_lookup_locked(pfn);

	if (pgmap && pgmap->state == PGMAP_LIVE)
		pgmap->pins++;
	else
		pgmap = NULL;
	spin_unlock(&pgmap_lock);
	if (pgmap)
		memmap_ready_range(pgmap, pfn, 1);	/* its section, if still deferred */
	return pgmap;
}

int pgmap_get(struct dev_pagemap *pgmap)
{
	int err = 0;

	spin_lock(&pgmap_lock);
	if (pgmap->state == PGMAP_LIVE)
		pgmap->pins++;
	else
		err = -ENXIO;
	spin_unlock(&pgmap_lock);
	return err;
}

void pgmap_unpin(struct dev_pagemap *pgmap)
{
	bool last = false, bad = false;

	if (!pgmap)
		return;
	spin_lock(&pgmap_lock);
	if (!pgmap->pins)
		bad = true;
	else
		last = --pgmap->pins == 0 && pgmap->state == PGMAP_DYING;
	spin_unlock(&pgmap_lock);
	if (bad)
		pr_err("memremap: unpin of [mem %#llx-%#llx] without a pin\n", pgmap->range.start,
		       pgmap->range.end);
	if (last) {	/* only the unpin that took pins to 0 on a dying map gets here */
		mm_lock();
		pgmap_teardown(pgmap);
		mm_unlock();
		pgmap_done(pgmap);
	}
}
