/*
 * Device-dax mappings (nd_dax.h): a range of a daxN.0 device mapped into the
 * kernel with leaves of the device's align, holding the device while
 * mapped; and the figure of what its struct pages cost. The shell commands
 * that use them are dax_cmds.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memlayout.h"
#include "memremap.h"
#include "mm.h"
#include "nd_dax.h"
#include "pgtable.h"
#include "printk.h"
#include "shell.h"

static bool slot_used[DAX_MAP_SLOTS];

void dax_map_reset(void)
{
	memset(slot_used, 0, sizeof(slot_used));
}

struct nd_pfn *nd_dax_find(const char *name)
{
	for_each_nd_namespace(ns) {
		struct nd_pfn *pfn = nd_pfn_of(ns);
		if (pfn && pfn->pers == ND_PERS_DEVDAX && pfn->enabled && !strcmp(pfn->name, name))
			return pfn;
	}
	return NULL;
}

/* The leaves a device of `align` is mapped with: its align, as far as the CPU allows. */
static enum pg_level dax_leaf(u64 align)
{
	if (align >= PUD_SIZE && arch_pte_leaf_allowed(PG_LEVEL_1G))
		return PG_LEVEL_1G;
	if (align >= PMD_SIZE && arch_pte_leaf_allowed(PG_LEVEL_2M))
		return PG_LEVEL_2M;
	return PG_LEVEL_4K;
}

static void dax_window_unmap(u64 va, u64 len)
{
	mm_lock();
	pgtable_unmap(&kernel_pgtable, va, len);	/* flushes the TLB */
	mm_unlock();
}

static int slot_get(void)
{
	for (int i = 0; i < DAX_MAP_SLOTS; i++) {
		if (!slot_used[i]) {
			slot_used[i] = true;
			return i;
		}
	}
	return -1;
}

int dax_map(struct nd_pfn *dax, u64 offset, u64 len, const char *who, struct dax_mapping *m)
{
	memset(m, 0, sizeof(*m));
	m->slot = -1;
	if (!dax || dax->pers != ND_PERS_DEVDAX || !dax->enabled)
		return -ENXIO;
	u64 align = dax->layout.align, size = dax->pmem.size;
	if (!len || !IS_ALIGNED(offset | len, align) || len > DAX_MAP_SLOT_SIZE)
		return -EINVAL;
	if (offset > size || len > size - offset)
		return -ERANGE;
	/* A mapping lends the bytes: a CPU reading poison through it cannot be recovered. */
	if (nsio_clean_len(&dax->pmem.io, offset, len) != len)
		return -EIO;
	u64 pa = dax->pmem.phys + offset;
	/* The DAX lifetime rule: whoever holds an address holds the device. */
	int err = pmem_hold(&dax->pmem, PMEM_HOLD_MAP, who, &m->hold);
	if (err)
		return err;
	int slot = slot_get();
	if (slot < 0) {
		pmem_release(&m->hold);
		return -ENOSPC;
	}
	u64 va = DAX_MAP_BASE + (u64)slot * DAX_MAP_SLOT_SIZE;
	enum pg_level leaf = dax_leaf(align);
	/* A read-only region's device is mapped read-only: no store can reach it. */
	mm_lock();	/* the kernel page tables */
	err = pgtable_map_leaves(&kernel_pgtable, va, pa_init(pa), len,
				 dax->pmem.ro ? PROT_KERNEL_RO : PROT_KERNEL_RW, leaf);
	mm_unlock();
	if (!err) {	/* stores through the mapping take the media path too */
		err = nsio_alias(&dax->pmem.io, offset, len, (void *)va, dax->pmem.ro, &m->io);
		if (err)
			dax_window_unmap(va, len);
	}
	if (err) {
		slot_used[slot] = false;
		pmem_release(&m->hold);
		return err;
	}
	m->dax = dax;
	m->offset = offset;
	m->len = len;
	m->kaddr = (void *)va;
	m->pfn = phys_to_pfn_t(pa, PFN_DEV | PFN_MAP);
	m->leaf = leaf;
	m->slot = slot;
	return 0;
}

void dax_unmap(struct dax_mapping *m)
{
	if (m->slot < 0 || !m->kaddr)
		return;
	dax_window_unmap((u64)m->kaddr, m->len);
	slot_used[m->slot] = false;
	pmem_release(&m->hold);
	memset(m, 0, sizeof(*m));
	m->slot = -1;
}

void nd_dax_print_memmap(const struct nd_pfn *dax)
{
	const struct memremap_stats *st = &dax->memmap_stats;
	const struct dev_pagemap *pgmap = &dax->pgmap;
	u64 without = PFN_DOWN(range_len(&pgmap->range)) * sizeof(struct page);
	u64 csize = pgmap_vmemmap_nr(pgmap) * PAGE_SIZE;

	if (!dax->memmap_in_ram) {
		pr_info("nd_pfn %s: struct pages in the device (map=dev, %llu KiB of its pmem), "
			"%llu compound pages of %llu KiB, no vmemmap dedup (Linux dedups only map=mem)\n",
			dax->name, (PFN_PHYS(pgmap->altmap.alloc) >> 10), st->compound_pages,
			(csize >> 10));
		return;
	}
	pr_info("nd_pfn %s: struct pages for %llu MiB in %llu KiB of RAM + %llu KiB of page tables, "
		"%llu compound pages of %llu KiB%s; %llu KiB without dedup\n",
		dax->name, (range_len(&pgmap->range) >> 20), (st->vmemmap_ram >> 10),
		(st->pgtable_pages * PAGE_SIZE >> 10), st->compound_pages, (csize >> 10),
		pgmap->vmemmap_dedup ? ", vmemmap deduplicated" : "", (without >> 10));
}
