/*
 * ZONE_DEVICE: giving device memory (pmem) struct pages. A driver fills a
 * struct dev_pagemap with the physical range and calls memremap_pages(),
 * optionally with a vmem_altmap that places the struct pages in the device
 * itself (map=dev) instead of RAM (map=mem). Users of the pages pin the map
 * (pgmap_pin) so it cannot be torn down under them; memunmap_pages() stops
 * new pins and finishes the teardown when the last pin drops.
 */
#ifndef PMEMK_MEMREMAP_H
#define PMEMK_MEMREMAP_H

#include "sparse.h"
#include "types.h"

/*
 * Device pfns that hold the memmap (FACTS §2.1). All counts are in pages.
 * The first `reserve` pfns from base_pfn are the driver's (info block and
 * padding: no struct page is initialised for them); the next `free` pfns
 * hold struct pages; `align` and `alloc` are running totals kept by
 * altmap_alloc_block(): pages skipped for alignment and pages handed out.
 */
struct vmem_altmap {
	u64 base_pfn;		/* first pfn of the mapping (2 MiB aligned) */
	u64 end_pfn;		/* last pfn of the mapping (inclusive) */
	u64 reserve;
	u64 free;
	u64 align;
	u64 alloc;
};

/* The next pfn altmap_alloc_block() would consider. */
static inline u64 altmap_next_pfn(const struct vmem_altmap *altmap)
{
	return altmap->base_pfn + altmap->reserve + altmap->alloc + altmap->align;
}

/* Pages of `free` not yet used or skipped. */
static inline u64 altmap_avail(const struct vmem_altmap *altmap)
{
	u64 used = altmap->alloc + altmap->align;

	return altmap->free > used ? altmap->free - used : 0;
}

/* reserve + free: pfns from base_pfn that are not ordinary data pages. */
static inline u64 vmem_altmap_offset(const struct vmem_altmap *altmap)
{
	return altmap->reserve + altmap->free;
}

/*
 * Take `size` bytes (a multiple of 4 KiB) from the altmap, aligned to the
 * largest power of two dividing size/4096 pages (FACTS §2.2). On success
 * *pfn is the first pfn, `alloc` grows by the block and `align` by the pages
 * skipped. -EINVAL for a bad size, -ENOMEM if block plus padding exceed what
 * is left; on error nothing changes.
 */
int altmap_alloc_block(struct vmem_altmap *altmap, u64 size, u64 *pfn);

/*
 * The same for `count` such blocks at once, back to back from *pfn (each
 * stays aligned: the alignment divides the block), exactly as `count` calls
 * would take them. -ENOMEM (nothing changes) if they do not all fit;
 * *fit is then how many would have (NULL: not wanted).
 */
int altmap_alloc_blocks(struct vmem_altmap *altmap, u64 size, u64 count, u64 *pfn, u64 *fit);

/* True if pfn lies in the altmap's mapping [base_pfn, end_pfn]. */
bool altmap_contains(const struct vmem_altmap *altmap, u64 pfn);

/* Give every block back (the device's memmap is gone): alloc = align = 0. */
void altmap_reset(struct vmem_altmap *altmap);

struct range {
	u64 start;
	u64 end;		/* inclusive, as Linux's struct range */
};

static inline u64 range_len(const struct range *r)
{
	return r->end - r->start + 1;
}

enum memory_type {
	MEMORY_DEVICE_FS_DAX = 1,	/* pmem behind a pfn device */
	MEMORY_DEVICE_GENERIC,		/* anything else with struct pages */
};

enum pgmap_state {
	PGMAP_UNREGISTERED = 0,	/* never registered, or torn down (dead) */
	PGMAP_LIVE,		/* registered: pins succeed */
	PGMAP_DYING,		/* memunmap_pages() called, pins outstanding */
};

/* dev_pagemap.flags */
#define PGMAP_ALTMAP_VALID (1U << 0)	/* set by memremap_pages() */
#define PGMAP_BASE_PAGES (1U << 1)	/* caller: vmemmap in 4 KiB pages only */
/*
 * Caller: its users reach struct pages only through pgmap_pin(),
 * pfn_t_to_page() or memmap_ready_range(), so memremap_pages may leave
 * the struct pages to idle CPUs (mm/memmap_defer.c) unless memmap_init=sync.
 */
#define PGMAP_DEFER_INIT (1U << 2)

struct memmap_defer;

struct dev_pagemap {
	/* Filled by the caller. */
	struct range range;	/* 2 MiB aligned at both ends */
	enum memory_type type;
	u32 flags;
	/*
	 * Compound pages of 2^vmemmap_shift pages (0: order-0 pages only), as
	 * Linux gives a device-dax pgmap with align 2 MiB (9) or 1 GiB (18).
	 * They tile the range from its first pfn without an altmap, from the
	 * first pfn after the altmap's reserve + free with one (where Linux's
	 * memmap_init_zone_device starts), rounded up to a compound; pfns
	 * outside whole compounds keep order-0 struct pages. Without an altmap
	 * the compounds' vmemmap is deduplicated (VMEMMAP_DEDUP, FACTS-2 §2.2).
	 */
	unsigned int vmemmap_shift;
	/* Called when a deferred teardown completes (may be NULL). */
	void (*done)(struct dev_pagemap *pgmap);
	void *owner;		/* the caller's */
	const char *name;	/* for progress lines (may be NULL) */

	/* Private to mm/memremap.c. */
	struct vmem_altmap altmap;	/* copy, valid with PGMAP_ALTMAP_VALID */
	enum pgmap_state state;
	u64 pins;
	bool own_direct_map;	/* we added the direct map, we remove it */
	u64 compound_start;	/* pfns [compound_start, compound_end) are compound pages */
	u64 compound_end;
	bool vmemmap_dedup;	/* their vmemmap is deduplicated */
	/* Deferred init (PGMAP_DEFER_INIT): NULL when it ran in memremap_pages. */
	struct memmap_defer *defer;
	/* Its whole sections' vmemmap, mapped by the deferred init (map=dev). */
	struct vmemmap_lazy lazy;
	bool memmap_pending;	/* atomic: some struct page is not initialised yet */
};

/* The compound page size in pages (1 for order-0 pages). */
static inline u64 pgmap_vmemmap_nr(const struct dev_pagemap *pgmap)
{
	return 1ULL << pgmap->vmemmap_shift;
}

/*
 * What one memremap_pages() call spent: arch_cycles() per step, and the
 * struct pages it initialised, of which how many lay in pmem and differed
 * from what was there, so were stored.
 */
struct memremap_stats {
	u64 total_cycles;	/* the whole of memremap_pages, waiting for the mm lock included */
	u64 map_cycles;		/* direct map */
	u64 sparse_cycles;	/* section table and vmemmap */
	u64 init_cycles;	/* struct page initialisation */
	u64 pages_init;
	u64 pmem_pages_stored;
	u64 vmemmap_ram;	/* bytes of RAM the vmemmap took (struct page frames) */
	u64 pgtable_pages;	/* page-table pages it added (the vmemmap's and the direct map's) */
	u64 compound_pages;	/* compound pages formed (0: order-0 pages only) */
	u32 init_cpus;		/* CPUs the struct page init ran on (the work queue's count) */
	u64 init_jobs;		/* section-sized jobs (1: the serial pass) */
	u64 init_jobs_caller;	/* of which the calling CPU ran */
	bool deferred;		/* init left to idle CPUs: the init fields are 0 */
};

/*
 * Register pgmap->range as ZONE_DEVICE memory: check it, add the direct
 * map, sections and vmemmap (struct pages in the altmap's free pfns when
 * `altmap` is given, else in RAM), and initialise every struct page with
 * zone DEVICE and the pgmap, the altmap's reserve as PG_reserved without a
 * pgmap; with pgmap->vmemmap_shift the compound pages' heads and tails as
 * mm.h describes (only the first two vmemmap pages' worth of each
 * deduplicated compound is written: the rest maps those). The altmap is
 * copied into pgmap. On success, if `stats` is not NULL, *stats says what
 * the steps cost; on error *stats is left alone. Returns 0 or a negative
 * errno, nothing left behind: -EINVAL bad range or altmap; -EBUSY the range
 * overlaps RAM, another pgmap or a subsection that has struct pages;
 * -EINVAL also for a vmemmap_shift above 18 (1 GiB);
 * -ENOSPC too many pgmaps; -ENOMEM out of RAM or altmap space; -EOPNOTSUPP
 * altmap without PSE.
 */
__must_check int memremap_pages(struct dev_pagemap *pgmap, const struct vmem_altmap *altmap,
		   struct memremap_stats *stats);

/*
 * Struct page init: in section-sized jobs on every idle CPU (the work
 * queue) when true, the default; on the calling CPU alone when false
 * (memmap_parallel=off). Both store the same bytes.
 */
extern int memmap_parallel;

/*
 * Run a live pgmap's struct page init again, exactly as memremap_pages did
 * (what it stores is what is there already: in pmem, in diff mode, nothing),
 * on at most max_cpus CPUs (1: serially on this one; 0: every idle CPU).
 * For the benchmark and the serial-against-parallel checks. *st gets the
 * init fields (init_cycles, pages_init, pmem_pages_stored, compound_pages,
 * init_cpus). -EINVAL if the pgmap is not live.
 */
int memremap_reinit_pages(struct dev_pagemap *pgmap, u32 max_cpus, struct memremap_stats *st);

/*
 * Deferred struct page init (mm/memmap_defer.c, ARCHITECTURE "Deferred
 * struct page init"). With PGMAP_DEFER_INIT and memmap_init=deferred (the
 * default) memremap_pages maps everything but stores no struct page: each
 * 128 MiB section of the range is initialised once, by whichever comes
 * first: an idle CPU (memmap_defer_step, idle work of every CPU:
 * include/idle.h) or a user that needs one of its pages
 * (pgmap_pin, pfn_t_to_page, memmap_ready_range), which initialises the
 * section on the spot or waits for the CPU doing it. What a section gets
 * is what the serial pass stores (init_pfns depends on the pfn alone).
 */
extern int memmap_init_deferred;

/* Initialise one pending section of some pgmap; false when none is left. */
bool memmap_defer_step(void);

/*
 * Make the struct pages of pfns [pfn, pfn + nr) of a live or pinned pgmap
 * ready (on the spot or by waiting); the whole range with nr = ~0.
 */
void memmap_ready_range(struct dev_pagemap *pgmap, u64 pfn, u64 nr);

/* The struct page of pfn is ready to read (false: no live pgmap has it ready). */
bool memmap_pfn_ready(u64 pfn);

/* Progress of a pgmap's init: sections ready of all (equal when done or not deferred). */
struct memmap_progress {
	u64 sections, ready;
	u64 on_demand;		/* sections a user initialised on the spot */
	u64 start_cycles;	/* when memremap_pages registered it */
	u64 done_cycles;	/* when the last section became ready (0: not yet) */
};
void memmap_progress(const struct dev_pagemap *pgmap, struct memmap_progress *p);

/* Private to mm/: the struct pages of the pgmap's pfns in [lo, hi), as memremap.c stores them. */
u64 pgmap_init_pfns(struct dev_pagemap *pgmap, u64 lo, u64 hi);
int memmap_defer_start(struct dev_pagemap *pgmap);
void memmap_defer_stop(struct dev_pagemap *pgmap);

/*
 * Stop new pins; if none are held, tear everything down now and return 0.
 * Otherwise return -EINPROGRESS: the range stays mapped and usable by the
 * holders, and the last pgmap_unpin() completes the teardown and calls
 * pgmap->done. pmemk has no threads, so "waiting" means that callback (or
 * polling pgmap->state). -EINVAL if pgmap is not live.
 */
int memunmap_pages(struct dev_pagemap *pgmap);

/* The live pgmap holding pfn, pinned; NULL if none or it is dying. */
struct dev_pagemap *pgmap_pin(u64 pfn);
/*
 * Pin a pgmap its owner knows (a block device's): -ENXIO if it is not
 * live. Unlike pgmap_pin it makes no struct page ready: the holder says
 * which pages it uses (memmap_ready_range). pgmap_unpin gives it back.
 */
__must_check int pgmap_get(struct dev_pagemap *pgmap);
void pgmap_unpin(struct dev_pagemap *pgmap);

/* The registered pgmap (live or dying) holding pfn, not pinned; or NULL. */
struct dev_pagemap *pgmap_lookup(u64 pfn);

/* Forget every registration (host tests). */
void memremap_reset(void);

#endif
