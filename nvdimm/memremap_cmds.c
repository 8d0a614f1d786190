/*
 * Shell commands for operators and tests: register a physical range as
 * ZONE_DEVICE memory with its memmap in RAM (mem) or in the range itself
 * (dev, laid out like a Linux pfn device with 2 MiB align: nd_pfn_lay_out,
 * FACTS §1.7), and unregister it.
 */
#include <errno.h>
#include <string.h>

#include "memremap.h"
#include "mm.h"
#include "nd_pfn_layout.h"
#include "params.h"
#include "pgtable.h"
#include "printk.h"
#include "shell.h"

#define CMD_PGMAPS 8

static struct dev_pagemap cmd_pgmaps[CMD_PGMAPS];

static struct dev_pagemap *cmd_slot(u64 start, bool want_free)
{
	for (int i = 0; i < CMD_PGMAPS; i++) {
		struct dev_pagemap *p = &cmd_pgmaps[i];
		bool used = p->state != PGMAP_UNREGISTERED;

		if (want_free ? !used : used && p->range.start == start)
			return p;
	}
	return NULL;
}

static int parse_args(char **argv, u64 *start, u64 *size)
{
	const char *end;

	if (parse_size(argv[1], start, &end) || *end)
		return -EINVAL;
	if (size && (parse_size(argv[2], size, &end) || *end || !*size))
		return -EINVAL;
	return 0;
}

static int cmd_memremap(int argc, char **argv)
{
	u64 start, size, tables = kernel_pgtable.nr_tables, memmap_ram = mm_stat(MM_VMEMMAP);
	struct nd_pfn_placement place;
	struct dev_pagemap *p = cmd_slot(0, true);
	bool dev = argc >= 4 && strcmp(argv[3], "dev") == 0;

	if (argc < 4 || parse_args(argv, &start, &size) || (!dev && strcmp(argv[3], "mem"))) {
		kprintf("usage: memremap <start> <size> mem|dev [4k]\n");
		return -EINVAL;
	}
	if (!p) {
		kprintf("memremap: all %d slots in use\n", CMD_PGMAPS);
		return -ENOSPC;
	}
	*p = (struct dev_pagemap){ .range = { start, start + size - 1 },
				   .type = MEMORY_DEVICE_FS_DAX };
	if (argc >= 5 && strcmp(argv[4], "4k") == 0)
		p->flags |= PGMAP_BASE_PAGES;
	if (dev) {
		struct nd_pfn_layout l;
		const char *why;
		int err = nd_pfn_lay_out(start, size, PFN_MODE_PMEM, 2 * MiB, &l, &place, &why);
		if (err) {
			kprintf("memremap: map=dev: %s\n", why);
			return err;
		}
	}
	/* The range as given: memremap_pages refuses one not 2 MiB aligned at both ends. */
	int err = memremap_pages(p, dev ? &place.altmap : NULL, NULL);
	if (err)
		return err;
	kprintf("memremap: [mem %#llx-%#llx] map=%s: vmemmap RAM %llu KiB, page tables +%llu KiB, altmap %llu KiB used + %llu KiB alignment of %llu KiB\n",
		start, (start + size - 1), dev ? "dev" : "mem",
		((mm_stat(MM_VMEMMAP) - memmap_ram) >> 10),
		((kernel_pgtable.nr_tables - tables) * 4),
		(dev ? PFN_PHYS(p->altmap.alloc) >> 10 : 0),
		(dev ? PFN_PHYS(p->altmap.align) >> 10 : 0),
		(dev ? PFN_PHYS(p->altmap.free) >> 10 : 0));
	return 0;
}
SHELL_COMMAND(SHELL_MEMORY, "memremap", cmd_memremap, "memremap <start> <size> mem|dev [4k]",
	      "give a physical range ZONE_DEVICE struct pages (memmap in RAM or in the range)");

static int cmd_memunmap(int argc, char **argv)
{
	u64 start;
	struct dev_pagemap *p;

	if (argc < 2 || parse_args(argv, &start, NULL)) {
		kprintf("usage: memunmap <start>\n");
		return -EINVAL;
	}
	p = cmd_slot(start, false);
	if (!p) {
		kprintf("memunmap: no range at %#llx registered by memremap\n", start);
		return -ENOENT;
	}
	int err = memunmap_pages(p);
	kprintf("memunmap: [mem %#llx-%#llx] %s\n", p->range.start, p->range.end,
		err ? "busy: torn down when unpinned" : "removed");
	return err == -EINPROGRESS ? 0 : err;
}
SHELL_COMMAND(SHELL_MEMORY, "memunmap", cmd_memunmap, "memunmap <start>",
	      "unregister a range added with memremap");
