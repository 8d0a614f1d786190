/*
 * Host tests (issue 14 item 5): memremap_pages at terabytes, on the path
 * make bench-scale times (host_scale_run: nd_pfn_lay_out, then
 * memremap_pages with deferred struct page init, so nothing is stored,
 * then memunmap_pages). What it builds is checked against counts derived
 * here from how mm/ allocates, not read back from mm/:
 *
 *   - vmemmap: every section of the device is whole, so each gets one 2 MiB
 *     PMD leaf (mm/vmemmap.c use_block), in RAM for map=mem; for map=dev
 *     its block in the altmap is taken but neither the leaf nor the
 *     section's bits are written: the deferred init does that (lazy, all
 *     sections); page-table pages: one PD per 1 GiB of vmemmap (64 GiB of
 *     device) and one PDPT per 512 GiB of vmemmap (32 TiB), never a PT;
 *   - direct map: 1 GiB leaves (the host's max_leaf), one PDPT per 512 GiB,
 *     and a PD for a part GiB at either end (2 MiB leaves there);
 *   - section table: a 4 KiB chunk per 16 GiB (mm/sparse.c);
 *   - altmap: 64 bytes per page of the range, taken in 2 MiB blocks, the
 *     first aligned past the 8 KiB info-block reserve (510 pages skipped),
 *     which is exactly the room the layout left (alloc + align = free);
 *   - after memunmap_pages every page-table page, RAM page and mm_stat
 *     counter is back where it was.
 *
 * The device lies above simulated physical memory, so a store to one of
 * its frames (a struct page, a memset of an altmap block) aborts the test.
 * Time is measured by the bench, never asserted here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "direct_map.h"
#include "host.h"
#include "memlayout.h"
#include "memremap.h"
#include "mm.h"
#include "pgtable.h"
#include "sparse.h"

#define TiB (1024 * GiB)
#define DEV_RAM (1 * GiB)

/* How many `unit`-aligned slots [lo, lo + len) touches. */
static u64 slots(u64 lo, u64 len, u64 unit)
{
	return (lo + len - 1) / unit - lo / unit + 1;
}

/* Page-table pages the vmemmap and the direct map of [base, base + size) need from empty tables. */
static u64 expected_tables(u64 base, u64 size)
{
	u64 vm_lo = VMEMMAP_BASE + base / PAGE_SIZE * sizeof(struct page);
	u64 vm_len = size / PAGE_SIZE * sizeof(struct page);
	u64 pd = slots(vm_lo, vm_len, 1 * GiB);		/* a PD maps 1 GiB of VA */
	u64 pdpt = slots(vm_lo, vm_len, 512 * GiB);	/* a PDPT maps 512 GiB of VA */
	u64 direct_pdpt = slots(PAGE_OFFSET + base, size, 512 * GiB);
	/* A part GiB at either end takes 2 MiB leaves, in a PD of its own. */
	u64 direct_pd = !IS_ALIGNED(base, GiB) + !IS_ALIGNED(base + size, GiB);

	return pd + pdpt + direct_pdpt + direct_pd;
}

/* reps: registrations after the first in the same boot (each must come back too). */
static void check_run(u64 size, bool dev, unsigned int reps)
{
	const u64 base = HOST_SCALE_BASE;
	u64 vmemmap_bytes = size / PAGE_SIZE * sizeof(struct page);
	struct host_scale r;

	assert_int_equal(host_scale_run(size, dev, dev ? DEV_RAM : vmemmap_bytes + DEV_RAM, reps, &r), 0);
	assert_int_equal(r.range.start, base);
	assert_int_equal(range_len(&r.range), size);

	/* Mapped, nothing stored. */
	assert_true(r.deferred);
	assert_int_equal(r.pages_init, 0);
	assert_int_equal(r.live.stat[MM_DEVICE_MAPPED] - r.before.stat[MM_DEVICE_MAPPED], size);
	assert_int_equal(r.live.stat[MM_MEMMAP_PENDING] - r.before.stat[MM_MEMMAP_PENDING], size);

	/* Page tables, sections. */
	assert_int_equal(r.pgtable_pages, expected_tables(base, size));
	assert_int_equal(r.live.tables - r.before.tables, r.pgtable_pages);
	assert_int_equal(r.sections + r.lazy_sections, size / (PAGES_PER_SECTION * PAGE_SIZE));
	assert_int_equal(r.lazy_sections, dev ? r.sections + r.lazy_sections : 0);
	assert_int_equal(r.section_tables, slots(base, size, 16 * GiB) * PAGE_SIZE);

	if (dev) {
		/* 64 bytes a page, in pages; the layout's room used to the page. */
		assert_int_equal(r.altmap_alloc, vmemmap_bytes / PAGE_SIZE);
		assert_int_equal(r.altmap_align, PAGES_PER_SUBSECTION - PFN_DOWN(8 * 1024));
		assert_int_equal(r.altmap_alloc + r.altmap_align, r.altmap_free);
		assert_int_equal(r.live.stat[MM_ALTMAP_USED] - r.before.stat[MM_ALTMAP_USED],
				 vmemmap_bytes);
		assert_int_equal(r.vmemmap_ram, 0);
		assert_int_equal(r.live.stat[MM_VMEMMAP], r.before.stat[MM_VMEMMAP]);
	} else {
		assert_int_equal(r.altmap_alloc, 0);
		assert_int_equal(r.vmemmap_ram, vmemmap_bytes);
		assert_int_equal(r.live.stat[MM_VMEMMAP] - r.before.stat[MM_VMEMMAP], vmemmap_bytes);
		assert_int_equal(r.live.stat[MM_ALTMAP_USED], 0);
	}

	/* Everything back: tables, RAM, counters; no section, no direct map left. */
	assert_mm_snap(r.after, r.before);
	assert_int_equal(kernel_pgtable.nr_tables, 1);	/* the root alone, as host_mm_boot left it */
	assert_false(r.left_memmap);
	assert_false(direct_map_covers(base, 1 * GiB));
	assert_false(direct_map_covers(base + size - 1 * GiB, 1 * GiB));
}

/* 1 TiB: 16 PDs, one vmemmap PDPT, the direct map crosses into a third 512 GiB slot. */
static void map_dev_1t(void **state)
{
	(void)state;
	assert_int_equal(expected_tables(HOST_SCALE_BASE, 1 * TiB), 16 + 1 + 3);
	check_run(1 * TiB, true, 1);
}

static void map_dev_16t(void **state)
{
	(void)state;
	check_run(16 * TiB, true, 0);
}

/* Up to MAX_PFN: the vmemmap's PDs span two PDPTs, the direct map 128 of them. */
static void map_dev_largest(void **state)
{
	(void)state;
	assert_int_equal(expected_tables(HOST_SCALE_BASE, HOST_SCALE_MAX_SIZE), 1023 + 2 + 128);
	check_run(HOST_SCALE_MAX_SIZE, true, 0);
}

/* map=mem: the same tables, the struct pages in 2 MiB blocks of RAM (4 GiB of it for 256 GiB). */
static void map_mem_256g(void **state)
{
	(void)state;
	check_run(256 * GiB, false, 1);
}

/* A device that is not a multiple of 64 GiB: its last PD is partly used. */
static void map_dev_odd_size(void **state)
{
	(void)state;
	check_run(100 * GiB + 128 * MiB, true, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(map_dev_1t),
		cmocka_unit_test(map_dev_16t),
		cmocka_unit_test(map_dev_largest),
		cmocka_unit_test(map_mem_256g),
		cmocka_unit_test(map_dev_odd_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
