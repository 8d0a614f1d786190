/*
 * The page allocator for RAM after boot: a binary buddy allocator over the
 * ranges memblock leaves free, blocks of 2^order pages up to MAX_ORDER.
 */
#ifndef PMEMK_PAGE_ALLOC_H
#define PMEMK_PAGE_ALLOC_H

#include "types.h"

#define MAX_ORDER 10	/* largest block: 2^10 pages = 4 MiB */
#define PMD_ORDER 9	/* 2 MiB */

/*
 * Take over every free memblock range; memblock_alloc fails afterwards. The
 * metadata (a byte per page frame and 16 bytes per 4 MiB: 260 KiB per GiB
 * of RAM) comes from memblock first.
 */
void page_alloc_init(void);
/* Forget everything (host tests). */
void page_alloc_reset(void);

/* A naturally aligned block of 2^order pages, or 0 when none is free. */
u64 page_alloc(unsigned int order);
/* The same, zeroed. */
u64 page_alloc_zeroed(unsigned int order);
/*
 * Give back a block from page_alloc with the same order. A double free, a
 * wrong order or a block the allocator never handed out is reported with
 * pr_err and ignored.
 */
void page_free(u64 pa, unsigned int order);

struct page_alloc_stats {
	u64 managed_pages;	/* pages handed to the allocator */
	u64 free_pages;
	u64 free_blocks[MAX_ORDER + 1];
};

void page_alloc_stats(struct page_alloc_stats *st);

#endif
