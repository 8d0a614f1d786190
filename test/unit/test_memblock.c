/* Host tests: memblock's sorted/merged lists and its top-down allocator. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "host.h"
#include "memblock.h"

static int setup(void **state)
{
	(void)state;
	memblock_reset();
	host_console_reset();
	return 0;
}

/* The list must be exactly these (base, size) pairs. */
static void expect_regions(const struct memblock_type *t, const u64 *want, u32 n)
{
	assert_int_equal(t->cnt, n);
	for (u32 i = 0; i < n; i++) {
		assert_int_equal(t->regions[i].base, want[2 * i]);
		assert_int_equal(t->regions[i].size, want[2 * i + 1]);
	}
}

static bool overlaps(u64 a, u64 alen, u64 b, u64 blen)
{
	return a < b + blen && b < a + alen;
}

static void memblock_add_merges_overlapping_and_adjacent(void **state)
{
	(void)state;
	assert_int_equal(memblock_add(0x300000, 0x100000), 0);
	assert_int_equal(memblock_add(0x100000, 0x100000), 0);
	assert_int_equal(memblock_add(0x800000, 0x100000), 0);
	const u64 sorted[] = { 0x100000, 0x100000, 0x300000, 0x100000, 0x800000, 0x100000 };
	expect_regions(&memblock.memory, sorted, 3);

	/* Adjacent on the left of the second region. */
	assert_int_equal(memblock_add(0x280000, 0x80000), 0);
	/* Overlapping the last one and beyond. */
	assert_int_equal(memblock_add(0x880000, 0x100000), 0);
	const u64 merged[] = { 0x100000, 0x100000, 0x280000, 0x180000, 0x800000, 0x180000 };
	expect_regions(&memblock.memory, merged, 3);

	/* One range swallowing everything, touching the ends. */
	assert_int_equal(memblock_add(0x200000, 0x600000), 0);
	const u64 one[] = { 0x100000, 0x880000 };
	expect_regions(&memblock.memory, one, 1);
	assert_int_equal(memblock_phys_mem_size(), 0x880000);
	assert_int_equal(memblock_end_of_ram(), 0x980000);

	/* Contained: no change. */
	assert_int_equal(memblock_add(0x400000, 0x1000), 0);
	expect_regions(&memblock.memory, one, 1);
}

static void memblock_rejects_empty_and_wrapping_ranges(void **state)
{
	(void)state;
	assert_int_equal(memblock_add(0x1000, 0), -EINVAL);
	assert_int_equal(memblock_add(~0ULL - 0xfff, 0x1000), -EINVAL);	/* touches 2^64 */
	assert_int_equal(memblock_add(0x1000, ~0ULL), -EINVAL);
	assert_int_equal(memblock_reserve(0x1000, 0), -EINVAL);
	assert_int_equal(memblock_reserve(~0ULL, 2), -EINVAL);
	assert_int_equal(memblock_free(0x1000, 0), -EINVAL);
	assert_int_equal(memblock_free(~0ULL, 2), -EINVAL);
	assert_int_equal(memblock.memory.cnt, 0);
	assert_int_equal(memblock.reserved.cnt, 0);
	/* The last representable byte is fine. */
	assert_int_equal(memblock_add(~0ULL - 0xfff, 0xfff), 0);
}

static void memblock_free_splits_a_reserved_region(void **state)
{
	(void)state;
	assert_int_equal(memblock_reserve(0x100000, 0x400000), 0);
	assert_int_equal(memblock_free(0x200000, 0x100000), 0);
	const u64 split[] = { 0x100000, 0x100000, 0x300000, 0x200000 };
	expect_regions(&memblock.reserved, split, 2);

	/* Trim a head and a tail, delete one whole, in one call. */
	assert_int_equal(memblock_reserve(0x600000, 0x100000), 0);
	assert_int_equal(memblock_reserve(0x800000, 0x100000), 0);
	assert_int_equal(memblock_free(0x180000, 0x700000), 0);
	const u64 trimmed[] = { 0x100000, 0x80000, 0x880000, 0x80000 };
	expect_regions(&memblock.reserved, trimmed, 2);

	/* Freeing what is not reserved changes nothing. */
	assert_int_equal(memblock_free(0x10000000, 0x1000), 0);
	expect_regions(&memblock.reserved, trimmed, 2);
	/* Free exactly a whole region. */
	assert_int_equal(memblock_free(0x100000, 0x80000), 0);
	const u64 last[] = { 0x880000, 0x80000 };
	expect_regions(&memblock.reserved, last, 1);
}

static void memblock_reserved_in_ram_counts_only_ram(void **state)
{
	(void)state;
	assert_int_equal(memblock_add(0x100000, 0x100000), 0);
	assert_int_equal(memblock_add(0x400000, 0x100000), 0);
	/* Straddles the end of the first range, the hole and the second. */
	assert_int_equal(memblock_reserve(0x1c0000, 0x280000), 0);
	/* Wholly outside RAM (a reserved firmware range). */
	assert_int_equal(memblock_reserve(0x10000000, 0x100000), 0);
	assert_int_equal(memblock_reserved_in_ram(), 0x40000 + 0x40000);
	assert_true(memblock_is_ram(0x100000, 0x100000));
	assert_false(memblock_is_ram(0x100000, 0x100001));
	assert_false(memblock_is_ram(0x300000, 0x1000));
	assert_false(memblock_is_ram(0x100000, 0));
}

static void memblock_next_free_iterates_in_address_order(void **state)
{
	(void)state;
	u64 idx = 0, base, size;
	const u64 want[] = { 0x100000, 0x100000, 0x300000, 0x80000, 0x3c0000, 0x140000,
			     0x800000, 0x100000 };
	u32 n = 0;

	memblock_add(0x800000, 0x100000);
	memblock_add(0x100000, 0x300000);
	memblock_add(0x400000, 0x100000);	/* merges with the one before */
	memblock_reserve(0x200000, 0x100000);
	memblock_reserve(0x380000, 0x40000);
	memblock_reserve(0x500000, 0x100000);	/* outside RAM */
	while (memblock_next_free(&idx, &base, &size)) {
		assert_true(n < 4);
		assert_int_equal(base, want[2 * n]);
		assert_int_equal(size, want[2 * n + 1]);
		n++;
	}
	assert_int_equal(n, 4);
}

static void memblock_alloc_is_top_down(void **state)
{
	(void)state;
	memblock_add(0x100000, 0x100000);
	memblock_add(0x400000, 0x100000);
	assert_int_equal(memblock_alloc(0x1000, 0x1000), 0x4ff000);
	assert_int_equal(memblock_alloc(0x1000, 0x1000), 0x4fe000);
	/* Too big for what is left on top: the lower range. */
	assert_int_equal(memblock_alloc(0x100000, 0x1000), 0x100000);
	const u64 res[] = { 0x100000, 0x100000, 0x4fe000, 0x2000 };
	expect_regions(&memblock.reserved, res, 2);
	assert_int_equal(memblock_reserved_in_ram(), 0x102000);
}

static void memblock_alloc_honours_alignment(void **state)
{
	(void)state;
	memblock_add(0x100000, 0x10000000);
	memblock_reserve(0x10000000 + 0x100000 - 0x1000, 0x1000);	/* top page */
	for (u64 align = 1; align <= 64 * MiB; align <<= 1) {
		u64 pa = memblock_alloc(0x1234, align);

		assert_int_not_equal(pa, 0);
		assert_true(IS_ALIGNED(pa, align));
		assert_true(memblock_is_ram(pa, 0x1234));
	}
	assert_int_equal(memblock_alloc(0x1000, 0), 0);
	assert_int_equal(memblock_alloc(0x1000, 0x3000), 0);
	assert_int_equal(memblock_alloc(0, 0x1000), 0);
	assert_int_equal(memblock_alloc(~0ULL, 0x1000), 0);
	/* An alignment bigger than any fit. */
	assert_int_equal(memblock_alloc(0x1000, 1ULL << 40), 0);
}

static void memblock_alloc_stays_below_the_limit(void **state)
{
	(void)state;
	memblock_add(0x100000, 0x7ff00000);	/* [1M, 2G) */
	memblock_set_limit(0x1000000);
	u64 pa = memblock_alloc(0x200000, 0x200000);
	assert_int_equal(pa, 0xe00000);
	pa = memblock_alloc(0x3000, 0x1000);
	assert_int_equal(pa, 0xe00000 - 0x3000);
	/* Nothing fits under a limit inside the reserved low part. */
	memblock_reserve(0x100000, 0x100000);
	memblock_set_limit(0x1ff000);
	assert_int_equal(memblock_alloc(0x1000, 0x1000), 0);
	memblock_set_limit(0);
	assert_int_equal(memblock_alloc(0x1000, 0x1000), 0x7ffff000);
}

static void memblock_alloc_exhausts_then_returns_zero(void **state)
{
	(void)state;
	u64 total = 0, pa;

	memblock_add(0x100000, 0x400000);
	memblock_reserve(0x200000, 0x100000);
	while ((pa = memblock_alloc(0x10000, 0x1000)))
		total += 0x10000;
	assert_int_equal(total, 0x300000);
	assert_int_equal(memblock_alloc(1, 1), 0);
	assert_int_equal(memblock_reserved_in_ram(), memblock_phys_mem_size());
	/* The reservations merged into one. */
	assert_int_equal(memblock.reserved.cnt, 1);
}

/* RAM [1M, 64M), pmem [64M, 128M) never added, RAM [128M, 192M). */
static void memblock_alloc_never_touches_pmem_between_ram(void **state)
{
	(void)state;
	const u64 pmem = 64 * MiB, pmem_size = 64 * MiB;
	u64 got = 0, pa;

	memblock_add(1 * MiB, 63 * MiB);
	memblock_add(128 * MiB, 64 * MiB);
	assert_false(memblock_is_ram(pmem, 0x1000));
	/* An odd size, so range ends are left with fragments to fill. */
	while ((pa = memblock_alloc(0x5000, 0x1000))) {
		assert_false(overlaps(pa, 0x5000, pmem, pmem_size));
		assert_true(memblock_is_ram(pa, 0x5000));
		got += 0x5000;
	}
	while ((pa = memblock_alloc(0x1000, 0x1000))) {
		assert_false(overlaps(pa, 0x1000, pmem, pmem_size));
		assert_true(memblock_is_ram(pa, 0x1000));
		got += 0x1000;
	}
	assert_int_equal(got, 127 * MiB);
	u64 idx = 0, base, size;
	assert_false(memblock_next_free(&idx, &base, &size));
}

/* Kernel image and boot data reserved: every allocation avoids them. */
static void memblock_alloc_never_returns_reserved(void **state)
{
	(void)state;
	const u64 kernel = 0x200000, kernel_size = 0x200000;
	const u64 boot = 0x800000, boot_size = 0x3000;
	u64 pa, got = 0;

	memblock_add(0x1000, 0x9e000);
	memblock_add(0x100000, 0xf00000);
	memblock_reserve(kernel, kernel_size);
	memblock_reserve(boot, boot_size);
	while ((pa = memblock_alloc(0x2000, 0x1000))) {
		assert_false(overlaps(pa, 0x2000, kernel, kernel_size));
		assert_false(overlaps(pa, 0x2000, boot, boot_size));
		got += 0x2000;
	}
	while ((pa = memblock_alloc(0x1000, 0x1000))) {
		assert_false(overlaps(pa, 0x1000, kernel, kernel_size));
		assert_false(overlaps(pa, 0x1000, boot, boot_size));
		got += 0x1000;
	}
	assert_int_equal(got, 0x9e000 + 0xf00000 - kernel_size - boot_size);
}

/* Page 0 holds the real-mode IVT, and 0 means failure: never handed out. */
static void memblock_alloc_never_returns_page_zero(void **state)
{
	(void)state;
	u64 pa, n = 0;

	memblock_add(0, 0x10000);
	while ((pa = memblock_alloc(0x1000, 0x1000))) {
		assert_true(pa >= 0x1000);
		n++;
	}
	assert_int_equal(n, 15);
	assert_int_equal(memblock_alloc(1, 1), 0);
}

static void memblock_free_then_alloc_returns_the_range(void **state)
{
	(void)state;
	memblock_add(0x100000, 0x100000);
	u64 a = memblock_alloc(0x10000, 0x10000);
	u64 b = memblock_alloc(0x10000, 0x10000);
	assert_int_equal(a, 0x1f0000);
	assert_int_equal(b, 0x1e0000);
	assert_int_equal(memblock_free(a, 0x10000), 0);
	assert_int_equal(memblock_alloc(0x10000, 0x10000), a);
	assert_int_equal(memblock_free(b, 0x10000), 0);
	assert_int_equal(memblock_free(a, 0x10000), 0);
	assert_int_equal(memblock.reserved.cnt, 0);
	assert_int_equal(memblock_alloc(0x100000, 0x1000), 0x100000);
}

static void memblock_full_array_returns_enospc(void **state)
{
	(void)state;
	for (u64 i = 0; i < MEMBLOCK_MAX_REGIONS; i++) {
		assert_int_equal(memblock_add(0x100000 + i * 0x20000, 0x10000), 0);
		assert_int_equal(memblock_reserve(0x100000 + i * 0x20000, 0x1000), 0);
	}
	assert_int_equal(memblock.memory.cnt, MEMBLOCK_MAX_REGIONS);
	assert_int_equal(memblock_add(0x10000000, 0x1000), -ENOSPC);
	assert_int_equal(memblock_reserve(0x10000000, 0x1000), -ENOSPC);
	/* Merging needs no slot. */
	assert_int_equal(memblock_add(0x110000, 0x1000), 0);
	assert_int_equal(memblock_add(0x111000, 0xf000), 0);	/* joins two */
	assert_int_equal(memblock.memory.cnt, MEMBLOCK_MAX_REGIONS - 1);
	/* A split needs one: refused, list unchanged. */
	assert_int_equal(memblock_free(0x100400, 0x100), -ENOSPC);
	assert_int_equal(memblock.reserved.cnt, MEMBLOCK_MAX_REGIONS);
	assert_int_equal(memblock.reserved.regions[0].size, 0x1000);
	/* An allocation that merges with a reservation still works. */
	u64 top = 0x100000 + (MEMBLOCK_MAX_REGIONS - 1) * 0x20000;
	assert_int_equal(memblock_alloc(0xf000, 0x1000), top + 0x1000);
	assert_int_equal(memblock.reserved.cnt, MEMBLOCK_MAX_REGIONS);
	/* One that would need a new slot fails cleanly. */
	assert_int_equal(memblock_alloc(0x1000, 0x2000), 0);
	assert_int_equal(memblock.reserved.cnt, MEMBLOCK_MAX_REGIONS);
}

static void memblock_alloc_refused_once_frozen(void **state)
{
	(void)state;
	memblock_add(0x100000, 0x100000);
	memblock.frozen = true;
	assert_int_equal(memblock_alloc(0x1000, 0x1000), 0);
	assert_true(host_console_has("after the page allocator took over"));
	host_console_reset();
	assert_int_equal(memblock_alloc(0x1000, 0x1000), 0);
	assert_false(host_console_has("memblock"));	/* reported once */
	assert_int_equal(memblock.reserved.cnt, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(memblock_add_merges_overlapping_and_adjacent, setup),
		cmocka_unit_test_setup(memblock_rejects_empty_and_wrapping_ranges, setup),
		cmocka_unit_test_setup(memblock_free_splits_a_reserved_region, setup),
		cmocka_unit_test_setup(memblock_reserved_in_ram_counts_only_ram, setup),
		cmocka_unit_test_setup(memblock_next_free_iterates_in_address_order, setup),
		cmocka_unit_test_setup(memblock_alloc_is_top_down, setup),
		cmocka_unit_test_setup(memblock_alloc_honours_alignment, setup),
		cmocka_unit_test_setup(memblock_alloc_stays_below_the_limit, setup),
		cmocka_unit_test_setup(memblock_alloc_exhausts_then_returns_zero, setup),
		cmocka_unit_test_setup(memblock_alloc_never_touches_pmem_between_ram, setup),
		cmocka_unit_test_setup(memblock_alloc_never_returns_reserved, setup),
		cmocka_unit_test_setup(memblock_alloc_never_returns_page_zero, setup),
		cmocka_unit_test_setup(memblock_free_then_alloc_returns_the_range, setup),
		cmocka_unit_test_setup(memblock_full_array_returns_enospc, setup),
		cmocka_unit_test_setup(memblock_alloc_refused_once_frozen, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
