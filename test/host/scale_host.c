/*
 * One scale run (issue 14 item 5): lay out a pfn device of a given size,
 * register it with memremap_pages() on the deferred path so that no struct
 * page is stored, and tear it down. The bench (bench/host/scale.c) times it
 * at 1 GiB .. 64 TiB; test_vmemmap_scale checks what it built. Both share
 * this file so that the figures and the checks come from the same calls.
 *
 * The device lies at HOST_SCALE_BASE, above all simulated physical memory:
 * a struct page store, a memset or any other touch of its pfns would make
 * phys_to_virt() abort, so a run that completes proves the map=dev vmemmap
 * and the direct map never touch the device's frames.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "host.h"
#include "memremap.h"
#include "mm.h"
#include "nd_pfn_layout.h"
#include "page_alloc.h"
#include "pgtable.h"
#include "sparse.h"

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

/* Resident host memory (VmRSS, shared memfd pages included), in KiB; 0 if unknown. */
static u64 rss_kib(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	unsigned long long size, resident = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%llu %llu", &size, &resident) != 2)
		resident = 0;
	fclose(f);
	return resident * (PAGE_SIZE / 1024);
}

/* Sections of [start, end) pfns with struct pages (SECTION_HAS_MEMMAP). */
static u64 sections_with_memmap(u64 start, u64 end)
{
	u64 n = 0;

	for (u64 s = start; s < end; s += PAGES_PER_SECTION) {
		const struct mem_section *ms = section_lookup(pfn_to_section_nr(s));

		n += ms && (ms->flags & SECTION_HAS_MEMMAP);
	}
	return n;
}

/*
 * Fault in the first page of every 2 MiB of RAM, outside the timed calls:
 * that is where the page allocator links a free block when it splits one
 * and where the vmemmap threads its reserved blocks, and the first store
 * to a page of the fake's memfd is a host page fault (about 150 us in a VM)
 * that a kernel on real RAM never takes. A read is enough: shmem maps the
 * page it allocates writable. Nothing is written, so the allocator's lists
 * stay as they are.
 */
static void prefault_ram(u64 base, u64 size)
{
	for (u64 pa = base; pa < base + size; pa += 2 * MiB)
		(void)*(volatile const u8 *)phys_to_virt(pa);
}

/* The layout is a few dozen instructions: time many and divide, or the clock is all we see. */
#define LAYOUT_REPS 1000

int host_scale_run(u64 size, bool map_dev, u64 ram_size, struct host_scale *r)
{
	static struct dev_pagemap pgmap;	/* static: memremap's table keeps a pointer */
	enum nd_pfn_mode mode = map_dev ? PFN_MODE_PMEM : PFN_MODE_RAM;
	struct nd_pfn_layout l;
	struct nd_pfn_placement p;
	struct memremap_stats st;
	const char *why = NULL;
	u64 t0, rss0;
	int err;

	memset(r, 0, sizeof(*r));
	r->size = size;
	r->map_dev = map_dev;
	host_mm_boot(HOST_SCALE_RAM_BASE, ram_size);
	prefault_ram(HOST_SCALE_RAM_BASE, ram_size);
	host_vmemmap_mirror = false;	/* the device is beyond simulated memory */
	memmap_init_deferred = true;	/* map everything, store no struct page */

	t0 = now_ns();
	for (int i = 0; i < LAYOUT_REPS; i++) {
		err = nd_pfn_lay_out(HOST_SCALE_BASE, size, mode, 2 * MiB, &l, &p, &why);
		if (err) {
			fprintf(stderr, "host_scale_run: layout of %llu GiB: %s\n", size >> 30,
				why ? why : "error");
			return err;
		}
	}
	r->layout_ns = (now_ns() - t0) / LAYOUT_REPS;
	r->range = p.range;
	r->altmap_free = p.altmap.free;

	r->before = host_mm_snap();
	rss0 = rss_kib();
	pgmap = (struct dev_pagemap){ .range = p.range, .type = MEMORY_DEVICE_FS_DAX,
				      .flags = PGMAP_DEFER_INIT, .name = "scale" };
	t0 = now_ns();
	err = memremap_pages(&pgmap, map_dev ? &p.altmap : NULL, &st);
	r->memremap_ns = now_ns() - t0;
	if (err)
		return err;
	r->rss_kib = rss_kib() - rss0;
	r->deferred = st.deferred;
	r->pages_init = st.pages_init;
	r->map_ns = st.map_cycles;	/* the host's arch_cycles counts nanoseconds */
	r->sparse_ns = st.sparse_cycles;
	r->pgtable_pages = st.pgtable_pages;
	r->vmemmap_ram = st.vmemmap_ram;
	r->sections = sections_with_memmap(PFN_DOWN(p.range.start), PFN_DOWN(p.range.end) + 1);
	r->section_tables = mm_stat(MM_SECTION_TABLES) - r->before.stat[MM_SECTION_TABLES];
	r->altmap_alloc = pgmap.altmap.alloc;
	r->altmap_align = pgmap.altmap.align;
	r->live = host_mm_snap();

	t0 = now_ns();
	err = memunmap_pages(&pgmap);
	r->memunmap_ns = now_ns() - t0;
	if (err)
		return err;
	r->after = host_mm_snap();
	r->left_memmap = sparse_range_has_memmap(PFN_DOWN(p.range.start), PFN_DOWN(range_len(&p.range)));
	memmap_init_deferred = false;
	return 0;
}
