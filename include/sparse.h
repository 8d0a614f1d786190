/*
 * The sparse memory model: physical memory in 128 MiB sections, each split
 * into 64 subsections of 2 MiB, so a device range only has to be 2 MiB
 * aligned (Linux's subsection hotplug). The section table is two-level and
 * filled on demand: 64 TiB of address space costs 32 KiB of root pointers
 * up front and one 4 KiB page per 16 GiB that holds anything.
 *
 * The vmemmap (mm/vmemmap.c) gives each subsection with a memmap its struct
 * pages: a section wholly covered by one range gets a 2 MiB PMD leaf (from
 * the range's altmap, else RAM); a partly covered section gets 4 KiB pages
 * from RAM, 8 per subsection. So no vmemmap data page ever serves two
 * owners; neighbours share page-table pages only.
 */
#ifndef PMEMK_SPARSE_H
#define PMEMK_SPARSE_H

#include "memlayout.h"
#include "mm.h"
#include "types.h"

struct vmem_altmap;

#define SECTION_SIZE_BITS 27	/* 128 MiB */
#define PFN_SECTION_SHIFT (SECTION_SIZE_BITS - PAGE_SHIFT)
#define PAGES_PER_SECTION (1ULL << PFN_SECTION_SHIFT)
#define SUBSECTION_SHIFT 21	/* 2 MiB */
#define PFN_SUBSECTION_SHIFT (SUBSECTION_SHIFT - PAGE_SHIFT)
#define PAGES_PER_SUBSECTION (1ULL << PFN_SUBSECTION_SHIFT)
#define SUBSECTIONS_PER_SECTION (1U << (SECTION_SIZE_BITS - SUBSECTION_SHIFT))
#define NR_MEM_SECTIONS (MAX_PFN >> PFN_SECTION_SHIFT)

/* End of the part of [s, end) that lies in s's section. */
static inline u64 section_part_end(u64 s, u64 end)
{
	return MIN(end, ALIGN_DOWN(s, PAGES_PER_SECTION) + PAGES_PER_SECTION);
}

/* Where pfn's struct page is in the vmemmap (memlayout.h). */
static inline u64 memmap_va(u64 pfn)
{
	return VMEMMAP_BASE + pfn * sizeof(struct page);
}

/* Section state (derived from the maps, kept for readers and meminfo). */
#define SECTION_PRESENT (1U << 0)	/* some subsection exists */
#define SECTION_HAS_MEMMAP (1U << 1)	/* ... and has struct pages */
#define SECTION_ONLINE (1U << 2)	/* holds RAM */
#define SECTION_DEVICE (1U << 3)	/* holds ZONE_DEVICE memory */

struct mem_section {
	u64 memmap_map;		/* bit i: subsection i has struct pages */
	u64 device_map;		/* bit i: subsection i is ZONE_DEVICE */
	u32 flags;		/* SECTION_* */
	u32 _pad;
	u64 _reserved;
};

static inline u64 pfn_to_section_nr(u64 pfn)
{
	return pfn >> PFN_SECTION_SHIFT;
}

static inline unsigned int subsection_index(u64 pfn)
{
	return (unsigned int)(pfn >> PFN_SUBSECTION_SHIFT) & (SUBSECTIONS_PER_SECTION - 1);
}

/* The section, or NULL when its part of the table was never allocated. */
struct mem_section *section_lookup(u64 section_nr);

/* vmemmap_populate() flags. */
#define VMEMMAP_BASE_PAGES (1U << 0)	/* 4 KiB pages even where 2 MiB would do */
/*
 * Compound-page dedup (FACTS-2 §2.2, Linux 5.17+ for device-dax): the range
 * is made of compound pages of 2^shift pages (shift >= 9: 2 MiB or more,
 * the range aligned to them); each gets two vmemmap pages of its own (the
 * head and the first 127 tails) and every further vmemmap page of the
 * compound maps the second one's frame. RAM only (no altmap), 4 KiB PTEs.
 */
#define VMEMMAP_DEDUP(shift) ((unsigned int)(shift) << 8)
#define VMEMMAP_DEDUP_SHIFT(flags) (((flags) >> 8) & 0x3fU)
#define VMEMMAP_DEDUP_MIN_SHIFT PFN_SUBSECTION_SHIFT
#define VMEMMAP_RESERVE_NR 2	/* vmemmap pages of its own per compound page */

/*
 * Give [start_pfn, start_pfn + nr_pages) (2 MiB aligned) struct pages:
 * reserve the section table, populate the vmemmap (from `altmap` if not
 * NULL), then mark the subsections present (ZONE_DEVICE if `device`).
 * The struct pages are not initialised. Returns 0, -EINVAL (unaligned or
 * beyond MAX_PFN), -EEXIST (a subsection already has a memmap), -ENOMEM
 * (nothing changed) or vmemmap_populate()'s errors.
 */
int sparse_add_range(u64 start_pfn, u64 nr_pages, struct vmem_altmap *altmap,
		     unsigned int flags, bool device);

/*
 * Lazy vmemmap (deferred struct page init, ARCHITECTURE "Deferred struct
 * page init"): the whole sections [first_pfn, end_pfn) of a range got their
 * 2 MiB altmap blocks and the page tables above their PMD entries at
 * registration, but neither the PMD leaves nor their section bits. The
 * section at first_pfn + k * PAGES_PER_SECTION has block block_pfn + k *
 * 512: where the eager path would have put it. Empty when end_pfn ==
 * first_pfn.
 */
struct vmemmap_lazy {
	u64 first_pfn, end_pfn;
	u64 block_pfn;
};

/*
 * sparse_add_range for a device range with an altmap (2 MiB leaves, no
 * dedup) whose struct pages are initialised later: the edge sections as
 * sparse_add_range does them, the whole sections lazily (*lazy): each is
 * mapped and marked present by sparse_populate_lazy() when its struct pages
 * are about to be stored. Registration then costs the same at any size:
 * no store per section. Until then a pending section's pfns are not
 * pfn_valid() and its struct pages are unmapped. Errors as sparse_add_range;
 * sparse_remove_range() undoes it whatever was populated since.
 */
int sparse_add_range_lazy(u64 start_pfn, u64 nr_pages, struct vmem_altmap *altmap,
			  struct vmemmap_lazy *lazy);

/*
 * Map and mark present the section of pfn, one of lazy's (a no-op for
 * pfns outside it or a section done already). The caller owns the section
 * (memmap_defer.c's claim); no lock is taken and nothing can fail.
 */
void sparse_populate_lazy(const struct vmemmap_lazy *lazy, u64 pfn);

/*
 * For memory that ranges will come and go over (a pmem region): its section
 * table chunks and the vmemmap's page tables down to the PD, allocated now
 * and kept for good, so that registering a range in it allocates none
 * (and a lazy one stores nothing per section at all). About 4 KiB per
 * 16 GiB. Returns 0, -EINVAL or -ENOMEM (nothing kept).
 */
int sparse_reserve_range(u64 start_pfn, u64 nr_pages);

/* Undo sparse_add_range() for the same range, altmap and flags. */
void sparse_remove_range(u64 start_pfn, u64 nr_pages, struct vmem_altmap *altmap,
			 unsigned int flags);

/* True if any subsection of the (2 MiB aligned) range has a memmap. */
bool sparse_range_has_memmap(u64 start_pfn, u64 nr_pages);

/*
 * Boot: struct pages for every RAM range in memblock (rounded out to 2 MiB
 * subsections), zone NORMAL, holes PG_reserved; backing from the page
 * allocator. Returns 0 or the first error (RAM then has no struct pages).
 */
int sparse_init_ram(void);

/* Forget the section table (host tests; its pages are not freed). */
void sparse_reset(void);

/*
 * Map the struct pages of [start_pfn, start_pfn + nr_pages) (2 MiB
 * aligned) at vmemmap + start_pfn. Whole sections get 2 MiB leaves where
 * the CPU has PSE (unless VMEMMAP_BASE_PAGES), each block from `altmap`
 * when given, else 2 MiB of RAM; partial sections get 4 KiB pages from RAM.
 * Page-table pages always come from RAM. Prepare then commit: everything is
 * counted and reserved first, so on error nothing is mapped and the altmap
 * and RAM are as before. Returns 0, -ENOMEM (RAM or altmap exhausted),
 * -EEXIST (part of it is already populated), -EOPNOTSUPP (altmap without
 * PSE) or -EINVAL (unaligned).
 */
int vmemmap_populate(u64 start_pfn, u64 nr_pages, struct vmem_altmap *altmap,
		     unsigned int flags);

/*
 * vmemmap_populate() whose whole sections get no PMD leaf yet (*lazy; see
 * struct vmemmap_lazy): their altmap blocks are taken and the tables above
 * their leaves installed and kept (kernel_pgtable.keep_table) until
 * vmemmap_free(). Falls back to the eager path (lazy left empty) when
 * the range has no whole section or too many ranges are lazy.
 */
int vmemmap_populate_lazy(u64 start_pfn, u64 nr_pages, struct vmem_altmap *altmap,
			  struct vmemmap_lazy *lazy);

/*
 * sparse_reserve_range's vmemmap half: the page tables above the PMD
 * entries of [start_pfn, start_pfn + nr_pages)'s struct pages, installed
 * and kept for good. -ENOMEM: none added.
 */
int vmemmap_reserve_tables(u64 start_pfn, u64 nr_pages);

/* Map the PMD leaf of lazy's section at section_pfn (in it, section aligned), if not yet. */
void vmemmap_install_lazy(const struct vmemmap_lazy *lazy, u64 section_pfn);

/* Forget the lazy ranges (host tests, with sparse_reset). */
void vmemmap_reset(void);

/*
 * Unmap the struct pages of a range populated with vmemmap_populate() (the
 * same flags): RAM-backed blocks and pages go back to the page allocator,
 * a deduplicated compound's two frames once each, page-table pages left
 * empty too. Altmap blocks are only unmapped: their pmem is handed back to
 * the altmap's counters by the owner (altmap_reset()).
 */
void vmemmap_free(u64 start_pfn, u64 nr_pages, struct vmem_altmap *altmap, unsigned int flags);

/*
 * RAM the vmemmap of nr_pages pages (whole sections, in RAM) costs: 64
 * bytes a page without dedup (dedup_shift 0), or with VMEMMAP_DEDUP(shift)
 * two 4 KiB pages per compound plus a page table per section. What
 * map=mem checks before it asks.
 */
u64 vmemmap_ram_estimate(u64 nr_pages, unsigned int dedup_shift);

/*
 * True if the struct page of pfn lies in one of `altmap`'s blocks (its
 * section's memmap is a 2 MiB leaf inside the altmap's range): stores to it
 * go to persistent memory. False for a NULL altmap or RAM-backed memmap.
 */
bool vmemmap_in_altmap(u64 pfn, const struct vmem_altmap *altmap);

#endif
