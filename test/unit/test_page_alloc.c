/* Host tests: the buddy allocator over memblock's free RAM in simulated memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <cmocka.h>

#include "host.h"
#include "memblock.h"
#include "page_alloc.h"

/* A PC-like machine: low RAM, the legacy hole, RAM to just under 1 GiB. */
#define LOW_BASE 0x1000ULL
#define LOW_END 0x9f000ULL
#define HIGH_BASE 0x100000ULL
#define HIGH_END 0x3ffe0000ULL
#define KERNEL_BASE 0x200000ULL
#define KERNEL_END 0x400000ULL

static int setup(void **state)
{
	(void)state;
	memblock_reset();
	page_alloc_reset();
	host_console_reset();
	return 0;
}

/* Give the simulated RAM the free lists touched back to the host. */
static int teardown(void **state)
{
	(void)state;
	madvise(phys_to_virt(0), HOST_PHYS_SIZE, MADV_DONTNEED);
	return 0;
}

static bool overlaps(u64 a, u64 alen, u64 b, u64 blen)
{
	return a < b + blen && b < a + alen;
}

static void pc_layout(void)
{
	assert_int_equal(memblock_add(LOW_BASE, LOW_END - LOW_BASE), 0);
	assert_int_equal(memblock_add(HIGH_BASE, HIGH_END - HIGH_BASE), 0);
	assert_int_equal(memblock_reserve(KERNEL_BASE, KERNEL_END - KERNEL_BASE), 0);
}

/*
 * Metadata bytes of one segment [start_pfn, end_pfn): a byte per pfn and 16
 * bytes of free-list links per MAX_ORDER block slot.
 */
static u64 seg_meta_bytes(u64 start_pfn, u64 end_pfn)
{
	u64 slots = ((end_pfn - 1) >> MAX_ORDER) - (start_pfn >> MAX_ORDER) + 1;

	return end_pfn - start_pfn + 16 * slots;
}

/* The PC layout is one segment: the legacy hole is small. */
static u64 pc_meta_pages(void)
{
	return PFN_UP(seg_meta_bytes(PFN_DOWN(LOW_BASE), PFN_DOWN(HIGH_END)));
}

static u64 pc_expected_pages(void)
{
	return PFN_DOWN(LOW_END - LOW_BASE) + PFN_DOWN(HIGH_END - HIGH_BASE) -
	       PFN_DOWN(KERNEL_END - KERNEL_BASE) - pc_meta_pages();
}

static void page_alloc_init_takes_over_pc_layout(void **state)
{
	(void)state;
	struct page_alloc_stats st;

	pc_layout();
	page_alloc_init();
	page_alloc_stats(&st);
	assert_int_equal(st.managed_pages, pc_expected_pages());
	assert_int_equal(st.free_pages, st.managed_pages);
	u64 sum = 0;
	for (unsigned int k = 0; k <= MAX_ORDER; k++)
		sum += st.free_blocks[k] << k;
	assert_int_equal(sum, st.free_pages);
	/* Mostly 4 MiB blocks: [4M, 1020M) is ~254 of them. */
	assert_true(st.free_blocks[MAX_ORDER] >= 250);
	assert_true(memblock.frozen);
	assert_true(host_console_has("page_alloc:"));
	/* memblock is done: it refuses, once. */
	assert_int_equal(memblock_alloc(PAGE_SIZE, PAGE_SIZE), 0);
	assert_true(host_console_has("after the page allocator took over"));
	/* A second init changes nothing. */
	page_alloc_init();
	page_alloc_stats(&st);
	assert_int_equal(st.managed_pages, pc_expected_pages());
}

static u64 next_rand(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Every page once, only RAM, never reserved; freeing all restores the blocks. */
static void page_alloc_every_page_unique_then_recoalesces(void **state)
{
	(void)state;
	static u8 seen[PFN_DOWN(HIGH_END) / 8 + 1];
	struct page_alloc_stats before, after;
	u64 n = 0, pa, seed = 0x9e3779b97f4a7c15ULL;

	pc_layout();
	page_alloc_init();
	page_alloc_stats(&before);
	u64 *pages = malloc(before.managed_pages * sizeof(*pages));
	assert_non_null(pages);
	memset(seen, 0, sizeof(seen));
	u64 meta_end = HIGH_END, meta_base = HIGH_END - pc_meta_pages() * PAGE_SIZE;
	while ((pa = page_alloc(0))) {
		u64 pfn = PFN_DOWN(pa);

		assert_true(n < before.managed_pages);
		assert_true(IS_ALIGNED(pa, PAGE_SIZE));
		assert_true(memblock_is_ram(pa, PAGE_SIZE));
		assert_false(overlaps(pa, PAGE_SIZE, KERNEL_BASE, KERNEL_END - KERNEL_BASE));
		assert_false(overlaps(pa, PAGE_SIZE, meta_base, meta_end - meta_base));
		assert_false(seen[pfn / 8] & (1 << (pfn % 8)));
		seen[pfn / 8] |= 1 << (pfn % 8);
		pages[n++] = pa;
	}
	assert_int_equal(n, before.managed_pages);
	page_alloc_stats(&after);
	assert_int_equal(after.free_pages, 0);
	for (unsigned int k = 0; k <= MAX_ORDER; k++)
		assert_int_equal(after.free_blocks[k], 0);

	/* Free in a shuffled order so coalescing meets every arrangement. */
	for (u64 i = n - 1; i > 0; i--) {
		u64 j = next_rand(&seed) % (i + 1), t = pages[i];

		pages[i] = pages[j];
		pages[j] = t;
	}
	for (u64 i = 0; i < n; i++)
		page_free(pages[i], 0);
	free(pages);
	page_alloc_stats(&after);
	assert_memory_equal(&after, &before, sizeof(before));
	assert_false(host_console_has("page_free"));
}

static void page_alloc_blocks_are_naturally_aligned(void **state)
{
	(void)state;
	struct page_alloc_stats before, after;
	u64 got[MAX_ORDER + 1][3];

	pc_layout();
	page_alloc_init();
	page_alloc_stats(&before);
	for (unsigned int k = 0; k <= MAX_ORDER; k++) {
		for (int i = 0; i < 3; i++) {
			u64 pa = page_alloc(k), len = PAGE_SIZE << k;

			assert_int_not_equal(pa, 0);
			assert_true(IS_ALIGNED(pa, len));
			assert_true(memblock_is_ram(pa, len));
			assert_false(overlaps(pa, len, KERNEL_BASE, KERNEL_END - KERNEL_BASE));
			got[k][i] = pa;
		}
	}
	for (unsigned int k = 0; k <= MAX_ORDER; k++)
		for (int i = 0; i < 3; i++)
			page_free(got[k][i], k);
	page_alloc_stats(&after);
	assert_memory_equal(&after, &before, sizeof(before));
	assert_int_equal(page_alloc(MAX_ORDER + 1), 0);
}

/* 8 MiB of RAM less a metadata page: 255 blocks of order 3, then 7 pages. */
static void page_alloc_exhaustion_returns_zero(void **state)
{
	(void)state;
	struct page_alloc_stats before, st;
	u64 chain = 0, n = 0, pa, small[8];
	unsigned int nsmall = 0;

	memblock_add(0x100000, 0x800000);
	page_alloc_init();
	page_alloc_stats(&before);
	assert_int_equal(before.managed_pages, 2047);
	while ((pa = page_alloc(3))) {
		*(u64 *)phys_to_virt(pa) = chain;	/* chain them through themselves */
		chain = pa;
		n++;
	}
	assert_int_equal(n, 255);
	for (unsigned int k = 3; k <= MAX_ORDER; k++)
		assert_int_equal(page_alloc(k), 0);
	page_alloc_stats(&st);
	assert_int_equal(st.free_pages, 7);
	while ((pa = page_alloc(0))) {
		assert_true(nsmall < ARRAY_SIZE(small));
		small[nsmall++] = pa;
	}
	assert_int_equal(nsmall, 7);
	for (unsigned int k = 0; k <= MAX_ORDER; k++)
		assert_int_equal(page_alloc(k), 0);
	assert_int_equal(page_alloc_zeroed(0), 0);
	page_alloc_stats(&st);
	assert_int_equal(st.free_pages, 0);

	while (chain) {
		u64 next = *(u64 *)phys_to_virt(chain);

		page_free(chain, 3);
		chain = next;
	}
	for (unsigned int i = 0; i < nsmall; i++)
		page_free(small[i], 0);
	page_alloc_stats(&st);
	assert_memory_equal(&st, &before, sizeof(st));
}

static void page_free_detects_double_free(void **state)
{
	(void)state;
	struct page_alloc_stats before, after;

	pc_layout();
	page_alloc_init();
	u64 pa = page_alloc(0);
	assert_int_not_equal(pa, 0);
	page_free(pa, 0);
	page_alloc_stats(&before);
	assert_false(host_console_has("page_free"));
	page_free(pa, 0);
	assert_true(host_console_has("page_free: double free"));
	page_alloc_stats(&after);
	assert_memory_equal(&after, &before, sizeof(before));

	/* A page inside a block that coalesced after its free. */
	u64 blk = page_alloc(1);
	page_free(blk, 1);
	host_console_reset();
	page_free(blk + PAGE_SIZE, 0);
	assert_true(host_console_has("page_free: double free"));
	page_alloc_stats(&after);
	assert_memory_equal(&after, &before, sizeof(before));
	/* The allocator still works and the lists are intact. */
	assert_int_equal(page_alloc(1), blk);
	page_free(blk, 1);
}

static void expect_rejected(u64 pa, unsigned int order, const char *msg)
{
	struct page_alloc_stats before, after;

	page_alloc_stats(&before);
	host_console_reset();
	page_free(pa, order);
	if (!host_console_has(msg))
		fail_msg("page_free(%#llx, %u): no '%s' in '%s'", pa, order, msg,
			 host_console_text());
	page_alloc_stats(&after);
	assert_memory_equal(&after, &before, sizeof(before));
}

static void page_free_rejects_blocks_not_from_the_allocator(void **state)
{
	(void)state;
	pc_layout();
	page_alloc_init();
	u64 blk = page_alloc(2);

	expect_rejected(blk + PAGE_SIZE, 1, "not aligned");
	expect_rejected(0x12345, 0, "not aligned");
	expect_rejected(blk, MAX_ORDER + 1, "MAX_ORDER");
	expect_rejected(blk, 1, "allocated with order 2");
	expect_rejected(blk, 3, "allocated with order 2");
	expect_rejected(blk + PAGE_SIZE, 0, "never allocated");	/* a tail page */
	expect_rejected(KERNEL_BASE, 0, "never allocated");	/* reserved image */
	expect_rejected(0xa0000, 0, "never allocated");	/* legacy hole */
	expect_rejected(HIGH_END, 0, "outside the managed RAM");
	expect_rejected(0x40000000, MAX_ORDER, "outside the managed RAM");
	expect_rejected(0, 0, "outside the managed RAM");
	expect_rejected(ALIGN_DOWN(HIGH_END, 4 * MiB), MAX_ORDER, "outside the managed RAM");
	page_free(blk, 2);
}

/* RAM above 4 GiB, behind a 4 GiB - 128 MiB gap: its own metadata segment. */
static void page_alloc_manages_ram_above_4g(void **state)
{
	(void)state;
	struct page_alloc_stats before, after;
	u64 first = 0, n = 0, pa, hi = 0;

	memblock_add(0x100000, 127 * MiB);
	memblock_add(4 * GiB, 2 * GiB);
	memblock_reserve(KERNEL_BASE, KERNEL_END - KERNEL_BASE);
	page_alloc_init();
	assert_true(host_console_has("in 2 segments"));
	page_alloc_stats(&before);
	/* Metadata: ~0.5 MiB for the two segments, from the top of RAM. */
	u64 ram_pages = PFN_DOWN(127 * MiB) + PFN_DOWN(2 * GiB);
	u64 meta_pages = PFN_UP(seg_meta_bytes(PFN_DOWN(1 * MiB), PFN_DOWN(128 * MiB)) +
				seg_meta_bytes(PFN_DOWN(4 * GiB), PFN_DOWN(6 * GiB)));
	assert_int_equal(before.managed_pages,
			 ram_pages - PFN_DOWN(KERNEL_END - KERNEL_BASE) - meta_pages);
	while ((pa = page_alloc(MAX_ORDER))) {
		u64 len = PAGE_SIZE << MAX_ORDER;

		assert_true(memblock_is_ram(pa, len));
		assert_false(overlaps(pa, len, 128 * MiB, 4 * GiB - 128 * MiB));
		hi += pa >= 4 * GiB;
		*(u64 *)phys_to_virt(pa) = first;
		first = pa;
		n++;
	}
	assert_int_equal(hi, 511);	/* the top block holds the metadata */
	assert_true(n >= 511 + 30);
	while (first) {
		u64 next = *(u64 *)phys_to_virt(first);

		page_free(first, MAX_ORDER);
		first = next;
	}
	page_alloc_stats(&after);
	assert_memory_equal(&after, &before, sizeof(before));
}

/* pmem between two RAM ranges, boot data reserved: the buddy never has them. */
static void page_alloc_never_returns_pmem_or_reserved(void **state)
{
	(void)state;
	const u64 pmem = 32 * MiB, pmem_size = 32 * MiB;
	const u64 boot = 0x5000000, boot_size = 0x3000;
	struct page_alloc_stats st;
	u64 n = 0, pa;

	memblock_add(0x100000, 31 * MiB);
	memblock_add(64 * MiB, 32 * MiB);
	memblock_reserve(KERNEL_BASE, KERNEL_END - KERNEL_BASE);
	memblock_reserve(boot, boot_size);
	page_alloc_init();
	for (int k = MAX_ORDER; k >= 0; k--) {
		while ((pa = page_alloc((unsigned int)k))) {
			u64 len = PAGE_SIZE << k;

			assert_false(overlaps(pa, len, pmem, pmem_size));
			assert_false(overlaps(pa, len, boot, boot_size));
			assert_false(overlaps(pa, len, KERNEL_BASE, KERNEL_END - KERNEL_BASE));
			assert_true(memblock_is_ram(pa, len));
			n += 1ULL << k;
		}
	}
	page_alloc_stats(&st);
	assert_int_equal(n, st.managed_pages);
	assert_int_equal(st.free_pages, 0);
}

static void page_alloc_zeroed_clears_the_block(void **state)
{
	(void)state;
	pc_layout();
	page_alloc_init();
	u64 pa = page_alloc(2);
	memset(phys_to_virt(pa), 0xa5, 4 * PAGE_SIZE);
	page_free(pa, 2);
	u64 z = page_alloc_zeroed(2);
	assert_int_equal(z, pa);	/* the lists are LIFO */
	const u8 *p = phys_to_virt(z);
	for (u64 i = 0; i < 4 * PAGE_SIZE; i++)
		assert_int_equal(p[i], 0);
	page_free(z, 2);
}

static void page_alloc_stats_follow_splits_and_merges(void **state)
{
	(void)state;
	struct page_alloc_stats a, b;

	/* [4M, 8M) is one 4 MiB block; the metadata takes the page above. */
	memblock_add(4 * MiB, 4 * MiB + 0x1000);
	page_alloc_init();
	page_alloc_stats(&a);
	assert_int_equal(a.managed_pages, 1024);
	assert_int_equal(a.free_blocks[MAX_ORDER], 1);
	u64 pa = page_alloc(0);
	assert_int_equal(pa, 4 * MiB);
	page_alloc_stats(&b);
	assert_int_equal(b.free_pages, 1023);
	for (unsigned int k = 0; k < MAX_ORDER; k++)
		assert_int_equal(b.free_blocks[k], 1);
	assert_int_equal(b.free_blocks[MAX_ORDER], 0);
	assert_int_equal(b.managed_pages, 1024);
	page_free(pa, 0);
	page_alloc_stats(&b);
	assert_memory_equal(&a, &b, sizeof(a));
}

/* 24 GiB of RAM in three ranges: init loops per block, so it is quick. */
static void page_alloc_init_over_24g_is_fast(void **state)
{
	(void)state;
	struct page_alloc_stats st;
	struct timespec t0, t1;

	memblock_add(0x1000, 0x9e000);
	memblock_add(0x100000, 3 * GiB - 0x100000);
	memblock_add(4 * GiB, 21 * GiB);
	memblock_reserve(0, 1 * MiB);
	memblock_reserve(KERNEL_BASE, KERNEL_END - KERNEL_BASE);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	page_alloc_init();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	page_alloc_stats(&st);
	/* Low memory is reserved whole; the 1 GiB hole shares the segment. */
	u64 ram_pages = PFN_DOWN(3 * GiB - 1 * MiB) + PFN_DOWN(21 * GiB);
	u64 meta_pages = PFN_UP(seg_meta_bytes(1, PFN_DOWN(25 * GiB)));
	assert_int_equal(st.managed_pages, ram_pages - PFN_DOWN(2 * MiB) - meta_pages);
	assert_int_equal(st.free_pages, st.managed_pages);
	double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	print_message("page_alloc_init over 24 GiB: %.1f ms, %llu KiB metadata\n", ms,
		      (meta_pages * 4));
	assert_true(ms < 1000);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(page_alloc_init_takes_over_pc_layout),
		T(page_alloc_every_page_unique_then_recoalesces),
		T(page_alloc_blocks_are_naturally_aligned),
		T(page_alloc_exhaustion_returns_zero),
		T(page_free_detects_double_free),
		T(page_free_rejects_blocks_not_from_the_allocator),
		T(page_alloc_manages_ram_above_4g),
		T(page_alloc_never_returns_pmem_or_reserved),
		T(page_alloc_zeroed_clears_the_block),
		T(page_alloc_stats_follow_splits_and_merges),
		T(page_alloc_init_over_24g_is_fast),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
