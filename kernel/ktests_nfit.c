/*
 * In-kernel tests of discovery (issue "ACPI and NFIT discovery"), run on
 * whatever the firmware gave: every listed ACPI table checks out, every
 * region is a persistent-memory range of an NFIT or of the e820 map,
 * regions are ordered and disjoint, namespaces cover them, and their first
 * and last pages are readable through the direct map.
 */
#include <string.h>

#include "acpi.h"
#include "arch.h"
#include "direct_map.h"
#include "e820.h"
#include "ktest.h"
#include "nfit.h"
#include "nvdimm.h"
#include "printk.h"

KTEST(fw_tables_listed_check_out)
{
	for (u32 i = 0; i < fw_tables.nr; i++) {
		const struct fw_table *t = &fw_tables.table[i];
		const struct sdt_header *h = fw_table_map(t);
		KT_ASSERT(h != NULL);
		KT_EXPECT_EQ(h->length, t->length);
		KT_EXPECT_EQ(sdt_checksum(h, h->length), 0);
		KT_EXPECT_EQ(memcmp(h->signature, t->signature, 4), 0);
	}
}

/* Is [start, start+size) a persistent-memory SPA range of some NFIT? */
static bool nfit_has_range(u64 start, u64 size)
{
	static struct nfit_table t;	/* too big for the stack */
	const struct fw_table *at;
	int loglevel = console_loglevel;

	for (u32 n = 0; (at = fw_table_find(&fw_tables, "NFIT", n)); n++) {
		/* Its complaints were printed at boot already. */
		console_loglevel = LOGLEVEL_WARNING;
		nfit_parse(fw_table_map(at), at->length, &t);
		console_loglevel = loglevel;
		for (u32 i = 0; i < t.nr_spa; i++)
			if (t.spa[i].type == NFIT_SPA_PM && t.spa[i].address == start &&
			    t.spa[i].length == size)
				return true;
	}
	return false;
}

static bool e820_has_pmem_range(u64 start, u64 size)
{
	for (u32 i = 0; i < e820_table.nr; i++) {
		const struct e820_entry *e = &e820_table.entries[i];
		if (e820_is_pmem(e->type) && e->addr == start && e->size == size)
			return true;
	}
	return false;
}

/* A region test on a machine without pmem would pass without checking anything. */
static bool skip_without_regions(void)
{
	if (nd_region_count())
		return false;
	ktest_skip("no pmem region (boot with an nvdimm or memmap=nn!ss)");
	return true;
}

KTEST(nvdimm_regions_come_from_the_firmware)
{
	if (skip_without_regions())
		return;
	for (u32 i = 0; i < nd_region_count(); i++) {
		const struct nd_region *r = nd_region_get(i);
		if (!strcmp(r->bus->provider, "nfit"))
			KT_ASSERT(nfit_has_range(r->start, r->size));
		else
			KT_ASSERT(e820_has_pmem_range(r->start, r->size));
	}
}

/* Every e820 pmem range is inside some region (its own or an NFIT one). */
KTEST(nvdimm_e820_pmem_all_registered)
{
	u32 seen = 0;

	for (u32 i = 0; i < e820_table.nr; i++) {
		const struct e820_entry *e = &e820_table.entries[i];
		if (!e820_is_pmem(e->type))
			continue;
		seen++;
		const struct nd_region *r = nd_region_overlapping(e->addr, e->size);
		if (!r || r->start > e->addr || r->start + r->size < e->addr + e->size)
			ktest_fail(__FILE__, __LINE__, "e820 pmem %#llx+%#llx not in a region",
				   e->addr, e->size);
	}
	if (!seen)
		ktest_skip("no pmem in the e820 map (boot with memmap=nn!ss)");
}

KTEST(nvdimm_regions_ordered_with_namespaces)
{
	int n = 0;

	if (skip_without_regions())
		return;
	for (u32 i = 0; i < nd_region_count(); i++) {
		const struct nd_region *r = nd_region_get(i);
		KT_EXPECT_EQ(r->id, i);
		KT_ASSERT(r->size > 0);
		const struct nd_region *prev = i ? nd_region_get(i - 1) : NULL;
		if (prev)
			KT_ASSERT(prev->start + prev->size <= r->start);
		/* Label-less (labelled regions are in test/qemu/cases/labels.sh). */
		if (r->labelled)
			continue;
		const struct nd_namespace_io *ns = nd_region_namespace(r, 0);
		KT_ASSERT(ns && ns->region == r);
		KT_EXPECT_EQ(ns->start, r->start);
		KT_EXPECT_EQ(ns->size, r->size);
	}
	for_each_nd_namespace(ns)
		n++;
	KT_EXPECT_EQ(n, nd_region_count());
}

/* Read (never write) the first and last word of each region, then unmap what we mapped. */
KTEST(nvdimm_region_edges_readable)
{
	if (skip_without_regions())
		return;
	for (u32 i = 0; i < nd_region_count(); i++) {
		const struct nd_region *r = nd_region_get(i);
		u64 edges[2] = { r->start, ALIGN_DOWN(r->start + r->size - 8, PAGE_SIZE) };
		for (int e = 0; e < 2; e++) {
			bool was_mapped = direct_map_covers(edges[e], PAGE_SIZE);
			KT_ASSERT(direct_map_add(edges[e], PAGE_SIZE) == 0);
			volatile const u64 *p = phys_to_virt(r->start + (e ? r->size - 8 : 0));
			(void)*p;
			if (!was_mapped)
				KT_ASSERT(direct_map_remove(edges[e], PAGE_SIZE) == 0);
		}
	}
}
