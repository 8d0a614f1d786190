/*
 * memblock: the boot-time physical allocator. It knows RAM (usable e820
 * ranges only, so never pmem) and what is reserved in it (kernel image, boot
 * data, earlier allocations), and hands out ranges until the page allocator
 * takes over.
 */
#ifndef PMEMK_MEMBLOCK_H
#define PMEMK_MEMBLOCK_H

#include "types.h"

struct memblock_region {
	u64 base;
	u64 size;
};

#define MEMBLOCK_MAX_REGIONS 256

struct memblock_type {
	u32 cnt;
	struct memblock_region regions[MEMBLOCK_MAX_REGIONS];
};

struct memblock {
	struct memblock_type memory;	/* usable RAM */
	struct memblock_type reserved;	/* taken ranges within (or outside) RAM */
	u64 limit;			/* allocations end below this address */
	bool frozen;			/* page allocator took over */
};

extern struct memblock memblock;

/* Forget everything (host tests; the kernel starts zeroed). */
void memblock_reset(void);
/*
 * Both lists stay sorted, with overlapping and adjacent ranges merged. The
 * three calls below return 0, -EINVAL for size 0 or a range that wraps (or
 * touches 2^64), or -ENOSPC (nothing changed) when a new slot is needed and
 * the list holds MEMBLOCK_MAX_REGIONS already.
 */
/* Add usable RAM. */
int memblock_add(u64 base, u64 size);
/* Mark a range as taken; it may extend past RAM. */
int memblock_reserve(u64 base, u64 size);
/* Return a reserved range to the free pool (splitting a region if needed). */
int memblock_free(u64 base, u64 size);
/* Restrict later allocations to below `limit` (0 = no limit). */
void memblock_set_limit(u64 limit);
/*
 * Allocate `size` bytes aligned to `align` (a power of two) from free RAM,
 * highest address first, below the limit, and reserve them. Returns the
 * physical address, or 0 when nothing fits, for size 0 or a bad align, and
 * once frozen (reported once). Never page 0 (the real-mode IVT; 0 means
 * failure), never outside RAM. The memory is not zeroed.
 */
u64 memblock_alloc(u64 size, u64 align);

u64 memblock_phys_mem_size(void);	/* bytes of RAM */
u64 memblock_reserved_in_ram(void);	/* bytes of RAM reserved */
u64 memblock_end_of_ram(void);
bool memblock_is_ram(u64 base, u64 size);	/* whole range is RAM */
/* The first RAM region sharing a byte with [base, base+size), or NULL. */
const struct memblock_region *memblock_ram_overlapping(u64 base, u64 size);

/*
 * Iterate the free ranges (RAM minus reserved, minus page 0) in address
 * order, each maximal: start with *idx = 0; returns false when done.
 */
bool memblock_next_free(u64 *idx, u64 *base, u64 *size);

#endif
