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
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The layout is a few dozen instructions: time many and divide, or the clock is all we see. */
#define LAYOUT_REPS 1000

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 median(u64 *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

/* One registration and teardown of the laid-out device; the figures of it in *r. */
static int register_once(const struct nd_pfn_placement *p, bool map_dev, struct host_scale *r,
			 u64 t[4])
{
	static struct dev_pagemap pgmap;	/* static: memremap's table keeps a pointer */
	struct vmem_altmap altmap = p->altmap;	/* a fresh copy: memremap checks alloc == 0 */
	struct memremap_stats st;
	u64 t0, rss0 = rss_kib();
	int err;

	pgmap = (struct dev_pagemap){ .range = p->range, .type = MEMORY_DEVICE_FS_DAX,
				      .flags = PGMAP_DEFER_INIT, .name = "scale" };
	u64 reads = host_pte_reads;
	t0 = now_ns();
	err = memremap_pages(&pgmap, map_dev ? &altmap : NULL, &st);
	t[0] = now_ns() - t0;
	r->memremap_pte_reads = host_pte_reads - reads;
	if (err)
		return err;
	t[1] = st.map_cycles;	/* the host's arch_cycles counts nanoseconds */
	t[2] = st.sparse_cycles;
	r->rss_kib = MAX(r->rss_kib, rss_kib() - rss0);
	r->deferred = st.deferred;
	r->pages_init = st.pages_init;
	r->pgtable_pages = st.pgtable_pages;
	r->vmemmap_ram = st.vmemmap_ram;
	r->sections = sections_with_memmap(PFN_DOWN(p->range.start), PFN_DOWN(p->range.end) + 1);
	r->lazy_sections = (pgmap.lazy.end_pfn - pgmap.lazy.first_pfn) / PAGES_PER_SECTION;
	r->section_tables = mm_stat(MM_SECTION_TABLES) - r->before.stat[MM_SECTION_TABLES];
	r->altmap_alloc = pgmap.altmap.alloc;
	r->altmap_align = pgmap.altmap.align;
	r->live = host_mm_snap();

	reads = host_pte_reads;
	t0 = now_ns();
	err = memunmap_pages(&pgmap);
	t[3] = now_ns() - t0;
	r->memunmap_pte_reads = host_pte_reads - reads;
	return err;
}

int host_scale_run(u64 size, bool map_dev, u64 ram_size, unsigned int reps, struct host_scale *r)
{
	enum nd_pfn_mode mode = map_dev ? PFN_MODE_PMEM : PFN_MODE_RAM;
	u64 t[HOST_SCALE_MAX_REPS][4], col[HOST_SCALE_MAX_REPS];
	struct nd_pfn_layout l;
	struct nd_pfn_placement p;
	const char *why = NULL;
	u64 t0;
	int err;

	memset(r, 0, sizeof(*r));
	r->size = size;
	r->map_dev = map_dev;
	if (reps > HOST_SCALE_MAX_REPS)
		return -EINVAL;
	host_mm_boot(HOST_SCALE_RAM_BASE, ram_size);
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

	/*
	 * The first registration after boot is the cold one: every RAM page
	 * it takes (tables, section table, map=mem's blocks) is one this
	 * process never touched, and the first touch of a page of the fake's
	 * memfd is a host page fault, tens of microseconds in a VM, that a
	 * kernel on its own RAM never takes. The warm ones repeat it in the
	 * same boot, on the pages the allocator hands out again.
	 */
	r->before = host_mm_snap();
	for (unsigned int i = 0; i <= reps; i++) {
		err = register_once(&p, map_dev, r, i ? t[i - 1] : r->cold_ns);
		if (err)
			return err;
		r->after = host_mm_snap();
		if (host_mm_snap_diff(r->before, r->after)[0])
			break;	/* the caller sees it in after */
	}
	u64 *field[4] = { &r->memremap_ns, &r->map_ns, &r->sparse_ns, &r->memunmap_ns };
	for (int k = 0; k < 4; k++) {
		for (unsigned int i = 0; i < reps; i++)
			col[i] = t[i][k];
		*field[k] = reps ? median(col, reps) : r->cold_ns[k];
	}
	r->left_memmap = sparse_range_has_memmap(PFN_DOWN(p.range.start), PFN_DOWN(range_len(&p.range)));
	memmap_init_deferred = false;
	return 0;
}
