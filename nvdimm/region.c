/*
 * nvdimm regions (Linux's nd_region): one per persistent-memory range a
 * provider describes. Registration refuses empty and overlapping ranges;
 * publishing numbers the regions regionN in address order (stable whatever
 * order the firmware lists them in), gives each its namespace_io and prints
 * one line per region.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arch.h"
#include "direct_map.h"
#include "memblock.h"
#include "nd_label.h"
#include "nvdimm.h"
#include "printk.h"
#include "sparse.h"

static struct nd_region regions[ND_MAX_REGIONS];
static u32 nr_regions;
static struct nd_region *published[ND_MAX_REGIONS];	/* in id order */
static u32 nr_published;

const char *nd_persistence_name(enum nd_persistence p)
{
	switch (p) {
	case ND_PERSIST_CACHE:		return "cpu_cache";
	case ND_PERSIST_MEMCTRL:	return "memory_controller";
	default:			return "unknown";
	}
}

/*
 * Linux's default_align() (drivers/nvdimm/region_devs.c): the largest
 * memremap compatibility alignment, a page for tiny regions, and a
 * multiple of the interleave ways so each DIMM's share stays aligned.
 */
u64 nd_region_default_align(u64 size, u32 nr_mappings)
{
	u64 align = size < ND_REGION_ALIGN ? PAGE_SIZE : ND_REGION_ALIGN;
	u32 ways = MAX(nr_mappings, 1U);

	if (align % ways)
		align *= ways;
	return align;
}

struct nd_region *nd_region_overlapping(u64 start, u64 size)
{
	for (u32 i = 0; i < nr_regions; i++) {
		struct nd_region *r = &regions[i];
		if (start < r->start + r->size && r->start < start + size)
			return r;
	}
	return NULL;
}

static int check_desc(const struct nd_bus *bus, const struct nd_region_desc *d)
{
	if (d->size == 0 || d->start + d->size < d->start || d->start + d->size == 0) {
		pr_warn("nd_region: %s range %#llx+%#llx is empty or wraps, rejected\n",
			bus->provider, d->start, d->size);
		return -EINVAL;
	}
	if (d->nr_mappings > ND_MAX_MAPPINGS) {
		pr_warn("nd_region: %s [mem %#llx-%#llx]: %u mappings, at most %d, rejected\n",
			bus->provider, d->start, (d->start + d->size - 1), d->nr_mappings,
			ND_MAX_MAPPINGS);
		return -EINVAL;
	}
	const struct nd_region *o = nd_region_overlapping(d->start, d->size);
	if (o) {
		pr_warn("nd_region: %s [mem %#llx-%#llx] overlaps %s [mem %#llx-%#llx], rejected\n",
			bus->provider, d->start, (d->start + d->size - 1), o->bus->provider,
			o->start, (o->start + o->size - 1));
		return -EBUSY;
	}
	/* Firmware that puts pmem in RAM would give a raw device over the kernel's memory. */
	const struct memblock_region *ram = memblock_ram_overlapping(d->start, d->size);
	if (ram) {
		pr_warn("nd_region: %s [mem %#llx-%#llx] overlaps System RAM [mem %#llx-%#llx], rejected\n",
			bus->provider, d->start, d->start + d->size - 1, ram->base,
			ram->base + ram->size - 1);
		return -EBUSY;
	}
	if (!IS_ALIGNED(d->start | d->size, PAGE_SIZE)) {
		pr_warn("nd_region: %s [mem %#llx-%#llx] is not 4 KiB aligned, rejected\n",
			bus->provider, d->start, d->start + d->size - 1);
		return -EINVAL;
	}
	if (nr_regions >= ND_MAX_REGIONS) {
		pr_warn("nd_region: more than %d regions, %s [mem %#llx-%#llx] rejected\n",
			ND_MAX_REGIONS, bus->provider, d->start, (d->start + d->size - 1));
		return -ENOSPC;
	}
	return 0;
}

int nd_region_create(struct nd_bus *bus, const struct nd_region_desc *desc,
		     struct nd_region **out)
{
	int err = check_desc(bus, desc);

	if (err)
		return err;
	struct nd_region *r = &regions[nr_regions++];
	memset(r, 0, sizeof(*r));
	badblocks_init(&r->bb);
	badblocks_init(&r->poison);
	r->id = -1;
	r->bus = bus;
	r->start = desc->start;
	r->size = desc->size;
	r->align = nd_region_default_align(desc->size, desc->nr_mappings);
	r->numa_node = desc->numa_node;
	r->target_node = desc->target_node;
	r->persistence = desc->persistence;
	r->ro = desc->ro;
	r->range_index = desc->range_index;
	r->nr_mappings = desc->nr_mappings;
	memcpy(r->mapping, desc->mapping, sizeof(r->mapping[0]) * desc->nr_mappings);
	if (out)
		*out = r;
	return 0;
}

/* "1 dimm (handle 0x1)", "2 dimms (handles 0x1, 0x2)", "no dimms". */
static void describe_dimms(char *buf, size_t size, const struct nd_region *r)
{
	size_t len;

	if (!r->nr_mappings) {
		snprintf(buf, size, "no dimms");
		return;
	}
	len = (size_t)snprintf(buf, size, "%u dimm%s (handle%s", r->nr_mappings,
			       r->nr_mappings > 1 ? "s" : "", r->nr_mappings > 1 ? "s" : "");
	for (u32 i = 0; i < r->nr_mappings && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%#x", i ? ", " : " ",
					r->mapping[i].nvdimm->handle);
	if (len < size)
		snprintf(buf + len, size - len, ")");
}

static void print_region(const struct nd_region *r)
{
	char dimms[256];

	describe_dimms(dimms, sizeof(dimms), r);
	pr_info("nd_region %s: [mem %#llx-%#llx] %s pmem, %s, persistence %s%s\n", r->name,
		r->start, (r->start + r->size - 1), r->bus->provider, dimms,
		nd_persistence_name(r->persistence), r->ro ? ", read-only" : "");
}

/* The unpublished region with the lowest address, or NULL. */
static struct nd_region *lowest_unpublished(void)
{
	struct nd_region *best = NULL;

	for (u32 i = 0; i < nr_regions; i++)
		if (regions[i].id < 0 && (!best || regions[i].start < best->start))
			best = &regions[i];
	return best;
}

/* Flush hints are MMIO the firmware describes: mapped once, at publication. */
static void map_flush_hints(struct nd_region *r)
{
	for (u32 i = 0; i < r->nr_mappings; i++) {
		struct nvdimm *d = r->mapping[i].nvdimm;
		if (!d || !d->nr_flush_hints || direct_map_add(d->flush_hint[0], sizeof(u64)) == 0)
			continue;
		pr_warn("nd_region %s: %s flush hint at %#llx cannot be mapped, not used\n",
			r->name, d->name, d->flush_hint[0]);
		d->nr_flush_hints = 0;
	}
}

/*
 * The section table and vmemmap page tables over the region, for good:
 * namespaces come and go in it, and each bring-up then allocates none
 * (a deferred map=dev one stores nothing per section). Without them a
 * bring-up allocates its own, as before.
 */
static void reserve_memmap_tables(struct nd_region *r)
{
	int err = sparse_reserve_range(PFN_DOWN(r->start), PFN_UP(r->start + r->size) - PFN_DOWN(r->start));

	if (err)
		pr_warn("nd_region %s: no page tables kept for its struct pages (error %d): each bring-up allocates them\n",
			r->name, err);
}

void nd_regions_publish(void)
{
	struct nd_region *r;

	while ((r = lowest_unpublished())) {
		r->id = (int)nr_published;
		published[nr_published++] = r;
		snprintf(r->name, sizeof(r->name), "region%d", r->id);
		map_flush_hints(r);
		reserve_memmap_tables(r);
		print_region(r);
		nd_region_namespaces_init(r);
	}
}

u32 nd_region_count(void)
{
	return nr_published;
}

struct nd_region *nd_region_get(u32 i)
{
	return i < nr_published ? published[i] : NULL;
}

struct nd_region *nd_region_find(const char *name)
{
	for (u32 i = 0; i < nr_published; i++)
		if (strcmp(published[i]->name, name) == 0)
			return published[i];
	return NULL;
}

void nd_regions_reset(void)
{
	memset(regions, 0, sizeof(regions));
	memset(published, 0, sizeof(published));
	nr_regions = 0;
	nr_published = 0;
}
