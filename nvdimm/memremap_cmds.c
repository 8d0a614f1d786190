/*
 * Shell commands for operators and tests: register a physical range as
 * ZONE_DEVICE memory with its memmap in RAM (mem) or in the range itself
 * (dev, laid out like a Linux pfn device with 2 MiB align: nd_pfn_lay_out,
 * FACTS §1.7), and unregister it. The range must be pmem of one namespace
 * nothing else claims: the command claims it (its raw block device goes
 * away meanwhile, so nothing writes under the struct pages) and gives it
 * back, re-probed, when the range is unregistered.
 */
#include <errno.h>
#include <string.h>

#include "memremap.h"
#include "mm.h"
#include "nd_pfn.h"
#include "nd_pfn_layout.h"
#include "pgtable.h"
#include "printk.h"
#include "shell.h"

#define CMD_PGMAPS 8

static struct dev_pagemap cmd_pgmaps[CMD_PGMAPS];

static struct dev_pagemap *cmd_slot(u64 start, bool want_free)
{
	for (int i = 0; i < CMD_PGMAPS; i++) {
		struct dev_pagemap *p = &cmd_pgmaps[i];
		bool used = p->state != PGMAP_UNREGISTERED || p->owner;

		if (want_free ? !used : p->state != PGMAP_UNREGISTERED && p->range.start == start)
			return p;
	}
	return NULL;
}

/* ndctl list -N for a namespace the command holds. */
static void memremap_list_json(const struct nd_namespace_io *ns, struct nd_json *j)
{
	const struct dev_pagemap *p = ns->claim;

	nd_json_str(j, "mode", "raw");
	nd_json_u64(j, "size", ns->size);
	nd_json_str(j, "state", "disabled");
	nd_json_str(j, "reason", p->altmap.free ? "claimed by memremap (map=dev)" :
						   "claimed by memremap (map=mem)");
}

/* Raw and disabled, as memremap_list_json says; its struct pages while registered. */
static void memremap_view(const struct nd_namespace_io *ns, struct nd_ns_view *v)
{
	const struct dev_pagemap *p = ns->claim;

	v->pgmap = p->state != PGMAP_UNREGISTERED ? p : NULL;
}

static const struct nd_claim_ops memremap_claim_ops = { "memremap", memremap_list_json, NULL,
							memremap_view };

/* The namespace holding all of [start, start + size), or NULL (printed). */
static struct nd_namespace_io *pmem_namespace_of(u64 start, u64 size)
{
	for_each_nd_namespace(ns)
		if (start >= ns->start && size <= ns->size && start - ns->start <= ns->size - size)
			return ns;
	kprintf("memremap: [mem %#llx-%#llx] is not pmem of one namespace (see 'list -N'); refused\n",
		start, start + size - 1);
	return NULL;
}

/*
 * Issue 11 item 7: only pmem nothing else claims. A raw namespace gives up
 * its block device (and its data where map=dev puts struct pages) only when
 * asked with -f.
 */
static int claim_namespace(struct nd_namespace_io *ns, struct dev_pagemap *p, bool force)
{
	if (ns->claim) {
		kprintf("memremap: %s is claimed (%s); refused\n", ns->name,
			ns->claim_ops ? ns->claim_ops->name : "in use");
		return -EBUSY;
	}
	if (ns->region->ro) {
		kprintf("memremap: %s is on a read-only region; refused\n", ns->name);
		return -EROFS;
	}
	if (!force) {
		kprintf("memremap: %s is the raw block device %s; -f takes it (map=dev stores struct pages over its data)\n",
			ns->name, ns->blockdev);
		return -EBUSY;
	}
	int err = nd_namespace_detach(ns);
	if (!err)
		err = nd_namespace_claim(ns, p, &memremap_claim_ops, true);
	return err;
}

/* The range is gone (now or when the last pin dropped): the namespace comes back. */
static void give_back(struct dev_pagemap *p)
{
	struct nd_namespace_io *ns = p->owner;

	p->owner = NULL;
	if (!ns)
		return;
	nd_namespace_release(ns, p);
	nd_namespace_probe(ns);
}

/* <start> <size> mem|dev [4k] [-f]: 0, else one line and the usage. */
static int memremap_args(int argc, char **argv, u64 *start, u64 *size, bool *dev, bool *base_pages,
			 bool *force)
{
	static const char *const maps[] = { "mem", "dev", NULL };
	int map;

	if (shell_arg_size(argv[0], "start", shell_arg(argc, argv, 1), 0, ~0ull, start) ||
	    shell_arg_size(argv[0], "size", shell_arg(argc, argv, 2), 1, ~0ull, size))
		return -EINVAL;
	map = shell_arg_keyword(argv[0], "map", shell_arg(argc, argv, 3), maps);
	if (map < 0)
		return -EINVAL;
	*dev = map == 1;
	for (int i = 4; i < argc; i++) {
		if (shell_arg_flag(argv[i], "-f", NULL))
			*force = true;
		else if (!strcmp(argv[i], "4k"))
			*base_pages = true;
		else
			return shell_arg_unexpected(argv[0], argv[i]);
	}
	return 0;
}

static int cmd_memremap(int argc, char **argv)
{
	u64 start, size, tables = kernel_pgtable.nr_tables, memmap_ram = mm_stat(MM_VMEMMAP);
	struct nd_pfn_placement place;
	struct dev_pagemap *p = cmd_slot(0, true);
	bool dev = false, force = false, base_pages = false;
	struct nd_namespace_io *ns;

	if (memremap_args(argc, argv, &start, &size, &dev, &base_pages, &force))
		return -EINVAL;
	if (!p) {
		kprintf("memremap: all %d slots in use\n", CMD_PGMAPS);
		return -ENOSPC;
	}
	ns = pmem_namespace_of(start, size);
	if (!ns)
		return -EINVAL;
	*p = (struct dev_pagemap){ .range = { start, start + size - 1 },
				   .type = MEMORY_DEVICE_FS_DAX,
				   .flags = base_pages ? PGMAP_BASE_PAGES : 0,
				   .done = give_back };
	if (dev) {
		struct nd_pfn_layout l;
		const char *why;
		int err = nd_pfn_lay_out(start, size, PFN_MODE_PMEM, 2 * MiB, &l, &place, &why);
		if (err) {
			kprintf("memremap: map=dev: %s\n", why);
			return err;
		}
	}
	int err = claim_namespace(ns, p, force);
	if (err)
		return err;
	p->owner = ns;
	/* The range as given: memremap_pages refuses one not 2 MiB aligned at both ends. */
	err = memremap_pages(p, dev ? &place.altmap : NULL, NULL);
	if (err) {
		give_back(p);
		return err;
	}
	kprintf("memremap: [mem %#llx-%#llx] map=%s: vmemmap RAM %llu KiB, page tables +%llu KiB, altmap %llu KiB used + %llu KiB alignment of %llu KiB\n",
		start, (start + size - 1), dev ? "dev" : "mem",
		((mm_stat(MM_VMEMMAP) - memmap_ram) >> 10),
		((kernel_pgtable.nr_tables - tables) * 4),
		(dev ? PFN_PHYS(p->altmap.alloc) >> 10 : 0),
		(dev ? PFN_PHYS(p->altmap.align) >> 10 : 0),
		(dev ? PFN_PHYS(p->altmap.free) >> 10 : 0));
	return 0;
}
SHELL_COMMAND(SHELL_MEMORY, "memremap", cmd_memremap, "memremap <start> <size> mem|dev [4k] [-f]",
	      "give pmem of an unclaimed namespace ZONE_DEVICE struct pages (-f: take a raw one)");

static int cmd_memunmap(int argc, char **argv)
{
	u64 start;
	struct dev_pagemap *p;

	if (shell_arg_size(argv[0], "start", shell_arg(argc, argv, 1), 0, ~0ull, &start) ||
	    shell_args_max(argc, argv, 2))
		return -EINVAL;
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
	      "unregister a range added with memremap; its namespace comes back");
