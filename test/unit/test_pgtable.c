/* Host tests: page tables built in simulated memory, checked by a software walk. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "host.h"
#include "direct_map.h"
#include "pgtable.h"

/* A bump allocator for table pages at [1 GiB, ...) of simulated memory. */
static u64 next_table_pa, tables_freed;

static u64 test_alloc_table(void)
{
	u64 pa = next_table_pa;

	next_table_pa += PAGE_SIZE;
	memset(phys_to_virt(pa), 0, PAGE_SIZE);
	return pa;
}

static u64 fail_after;	/* 0: never fail */

static u64 test_alloc_table_failing(void)
{
	if (fail_after && --fail_after == 0)
		return 0;
	return test_alloc_table();
}

static void test_free_table(u64 pa)
{
	(void)pa;
	tables_freed++;
}

static struct pgtable pt;

static int setup(void **state)
{
	(void)state;
	next_table_pa = 1 * GiB;
	tables_freed = 0;
	fail_after = 0;
	pt = (struct pgtable){
		.alloc_table = test_alloc_table,
		.free_table = test_free_table,
		.max_leaf = PG_LEVEL_1G,
		.nx = true,
	};
	assert_int_equal(pgtable_init(&pt), 0);
	return 0;
}

static void expect(u64 va, u64 pa, enum pg_level level, u64 flag_mask, u64 flags)
{
	u64 got_pa, got_flags;
	enum pg_level got_level;

	assert_true(pgtable_walk(&pt, va, &got_pa, &got_flags, &got_level));
	assert_int_equal(got_pa, pa);
	assert_int_equal(got_level, level);
	assert_int_equal(got_flags & flag_mask, flags);
}

static void unmapped(u64 va)
{
	u64 pa, flags;
	enum pg_level level;

	assert_false(pgtable_walk(&pt, va, &pa, &flags, &level));
}

static const u64 DM = 0xffff888000000000ULL;

static void pgtable_uses_largest_leaves(void **state)
{
	(void)state;
	/* [1 GiB - 4 KiB, 3 GiB + 2 MiB + 4 KiB): 4K edge, 1G, 1G, 2M, 4K. */
	u64 start = 1 * GiB - PAGE_SIZE, end = 3 * GiB + 2 * MiB + PAGE_SIZE;
	assert_int_equal(pgtable_map(&pt, DM + start, pa_init(start), end - start, PROT_KERNEL_RW),
			 0);
	expect(DM + start, start, PG_LEVEL_4K, PGPROT_WRITE | PGPROT_EXEC, PGPROT_WRITE);
	expect(DM + 1 * GiB + 12345, 1 * GiB + 12345, PG_LEVEL_1G, 0, 0);
	expect(DM + 2 * GiB + 5 * MiB, 2 * GiB + 5 * MiB, PG_LEVEL_1G, 0, 0);
	expect(DM + 3 * GiB + 1 * MiB, 3 * GiB + 1 * MiB, PG_LEVEL_2M, 0, 0);
	expect(DM + 3 * GiB + 2 * MiB, 3 * GiB + 2 * MiB, PG_LEVEL_4K, 0, 0);
	unmapped(DM + start - 1);
	unmapped(DM + end);
}

static void pgtable_respects_max_leaf(void **state)
{
	(void)state;
	pt.max_leaf = PG_LEVEL_2M;
	assert_int_equal(pgtable_map(&pt, DM, pa_init(0), 2 * GiB, PROT_KERNEL_RW), 0);
	expect(DM + 1 * GiB, 1 * GiB, PG_LEVEL_2M, 0, 0);
	/* root + PDPT + 2 PDs */
	assert_int_equal(pt.nr_tables, 4);
}

static void pgtable_misaligned_pa_falls_back_to_small_leaves(void **state)
{
	(void)state;
	/* va 2 MiB aligned, pa only 4 KiB aligned: every leaf must be 4 KiB. */
	assert_int_equal(pgtable_map(&pt, DM + 2 * MiB, pa_init(0x1000), 4 * MiB, PROT_KERNEL_RO),
			 0);
	expect(DM + 2 * MiB, 0x1000, PG_LEVEL_4K, PGPROT_WRITE | PGPROT_EXEC, 0);
	expect(DM + 6 * MiB - PAGE_SIZE, 0x1000 + 4 * MiB - PAGE_SIZE, PG_LEVEL_4K, 0, 0);
}

static void pgtable_refuses_overlap(void **state)
{
	(void)state;
	assert_int_equal(pgtable_map(&pt, DM, pa_init(0), 4 * MiB, PROT_KERNEL_RW), 0);
	assert_int_equal(pgtable_map(&pt, DM + 2 * MiB, pa_init(0), PAGE_SIZE, PROT_KERNEL_RW),
			 -EEXIST);
	assert_int_equal(pgtable_map(&pt, DM + 3, pa_init(0), PAGE_SIZE, PROT_KERNEL_RW), -EINVAL);
}

static void pgtable_leaves_executable_without_nx(void **state)
{
	(void)state;
	pt.nx = false;
	assert_int_equal(pgtable_map(&pt, DM, pa_init(0), PAGE_SIZE, PROT_KERNEL_RW), 0);
	expect(DM, 0, PG_LEVEL_4K, PGPROT_EXEC, PGPROT_EXEC);
}

static void pgtable_unmap_frees_empty_tables(void **state)
{
	(void)state;
	u64 base = pt.nr_tables;

	assert_int_equal(pgtable_map(&pt, DM + 4 * MiB, pa_init(4 * MiB), 2 * MiB + 8 * PAGE_SIZE,
				     PROT_KERNEL_RW),
			 0);
	assert_int_equal(pt.nr_tables, base + 3);	/* PDPT, PD, PT */
	assert_int_equal(pgtable_unmap(&pt, DM + 4 * MiB, 2 * MiB + 8 * PAGE_SIZE), 0);
	unmapped(DM + 4 * MiB);
	unmapped(DM + 6 * MiB);
	assert_int_equal(pt.nr_tables, base);
	assert_int_equal(tables_freed, 3);
}

/* Keep the tables whose span touches [kept_lo, kept_hi). */
static u64 kept_lo, kept_hi;

static bool keep_span(u64 va, enum pg_level l)
{
	return va < kept_hi && kept_lo < va + pg_level_size(l);
}

/*
 * keep_table: an unmap that empties a kept table leaves it (and the tables
 * above it); pgtable_prune frees it once it is no longer kept, and only
 * tables that map nothing.
 */
static void pgtable_keep_table_and_prune(void **state)
{
	const u64 va = DM + 64 * GiB;	/* a PD of its own: 1 GiB of 2 MiB leaves */

	(void)state;
	pt.keep_table = keep_span;
	kept_lo = va + 1 * GiB;
	kept_hi = kept_lo + 2 * MiB;	/* inside the second PD */
	assert_int_equal(pgtable_map_leaves(&pt, va, pa_init(4 * GiB), 2 * GiB, PROT_KERNEL_RW, PG_LEVEL_2M), 0);
	assert_int_equal(pt.nr_tables, 1 + 1 + 2);	/* root, PDPT, two PDs */
	assert_int_equal(pgtable_unmap(&pt, va, 2 * GiB), 0);
	assert_int_equal(pt.nr_tables, 1 + 1 + 1);	/* the kept PD and the PDPT above it */
	assert_non_null(pgtable_entry(&pt, kept_lo, PG_LEVEL_2M));
	assert_null(pgtable_entry(&pt, va, PG_LEVEL_2M));
	pgtable_prune(&pt, va, va + 2 * GiB);	/* still kept: nothing goes */
	assert_int_equal(pt.nr_tables, 3);
	/* A leaf mapped into the kept PD without allocating, then the keep dropped. */
	pte_t *pmd = pgtable_entry(&pt, kept_lo, PG_LEVEL_2M);
	*pmd = arch_pte_leaf(PG_LEVEL_2M, 8 * GiB, pgtable_leaf_prot(&pt, PROT_KERNEL_RW));
	kept_lo = kept_hi = 0;
	pgtable_prune(&pt, va, va + 2 * GiB);	/* it maps something: stays */
	assert_int_equal(pt.nr_tables, 3);
	expect(va + 1 * GiB, 8 * GiB, PG_LEVEL_2M, 0, 0);
	assert_int_equal(pgtable_unmap(&pt, va + 1 * GiB, 2 * MiB), 0);
	assert_int_equal(pt.nr_tables, 1);
	assert_int_equal(tables_freed, 3);
}

/* Holes of every size inside the range are stepped over, leaves on both sides unmapped. */
static void pgtable_unmap_across_holes(void **state)
{
	(void)state;
	u64 base = pt.nr_tables;
	u64 at[] = { 0, 8 * KiB, 2 * MiB + 4 * KiB, 1 * GiB, 3 * GiB + 12 * KiB, 513 * GiB };

	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		assert_int_equal(pgtable_map(&pt, DM + at[i], pa_init(at[i] % (4 * GiB)), PAGE_SIZE,
					     PROT_KERNEL_RW), 0);
	assert_int_equal(pgtable_unmap(&pt, DM + 4 * KiB, 513 * GiB - 4 * KiB), 0); /* not at[0], at[5] */
	for (size_t i = 1; i + 1 < sizeof(at) / sizeof(at[0]); i++)
		unmapped(DM + at[i]);
	expect(DM, 0, PG_LEVEL_4K, PGPROT_WRITE, PGPROT_WRITE);
	expect(DM + 513 * GiB, 513 * GiB % (4 * GiB), PG_LEVEL_4K, PGPROT_WRITE, PGPROT_WRITE);
	assert_int_equal(pgtable_unmap(&pt, DM, PAGE_SIZE), 0);
	assert_int_equal(pgtable_unmap(&pt, DM + 513 * GiB, PAGE_SIZE), 0);
	assert_int_equal(pt.nr_tables, base);
}

static void pgtable_unmap_refuses_to_split_a_large_leaf(void **state)
{
	(void)state;
	assert_int_equal(pgtable_map(&pt, DM, pa_init(0), 2 * MiB, PROT_KERNEL_RW), 0);
	assert_int_equal(pgtable_unmap(&pt, DM + PAGE_SIZE, PAGE_SIZE), -EINVAL);
	expect(DM + PAGE_SIZE, PAGE_SIZE, PG_LEVEL_2M, 0, 0);
}

static void pgtable_reports_enomem(void **state)
{
	(void)state;
	pt.alloc_table = test_alloc_table_failing;
	u64 before = pt.nr_tables;

	fail_after = 2;	/* the PDPT succeeds, the PD fails */
	assert_int_equal(pgtable_map(&pt, DM, pa_init(0), 2 * MiB, PROT_KERNEL_RW), -ENOMEM);
	unmapped(DM);
	assert_int_equal(pt.nr_tables, before);	/* the empty PDPT went back */
	assert_int_equal(tables_freed, 1);
}

/* A failure half-way through a range undoes the leaves mapped before it. */
static void pgtable_map_is_all_or_nothing(void **state)
{
	(void)state;
	u64 before = pt.nr_tables;

	pt.alloc_table = test_alloc_table_failing;
	fail_after = 4;	/* PDPT, PD, PT for the first 4 KiB leaves; the 2nd PD fails */
	assert_int_equal(
		pgtable_map(&pt, DM + 1 * GiB - 8 * PAGE_SIZE, pa_init(0), 1 * GiB, PROT_KERNEL_RW),
		-ENOMEM);
	unmapped(DM + 1 * GiB - 8 * PAGE_SIZE);
	assert_int_equal(pt.nr_tables, before);
}

/* direct_map_add maps only the holes, with large leaves where they fit. */
static void direct_map_add_fills_holes_only(void **state)
{
	(void)state;
	kernel_pgtable = pt;
	assert_int_equal(pgtable_map(&kernel_pgtable, DM + 2 * MiB, pa_init(2 * MiB), 2 * MiB,
				     PROT_KERNEL_RO),
			 0);
	assert_false(direct_map_covers(0, 8 * MiB));
	assert_int_equal(direct_map_add(0x234, 8 * MiB), 0);
	assert_true(direct_map_covers(0, 8 * MiB + PAGE_SIZE));
	pt = kernel_pgtable;
	expect(DM, 0, PG_LEVEL_2M, PGPROT_WRITE, PGPROT_WRITE);
	expect(DM + 2 * MiB, 2 * MiB, PG_LEVEL_2M, PGPROT_WRITE, 0); /* left as it was */
	expect(DM + 8 * MiB, 8 * MiB, PG_LEVEL_4K, PGPROT_WRITE, PGPROT_WRITE);
	unmapped(DM + 8 * MiB + PAGE_SIZE);
	assert_int_equal(direct_map_remove(4 * MiB, 4 * MiB), 0);
	assert_false(direct_map_covers(4 * MiB, PAGE_SIZE));
	assert_true(direct_map_covers(8 * MiB, PAGE_SIZE));
}

/* pgtable_scan's answer, leaf by leaf through pgtable_walk. */
static u64 scan_by_walks(u64 va, u64 end, bool mapped)
{
	while (va < end) {
		u64 pa, flags;
		enum pg_level l;

		if (pgtable_walk(&pt, va, &pa, &flags, &l) != mapped)
			return va;
		va = ALIGN_DOWN(va, pg_level_size(l)) + pg_level_size(l);
	}
	return end;
}

/*
 * 1 GiB, 2 MiB and 4 KiB leaves and holes of every level over 8 GiB:
 * pgtable_scan agrees with walking leaf by leaf for 2,000 random ranges,
 * both ways, ends inside leaves and holes included.
 */
static void pgtable_scan_matches_walks(void **state)
{
	u64 seed = 0x9e3779b97f4a7c15ULL;
	u64 base = DM + 512 * GiB;

	(void)state;
	assert_int_equal(pgtable_map(&pt, base + 1 * GiB, pa_init(1 * GiB), 1 * GiB, PROT_KERNEL_RW), 0);
	for (u64 i = 0; i < 64; i++)	/* every third 2 MiB of GiB 2, some as 4 KiB pages */
		if (i % 3 == 0)
			assert_int_equal(pgtable_map_leaves(&pt, base + 2 * GiB + i * 2 * MiB,
							    pa_init(2 * GiB + i * 2 * MiB), 2 * MiB,
							    PROT_KERNEL_RW, i % 2 ? PG_LEVEL_4K : PG_LEVEL_2M),
					 0);
	assert_int_equal(pgtable_map(&pt, base + 5 * GiB + 12 * KiB, pa_init(5 * GiB + 12 * KiB),
				     40 * KiB, PROT_KERNEL_RW), 0);
	assert_int_equal(pgtable_map(&pt, base + 7 * GiB - 2 * MiB, pa_init(7 * GiB - 2 * MiB),
				     1 * GiB + 4 * MiB, PROT_KERNEL_RW), 0);
	assert_int_equal(pgtable_scan(&pt, base + GiB, base + 2 * GiB, true), base + 2 * GiB);
	assert_int_equal(pgtable_scan(&pt, base, base + 8 * GiB, false), base + GiB);
	assert_int_equal(pgtable_scan(&pt, base + 3, base + 2, true), base + 2);	/* empty range */
	for (int i = 0; i < 2000; i++) {
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		u64 a = base + (seed % (8 * GiB)) / PAGE_SIZE * PAGE_SIZE;
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		u64 e = a + (seed % (2 * GiB)) / PAGE_SIZE * PAGE_SIZE + PAGE_SIZE;
		for (int m = 0; m < 2; m++)
			if (pgtable_scan(&pt, a, e, m) != scan_by_walks(a, e, m))
				fail_msg("scan [%#llx, %#llx) mapped=%d: %#llx, walks say %#llx", a, e, m,
					 pgtable_scan(&pt, a, e, m), scan_by_walks(a, e, m));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(pgtable_uses_largest_leaves, setup),
		cmocka_unit_test_setup(pgtable_respects_max_leaf, setup),
		cmocka_unit_test_setup(pgtable_misaligned_pa_falls_back_to_small_leaves, setup),
		cmocka_unit_test_setup(pgtable_refuses_overlap, setup),
		cmocka_unit_test_setup(pgtable_leaves_executable_without_nx, setup),
		cmocka_unit_test_setup(pgtable_unmap_frees_empty_tables, setup),
		cmocka_unit_test_setup(pgtable_keep_table_and_prune, setup),
		cmocka_unit_test_setup(pgtable_unmap_across_holes, setup),
		cmocka_unit_test_setup(pgtable_unmap_refuses_to_split_a_large_leaf, setup),
		cmocka_unit_test_setup(pgtable_reports_enomem, setup),
		cmocka_unit_test_setup(pgtable_map_is_all_or_nothing, setup),
		cmocka_unit_test_setup(direct_map_add_fills_holes_only, setup),
		cmocka_unit_test_setup(pgtable_scan_matches_walks, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
