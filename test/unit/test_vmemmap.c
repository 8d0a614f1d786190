/*
 * Host tests: the sparse vmemmap on real page tables in simulated memory.
 * Every check of where a struct page lives uses host_walk (independent of
 * mm/pgtable.c), and struct pages are read and written through the vmemmap
 * window, so a store lands where the page tables point.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "host.h"
#include "memblock.h"
#include "memlayout.h"
#include "memremap.h"
#include "mm.h"
#include "page_alloc.h"
#include "sparse.h"

#define RAM_BASE (16 * MiB)
#define RAM_END (1 * GiB)
#define DEV (4 * GiB)			/* device ranges start here */
#define PFN(pa) PFN_DOWN(pa)

static int setup(void **state)
{
	(void)state;
	host_mm_boot(RAM_BASE, RAM_END - RAM_BASE);
	return 0;
}

/*
 * Every 4 KiB of the memmap of [start, end) resolves to [lo, hi) through a
 * read-write, no-execute leaf of `level` (0: any); returns the number of
 * distinct 2 MiB leaves.
 */
static u64 check_memmap(u64 start, u64 end, u64 lo, u64 hi, enum pg_level level)
{
	u64 leaves = 0;

	for (u64 va = memmap_va(start); va < memmap_va(end); va += PAGE_SIZE) {
		u64 pa, prot;
		enum pg_level l;

		if (!host_walk(va, &pa, &l, &prot))
			fail_msg("vmemmap %#llx (pfn %#llx) unmapped", va,
				 ((va - VMEMMAP_BASE) / 64));
		if (prot != PROT_KERNEL_RW)
			fail_msg("vmemmap %#llx has protection %#llx, want RW", va, prot);
		if (pa < lo || pa + PAGE_SIZE > hi)
			fail_msg("vmemmap %#llx -> %#llx outside [%#llx, %#llx)", va, pa, lo, hi);
		if (level && l != level)
			fail_msg("vmemmap %#llx mapped at level %d, want %d", va, l, level);
		leaves += l == PG_LEVEL_2M && IS_ALIGNED(va, PMD_SIZE);
	}
	return leaves;
}

static void assert_unmapped(u64 start, u64 end)
{
	for (u64 va = memmap_va(start); va < memmap_va(end); va += PAGE_SIZE) {
		u64 pa;
		enum pg_level l;

		assert_false(host_walk(va, &pa, &l, NULL));
	}
}

/* Whole sections get 2 MiB leaves; the partial edges 4 KiB pages. */
static void vmemmap_blocks_inside_pages_at_edges(void **state)
{
	u64 start = PFN(DEV + 64 * MiB), end = PFN(DEV + 448 * MiB);	/* 0.5 + 2 + 0.5 sections */
	struct host_mm_snap before = host_mm_snap();

	(void)state;
	assert_int_equal(vmemmap_populate(start, end - start, NULL, 0), 0);
	check_memmap(start, PFN(DEV + 128 * MiB), RAM_BASE, RAM_END, PG_LEVEL_4K);
	assert_int_equal(check_memmap(PFN(DEV + 128 * MiB), PFN(DEV + 384 * MiB), RAM_BASE, RAM_END,
				      PG_LEVEL_2M), 2);
	check_memmap(PFN(DEV + 384 * MiB), end, RAM_BASE, RAM_END, PG_LEVEL_4K);
	assert_unmapped(start - PAGES_PER_SUBSECTION, start);
	assert_unmapped(end, end + PAGES_PER_SUBSECTION);
	/* 2 blocks + 2 x 32 subsections x 32 KiB; PDPT, PD and 2 PTs. */
	assert_int_equal(mm_stat(MM_VMEMMAP) - before.stat[MM_VMEMMAP], 2 * PMD_SIZE + 64 * 32 * KiB);
	assert_int_equal(kernel_pgtable.nr_tables - before.tables, 4);
	/* Stores through the window land in RAM where the tables point. */
	struct page *p = pfn_to_page(start + 5);
	u64 pa;
	enum pg_level l;
	p->refcount = 0x1234abcd;
	assert_true(host_walk((u64)memmap_va(start + 5), &pa, &l, NULL));
	assert_int_equal(((struct page *)phys_to_virt(pa))->refcount, 0x1234abcd);
	vmemmap_free(start, end - start, NULL, 0);
	assert_unmapped(start, end);
	assert_mm_snap(host_mm_snap(), before);
}

static void vmemmap_base_pages_when_asked_or_without_pse(void **state)
{
	u64 start = PFN(DEV), end = PFN(DEV + 256 * MiB);
	struct vmem_altmap a = { .base_pfn = start, .end_pfn = end - 1, .free = 4096 };
	struct host_mm_snap before = host_mm_snap();

	(void)state;
	assert_int_equal(vmemmap_populate(start, end - start, NULL, VMEMMAP_BASE_PAGES), 0);
	check_memmap(start, end, RAM_BASE, RAM_END, PG_LEVEL_4K);
	vmemmap_free(start, end - start, NULL, 0);
	assert_mm_snap(host_mm_snap(), before);
	host_set_leaf_allowed(PG_LEVEL_2M, false);
	assert_int_equal(vmemmap_populate(start, end - start, &a, 0), -EOPNOTSUPP);
	assert_true(host_console_has("the CPU has no PSE"));
	assert_int_equal(a.alloc + a.align, 0);
	assert_int_equal(vmemmap_populate(start, end - start, NULL, 0), 0);
	check_memmap(start, end, RAM_BASE, RAM_END, PG_LEVEL_4K);
	vmemmap_free(start, end - start, NULL, 0);
	assert_mm_snap(host_mm_snap(), before);
	host_set_leaf_allowed(PG_LEVEL_2M, true);
}

static void vmemmap_altmap_blocks_only_for_whole_sections(void **state)
{
	/* [DEV, DEV + 1 GiB - 2 MiB): FACTS §2.3's second example. */
	u64 start = PFN(DEV), end = PFN(DEV + 1 * GiB - 2 * MiB);
	struct vmem_altmap a = { .base_pfn = start, .end_pfn = end - 1, .reserve = 2, .free = 4094 };
	struct host_mm_snap before = host_mm_snap();

	(void)state;
	assert_int_equal(vmemmap_populate(start, end - start, &a, 0), 0);
	assert_int_equal(a.alloc, 7 * 512);
	assert_int_equal(a.align, 510);
	assert_int_equal(a.alloc + a.align, a.free);
	u64 lo = PFN_PHYS(start + a.reserve), hi = PFN_PHYS(start + a.reserve + a.free);
	assert_int_equal(check_memmap(start, PFN(DEV + 896 * MiB), lo, hi, PG_LEVEL_2M), 7);
	/* The last, partial section: 63 subsections of 4 KiB pages from RAM. */
	check_memmap(PFN(DEV + 896 * MiB), end, RAM_BASE, RAM_END, PG_LEVEL_4K);
	assert_int_equal(mm_stat(MM_VMEMMAP) - before.stat[MM_VMEMMAP], 63 * 32 * KiB);
	vmemmap_free(start, end - start, &a, 0);
	assert_mm_snap(host_mm_snap(), before);
	assert_unmapped(start, end);
}

static void vmemmap_altmap_too_small_maps_nothing(void **state)
{
	u64 start = PFN(DEV), end = PFN(DEV + 1 * GiB);
	struct vmem_altmap a = { .base_pfn = start, .end_pfn = end - 1, .reserve = 2, .free = 0x11fd };
	struct host_mm_snap before = host_mm_snap();

	(void)state;
	assert_int_equal(vmemmap_populate(start, end - start, &a, 0), -ENOMEM);
	assert_true(host_console_has("altmap too small"));
	assert_true(host_console_has("8 blocks of 2 MiB needed, 7 fit in its 4605 free pages"));
	assert_int_equal(a.alloc + a.align, 0);
	assert_unmapped(start, end);
	assert_mm_snap(host_mm_snap(), before);
}

static void vmemmap_refuses_populated_parts(void **state)
{
	u64 start = PFN(DEV), sec = PAGES_PER_SECTION;
	struct host_mm_snap before = host_mm_snap();

	(void)state;
	assert_int_equal(vmemmap_populate(start, sec, NULL, 0), 0);
	assert_int_equal(vmemmap_populate(start + 512, 512, NULL, 0), -EEXIST);
	assert_int_equal(vmemmap_populate(start + sec, 1024, NULL, 0), 0);
	assert_int_equal(vmemmap_populate(start + sec + 512, 1024, NULL, 0), -EEXIST);
	assert_int_equal(vmemmap_populate(start, 100, NULL, 0), -EINVAL);
	vmemmap_free(start + sec, 1024, NULL, 0);
	vmemmap_free(start, sec, NULL, 0);
	assert_mm_snap(host_mm_snap(), before);
}

/* Every ENOMEM in populate (tables, blocks, runs) leaves everything as it was. */
static void vmemmap_every_enomem_changes_nothing(void **state)
{
	u64 start = PFN(DEV + 126 * MiB), end = PFN(DEV + 1 * GiB + 4 * MiB);
	struct host_mm_snap before = host_mm_snap();
	u64 n;

	(void)state;
	for (n = 1;; n++) {
		mm_fail_nth = n;
		int err = vmemmap_populate(start, end - start, NULL, 0);
		if (!err)
			break;
		assert_int_equal(err, -ENOMEM);
		assert_mm_snap(host_mm_snap(), before);
		assert_unmapped(start, end);
	}
	mm_fail_nth = 0;
	assert_true(n > 10);
	check_memmap(start, end, RAM_BASE, RAM_END, 0);
	vmemmap_free(start, end - start, NULL, 0);
	assert_mm_snap(host_mm_snap(), before);
}

/*
 * Whole sections go a PD table (64 GiB of memory) at a time: a device
 * across the 64 GiB line gets its altmap blocks in section order on both
 * sides, as one altmap_alloc_block per section would place them.
 */
static void vmemmap_altmap_blocks_in_order_across_pd_tables(void **state)
{
	u64 start = PFN(64 * GiB - 512 * MiB), end = PFN(64 * GiB + 512 * MiB);
	struct vmem_altmap a = { .base_pfn = start, .end_pfn = end - 1, .reserve = 2, .free = 8190 };
	struct vmem_altmap one = a;
	struct host_mm_snap before = host_mm_snap();
	u64 sec = PAGES_PER_SECTION;

	(void)state;
	assert_int_equal(vmemmap_populate(start, end - start, &a, 0), 0);
	for (u64 s = start; s < end; s += sec) {
		u64 pfn, pa;
		enum pg_level l;

		assert_int_equal(altmap_alloc_block(&one, PMD_SIZE, &pfn), 0);
		assert_true(host_walk(memmap_va(s), &pa, &l, NULL));
		assert_int_equal(l, PG_LEVEL_2M);
		assert_int_equal(pa, PFN_PHYS(pfn));
	}
	assert_memory_equal(&a, &one, sizeof(a));
	/* A section in the middle of the next PD table's run taken: the whole range is refused. */
	vmemmap_free(start, end - start, &a, 0);
	altmap_reset(&a);
	assert_int_equal(vmemmap_populate(start + 6 * sec, sec, NULL, 0), 0);
	struct host_mm_snap mid = host_mm_snap();
	assert_int_equal(vmemmap_populate(start, end - start, &a, 0), -EEXIST);
	assert_int_equal(a.alloc + a.align, 0);
	assert_mm_snap(host_mm_snap(), mid);
	vmemmap_free(start + 6 * sec, sec, NULL, 0);
	assert_mm_snap(host_mm_snap(), before);
	assert_unmapped(start, end);
}

/*
 * With an altmap too: a RAM shortfall (tables, the partial section's runs)
 * leaves the altmap untouched, and the success takes its blocks as 7 calls
 * of altmap_alloc_block would.
 */
static void vmemmap_altmap_enomem_leaves_altmap(void **state)
{
	u64 start = PFN(DEV), end = PFN(DEV + 1 * GiB - 2 * MiB);
	struct vmem_altmap a = { .base_pfn = start, .end_pfn = end - 1, .reserve = 2, .free = 4094 };
	struct vmem_altmap want = a, fresh = a;
	struct host_mm_snap before = host_mm_snap();
	u64 n, pfn;

	(void)state;
	for (int i = 0; i < 7; i++)
		assert_int_equal(altmap_alloc_block(&want, PMD_SIZE, &pfn), 0);
	for (n = 1;; n++) {
		mm_fail_nth = n;
		int err = vmemmap_populate(start, end - start, &a, 0);
		if (!err)
			break;
		assert_int_equal(err, -ENOMEM);
		assert_memory_equal(&a, &fresh, sizeof(a));
		assert_mm_snap(host_mm_snap(), before);
		assert_unmapped(start, end);
	}
	mm_fail_nth = 0;
	assert_true(n > 3);
	assert_memory_equal(&a, &want, sizeof(a));
	vmemmap_free(start, end - start, &a, 0);
	assert_mm_snap(host_mm_snap(), before);
}

/* sparse: subsection maps, section flags, pfn_valid, chunk pages on demand. */
static void sparse_tracks_subsections(void **state)
{
	u64 a = PFN(DEV + 2 * MiB), b = PFN(DEV + 64 * MiB);
	struct host_mm_snap before = host_mm_snap();

	(void)state;
	assert_false(pfn_valid(a));
	assert_null(section_lookup(pfn_to_section_nr(a)));
	assert_int_equal(sparse_add_range(a, 512 * 3, NULL, 0, true), 0);
	assert_int_equal(sparse_add_range(b, 512, NULL, 0, false), 0);
	struct mem_section *ms = section_lookup(pfn_to_section_nr(a));
	assert_non_null(ms);
	assert_int_equal(ms->memmap_map, 0xeULL | (1ULL << 32));
	assert_int_equal(ms->device_map, 0xeULL);
	assert_int_equal(ms->flags, SECTION_PRESENT | SECTION_HAS_MEMMAP | SECTION_ONLINE | SECTION_DEVICE);
	assert_true(pfn_valid(a));
	assert_true(pfn_valid(a + 512 * 3 - 1));
	assert_false(pfn_valid(a + 512 * 3));
	assert_false(pfn_valid(a - 1));
	assert_int_equal(sparse_add_range(a + 512, 512, NULL, 0, true), -EEXIST);
	assert_int_equal(sparse_add_range(a + 1, 512, NULL, 0, true), -EINVAL);
	assert_int_equal(sparse_add_range(MAX_PFN - 512, 1024, NULL, 0, true), -EINVAL);
	assert_int_equal(mm_stat(MM_SECTION_TABLES) - before.stat[MM_SECTION_TABLES], PAGE_SIZE);
	sparse_remove_range(a, 512 * 3, NULL, 0);
	assert_int_equal(ms->flags, SECTION_PRESENT | SECTION_HAS_MEMMAP | SECTION_ONLINE);
	sparse_remove_range(b, 512, NULL, 0);
	assert_null(section_lookup(pfn_to_section_nr(a)));
	assert_mm_snap(host_mm_snap(), before);
}

static void sparse_enomem_on_section_table(void **state)
{
	struct host_mm_snap before = host_mm_snap();

	(void)state;
	mm_fail_nth = 1;
	assert_int_equal(sparse_add_range(PFN(DEV), 512, NULL, 0, true), -ENOMEM);
	assert_int_equal(mm_fail_hits, 1);
	assert_false(pfn_valid(PFN(DEV)));
	assert_mm_snap(host_mm_snap(), before);
}

/* RAM at boot: NORMAL struct pages, holes reserved, RAM's own vmemmap. */
static void sparse_init_ram_covers_ram(void **state)
{
	(void)state;
	host_mm_boot(RAM_BASE, 512 * MiB + 1 * MiB);	/* ends inside a subsection */
	assert_int_equal(sparse_init_ram(), 0);
	u64 first = PFN(RAM_BASE), last = PFN(RAM_BASE + 513 * MiB) - 1;
	assert_true(pfn_valid(first));
	assert_true(pfn_valid(last));
	assert_true(pfn_valid(last + 1));	/* the rest of its 2 MiB subsection */
	assert_false(pfn_valid(PFN(RAM_BASE + 514 * MiB)));
	assert_false(pfn_valid(0));
	assert_int_equal(page_zone(pfn_to_page(first)), ZONE_NORMAL);
	assert_int_equal(pfn_to_page(first)->flags & PG_reserved, 0);
	assert_int_equal(pfn_to_page(last)->flags & PG_reserved, 0);
	assert_int_equal(pfn_to_page(last + 1)->flags & PG_reserved, PG_reserved);
	assert_null(pfn_to_page(first)->pgmap);
	/* [16M, 530M): sections 0 and 4 partial (56 + 9 subsections), 1-3 whole. */
	assert_int_equal(mm_stat(MM_VMEMMAP), 3 * PMD_SIZE + (56 + 9) * 32 * KiB);
	check_memmap(first, last, RAM_BASE, RAM_BASE + 513 * MiB, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(vmemmap_blocks_inside_pages_at_edges, setup),
		cmocka_unit_test_setup(vmemmap_base_pages_when_asked_or_without_pse, setup),
		cmocka_unit_test_setup(vmemmap_altmap_blocks_only_for_whole_sections, setup),
		cmocka_unit_test_setup(vmemmap_altmap_too_small_maps_nothing, setup),
		cmocka_unit_test_setup(vmemmap_refuses_populated_parts, setup),
		cmocka_unit_test_setup(vmemmap_every_enomem_changes_nothing, setup),
		cmocka_unit_test_setup(vmemmap_altmap_enomem_leaves_altmap, setup),
		cmocka_unit_test_setup(vmemmap_altmap_blocks_in_order_across_pd_tables, setup),
		cmocka_unit_test_setup(sparse_tracks_subsections, setup),
		cmocka_unit_test_setup(sparse_enomem_on_section_table, setup),
		cmocka_unit_test_setup(sparse_init_ram_covers_ram, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
