/*
 * Deferred struct page init (include/memremap.h; ARCHITECTURE "Deferred
 * struct page init"): a pgmap registered with PGMAP_DEFER_INIT is usable
 * as soon as it is mapped, and its struct pages are stored afterwards, one
 * 128 MiB section at a time, by idle CPUs or by the first user that needs
 * a page of a section.
 *
 * Each section has a state: pending, claimed (someone is storing its
 * struct pages) or ready. Whoever moves it from pending to claimed (one
 * compare-and-swap: an idle CPU taking the next section from the pgmap's
 * counter, or a user on the spot) stores its struct pages and publishes
 * ready with a release store; a user that finds it claimed waits for
 * ready. So every section is stored exactly once, by init_pfns, and what
 * it holds does not depend on who stored it or when.
 *
 * Lifetime: idle CPUs find pgmaps on a list (defer_lock) and count
 * themselves in `active` before they touch one; memmap_defer_stop takes
 * the pgmap off the list and waits for `active` to drain, so teardown
 * never races a worker. Users initialise on the spot only while they hold
 * a pin (or the mm lock), which teardown also waits for.
 */
#include <errno.h>
#include <stdlib.h>

#include "arch.h"
#include "idle.h"
#include "memremap.h"
#include "mm.h"
#include "params.h"
#include "printk.h"
#include "sparse.h"
#include "spinlock.h"

enum { SEC_PENDING = 0, SEC_CLAIMED, SEC_READY };

/* A deferred init this big or bigger prints a line at every 10% (8 GiB). */
#define PROGRESS_MIN_SECTIONS 64

struct memmap_defer {
	struct dev_pagemap *pgmap;
	struct memmap_defer *next;	/* on defer_list (defer_lock) */
	bool listed;
	u64 first_pfn;		/* the first section's first pfn */
	u64 nr_sec;
	u8 *state;		/* per section: SEC_* (atomic) */
	u64 next_sec;		/* atomic: the next section an idle CPU tries */
	u64 ready;		/* atomic: sections ready */
	u64 on_demand;		/* atomic: of which users stored on the spot */
	u64 stored;		/* atomic: struct pages stored to pmem */
	u64 pending;		/* atomic: bytes of the range not ready (MM_MEMMAP_PENDING) */
	u32 active;		/* atomic: idle CPUs working on this pgmap */
	u32 decile;		/* atomic: last 10% step printed */
	u64 start_cycles, done_cycles;
};

int memmap_init_deferred = 1;	/* memmap_init=: 0 sync, 1 deferred */

KERNEL_PARAM_CHOICE("memmap_init", memmap_init_deferred, -1,
		    "struct pages of pfn devices: deferred (default: the device is usable at once, idle "
		    "CPUs initialise them) or sync (all stored before the device appears)",
		    "sync", "deferred");

static struct memmap_defer *defer_list;
static struct spinlock defer_lock = SPINLOCK_INIT("memmap_defer", LOCK_RANK_MEMMAP_DEFER);
/* Pgmaps with a section not ready yet: memmap_pfn_ready's fast path. */
static u32 nr_pending;

static u64 defer_ms(const struct memmap_defer *d, u64 now)
{
	return arch_cycles_to_ns(now - d->start_cycles) / 1000000;
}

static const char *defer_name(const struct memmap_defer *d)
{
	return d->pgmap->name ? d->pgmap->name : "memmap";
}

/* One more section ready: progress lines for big ones, and the end. */
static void section_ready(struct memmap_defer *d, u64 sec)
{
	__atomic_store_n(&d->state[sec], SEC_READY, __ATOMIC_RELEASE);
	u64 ready = __atomic_add_fetch(&d->ready, 1, __ATOMIC_ACQ_REL);

	if (ready == d->nr_sec) {
		/* memmap_progress reads done_cycles once it sees memmap_pending false. */
		d->done_cycles = arch_cycles();
		__atomic_store_n(&d->pgmap->memmap_pending, false, __ATOMIC_RELEASE);
		__atomic_fetch_sub(&nr_pending, 1, __ATOMIC_RELEASE);
	}
	if (d->nr_sec < PROGRESS_MIN_SECTIONS)
		return;
	u32 decile = (u32)(ready * 10 / d->nr_sec), seen = __atomic_load_n(&d->decile, __ATOMIC_RELAXED);
	while (decile > seen)
		if (__atomic_compare_exchange_n(&d->decile, &seen, decile, false, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED)) {
			pr_info("%s: struct pages %u%% ready (%llu of %llu sections, %llu ms)\n",
				defer_name(d), decile * 10, ready, d->nr_sec,
				defer_ms(d, arch_cycles()));
			break;
		}
}

/* Store section sec's struct pages; the caller moved it from pending to claimed. */
static void section_init(struct memmap_defer *d, u64 sec)
{
	u64 lo = d->first_pfn + sec * PAGES_PER_SECTION;

	sparse_populate_lazy(&d->pgmap->lazy, lo);	/* a map=dev section: its vmemmap first */
	u64 stored = pgmap_init_pfns(d->pgmap, lo, lo + PAGES_PER_SECTION);
	u64 first = PFN_DOWN(d->pgmap->range.start), end = PFN_DOWN(d->pgmap->range.end) + 1;
	u64 bytes = PFN_PHYS(MIN(end, lo + PAGES_PER_SECTION) - MAX(first, lo));

	__atomic_fetch_sub(&d->pending, bytes, __ATOMIC_RELAXED);
	mm_stat_add(MM_MEMMAP_PENDING, -(s64)bytes);

	__atomic_fetch_add(&d->stored, stored, __ATOMIC_RELAXED);
	pmem_written_add(PMEM_WR_MEMMAP, stored * sizeof(struct page));
	section_ready(d, sec);
}

static bool section_claim(struct memmap_defer *d, u64 sec)
{
	u8 pending = SEC_PENDING;

	return __atomic_compare_exchange_n(&d->state[sec], &pending, SEC_CLAIMED, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE);
}

int memmap_defer_start(struct dev_pagemap *pgmap)
{
	u64 first = PFN_DOWN(pgmap->range.start), end = PFN_DOWN(pgmap->range.end) + 1;
	struct memmap_defer *d = calloc(1, sizeof(*d));

	if (d) {
		d->first_pfn = ALIGN_DOWN(first, PAGES_PER_SECTION);
		d->nr_sec = (ALIGN_UP(end, PAGES_PER_SECTION) - d->first_pfn) / PAGES_PER_SECTION;
		d->state = calloc(d->nr_sec, 1);
	}
	if (!d || !d->state) {
		free(d);
		return -ENOMEM;	/* the caller initialises synchronously */
	}
	d->pgmap = pgmap;
	d->start_cycles = arch_cycles();
	d->pending = range_len(&pgmap->range);
	mm_stat_add(MM_MEMMAP_PENDING, (s64)d->pending);
	pgmap->defer = d;
	pgmap->memmap_pending = true;
	__atomic_fetch_add(&nr_pending, 1, __ATOMIC_RELEASE);
	spin_lock(&defer_lock);
	d->next = defer_list;
	defer_list = d;
	d->listed = true;
	spin_unlock(&defer_lock);
	return 0;
}

/* Under defer_lock. */
static void defer_unlist(struct memmap_defer *d)
{
	for (struct memmap_defer **p = &defer_list; *p; p = &(*p)->next)
		if (*p == d) {
			*p = d->next;
			break;
		}
	d->listed = false;
}

void memmap_defer_stop(struct dev_pagemap *pgmap)
{
	struct memmap_defer *d = pgmap->defer;

	if (!d)
		return;
	spin_lock(&defer_lock);
	if (d->listed)
		defer_unlist(d);
	spin_unlock(&defer_lock);
	/* A worker counted itself under the lock: none can start on d from here. */
	while (__atomic_load_n(&d->active, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	if (__atomic_load_n(&pgmap->memmap_pending, __ATOMIC_ACQUIRE))
		__atomic_fetch_sub(&nr_pending, 1, __ATOMIC_RELEASE);
	pgmap->memmap_pending = false;
	mm_stat_add(MM_MEMMAP_PENDING, -(s64)d->pending);	/* never to be initialised now */
	pgmap->defer = NULL;
	free(d->state);
	free(d);
}

bool memmap_defer_step(void)
{
	struct memmap_defer *d;

	if (!__atomic_load_n(&nr_pending, __ATOMIC_ACQUIRE))
		return false;
	spin_lock(&defer_lock);
	/* Pgmaps every section of which has been handed out leave the list. */
	while ((d = defer_list) && __atomic_load_n(&d->next_sec, __ATOMIC_RELAXED) >= d->nr_sec)
		defer_unlist(d);
	if (d)
		__atomic_fetch_add(&d->active, 1, __ATOMIC_RELAXED);
	spin_unlock(&defer_lock);
	if (!d)
		return false;
	u64 sec = __atomic_fetch_add(&d->next_sec, 1, __ATOMIC_RELAXED);
	if (sec < d->nr_sec && section_claim(d, sec))
		section_init(d, sec);
	__atomic_fetch_sub(&d->active, 1, __ATOMIC_RELEASE);
	return true;
}
IDLE_WORK(memmap_defer_step, IDLE_ALL_CPUS);

void memmap_ready_range(struct dev_pagemap *pgmap, u64 pfn, u64 nr)
{
	struct memmap_defer *d = pgmap->defer;

	if (!d || !__atomic_load_n(&pgmap->memmap_pending, __ATOMIC_ACQUIRE))
		return;
	u64 first = PFN_DOWN(pgmap->range.start), end = PFN_DOWN(pgmap->range.end) + 1;
	u64 lo = MAX(pfn, first), hi = nr > end - lo ? end : lo + nr;

	/*
	 * A compound page is one unit: a tail's struct page names its head,
	 * and with dedup every tail past the first two vmemmap pages is the
	 * frame the head's section stores. Whole compounds, then.
	 */
	if (pgmap->compound_start < pgmap->compound_end) {
		u64 cnr = pgmap_vmemmap_nr(pgmap), cs = pgmap->compound_start, ce = pgmap->compound_end;
		if (lo >= cs && lo < ce)
			lo = ALIGN_DOWN(lo, cnr);
		if (hi > cs && hi < ce)
			hi = ALIGN_UP(hi, cnr);
	}

	for (u64 sec = (lo - d->first_pfn) / PAGES_PER_SECTION;
	     lo < hi && sec < d->nr_sec && sec * PAGES_PER_SECTION + d->first_pfn < hi; sec++) {
		if (section_claim(d, sec)) {
			__atomic_fetch_add(&d->on_demand, 1, __ATOMIC_RELAXED);
			section_init(d, sec);
			continue;
		}
		/* Claimed by someone else: its stores are ours once we see ready. */
		while (__atomic_load_n(&d->state[sec], __ATOMIC_ACQUIRE) != SEC_READY)
			arch_cpu_relax();
	}
}

bool memmap_pfn_ready(u64 pfn)
{
	if (!__atomic_load_n(&nr_pending, __ATOMIC_ACQUIRE))
		return true;
	struct dev_pagemap *pgmap = pgmap_lookup(pfn);

	if (!pgmap || !__atomic_load_n(&pgmap->memmap_pending, __ATOMIC_ACQUIRE))
		return true;	/* RAM, a pfn no pgmap holds, or every struct page ready */
	pgmap = pgmap_pin(pfn);	/* makes its section ready */
	if (!pgmap)
		return false;	/* dying: its init is not finished for newcomers */
	pgmap_unpin(pgmap);
	return true;
}

void memmap_progress(const struct dev_pagemap *pgmap, struct memmap_progress *p)
{
	const struct memmap_defer *d = pgmap->defer;

	*p = (struct memmap_progress){ 0 };
	if (!d) {
		p->sections = p->ready = 1;
		return;
	}
	p->sections = d->nr_sec;
	p->ready = __atomic_load_n(&d->ready, __ATOMIC_ACQUIRE);
	p->on_demand = __atomic_load_n(&d->on_demand, __ATOMIC_RELAXED);
	p->start_cycles = d->start_cycles;
	if (p->ready < d->nr_sec)
		return;
	/* The last section's CPU counted it before stamping the time: a moment more. */
	while (__atomic_load_n(&pgmap->memmap_pending, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	p->done_cycles = d->done_cycles;
}
