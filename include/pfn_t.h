/*
 * pfn_t: a page frame number with flags that say whether a struct page
 * exists for it (seed 009, Linux's former pfn_t). RAM pfns carry no flag;
 * device memory carries PFN_DEV, and PFN_MAP too once memremap_pages()
 * gave it struct pages. A struct wrapper makes pfn/pa/pfn_t mix-ups
 * compile errors.
 */
#ifndef PMEMK_PFN_T_H
#define PMEMK_PFN_T_H

#include "mm.h"
#include "types.h"

typedef struct {
	u64 val;
} pfn_t;

#define PFN_DEV (1ULL << 61)	/* not RAM: no struct page unless PFN_MAP */
#define PFN_MAP (1ULL << 60)	/* covered by a device memmap (ZONE_DEVICE) */
#define PFN_FLAGS_MASK (PFN_DEV | PFN_MAP)

static inline pfn_t pfn_to_pfn_t(u64 pfn, u64 flags)
{
	return (pfn_t){ (pfn & ~PFN_FLAGS_MASK) | (flags & PFN_FLAGS_MASK) };
}

static inline pfn_t phys_to_pfn_t(u64 pa, u64 flags)
{
	return pfn_to_pfn_t(PFN_DOWN(pa), flags);
}

static inline u64 pfn_t_to_pfn(pfn_t pfn)
{
	return pfn.val & ~PFN_FLAGS_MASK;
}

static inline u64 pfn_t_to_phys(pfn_t pfn)
{
	return PFN_PHYS(pfn_t_to_pfn(pfn));
}

/* RAM, or device memory with a device memmap. */
static inline bool pfn_t_has_page(pfn_t pfn)
{
	return !(pfn.val & PFN_DEV) || (pfn.val & PFN_MAP);
}

bool memmap_pfn_ready(u64 pfn);	/* memremap.h */

/*
 * The struct page, or NULL for page-less pfns and pfns without a memmap
 * (or whose deferred init cannot be finished: the map is going away).
 */
static inline struct page *pfn_t_to_page(pfn_t pfn)
{
	/* Ready first: a deferred section is mapped and valid only then. */
	if (!pfn_t_has_page(pfn) || !memmap_pfn_ready(pfn_t_to_pfn(pfn)) ||
	    !pfn_valid(pfn_t_to_pfn(pfn)))
		return NULL;
	return pfn_to_page(pfn_t_to_pfn(pfn));
}

struct dev_pagemap;

/* A mapping made by kmap_pfn(): the address and the pin it holds (NULL: none). */
struct kmap {
	void *addr;
	struct dev_pagemap *pgmap;
};

/*
 * A kernel address for the page at pfn, valid until kunmap_pfn(km): RAM
 * through the direct map; a pfn of a registered dev_pagemap only while the
 * map is live, and the map is pinned until kunmap_pfn; page-less device
 * memory (PFN_DEV only) if its driver put it in the direct map. Returns
 * km->addr, NULL when none applies (a dying map, a hole, unmapped device
 * memory); *km records exactly what was taken.
 */
void *kmap_pfn(pfn_t pfn, struct kmap *km);
/* Give back a kmap_pfn() mapping: drops the pin it took, if any, and only that. */
void kunmap_pfn(struct kmap *km);

#endif
