/*
 * A booted machine for mm host tests: memblock RAM, the page allocator, and
 * kernel page tables whose table pages come from it. Its own file so only
 * the tests that call host_mm_boot() link mm/ (others fake parts of it).
 */
#include <stdio.h>
#include <stdlib.h>

#include "host.h"
#include "memblock.h"
#include "memremap.h"
#include "mm.h"
#include "nd_pfn_layout.h"
#include "page_alloc.h"
#include "pgtable.h"
#include "sparse.h"

static void die(const char *what)
{
	fprintf(stderr, "host_mm_boot: %s failed\n", what);
	exit(2);
}

static u64 host_table_alloc(void)
{
	if (mm_alloc_should_fail())
		return 0;
	return page_alloc_zeroed(0);
}

static void host_table_free(u64 pa)
{
	page_free(pa, 0);
}

void host_mm_boot(u64 ram_base, u64 ram_size)
{
	host_mm_reboot(ram_base, ram_size, 0, 0);
}

void host_mm_reboot(u64 ram_base, u64 ram_size, u64 keep, u64 size)
{
	host_phys_discard_except(keep, size);
	memblock_reset();
	page_alloc_reset();
	sparse_reset();
	memremap_reset();
	/* Host tests read struct pages straight away; test_memmap_defer turns deferral on. */
	memmap_init_deferred = false;
	host_vmemmap_mirror = true;
	mm_stats_reset();
	host_cpu_defaults();
	if (memblock_add(ram_base, ram_size))
		die("memblock_add");
	page_alloc_init();
	kernel_pgtable = (struct pgtable){
		.alloc_table = host_table_alloc,
		.free_table = host_table_free,
		.max_leaf = PG_LEVEL_1G,
		.nx = true,
	};
	if (pgtable_init(&kernel_pgtable))
		die("pgtable_init");
}

static const char *const mm_stat_names[] = {
	[MM_VMEMMAP] = "vmemmap",
	[MM_VMEMMAP_SHARED] = "vmemmap shared",
	[MM_SECTION_TABLES] = "section tables",
	[MM_DEVICE_MAPPED] = "device mapped",
	[MM_ALTMAP_USED] = "altmap used",
	[MM_ALTMAP_WASTE] = "altmap waste",
	[MM_MEMMAP_PENDING] = "memmap pending",
};
_Static_assert(sizeof(mm_stat_names) / sizeof(mm_stat_names[0]) == MM_NR_STATS,
	       "a name for every mm_stat counter");

struct host_mm_snap host_mm_snap(void)
{
	struct page_alloc_stats st;
	struct host_mm_snap s;

	page_alloc_stats(&st);
	s.free_pages = st.free_pages;
	s.tables = kernel_pgtable.nr_tables;
	for (int i = 0; i < MM_NR_STATS; i++)
		s.stat[i] = mm_stat(i);
	return s;
}

const char *host_mm_snap_diff(struct host_mm_snap a, struct host_mm_snap b)
{
	static char buf[96];

	buf[0] = '\0';
	if (a.free_pages != b.free_pages)
		snprintf(buf, sizeof(buf), "free RAM pages: %llu -> %llu", a.free_pages, b.free_pages);
	else if (a.tables != b.tables)
		snprintf(buf, sizeof(buf), "page-table pages: %llu -> %llu", a.tables, b.tables);
	else
		for (int i = 0; i < MM_NR_STATS; i++)
			if (a.stat[i] != b.stat[i]) {
				snprintf(buf, sizeof(buf), "%s: %llu -> %llu bytes", mm_stat_names[i],
					 a.stat[i], b.stat[i]);
				break;
			}
	return buf;
}

struct vmem_altmap host_pfn_dev_altmap(u64 start, u64 size)
{
	struct nd_pfn_layout l;
	struct nd_pfn_placement p;
	const char *why = NULL;

	if (nd_pfn_lay_out(start, size, PFN_MODE_PMEM, 2 * MiB, &l, &p, &why)) {
		fprintf(stderr, "host_pfn_dev_altmap(%#llx, %#llx): %s\n", start, size,
			why ? why : "no layout");
		abort();
	}
	return p.altmap;
}
