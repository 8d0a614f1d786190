/* Host tests: the vmem_altmap block allocator against FACTS §1.8 / §2.2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "memremap.h"

/* FACTS §1.8: 1 GiB namespace at 0x100000000, map=dev, 2 MiB align. */
static struct vmem_altmap one_gib(void)
{
	return (struct vmem_altmap){ .base_pfn = 0x100000, .end_pfn = 0x13ffff,
				     .reserve = 2, .free = 0x11fe };
}

static void altmap_facts_1_8_worked_example(void **state)
{
	struct vmem_altmap a = one_gib();
	u64 pfn;

	(void)state;
	for (u64 i = 0; i < 8; i++) {
		assert_int_equal(altmap_alloc_block(&a, PMD_SIZE, &pfn), 0);
		assert_int_equal(pfn, 0x100200 + i * 512);
	}
	assert_int_equal(a.alloc, 4096);
	assert_int_equal(a.align, 510);
	assert_int_equal(a.alloc + a.align, a.free);
	assert_int_equal(altmap_next_pfn(&a), 0x101200);	/* = base + dataoff (18 MiB) */
	assert_int_equal(altmap_avail(&a), 0);
	assert_int_equal(altmap_alloc_block(&a, PAGE_SIZE, &pfn), -ENOMEM);
	assert_int_equal(vmem_altmap_offset(&a), 0x1200);
}

static void altmap_one_short_fails_cleanly(void **state)
{
	struct vmem_altmap a = one_gib(), before;
	u64 pfn = 0xdead;

	(void)state;
	a.free -= 1;
	for (int i = 0; i < 7; i++)
		assert_int_equal(altmap_alloc_block(&a, PMD_SIZE, &pfn), 0);
	before = a;
	assert_int_equal(altmap_alloc_block(&a, PMD_SIZE, &pfn), -ENOMEM);
	assert_memory_equal(&a, &before, sizeof(a));
	assert_int_equal(pfn, 0x100200 + 6 * 512);	/* untouched by the failure */
}

static void altmap_alignment_is_lowest_set_bit(void **state)
{
	struct vmem_altmap a = { .base_pfn = 0x1000, .end_pfn = 0x1fff, .reserve = 1, .free = 0x800 };
	u64 pfn;

	(void)state;
	/* 3 pages: alignment 1, no padding. */
	assert_int_equal(altmap_alloc_block(&a, 3 * PAGE_SIZE, &pfn), 0);
	assert_int_equal(pfn, 0x1001);
	/* 12 pages: alignment 4; next is 0x1004, already aligned. */
	assert_int_equal(altmap_alloc_block(&a, 12 * PAGE_SIZE, &pfn), 0);
	assert_int_equal(pfn, 0x1004);
	/* 8 pages: alignment 8; next 0x1010 is aligned. Then 16: 0x1018 -> 0x1020. */
	assert_int_equal(altmap_alloc_block(&a, 8 * PAGE_SIZE, &pfn), 0);
	assert_int_equal(altmap_alloc_block(&a, 16 * PAGE_SIZE, &pfn), 0);
	assert_int_equal(pfn, 0x1020);
	assert_int_equal(a.align, 8);
	assert_int_equal(a.alloc, 3 + 12 + 8 + 16);
	assert_int_equal(altmap_alloc_block(&a, 100, &pfn), -EINVAL);
	assert_int_equal(altmap_alloc_block(&a, 0, &pfn), -EINVAL);
	altmap_reset(&a);
	assert_int_equal(a.alloc + a.align, 0);
	assert_int_equal(altmap_next_pfn(&a), 0x1001);
}

static void altmap_contains_is_inclusive(void **state)
{
	struct vmem_altmap a = one_gib();

	(void)state;
	assert_true(altmap_contains(&a, 0x100000));
	assert_true(altmap_contains(&a, 0x13ffff));
	assert_false(altmap_contains(&a, 0x140000));
	assert_false(altmap_contains(&a, 0xfffff));
	assert_false(altmap_contains(NULL, 0x100000));
}

/* n blocks at once take exactly what n single calls take, or nothing and say how many fit. */
static void altmap_blocks_match_single_calls(void **state)
{
	static const u64 sizes[] = { PAGE_SIZE, 3 * PAGE_SIZE, 12 * PAGE_SIZE, PMD_SIZE };

	(void)state;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		for (u64 skew = 0; skew < 5; skew++) {
			struct vmem_altmap a = one_gib(), b, before;
			u64 first = 0, pfn, fit, n = 0;

			a.reserve += skew;
			b = a;
			while (altmap_alloc_block(&a, sizes[k], &pfn) == 0) {
				if (!n)
					first = pfn;
				assert_int_equal(pfn, first + n * (sizes[k] >> PAGE_SHIFT));
				n++;
			}
			before = b;
			assert_int_equal(altmap_alloc_blocks(&b, sizes[k], n + 1, &pfn, &fit), -ENOMEM);
			assert_int_equal(fit, n);
			assert_memory_equal(&b, &before, sizeof(b));
			assert_int_equal(altmap_alloc_blocks(&b, sizes[k], n, &pfn, &fit), 0);
			assert_int_equal(pfn, first);
			assert_int_equal(b.alloc, a.alloc);
			assert_int_equal(b.align, a.align);
		}
	}
	struct vmem_altmap a = one_gib();
	u64 pfn, fit = 7;
	assert_int_equal(altmap_alloc_blocks(&a, PMD_SIZE, 0, &pfn, &fit), -EINVAL);
	assert_int_equal(altmap_alloc_blocks(&a, PMD_SIZE, ~0ULL, &pfn, &fit), -ENOMEM);
	assert_int_equal(fit, 8);
	assert_int_equal(a.alloc + a.align, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(altmap_facts_1_8_worked_example),
		cmocka_unit_test(altmap_one_short_fails_cleanly),
		cmocka_unit_test(altmap_alignment_is_lowest_set_bit),
		cmocka_unit_test(altmap_contains_is_inclusive),
		cmocka_unit_test(altmap_blocks_match_single_calls),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
