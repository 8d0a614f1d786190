/* kmap_pfn: a kernel address for any pfn, holding the device map's pin while mapped. */
#include "arch.h"
#include "direct_map.h"
#include "memblock.h"
#include "memremap.h"
#include "pfn_t.h"

void *kmap_pfn(pfn_t pfn, struct kmap *km)
{
	u64 pa = pfn_t_to_phys(pfn);

	km->addr = NULL;
	km->pgmap = NULL;
	if ((pfn.val & PFN_MAP) || pgmap_lookup(pfn_t_to_pfn(pfn))) {
		km->pgmap = pgmap_pin(pfn_t_to_pfn(pfn));
		if (km->pgmap)
			km->addr = phys_to_virt(pa);
	} else if (!(pfn.val & PFN_DEV)) {
		if (memblock_is_ram(pa, PAGE_SIZE))
			km->addr = phys_to_virt(pa);
	} else if (direct_map_covers(pa, PAGE_SIZE)) {
		/* Page-less device memory: only where its driver put it in the direct map. */
		km->addr = phys_to_virt(pa);
	}
	return km->addr;
}

void kunmap_pfn(struct kmap *km)
{
	/* Exactly the pin this mapping took: never a fresh lookup's. */
	if (km->pgmap)
		pgmap_unpin(km->pgmap);
	km->addr = NULL;
	km->pgmap = NULL;
}
