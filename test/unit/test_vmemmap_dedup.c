/*
 * Host tests: compound device pages and the deduplicated vmemmap (FACTS-2
 * §2.2, what a devdax device with align 2M or 1G gets): the page tables map
 * every vmemmap page of a compound past the second to one shared frame, the
 * struct pages read as head and tails through any of those mappings, the
 * RAM it costs, and teardown and every allocation failure give it all back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "host.h"
#include "memlayout.h"
#include "memremap.h"
#include "mm.h"
#include "nd_pfn_layout.h"
#include "page_alloc.h"
#include "pgtable.h"
#include "sparse.h"

#define RAM_BASE (16 * MiB)
#define RAM_END (960 * MiB)
#define DEV (4 * GiB)
#define PFN(pa) PFN_DOWN(pa)

static int setup(void **state)
{
	(void)state;
	host_mm_boot(RAM_BASE, RAM_END - RAM_BASE);
	assert_int_equal(sparse_init_ram(), 0);
	host_console_reset();
	return 0;
}

static struct dev_pagemap devdax_pgmap(u64 start, u64 size, unsigned int shift)
{
	return (struct dev_pagemap){ .range = { start, start + size - 1 },
				     .type = MEMORY_DEVICE_GENERIC,
				     .vmemmap_shift = shift };
}

/* The frame the vmemmap page at va maps: a read-write 4 KiB leaf. */
static u64 frame_of(u64 va)
{
	u64 pa, prot;
	enum pg_level l;

	assert_true(host_walk(va, &pa, &l, &prot));
	if (l != PG_LEVEL_4K)
		fail_msg("vmemmap %#llx: level %d leaf, want 4 KiB", va, l);
	assert_int_equal(prot, PROT_KERNEL_RW);	/* shared tails stay writable (FACTS-2 §2.2) */
	return pa;
}

/*
 * Every compound of [cs, ce): vmemmap pages 0 and 1 have frames of their
 * own, never seen before; every further page maps page 1's frame.
 */
static void check_dedup_tables(u64 cs, u64 ce, unsigned int shift)
{
	u64 nr = 1ULL << shift, pages = nr * sizeof(struct page) / PAGE_SIZE;
	u64 prev1 = 0;

	for (u64 head = cs; head < ce; head += nr) {
		u64 f0 = frame_of(memmap_va(head)), f1 = frame_of(memmap_va(head) + PAGE_SIZE);

		assert_true(f0 != f1 && f0 != prev1 && f1 != prev1);
		assert_true(f0 >= RAM_BASE && f0 < RAM_END && f1 >= RAM_BASE && f1 < RAM_END);
		for (u64 i = 2; i < pages; i++)
			if (frame_of(memmap_va(head) + i * PAGE_SIZE) != f1)
				fail_msg("compound %#llx: vmemmap page %llu is not the shared tail %#llx",
					 head, i, f1);
		prev1 = f1;
	}
}

/* Struct pages as Linux's memmap_init_compound leaves them, read through any mapping. */
static void check_compound_pages(struct dev_pagemap *pgmap, u64 cs, u64 ce, u64 step)
{
	u64 nr = pgmap_vmemmap_nr(pgmap);

	for (u64 pfn = cs; pfn < ce; pfn += step) {
		struct page *p = pfn_to_page(pfn), *head = pfn_to_page(ALIGN_DOWN(pfn, nr));

		assert_true(pfn_valid(pfn));
		assert_int_equal(page_zone(p), ZONE_DEVICE);
		assert_ptr_equal(p->pgmap, pgmap);
		assert_int_equal(p->refcount, 0);
		assert_ptr_equal(compound_head(p), head);
		if (p == head) {
			assert_true(page_is_head(p));
			assert_false(page_is_tail(p));
			assert_int_equal(compound_order(p), pgmap->vmemmap_shift);
		} else {
			assert_false(page_is_head(p));
			assert_true(page_is_tail(p));
		}
	}
}

/* 2 MiB compounds: 8 vmemmap pages each, 2 of them RAM; Linux's sizes, 4.03 MiB per GiB. */
static void dedup_2m_tails_share_one_frame(void **state)
{
	struct dev_pagemap pgmap = devdax_pgmap(DEV, 512 * MiB, 9);
	struct memremap_stats st;
	struct host_mm_snap before = host_mm_snap();
	u64 cs = PFN(DEV), ce = PFN(DEV + 512 * MiB);

	(void)state;
	assert_int_equal(memremap_pages(&pgmap, NULL, &st), 0);
	assert_true(pgmap.vmemmap_dedup);
	assert_int_equal(pgmap.compound_start, cs);
	assert_int_equal(pgmap.compound_end, ce);
	check_dedup_tables(cs, ce, 9);
	check_compound_pages(&pgmap, cs, ce, 1);
	/* 256 compounds x 8 KiB of frames, 4 sections x one PTE page. */
	assert_int_equal(st.compound_pages, 256);
	assert_int_equal(st.vmemmap_ram, 256 * 8 * KiB);
	assert_int_equal(mm_stat(MM_VMEMMAP) - before.stat[MM_VMEMMAP], 2 * MiB);
	assert_int_equal(mm_stat(MM_VMEMMAP_SHARED), 256 * 6 * PAGE_SIZE);
	assert_int_equal(st.vmemmap_ram, vmemmap_ram_estimate(PFN(512 * MiB), 9) - 4 * PAGE_SIZE);
	/*
	 * A store through one tail's mapping is what the tails at the same
	 * place of every shared vmemmap page read (64 struct pages a page):
	 * tail 200 is tail 72 (page 1, the frame's own mapping) and tail 456.
	 */
	volatile u64 *t200 = &pfn_to_page(cs + 200)->_reserved[0];
	volatile u64 *t72 = &pfn_to_page(cs + 72)->_reserved[0];
	volatile u64 *t511 = &pfn_to_page(cs + 456)->_reserved[0];
	volatile u64 *next = &pfn_to_page(cs + 512 + 200)->_reserved[0];
	*t200 = 0x5a5a;
	assert_int_equal(*t511, 0x5a5a);
	assert_int_equal(*t72, 0x5a5a);
	assert_int_equal(*next, 0);	/* the next compound's own frame */
	*t200 = 0;
	assert_int_equal(memunmap_pages(&pgmap), 0);
	assert_mm_snap(host_mm_snap(), before);
	assert_false(pfn_valid(cs));
}

/* 1 GiB compounds: 4096 vmemmap pages each over 8 sections, 2 of them RAM. */
static void dedup_1g_tails_share_one_frame_across_sections(void **state)
{
	struct dev_pagemap pgmap = devdax_pgmap(DEV, 2 * GiB, 18);
	struct memremap_stats st;
	struct host_mm_snap before = host_mm_snap();
	u64 cs = PFN(DEV), ce = PFN(DEV + 2 * GiB);

	(void)state;
	assert_int_equal(memremap_pages(&pgmap, NULL, &st), 0);
	check_dedup_tables(cs, ce, 18);
	check_compound_pages(&pgmap, cs, ce, 61);	/* a prime step visits every frame */
	check_compound_pages(&pgmap, ce - 2, ce, 1);
	assert_int_equal(st.compound_pages, 2);
	assert_int_equal(st.vmemmap_ram, 2 * 8 * KiB);
	/* 16 sections: a PTE page each (the PD above was there for RAM's struct pages). */
	/* 16 sections: a PTE page each, and the table the direct map of 4-6 GiB may need. */
	assert_in_range(st.pgtable_pages, 16, 17);
	assert_int_equal(memunmap_pages(&pgmap), 0);
	assert_mm_snap(host_mm_snap(), before);
}

/*
 * A 1 GiB-aligned compound run inside a range that starts 512 MiB before a
 * 1 GiB boundary: the pfns before it keep order-0 struct pages (2 MiB
 * leaves, 64 bytes a page), the compounds dedup.
 */
static void dedup_only_whole_aligned_compounds(void **state)
{
	u64 start = DEV - 512 * MiB, size = 2 * GiB + 512 * MiB;
	struct dev_pagemap pgmap = devdax_pgmap(start, size, 18);
	struct memremap_stats st;
	struct host_mm_snap before = host_mm_snap();

	(void)state;
	assert_int_equal(memremap_pages(&pgmap, NULL, &st), 0);
	assert_int_equal(pgmap.compound_start, PFN(DEV));
	assert_int_equal(pgmap.compound_end, PFN(DEV + 2 * GiB));
	check_dedup_tables(PFN(DEV), PFN(DEV + 2 * GiB), 18);
	for (u64 pfn = PFN(start); pfn < PFN(DEV); pfn += 4097) {
		struct page *p = pfn_to_page(pfn);
		assert_ptr_equal(p->pgmap, &pgmap);
		assert_false(page_is_head(p) || page_is_tail(p));
		u64 pa;
		enum pg_level l;
		assert_true(host_walk(memmap_va(pfn), &pa, &l, NULL));
		assert_int_equal(l, PG_LEVEL_2M);
	}
	assert_int_equal(st.vmemmap_ram, 8 * MiB + 2 * 8 * KiB);
	assert_int_equal(memunmap_pages(&pgmap), 0);
	assert_mm_snap(host_mm_snap(), before);
}

/* map=dev (an altmap): no dedup; compounds start at the data, struct pages in the device. */
static void altmap_compounds_without_dedup(void **state)
{
	u64 size = 1 * GiB;
	struct dev_pagemap pgmap = devdax_pgmap(DEV, size, 9);
	struct nd_pfn_layout l;
	struct nd_pfn_placement p;
	const char *why;
	struct memremap_stats st;
	struct host_mm_snap before = host_mm_snap();

	(void)state;
	assert_int_equal(nd_pfn_lay_out(DEV, size, PFN_MODE_PMEM, 2 * MiB, &l, &p, &why), 0);
	assert_int_equal(memremap_pages(&pgmap, &p.altmap, &st), 0);
	assert_false(pgmap.vmemmap_dedup);
	assert_int_equal(pgmap.compound_start, PFN(p.data));
	assert_int_equal(pgmap.compound_end, PFN(DEV + size));
	assert_int_equal(st.vmemmap_ram, 0);
	assert_true(vmemmap_in_altmap(PFN(p.data), &pgmap.altmap));
	check_compound_pages(&pgmap, PFN(p.data), PFN(DEV + size), 1);
	/* Before the data: the reserve, then the memmap's own pfns, order-0. */
	assert_true(pfn_to_page(PFN(DEV))->flags & PG_reserved);
	assert_false(page_is_tail(pfn_to_page(PFN(p.data) - 1)));
	assert_int_equal(memunmap_pages(&pgmap), 0);
	assert_mm_snap(host_mm_snap(), before);
}

/* Every allocation the dedup path makes can fail; each failure leaves nothing behind. */
static void dedup_every_enomem_unwinds(void **state)
{
	struct host_mm_snap before = host_mm_snap();
	u64 n;

	(void)state;
	for (n = 1;; n++) {
		/* Not at a section boundary, new tables everywhere, order-0 pages around. */
		u64 start = 20 * GiB - 64 * MiB, size = 1 * GiB + 128 * MiB;
		struct dev_pagemap p = devdax_pgmap(start, size, 18);

		mm_fail_nth = n;
		int err = memremap_pages(&p, NULL, NULL);
		if (!err) {
			mm_fail_nth = 0;
			assert_int_equal(p.compound_end - p.compound_start, PFN(1 * GiB));
			assert_int_equal(memunmap_pages(&p), 0);
			break;
		}
		assert_int_equal(err, -ENOMEM);
		assert_mm_snap(host_mm_snap(), before);
		assert_false(pfn_valid(PFN(start)));
		assert_false(pfn_valid(PFN(20 * GiB)));
	}
	mm_fail_nth = 0;
	assert_true(n > 5);
	assert_mm_snap(host_mm_snap(), before);
}

/* The figures the devdax device prints: 4 GiB at 2M and 1G against 64 MiB without. */
static void dedup_ram_estimate_4g(void **state)
{
	(void)state;
	u64 pages = PFN(4 * GiB);

	assert_int_equal(vmemmap_ram_estimate(pages, 0), 64 * MiB);
	assert_int_equal(vmemmap_ram_estimate(pages, 9), 2048 * 8 * KiB + 32 * PAGE_SIZE);
	assert_int_equal(vmemmap_ram_estimate(pages, 18), 4 * 8 * KiB + 32 * PAGE_SIZE);
}

/* vmemmap_populate refuses dedup it cannot do: with an altmap, below 2 MiB, unaligned. */
static void dedup_refuses_what_it_cannot_do(void **state)
{
	struct vmem_altmap a = { .base_pfn = PFN(DEV), .end_pfn = PFN(DEV + GiB) - 1, .free = 8192 };

	(void)state;
	assert_int_equal(vmemmap_populate(PFN(DEV), PFN(GiB), &a, VMEMMAP_DEDUP(9)), -EINVAL);
	assert_int_equal(vmemmap_populate(PFN(DEV), PFN(GiB), NULL, VMEMMAP_DEDUP(8)), -EINVAL);
	assert_int_equal(vmemmap_populate(PFN(DEV + 2 * MiB), PFN(GiB), NULL, VMEMMAP_DEDUP(18)),
			 -EINVAL);
	assert_int_equal(vmemmap_populate(PFN(DEV), PFN(2 * GiB), NULL, VMEMMAP_DEDUP(19)), -EINVAL);
	struct dev_pagemap big = devdax_pgmap(DEV, 4 * GiB, 19);
	assert_int_equal(memremap_pages(&big, NULL, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(dedup_2m_tails_share_one_frame, setup),
		cmocka_unit_test_setup(dedup_1g_tails_share_one_frame_across_sections, setup),
		cmocka_unit_test_setup(dedup_only_whole_aligned_compounds, setup),
		cmocka_unit_test_setup(altmap_compounds_without_dedup, setup),
		cmocka_unit_test_setup(dedup_every_enomem_unwinds, setup),
		cmocka_unit_test(dedup_ram_estimate_4g),
		cmocka_unit_test_setup(dedup_refuses_what_it_cannot_do, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
