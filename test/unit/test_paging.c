/*
 * Host tests of the kernel page tables' construction (mm/paging.c): what
 * paging_init maps, with which protections and leaves, where its table pages
 * come from, and that it activates the root through the arch contract.
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
#include "memblock.h"
#include "memlayout.h"
#include "mm.h"
#include "page_alloc.h"
#include "paging.h"
#include "pgtable.h"

#define RAM_BASE (16 * MiB)
#define RAM_END (512 * MiB - 128 * KiB)

/* An image laid out as linker.ld does: text, rodata, data+bss, none page aligned at the end. */
static const struct kernel_image image = {
	.text = KERNEL_VMA + 2 * MiB,
	.etext = KERNEL_VMA + 2 * MiB + 0x5123,
	.rodata = KERNEL_VMA + 2 * MiB + 0x6000,
	.erodata = KERNEL_VMA + 2 * MiB + 0x8800,
	.data = KERNEL_VMA + 2 * MiB + 0x9000,
	.end = KERNEL_VMA + 2 * MiB + 0x20010,
};

/* Physical ranges to direct map, as kmain passes them: sorted, some touching. */
static const struct phys_range direct[] = {
	{0, 1 * MiB}, /* the first MiB */
	{0x100000, RAM_END}, /* RAM */
	{RAM_END, 512 * MiB}, /* ACPI tables right after it */
	{3 * GiB, 3 * GiB + PAGE_SIZE + 5}, /* an odd end */
	{4 * GiB, 6 * GiB}, /* RAM above 4 GiB */
};

static int setup(void **state)
{
	(void)state;
	host_phys_discard();
	host_console_reset();
	memblock_reset();
	page_alloc_reset();
	mm_stats_reset();
	assert_int_equal(memblock_add(RAM_BASE, RAM_END - RAM_BASE), 0);
	host_cpu_defaults();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	host_cpu_defaults();
	return 0;
}

static void boot(void)
{
	paging_init(&image, direct, ARRAY_SIZE(direct));
}

/* Mapped at va to pa, with prot in effect; level if not 0. */
static void expect(u64 va, u64 pa, u64 prot, enum pg_level level)
{
	u64 got_pa, got_prot;
	enum pg_level got_level;

	if (!pgtable_walk(&kernel_pgtable, va, &got_pa, &got_prot, &got_level))
		fail_msg("%#llx not mapped", va);
	assert_int_equal(got_pa, pa);
	assert_int_equal(got_prot, prot);
	if (level)
		assert_int_equal(got_level, level);
	/* The independent walker agrees. */
	assert_true(host_walk(va, &got_pa, &got_level, &got_prot));
	assert_int_equal(got_pa, pa);
	assert_int_equal(got_prot, prot);
}

static void unmapped(u64 va)
{
	u64 pa, prot;
	enum pg_level level;

	if (pgtable_walk(&kernel_pgtable, va, &pa, &prot, &level))
		fail_msg("%#llx mapped to %#llx", va, pa);
}

static void paging_maps_image_sections_with_their_protections(void **state)
{
	(void)state;
	boot();
	assert_int_equal(arch_pgtable_root(), kernel_pgtable.root);
	expect(image.text, 2 * MiB, PROT_KERNEL_RX, PG_LEVEL_4K);
	expect(image.etext, 2 * MiB + 0x5123, PROT_KERNEL_RX, 0); /* rest of its page */
	expect(image.rodata + 0x2fff, 2 * MiB + 0x8fff, PROT_KERNEL_RO, 0);
	expect(image.data, 2 * MiB + 0x9000, PROT_KERNEL_RW, 0);
	expect(image.end + 0x100, 2 * MiB + 0x20110, PROT_KERNEL_RW, 0);
	unmapped(image.end + PAGE_SIZE);
	unmapped(image.text - 1);
}

static void paging_direct_maps_the_ranges_with_largest_leaves(void **state)
{
	(void)state;
	boot();
	unmapped(0); /* NULL: nothing identity mapped */
	unmapped(2 * MiB);
	expect(PAGE_OFFSET, 0, PROT_KERNEL_RW, PG_LEVEL_2M);
	/* The touching ranges merged into [0, 512 MiB): 2 MiB leaves to its end. */
	expect(PAGE_OFFSET + 512 * MiB - 1, 512 * MiB - 1, PROT_KERNEL_RW, PG_LEVEL_2M);
	unmapped(PAGE_OFFSET + 512 * MiB);
	/* An odd end is rounded up to a page. */
	expect(PAGE_OFFSET + 3 * GiB + PAGE_SIZE, 3 * GiB + PAGE_SIZE, PROT_KERNEL_RW, PG_LEVEL_4K);
	unmapped(PAGE_OFFSET + 3 * GiB + 2 * PAGE_SIZE);
	expect(PAGE_OFFSET + 5 * GiB + 3, 5 * GiB + 3, PROT_KERNEL_RW, PG_LEVEL_1G);
	unmapped(PAGE_OFFSET + 6 * GiB);
	assert_true(host_console_has("direct map with 1 GiB leaves, NX on"));
}

static void paging_follows_cpu_features(void **state)
{
	(void)state;
	host_set_leaf_allowed(PG_LEVEL_1G, false);
	host_set_noexec_allowed(false);
	boot();
	expect(PAGE_OFFSET + 5 * GiB, 5 * GiB, PROT_KERNEL_RW | PGPROT_EXEC, PG_LEVEL_2M);
	expect(image.rodata, 2 * MiB + 0x6000, PROT_KERNEL_RO | PGPROT_EXEC, 0);
	assert_true(host_console_has("direct map with 2 MiB leaves, NX unavailable"));
	setup(state);
	host_set_leaf_allowed(PG_LEVEL_2M, false);
	host_set_leaf_allowed(PG_LEVEL_1G, false);
	boot();
	expect(PAGE_OFFSET + 5 * GiB, 5 * GiB, PROT_KERNEL_RW, PG_LEVEL_4K);
	assert_true(host_console_has("direct map with 4 KiB leaves, NX on"));
}

/* Tables come from memblock at boot, from the page allocator afterwards. */
static void paging_tables_from_memblock_then_page_allocator(void **state)
{
	struct page_alloc_stats before, after;
	u64 reserved = memblock_reserved_in_ram();

	(void)state;
	boot();
	assert_true(kernel_pgtable.root >= RAM_BASE && kernel_pgtable.root < RAM_END);
	assert_int_equal(memblock_reserved_in_ram() - reserved,
			 kernel_pgtable.nr_tables * PAGE_SIZE);
	page_alloc_init();
	paging_use_page_allocator();
	page_alloc_stats(&before);
	assert_int_equal(direct_map_add(8 * GiB, PAGE_SIZE), 0); /* a new PD and PT */
	page_alloc_stats(&after);
	assert_int_equal(before.free_pages - after.free_pages, 2);
	assert_int_equal(direct_map_remove(8 * GiB, PAGE_SIZE), 0);
	page_alloc_stats(&after);
	assert_int_equal(after.free_pages, before.free_pages);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(paging_maps_image_sections_with_their_protections,
						setup, teardown),
		cmocka_unit_test_setup_teardown(paging_direct_maps_the_ranges_with_largest_leaves,
						setup, teardown),
		cmocka_unit_test_setup_teardown(paging_follows_cpu_features, setup, teardown),
		cmocka_unit_test_setup_teardown(paging_tables_from_memblock_then_page_allocator,
						setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
