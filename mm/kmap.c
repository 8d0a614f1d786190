/* kmap_pfn: a kernel address for any pfn, holding the device map's pin while mapped. */
#include "arch.h"
#include "direct_map.h"
#include "memblock.h"
#include "memremap.h"
#include "pfn_t.h"

void *kmap_pfn(pfn_t pfn)
{
	u64 pa = pfn_t_to_phys(pfn);

	if ((pfn.val & PFN_MAP) || pgmap_lookup(pfn_t_to_pfn(pfn)))
		return pgmap_pin(pfn_t_to_pfn(pfn)) ? phys_to_virt(pa) : NULL;
	if (!(pfn.val & PFN_DEV))
		return memblock_is_ram(pa, PAGE_SIZE) ? phys_to_virt(pa) : NULL;
	/* Page-less device memory: only where its driver put it in the direct map. */
	return direct_map_covers(pa, PAGE_SIZE) ? phys_to_virt(pa) : NULL;
}

void kunmap_pfn(void *addr)
{
	if (addr)
		pgmap_unpin(pgmap_lookup(PFN_DOWN(virt_to_phys(addr))));
}
