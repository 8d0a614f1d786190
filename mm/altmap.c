/* The vmem_altmap allocator: naturally aligned memmap blocks carved from device pfns (FACTS §2.2). */
#include <errno.h>

#include "memremap.h"

int altmap_alloc_blocks(struct vmem_altmap *altmap, u64 size, u64 count, u64 *pfn, u64 *fit)
{
	u64 nr, align, next, pad, avail;

	if (fit)
		*fit = 0;
	if (!size || !IS_ALIGNED(size, PAGE_SIZE) || !count)
		return -EINVAL;
	nr = size >> PAGE_SHIFT;
	align = nr & -nr;	/* the largest power of two dividing nr */
	next = altmap_next_pfn(altmap);
	pad = ALIGN_UP(next, align) - next;
	avail = altmap_avail(altmap);
	if (pad > avail || count > (avail - pad) / nr) {
		if (fit)
			*fit = pad > avail ? 0 : (avail - pad) / nr;
		return -ENOMEM;
	}
	altmap->alloc += count * nr;
	altmap->align += pad;
	*pfn = next + pad;
	return 0;
}

int altmap_alloc_block(struct vmem_altmap *altmap, u64 size, u64 *pfn)
{
	return altmap_alloc_blocks(altmap, size, 1, pfn, NULL);
}

bool altmap_contains(const struct vmem_altmap *altmap, u64 pfn)
{
	return altmap && pfn >= altmap->base_pfn && pfn <= altmap->end_pfn;
}

void altmap_reset(struct vmem_altmap *altmap)
{
	altmap->alloc = 0;
	altmap->align = 0;
}
