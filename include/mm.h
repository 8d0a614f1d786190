/*
 * struct page and the pfn helpers. Every page frame that has a memmap (RAM
 * at boot, ZONE_DEVICE ranges once registered) owns one 64-byte struct page
 * at vmemmap[pfn]; the array is virtually contiguous and sparsely populated
 * (mm/vmemmap.c). Also: the bookkeeping every mm allocation goes through
 * (mm/mm_alloc.c): byte counters for meminfo and a fail-the-Nth hook.
 */
#ifndef PMEMK_MM_H
#define PMEMK_MM_H

#include "arch.h"
#include "types.h"

struct dev_pagemap;

struct list_head {
	struct list_head *next, *prev;
};

enum zone_type {
	ZONE_NORMAL = 0,	/* RAM */
	ZONE_DEVICE = 1,	/* registered with memremap_pages() */
};

/* page->flags: the zone in bits 0-1, then page flags. */
#define PAGE_ZONE_MASK 0x3ULL
#define PG_reserved (1ULL << 2)	/* not usable memory (a hole inside a RAM subsection) */
#define PG_head (1ULL << 3)	/* first page of a compound page (devdax, align 2M/1G) */

/*
 * Compound pages (a devdax device's 2 MiB or 1 GiB pages; Linux's
 * prep_compound_head/prep_compound_tail for ZONE_DEVICE): the head has
 * PG_head; every tail has compound_head = head's address | 1 in the word
 * where an order-0 page has lru.next (an aligned pointer, so bit 0 tells a
 * tail apart); the first tail (head + 1) also holds the order. Every tail
 * beyond the first is otherwise identical to the others of its compound,
 * which is what lets the vmemmap map them all to one shared frame
 * (VMEMMAP_DEDUP, FACTS-2 §2.2).
 */
struct page {
	u64 flags;
	u32 refcount;		/* 0 when idle (device pages start idle) */
	u32 _pad;
	struct dev_pagemap *pgmap;	/* owner of a ZONE_DEVICE page, else NULL */
	union {
		struct list_head lru;	/* free for the page's current owner */
		struct {
			u64 compound_head;	/* tail pages: head's address | 1 */
			u64 compound_order;	/* first tail page: log2(pages) */
		};
	};
	u64 _reserved[3];
};

/* 64 bytes: the size Linux's pfn info block reserves per page (FACTS §1.9). */
_Static_assert(sizeof(struct page) == 64, "struct page must be 64 bytes");

/* Physical addresses this kernel handles: 46 bits, 64 TiB (the direct map). */
#define MAX_PHYSMEM_BITS 46
#define MAX_PFN (1ULL << (MAX_PHYSMEM_BITS - PAGE_SHIFT))

/*
 * The struct page array. The arch provides it: on the kernel it is
 * (struct page *)VMEMMAP_BASE; the host tests alias it to a window kept in
 * step with the kernel page tables by arch_sync_kernel_mappings().
 */
extern struct page *vmemmap;

/* Only meaningful when pfn_valid(pfn): otherwise the address may be unmapped. */
static inline struct page *pfn_to_page(u64 pfn)
{
	return vmemmap + pfn;
}

static inline u64 page_to_pfn(const struct page *page)
{
	return (u64)(page - vmemmap);
}

/* The page's kernel address in the direct map. */
static inline void *page_address(const struct page *page)
{
	return phys_to_virt(PFN_PHYS(page_to_pfn(page)));
}

static inline enum zone_type page_zone(const struct page *page)
{
	return (enum zone_type)(page->flags & PAGE_ZONE_MASK);
}

static inline bool is_zone_device_page(const struct page *page)
{
	return page_zone(page) == ZONE_DEVICE;
}

static inline bool page_is_head(const struct page *page)
{
	return page->flags & PG_head;
}

static inline bool page_is_tail(const struct page *page)
{
	return page->compound_head & 1;
}

/* The head of page's compound page; page itself for an order-0 page or a head. */
static inline struct page *compound_head(struct page *page)
{
	return page_is_tail(page) ? (struct page *)(page->compound_head - 1) : page;
}

/* log2 of the pages in the compound page whose head is `head` (0: order-0 page). */
static inline unsigned int compound_order(const struct page *head)
{
	return page_is_head(head) ? (unsigned int)head[1].compound_order : 0;
}

/* True if pfn's section is present and its 2 MiB subsection has a memmap. */
bool pfn_valid(u64 pfn);

/*
 * Initialise the struct pages of [start_pfn, end_pfn) as copies of *tmpl
 * (one template, stored with plain 64-byte copies: no call per page).
 */
void memmap_init_range(u64 start_pfn, u64 end_pfn, const struct page *tmpl);

/*
 * The same for struct pages that live in persistent memory (altmap blocks):
 * compare each with *tmpl and store only those that differ, so bringing an
 * unchanged device back writes nothing to the media (pmem wears, and writes
 * far slower than it reads; a store to a line not in the cache reads it
 * first anyway). Returns the number of struct pages stored. With
 * memmap_pmem_rewrite (memmap_pmem=rewrite: Linux 6.1's behaviour, kept
 * for comparison) every one is stored.
 */
u64 memmap_init_range_pmem(u64 start_pfn, u64 end_pfn, const struct page *tmpl);
extern int memmap_pmem_rewrite;

/*
 * Bytes the kernel stored to persistent memory, by writer. Every path that
 * writes pmem adds what it actually stored (not what it was asked to
 * cover): block writes, info blocks, struct pages stored into altmap
 * blocks. Never reset: read a difference. Reads are not counted.
 */
enum pmem_writer {
	PMEM_WR_BLOCK,		/* pmem_rw() writes */
	PMEM_WR_INFOBLOCK,	/* pfn info blocks written or zeroed */
	PMEM_WR_MEMMAP,		/* struct pages stored into altmap blocks */
	PMEM_WR_BTT,		/* BTT metadata: map and log entries, info blocks */
	PMEM_WR_OTHER,		/* anything else (benchmark baselines) */
	PMEM_WR_NR,
};

extern u64 pmem_written[PMEM_WR_NR];

static inline void pmem_written_add(enum pmem_writer w, u64 bytes)
{
	__atomic_fetch_add(&pmem_written[w], bytes, __ATOMIC_RELAXED);	/* any CPU may write pmem */
}

static inline u64 pmem_written_total(void)
{
	u64 sum = 0;

	for (int w = 0; w < PMEM_WR_NR; w++)
		sum += pmem_written[w];
	return sum;
}

const char *pmem_writer_name(enum pmem_writer w);

/*
 * Bookkeeping of RAM and pmem that mm uses for itself, in bytes, as meminfo
 * prints it. Page tables are counted by kernel_pgtable.nr_tables instead.
 */
enum mm_stat_item {
	MM_VMEMMAP,		/* RAM holding struct pages */
	MM_VMEMMAP_SHARED,	/* struct page array mapped to shared tail frames (no RAM of its own) */
	MM_SECTION_TABLES,	/* RAM holding the sparse section table */
	MM_DEVICE_MAPPED,	/* device memory that has struct pages */
	MM_ALTMAP_USED,		/* pmem holding struct pages (altmap blocks) */
	MM_ALTMAP_WASTE,	/* pmem skipped to align altmap blocks */
	MM_MEMMAP_PENDING,	/* device memory whose struct pages are still deferred */
	MM_NR_STATS,
};

u64 mm_stat(enum mm_stat_item item);
void mm_stat_add(enum mm_stat_item item, s64 bytes);

/*
 * Fail-the-Nth-allocation hook (tests): when mm_fail_nth is N > 0, the Nth
 * allocation made through mm_alloc_pages() (or any allocator that asks
 * mm_alloc_should_fail(), like the tests' page-table allocators) fails and
 * the hook disarms itself. mm_fail_hits counts the failures injected.
 */
extern u64 mm_fail_nth;
extern u64 mm_fail_hits;
bool mm_alloc_should_fail(void);

/*
 * 2^order RAM pages for mm's own use (zeroed if `zero`), accounted to
 * `item` (MM_NR_STATS: not accounted). Returns the physical address or 0.
 */
u64 mm_alloc_pages(unsigned int order, bool zero, enum mm_stat_item item);
void mm_free_pages(u64 pa, unsigned int order, enum mm_stat_item item);

/*
 * The mm lock (recursive, LOCK_RANK_MM in include/spinlock.h): page tables,
 * sections, the vmemmap, the direct map and ZONE_DEVICE registration.
 * memremap_pages, memunmap_pages, direct_map_add/remove and
 * memremap_reinit_pages take it themselves; other writers of kernel page
 * tables after boot (dax_map) take it around their calls.
 */
void mm_lock(void);
void mm_unlock(void);

/* Forget every counter (host tests). */
void mm_stats_reset(void);

#endif
