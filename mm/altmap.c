/* The vmem_altmap allocator: naturally aligned memmap blocks carved from device pfns (FACTS §2.2). */
#include <errno.h>

#include "memremap.h"

int altmap_alloc_block(struct vmem_altmap *altmap, u64 size, u64 *pfn)
{
	u64 nr, align, next, pad;

	if (!size || !IS_ALIGNED(size, PAGE_SIZE))
		return -EINVAL;
	nr = size >> PAGE_SHIFT;
	align = nr & -nr;	/* the largest power of two dividing nr */
	next = altmap_next_pfn(altmap);
	pad = ALIGN_UP(next, align) - next;
	if (nr + pad > altmap_avail(altmap))
		return -ENOMEM;
	altmap->alloc += nr;
	altmap->align += pad;
	*pfn = next + pad;
	return 0;
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
