/*
 * The "e820" bus provider: persistent memory the boot memory map describes
 * (ACPI 6.4 §15 type 7, or the legacy type 12 of memmap=nn!ss) that no NFIT
 * SPA range already covers becomes a region of its own, as Linux's
 * e820_pmem driver does. One bus holds all of them.
 */
#include "e820.h"
#include "nvdimm.h"
#include "printk.h"

/* Already registered whole (by the NFIT)? Partly covered ranges are refused. */
static bool covered(const struct e820_entry *e)
{
	struct nd_region *r = nd_region_overlapping(e->addr, e->size);

	if (!r)
		return false;
	if (r->start <= e->addr && e->addr + e->size <= r->start + r->size) {
		pr_info("e820: [mem %#llx-%#llx] %s is already an %s region\n", e->addr,
			(e->addr + e->size - 1), e820_type_name(e->type), r->bus->provider);
		return true;
	}
	return false;	/* nd_region_create reports the partial overlap */
}

int e820_pmem_register(const struct e820_table *t)
{
	struct nd_bus *bus = NULL;
	int added = 0;

	for (u32 i = 0; i < t->nr; i++) {
		const struct e820_entry *e = &t->entries[i];
		if (!e820_is_pmem(e->type) || covered(e))
			continue;
		if (!bus && !(bus = nd_bus_register("e820")))
			return added;
		struct nd_region_desc rd = {
			.start = e->addr,
			.size = e->size,
			.numa_node = 0,		/* Linux without NUMA info: node 0 */
			.target_node = 0,
			.persistence = ND_PERSIST_UNKNOWN,
		};
		if (nd_region_create(bus, &rd, NULL) == 0)
			added++;
	}
	return added;
}
