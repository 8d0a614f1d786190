/*
 * Device-dax mappings (nd_dax.h): a range of a daxN.0 device mapped into the
 * kernel with leaves of the device's align, pinning the device while held;
 * the figure of what its struct pages cost; and the shell commands that use
 * them (dax-map, dax-write, dax-cmp, dax-unmap: daxctl has no verbs for
 * this, so the names are ours).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memlayout.h"
#include "memremap.h"
#include "mm.h"
#include "nd_dax.h"
#include "persist.h"
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

int dax_map(struct nd_pfn *dax, u64 offset, u64 len, struct dax_mapping *m)
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
	u64 pa = dax->pmem.phys + offset;
	/* The DAX lifetime rule: whoever holds an address holds the device. */
	struct dev_pagemap *pgmap = pgmap_pin(PFN_DOWN(pa));
	if (!pgmap)
		return -ENXIO;
	int slot = slot_get();
	if (slot < 0) {
		pgmap_unpin(pgmap);
		return -ENOSPC;
	}
	u64 va = DAX_MAP_BASE + (u64)slot * DAX_MAP_SLOT_SIZE;
	enum pg_level leaf = dax_leaf(align);
	/* A read-only region's device is mapped read-only: no store can reach it. */
	mm_lock();	/* the kernel page tables */
	int err = pgtable_map_leaves(&kernel_pgtable, va, pa_init(pa), len,
				     dax->pmem.ro ? PROT_KERNEL_RO : PROT_KERNEL_RW, leaf);
	mm_unlock();
	if (err) {
		slot_used[slot] = false;
		pgmap_unpin(pgmap);
		return err;
	}
	*m = (struct dax_mapping){ .dax = dax, .offset = offset, .len = len, .kaddr = (void *)va,
				   .pfn = phys_to_pfn_t(pa, PFN_DEV | PFN_MAP), .leaf = leaf,
				   .pgmap = pgmap, .slot = slot };
	return 0;
}

void dax_unmap(struct dax_mapping *m)
{
	if (m->slot < 0 || !m->kaddr)
		return;
	mm_lock();
	pgtable_unmap(&kernel_pgtable, (u64)m->kaddr, m->len);	/* flushes the TLB */
	mm_unlock();
	slot_used[m->slot] = false;
	pgmap_unpin(m->pgmap);
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

/* Shell: mappings held between commands, by number. */
static struct dax_mapping shell_maps[8];
static bool shell_used[ARRAY_SIZE(shell_maps)];

static u64 num(const char *s, bool *ok)
{
	char *end;
	u64 v = strtoull(s, &end, 0);

	*ok = *ok && end != s && !*end;
	return v;
}

static const char *leaf_name(enum pg_level l)
{
	return l == PG_LEVEL_1G ? "1 GiB" : l == PG_LEVEL_2M ? "2 MiB" : "4 KiB";
}

static int cmd_dax_map(int argc, char **argv)
{
	bool ok = argc == 4;
	struct nd_pfn *dax = argc > 1 ? nd_dax_find(argv[1]) : NULL;
	u64 off = ok ? num(argv[2], &ok) : 0, len = ok ? num(argv[3], &ok) : 0;
	unsigned int i;

	if (!ok) {
		kprintf("usage: dax-map DAX OFFSET LENGTH\n");
		return -EINVAL;
	}
	if (!dax) {
		kprintf("%s: no such devdax device (see 'list -N')\n", argv[1]);
		return -ENODEV;
	}
	for (i = 0; i < ARRAY_SIZE(shell_maps) && shell_used[i]; i++)
		;
	if (i == ARRAY_SIZE(shell_maps)) {
		kprintf("dax-map: all %zu shell mappings are in use (dax-unmap one)\n",
			ARRAY_SIZE(shell_maps));
		return -ENOSPC;
	}
	struct dax_mapping *m = &shell_maps[i];
	int err = dax_map(dax, off, len, m);
	if (err) {
		kprintf("dax-map %s: %s (error %d)\n", dax->name,
			err == -EINVAL ? "offset and length must be multiples of the device's align" :
			err == -ERANGE ? "past the end of the device" :
			err == -ENOSPC ? "no window slot left" : "cannot map",
			err);
		return err;
	}
	shell_used[i] = true;
	/* A user of the pages it maps (Linux's devdax fault sets up each struct page). */
	memmap_ready_range(m->pgmap, PFN_DOWN(dax->pmem.phys + off), PFN_DOWN(len));
	/* What the page tables say, not what was asked for. */
	u64 pa, flags;
	enum pg_level level;
	bool mapped = pgtable_walk(&kernel_pgtable, (u64)m->kaddr, &pa, &flags, &level);
	kprintf("dax-map %s: mapping %u: offset %#llx length %#llx at %p, pfn %#llx%s, "
		"%s pages (page tables: %s leaf -> %#llx)\n",
		dax->name, i, off, len, m->kaddr, pfn_t_to_pfn(m->pfn),
		(m->pfn.val & PFN_MAP) ? " PFN_DEV|PFN_MAP" : " PFN_DEV", leaf_name(m->leaf),
		mapped ? leaf_name(level) : "no", mapped ? pa : 0);
	return 0;
}
SHELL_COMMAND(SHELL_NVDIMM, "dax-map", cmd_dax_map, "dax-map DAX OFFSET LENGTH",
	      "map a devdax range with pages of its align, pinning the device");

static struct dax_mapping *shell_map(const char *arg)
{
	bool ok = true;
	u64 i = num(arg, &ok);

	if (!ok || i >= ARRAY_SIZE(shell_maps) || !shell_used[i]) {
		kprintf("'%s': no such dax mapping (dax-map prints its number)\n", arg);
		return NULL;
	}
	return &shell_maps[i];
}

static int cmd_dax_unmap(int argc, char **argv)
{
	struct dax_mapping *m = argc == 2 ? shell_map(argv[1]) : NULL;

	if (!m)
		return -EINVAL;
	kprintf("dax-unmap %s: mapping %s unmapped\n", m->dax->name, argv[1]);
	dax_unmap(m);
	shell_used[m - shell_maps] = false;
	return 0;
}
SHELL_COMMAND(SHELL_NVDIMM, "dax-unmap", cmd_dax_unmap, "dax-unmap N",
	      "unmap a dax-map mapping and unpin its device");

/* N OFFSET LENGTH PATTERN: the mapping and a range inside it (multiples of 8). */
static struct dax_mapping *rw_args(int argc, char **argv, u64 *off, u64 *len,
				   struct io_pattern *p)
{
	bool ok = argc == 5;
	struct dax_mapping *m = ok ? shell_map(argv[1]) : NULL;

	if (!ok) {
		kprintf("usage: %s N OFFSET LENGTH pattern=0xNN|seq=N\n", argv[0]);
		return NULL;
	}
	*off = num(argv[2], &ok);
	*len = num(argv[3], &ok);
	if (!m || nd_io_pattern_parse(argv[4], p))
		return NULL;
	if (!ok || !*len || !IS_ALIGNED(*off | *len, 8) || *off > m->len || *len > m->len - *off) {
		kprintf("%s: offset %s length %s: not 8-byte multiples inside the mapping\n",
			argv[0], argv[2], argv[3]);
		return NULL;
	}
	return m;
}

#define DAX_CHUNK (64 * KiB)

/* Write through the mapping: flush-cache copies, then the region's flush (durable on return). */
static int cmd_dax_write(int argc, char **argv)
{
	static u8 buf[DAX_CHUNK];
	struct io_pattern p;
	u64 off, len;
	struct dax_mapping *m = rw_args(argc, argv, &off, &len, &p);

	if (!m)
		return -EINVAL;
	if (m->dax->pmem.ro) {
		kprintf("dax-write %s: read-only\n", m->dax->name);
		return -EROFS;
	}
	for (u64 done = 0; done < len; done += DAX_CHUNK) {
		u64 n = MIN(DAX_CHUNK, len - done);
		/* seq words encode the device offset: the block view reads the same pattern. */
		nd_io_pattern_fill(&p, buf, m->offset + off + done, n);
		arch_memcpy_flushcache((u8 *)m->kaddr + off + done, buf, n);
	}
	pmem_durable(&m->dax->pmem);
	pmem_written_add(PMEM_WR_BLOCK, len);
	kprintf("dax-write %s: %llu bytes at mapping offset %#llx\n", m->dax->name, len, off);
	return 0;
}
SHELL_COMMAND(SHELL_NVDIMM, "dax-write", cmd_dax_write,
	      "dax-write N OFFSET LENGTH pattern=0xNN|seq=N",
	      "store a pattern through a dax-map mapping (durable on return)");

static int cmd_dax_cmp(int argc, char **argv)
{
	static u8 want[DAX_CHUNK];
	struct io_pattern p;
	u64 off, len;
	struct dax_mapping *m = rw_args(argc, argv, &off, &len, &p);

	if (!m)
		return -EINVAL;
	for (u64 done = 0; done < len; done += DAX_CHUNK) {
		u64 n = MIN(DAX_CHUNK, len - done);
		const u8 *got = (const u8 *)m->kaddr + off + done;
		nd_io_pattern_fill(&p, want, m->offset + off + done, n);
		if (!memcmp(got, want, n))
			continue;
		for (u64 i = 0; i < n; i++) {
			if (got[i] != want[i]) {
				kprintf("dax-cmp %s: mismatch at mapping offset %#llx\n", m->dax->name,
					off + done + i);
				return -EILSEQ;
			}
		}
	}
	kprintf("dax-cmp %s: %llu bytes at mapping offset %#llx match\n", m->dax->name, len, off);
	return 0;
}
SHELL_COMMAND(SHELL_NVDIMM, "dax-cmp", cmd_dax_cmp, "dax-cmp N OFFSET LENGTH pattern=0xNN|seq=N",
	      "check bytes read through a dax-map mapping against a pattern");

/*
 * daxctl list: the enabled device-dax devices as daxctl 76 lists them (a
 * bare array of {chardev, size, target_node, align, mode}; the fixtures'
 * "daxctl list"), nothing when there are none.
 */
static int cmd_daxctl(int argc, char **argv)
{
	struct nd_json j = { .first = true };
	bool any = false;

	if (argc != 2 || strcmp(argv[1], "list")) {
		kprintf("usage: daxctl list\n");
		return -EINVAL;
	}
	for_each_nd_namespace(ns) {
		struct nd_pfn *dax = nd_pfn_of(ns);
		if (!dax || dax->pers != ND_PERS_DEVDAX || !dax->enabled)
			continue;
		if (!any)
			nd_json_open(&j, NULL, '[');
		any = true;
		nd_json_open(&j, NULL, '{');
		nd_json_str(&j, "chardev", dax->name);
		nd_json_u64(&j, "size", dax->pmem.size);
		if (ns->region->target_node >= 0)
			nd_json_int(&j, "target_node", ns->region->target_node);
		nd_json_u64(&j, "align", dax->layout.align);
		nd_json_str(&j, "mode", "devdax");
		nd_json_close(&j, '}');
	}
	if (any)
		nd_json_close(&j, ']');
	return 0;
}
SHELL_COMMAND(SHELL_NVDIMM, "daxctl", cmd_daxctl, "daxctl list",
	      "device-dax devices as daxctl list JSON");
