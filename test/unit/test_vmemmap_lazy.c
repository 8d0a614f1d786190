/*
 * Host tests: the lazy vmemmap of a deferred map=dev registration
 * (mm/vmemmap.c vmemmap_populate_lazy, mm/sparse.c sparse_add_range_lazy).
 * Registering maps the edge sections as before but leaves every whole
 * section without its PMD leaf and section bits; a user of one of its
 * pages maps it, at the altmap block the eager path would have used, and
 * makes it valid. The page tables above the missing leaves outlive a
 * neighbour's teardown that empties them, and the section table chunk
 * outlives its other ranges; a teardown with some sections never
 * populated leaves nothing behind. Inside a reserved range (a region's)
 * such a registration takes no RAM at all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "direct_map.h"
#include "host.h"
#include "memlayout.h"
#include "memremap.h"
#include "mm.h"
#include "pfn_t.h"
#include "pgtable.h"
#include "sparse.h"

#define RAM_BASE (16 * MiB)
#define RAM_SIZE (944 * MiB)
#define DEV (4 * GiB)
#define SECTION_BYTES (PAGES_PER_SECTION * PAGE_SIZE)
#define PFN(pa) PFN_DOWN(pa)

static int setup(void **state)
{
	(void)state;
	host_mm_boot(RAM_BASE, RAM_SIZE);
	assert_int_equal(sparse_init_ram(), 0);
	host_console_reset();
	memmap_init_deferred = true;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	memmap_init_deferred = false;
	host_vmemmap_mirror = true;
	return 0;
}

/* The frame the vmemmap maps pfn's struct page to, or 0 if unmapped. */
static u64 memmap_pa(u64 pfn)
{
	u64 pa;
	enum pg_level l;

	return host_walk(memmap_va(pfn), &pa, &l, NULL) ? pa : 0;
}

static int register_pgmap(struct dev_pagemap *pgmap, u64 start, u64 size, bool defer,
			  struct memremap_stats *st)
{
	struct vmem_altmap a = host_pfn_dev_altmap(start, size);

	*pgmap = (struct dev_pagemap){ .range = { start, start + size - 1 },
				       .type = MEMORY_DEVICE_FS_DAX,
				       .flags = defer ? PGMAP_DEFER_INIT : 0 };
	return memremap_pages(pgmap, &a, st);
}

/* A range from the middle of one section to the middle of another: 2 edges, 4 whole sections. */
#define START (DEV + 64 * MiB)
#define SIZE (64 * MiB + 4 * SECTION_BYTES + 32 * MiB)

static void lazy_registration_maps_only_the_edges(void **state)
{
	static struct dev_pagemap pgmap;
	struct memremap_stats st;
	struct host_mm_snap before = host_mm_snap();
	u64 first = PFN(START), end = PFN(START + SIZE);
	u64 whole = ALIGN_UP(first, PAGES_PER_SECTION), whole_end = ALIGN_DOWN(end, PAGES_PER_SECTION);
	u64 eager_pa[4];
	struct vmem_altmap eager;

	(void)state;
	/* Where the eager path puts each whole section's memmap. */
	assert_int_equal(register_pgmap(&pgmap, START, SIZE, false, &st), 0);
	assert_false(st.deferred);
	eager = pgmap.altmap;
	for (int k = 0; k < 4; k++)
		eager_pa[k] = memmap_pa(whole + k * PAGES_PER_SECTION);
	assert_int_equal(memunmap_pages(&pgmap), 0);
	assert_mm_snap(host_mm_snap(), before);

	assert_int_equal(register_pgmap(&pgmap, START, SIZE, true, &st), 0);
	assert_true(st.deferred);
	assert_int_equal(pgmap.lazy.first_pfn, whole);
	assert_int_equal(pgmap.lazy.end_pfn, whole_end);
	assert_int_equal(whole_end - whole, 4 * PAGES_PER_SECTION);
	/* The same altmap blocks taken, none mapped yet. */
	assert_memory_equal(&pgmap.altmap, &eager, sizeof(eager));
	for (u64 s = whole; s < whole_end; s += PAGES_PER_SECTION) {
		assert_int_equal(memmap_pa(s), 0);
		assert_false(pfn_valid(s));
		assert_false(pfn_valid(s + PAGES_PER_SECTION - 1));
	}
	/* The edges: mapped (4 KiB pages in RAM) and valid. */
	assert_true(pfn_valid(first) && pfn_valid(end - 1));
	assert_true(memmap_pa(first) && memmap_pa(end - 1));

	/* A user of the third whole section maps it where the eager path did. */
	u64 pfn = whole + 2 * PAGES_PER_SECTION + 99;
	struct page *page = pfn_t_to_page(pfn_to_pfn_t(pfn, PFN_DEV | PFN_MAP));
	assert_non_null(page);
	assert_ptr_equal(page->pgmap, &pgmap);
	assert_true(pfn_valid(pfn));
	assert_int_equal(memmap_pa(whole + 2 * PAGES_PER_SECTION), eager_pa[2]);
	assert_int_equal(memmap_pa(whole + PAGES_PER_SECTION), 0);	/* its neighbours still wait */
	assert_false(pfn_valid(whole + 3 * PAGES_PER_SECTION));

	/* Torn down with three whole sections never mapped: nothing left behind. */
	assert_int_equal(memunmap_pages(&pgmap), 0);
	assert_false(pfn_valid(pfn));
	assert_mm_snap(host_mm_snap(), before);
}

/*
 * A lazy range and an eager neighbour share the vmemmap's PD table (64 GiB
 * of memory) and a section table chunk (16 GiB), and nothing else does:
 * above simulated memory, where the host has no RAM (so through the
 * sparse calls, which store no struct page). The neighbour's teardown
 * unmaps the only leaves in that PD: the PD stays, since the lazy range
 * maps into it later, and so does the chunk. The lazy range's own
 * teardown then leaves the tables as they were before either came.
 */
static void lazy_tables_outlive_a_neighbour(void **state)
{
	const u64 base = HOST_PHYS_SIZE, lazy_pfn = PFN(base);
	const u64 eager_pfn = PFN(base + 8 * SECTION_BYTES), nr = 2 * PAGES_PER_SECTION;
	struct vmem_altmap la = host_pfn_dev_altmap(base, 2 * SECTION_BYTES);
	struct vmem_altmap ea = host_pfn_dev_altmap(base + 8 * SECTION_BYTES, 2 * SECTION_BYTES);
	struct vmemmap_lazy lazy;
	u64 tables = kernel_pgtable.nr_tables;

	(void)state;
	host_vmemmap_mirror = false;	/* nothing reads these struct pages */
	assert_null(pgtable_entry(&kernel_pgtable, memmap_va(lazy_pfn), PG_LEVEL_2M));
	assert_null(section_lookup(pfn_to_section_nr(lazy_pfn)));
	assert_int_equal(sparse_add_range_lazy(lazy_pfn, nr, &la, &lazy), 0);
	assert_int_equal(lazy.first_pfn, lazy_pfn);
	assert_int_equal(lazy.end_pfn, lazy_pfn + nr);
	assert_int_equal(sparse_add_range(eager_pfn, nr, &ea, 0, true), 0);
	assert_true(pfn_valid(eager_pfn));
	assert_false(pfn_valid(lazy_pfn));
	sparse_remove_range(eager_pfn, nr, &ea, 0);
	assert_false(pfn_valid(eager_pfn));

	/* What the lazy range maps into is still there. */
	pte_t *pmd = pgtable_entry(&kernel_pgtable, memmap_va(lazy_pfn), PG_LEVEL_2M);
	assert_non_null(pmd);
	assert_false(arch_pte_is_present(PG_LEVEL_2M, *pmd));
	assert_non_null(section_lookup(pfn_to_section_nr(lazy_pfn)));
	sparse_populate_lazy(&lazy, lazy_pfn + PAGES_PER_SECTION + 5);
	assert_true(pfn_valid(lazy_pfn + PAGES_PER_SECTION));
	assert_false(pfn_valid(lazy_pfn));
	pmd = pgtable_entry(&kernel_pgtable, memmap_va(lazy_pfn + PAGES_PER_SECTION), PG_LEVEL_2M);
	assert_true(arch_pte_is_leaf(PG_LEVEL_2M, *pmd));
	assert_int_equal(arch_pte_leaf_pa(PG_LEVEL_2M, *pmd),
			 PFN_PHYS(lazy.block_pfn + PFN_DOWN(PMD_SIZE)));

	/* One section populated, one never: the teardown frees every table and the chunk. */
	sparse_remove_range(lazy_pfn, nr, &la, 0);
	assert_false(pfn_valid(lazy_pfn + PAGES_PER_SECTION));
	assert_int_equal(kernel_pgtable.nr_tables, tables);
	assert_null(pgtable_entry(&kernel_pgtable, memmap_va(lazy_pfn), PG_LEVEL_2M));
	assert_null(section_lookup(pfn_to_section_nr(lazy_pfn)));
}

/*
 * A region reserves its section table chunks and vmemmap page tables at
 * boot (sparse_reserve_range): a lazy registration inside it then takes no
 * RAM at all, and its teardown leaves the reserved tables in place.
 */
static void reserved_region_registration_allocates_nothing(void **state)
{
	static struct dev_pagemap pgmap;
	struct memremap_stats st;

	(void)state;
	assert_int_equal(sparse_reserve_range(PFN(DEV), PFN(8 * GiB)), 0);
	assert_int_equal(direct_map_add(DEV, 8 * GiB), 0);	/* the pmem driver's, as at probe */
	struct host_mm_snap before = host_mm_snap();
	u64 tables = kernel_pgtable.nr_tables, sections = mm_stat(MM_SECTION_TABLES);

	assert_int_equal(register_pgmap(&pgmap, DEV + SECTION_BYTES, 6 * SECTION_BYTES, true, &st), 0);
	assert_true(st.deferred);
	assert_int_equal(st.pgtable_pages, 0);
	assert_int_equal(kernel_pgtable.nr_tables, tables);
	assert_int_equal(mm_stat(MM_SECTION_TABLES), sections);
	assert_int_equal(mm_stat(MM_VMEMMAP), before.stat[MM_VMEMMAP]);
	memmap_ready_range(&pgmap, PFN(DEV + SECTION_BYTES), PFN(6 * SECTION_BYTES));
	assert_ptr_equal(pfn_to_page(PFN(DEV + 3 * SECTION_BYTES) + 7)->pgmap, &pgmap);
	assert_int_equal(kernel_pgtable.nr_tables, tables);	/* its leaves went into reserved PDs */
	assert_int_equal(memunmap_pages(&pgmap), 0);
	assert_int_equal(kernel_pgtable.nr_tables, tables);	/* and the PDs stay */
	assert_non_null(pgtable_entry(&kernel_pgtable, memmap_va(PFN(DEV + SECTION_BYTES)), PG_LEVEL_2M));
	assert_false(pfn_valid(PFN(DEV + 3 * SECTION_BYTES)));
	assert_mm_snap(host_mm_snap(), before);
}

/* Without deferral (memmap_init=sync) a PGMAP_DEFER_INIT registration maps everything at once. */
static void sync_init_maps_every_section(void **state)
{
	static struct dev_pagemap pgmap;
	struct memremap_stats st;
	struct host_mm_snap before = host_mm_snap();

	(void)state;
	memmap_init_deferred = false;
	assert_int_equal(register_pgmap(&pgmap, START, SIZE, true, &st), 0);
	assert_false(st.deferred);
	assert_int_equal(pgmap.lazy.end_pfn, pgmap.lazy.first_pfn);
	for (u64 pfn = PFN(START); pfn < PFN(START + SIZE); pfn += PAGES_PER_SECTION / 2) {
		assert_true(pfn_valid(pfn));
		assert_true(memmap_pa(pfn) != 0);
	}
	assert_int_equal(memunmap_pages(&pgmap), 0);
	assert_mm_snap(host_mm_snap(), before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(lazy_registration_maps_only_the_edges, setup, teardown),
		cmocka_unit_test_setup_teardown(lazy_tables_outlive_a_neighbour, setup, teardown),
		cmocka_unit_test_setup_teardown(reserved_region_registration_allocates_nothing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(sync_init_maps_every_section, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
