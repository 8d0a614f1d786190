/*
 * Host tests: ZONE_DEVICE registration on simulated memory with real page
 * tables: where the struct pages land (map=dev inside the device's free
 * pfns, map=mem in RAM), their contents, lifetime with pins, unwinding of
 * every failure, pfn_t and kmap_pfn.
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
#include "page_alloc.h"
#include "pfn_t.h"
#include "sparse.h"

#define RAM_BASE (16 * MiB)
#define RAM_END (960 * MiB)	/* shares section 7 with whatever follows */
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

static struct dev_pagemap pgmap_of(u64 start, u64 size)
{
	return (struct dev_pagemap){ .range = { start, start + size - 1 },
				     .type = MEMORY_DEVICE_FS_DAX };
}

/* Every pfn but the reserve: zone DEVICE, owned by pgmap. */
static void check_pages(struct dev_pagemap *pgmap, u64 reserve)
{
	u64 first = PFN(pgmap->range.start), end = PFN(pgmap->range.end) + 1;

	for (u64 pfn = first; pfn < end; pfn++) {
		assert_true(pfn_valid(pfn));
		if (pfn < first + reserve)
			continue;
		struct page *p = pfn_to_page(pfn);
		if (page_zone(p) != ZONE_DEVICE || p->pgmap != pgmap || p->refcount)
			fail_msg("pfn %#llx: flags %#llx pgmap %p", pfn, p->flags,
				 (void *)p->pgmap);
	}
}

/* The memmap of pfns [s, e) resolves into [lo, hi), read-write and no-execute. */
static void check_memmap_in(u64 s, u64 e, u64 lo, u64 hi, enum pg_level level)
{
	for (u64 va = memmap_va(s); va < memmap_va(e); va += PAGE_SIZE) {
		u64 pa, prot;
		enum pg_level l;

		assert_true(host_walk(va, &pa, &l, &prot));
		if (pa < lo || pa + PAGE_SIZE > hi || l != level)
			fail_msg("vmemmap %#llx -> %#llx (level %d) not in [%#llx, %#llx) level %d",
				 va, pa, l, lo, hi, level);
		assert_int_equal(prot, PROT_KERNEL_RW);
	}
}

static void memremap_map_dev_4g_struct_pages_in_device(void **state)
{
	struct dev_pagemap pgmap = pgmap_of(DEV, 4 * GiB);
	struct vmem_altmap a = host_pfn_dev_altmap(DEV, 4 * GiB);
	struct host_mm_snap before = host_mm_snap();

	(void)state;
	assert_int_equal(memremap_pages(&pgmap, &a, NULL), 0);
	assert_int_equal(pgmap.state, PGMAP_LIVE);
	assert_true(pgmap.flags & PGMAP_ALTMAP_VALID);
	assert_int_equal(mm_stat(MM_VMEMMAP), before.stat[MM_VMEMMAP]);	/* no RAM for struct pages */
	assert_int_equal(pgmap.altmap.alloc, 32 * 512);
	assert_int_equal(pgmap.altmap.align, 510);
	assert_int_equal(mm_stat(MM_ALTMAP_USED), 64 * MiB);
	assert_int_equal(mm_stat(MM_ALTMAP_WASTE), 510 * PAGE_SIZE);
	assert_int_equal(mm_stat(MM_DEVICE_MAPPED), 4 * GiB);
	u64 lo = DEV + PFN_PHYS(a.reserve), hi = lo + PFN_PHYS(a.free);
	check_memmap_in(PFN(DEV), PFN(DEV + 4 * GiB), lo, hi, PG_LEVEL_2M);
	check_pages(&pgmap, a.reserve);
	assert_false(pfn_valid(PFN(DEV) - 1));
	assert_false(pfn_valid(PFN(DEV + 4 * GiB)));
	/* The struct page of the first data pfn, read from the pmem itself. */
	u64 pa;
	enum pg_level l;
	assert_true(host_walk(memmap_va(PFN(DEV) + 0x2000), &pa, &l, NULL));
	assert_ptr_equal(((struct page *)phys_to_virt(pa))->pgmap, &pgmap);
	assert_true(direct_map_covers(DEV, 4 * GiB));
	/* The direct map memremap_pages added: 1 GiB leaves, read-write, no-execute. */
	u64 prot;
	assert_true(host_walk(PAGE_OFFSET + DEV + 3 * GiB, &pa, &l, &prot));
	assert_int_equal(pa, DEV + 3 * GiB);
	assert_int_equal(l, PG_LEVEL_1G);
	assert_int_equal(prot, PROT_KERNEL_RW);
	assert_int_equal(memunmap_pages(&pgmap), 0);
	assert_int_equal(pgmap.state, PGMAP_UNREGISTERED);
	assert_int_equal(pgmap.altmap.alloc + pgmap.altmap.align, 0);
	assert_false(direct_map_covers(DEV, PAGE_SIZE));
	assert_false(pfn_valid(PFN(DEV) + 0x2000));
	assert_mm_snap(host_mm_snap(), before);
}

static void memremap_map_mem_4g_uses_64m_of_ram(void **state)
{
	struct dev_pagemap pgmap = pgmap_of(DEV, 4 * GiB);
	struct host_mm_snap before = host_mm_snap();

	(void)state;
	assert_int_equal(memremap_pages(&pgmap, NULL, NULL), 0);
	assert_int_equal(mm_stat(MM_VMEMMAP) - before.stat[MM_VMEMMAP], 64 * MiB);
	assert_int_equal(mm_stat(MM_ALTMAP_USED), 0);
	check_memmap_in(PFN(DEV), PFN(DEV + 4 * GiB), RAM_BASE, RAM_END, PG_LEVEL_2M);
	check_pages(&pgmap, 0);
	assert_int_equal(memunmap_pages(&pgmap), 0);
	assert_mm_snap(host_mm_snap(), before);
}

/* FACTS §1.8 through memremap_pages: 8 blocks from pfn 0x100200, align 510. */
static void memremap_facts_1_8_example(void **state)
{
	struct dev_pagemap pgmap = pgmap_of(DEV, 1 * GiB);
	struct vmem_altmap a = host_pfn_dev_altmap(DEV, 1 * GiB);
	u64 pa;
	enum pg_level l;

	(void)state;
	assert_int_equal(a.base_pfn, 0x100000);
	assert_int_equal(a.free, 0x11fe);
	assert_int_equal(memremap_pages(&pgmap, &a, NULL), 0);
	assert_int_equal(pgmap.altmap.alloc, 4096);
	assert_int_equal(pgmap.altmap.align, 510);
	for (u64 i = 0; i < 8; i++) {
		assert_true(host_walk(memmap_va(0x100000 + i * PAGES_PER_SECTION), &pa, &l, NULL));
		assert_int_equal(l, PG_LEVEL_2M);
		assert_int_equal(pa, PFN_PHYS(0x100200 + i * 512));
	}
	assert_int_equal(memunmap_pages(&pgmap), 0);
}

/* FACTS §2.3: 1 GiB - 2 MiB: 7 altmap blocks, the partial section from RAM. */
static void memremap_facts_2_3_partial_last_section(void **state)
{
	struct dev_pagemap pgmap = pgmap_of(DEV, 1 * GiB - 2 * MiB);
	struct vmem_altmap a = host_pfn_dev_altmap(DEV, 1 * GiB - 2 * MiB);
	struct host_mm_snap before = host_mm_snap();

	(void)state;
	assert_int_equal(a.free, 4094);
	assert_int_equal(memremap_pages(&pgmap, &a, NULL), 0);
	assert_int_equal(pgmap.altmap.alloc + pgmap.altmap.align, 4094);
	assert_int_equal(mm_stat(MM_VMEMMAP) - before.stat[MM_VMEMMAP], 63 * 32 * KiB);
	check_pages(&pgmap, 2);
	assert_int_equal(memunmap_pages(&pgmap), 0);
	assert_mm_snap(host_mm_snap(), before);
}

static void memremap_altmap_too_small_fails_clean(void **state)
{
	struct dev_pagemap pgmap = pgmap_of(DEV, 1 * GiB);
	struct vmem_altmap a = host_pfn_dev_altmap(DEV, 1 * GiB);
	struct host_mm_snap before = host_mm_snap();

	(void)state;
	a.free -= 1;
	assert_int_equal(memremap_pages(&pgmap, &a, NULL), -ENOMEM);
	assert_true(host_console_has("altmap too small"));
	assert_int_equal(pgmap.state, PGMAP_UNREGISTERED);
	assert_false(pfn_valid(PFN(DEV)));
	assert_null(pgmap_lookup(PFN(DEV)));
	assert_false(direct_map_covers(DEV, PAGE_SIZE));
	for (u64 pfn = PFN(DEV); pfn < PFN(DEV + 1 * GiB); pfn += PAGES_PER_SUBSECTION) {
		u64 pa;
		enum pg_level l;
		assert_false(host_walk(memmap_va(pfn), &pa, &l, NULL));
	}
	assert_mm_snap(host_mm_snap(), before);
}

static void memremap_refuses_bad_ranges(void **state)
{
	struct dev_pagemap p = pgmap_of(DEV, 256 * MiB), q;
	struct vmem_altmap a = host_pfn_dev_altmap(DEV, 256 * MiB), bad;
	struct host_mm_snap before = host_mm_snap();

	(void)state;
	q = pgmap_of(DEV + 4096, 2 * MiB);
	assert_int_equal(memremap_pages(&q, NULL, NULL), -EINVAL);	/* unaligned start */
	q = pgmap_of(DEV, 3 * MiB);
	assert_int_equal(memremap_pages(&q, NULL, NULL), -EINVAL);	/* unaligned size */
	q = pgmap_of(RAM_END - 64 * MiB, 128 * MiB);
	assert_int_equal(memremap_pages(&q, NULL, NULL), -EBUSY);	/* overlaps RAM */
	q = pgmap_of(1ULL << 46, 2 * MiB);
	assert_int_equal(memremap_pages(&q, NULL, NULL), -EINVAL);	/* beyond 64 TiB */
	bad = a;
	bad.base_pfn += 1;
	assert_int_equal(memremap_pages(&p, &bad, NULL), -EINVAL);
	bad = a;
	bad.end_pfn = PFN(DEV + 256 * MiB);
	assert_int_equal(memremap_pages(&p, &bad, NULL), -EINVAL);
	bad = a;
	bad.free = PFN(256 * MiB);
	assert_int_equal(memremap_pages(&p, &bad, NULL), -EINVAL);
	assert_mm_snap(host_mm_snap(), before);

	assert_int_equal(memremap_pages(&p, &a, NULL), 0);
	assert_int_equal(memremap_pages(&p, &a, NULL), -EINVAL);	/* registered already */
	q = pgmap_of(DEV + 254 * MiB, 4 * MiB);
	assert_int_equal(memremap_pages(&q, NULL, NULL), -EBUSY);	/* overlaps p */
	q = pgmap_of(DEV - 2 * MiB, 4 * MiB);
	assert_int_equal(memremap_pages(&q, NULL, NULL), -EBUSY);
	assert_int_equal(memunmap_pages(&p), 0);
	assert_int_equal(memunmap_pages(&p), -EINVAL);
	assert_mm_snap(host_mm_snap(), before);
}

/* Two ranges in one section share its PT page; either can go first. */
static void memremap_neighbours_share_a_section(void **state)
{
	struct dev_pagemap a = pgmap_of(DEV, 64 * MiB), b = pgmap_of(DEV + 64 * MiB, 64 * MiB);
	struct vmem_altmap am = host_pfn_dev_altmap(DEV, 64 * MiB);
	struct host_mm_snap before = host_mm_snap();

	(void)state;
	assert_int_equal(memremap_pages(&a, &am, NULL), 0);
	assert_int_equal(a.altmap.alloc, 0);	/* partial section: RAM, not the altmap */
	u64 tables = kernel_pgtable.nr_tables;
	assert_int_equal(memremap_pages(&b, NULL, NULL), 0);
	assert_int_equal(kernel_pgtable.nr_tables, tables);	/* the same PT */
	check_pages(&a, 2);
	check_pages(&b, 0);
	struct mem_section *ms = section_lookup(pfn_to_section_nr(PFN(DEV)));
	assert_int_equal(ms->memmap_map, ~0ULL);
	assert_int_equal(memunmap_pages(&a), 0);
	assert_int_equal(ms->memmap_map, 0xffffffff00000000ULL);
	check_pages(&b, 0);
	assert_false(pfn_valid(PFN(DEV)));
	assert_int_equal(memunmap_pages(&b), 0);
	assert_mm_snap(host_mm_snap(), before);
	/* Other order. */
	assert_int_equal(memremap_pages(&a, &am, NULL), 0);
	assert_int_equal(memremap_pages(&b, NULL, NULL), 0);
	assert_int_equal(memunmap_pages(&b), 0);
	check_pages(&a, 2);
	assert_int_equal(memunmap_pages(&a), 0);
	assert_mm_snap(host_mm_snap(), before);
}

/* RAM ends at 960 MiB inside section 7: a device right after it shares it. */
static void memremap_adjacent_to_ram_section(void **state)
{
	struct dev_pagemap p = pgmap_of(RAM_END, 64 * MiB), q = pgmap_of(RAM_END - 2 * MiB, 4 * MiB);
	struct host_mm_snap before = host_mm_snap();
	struct page ram = *pfn_to_page(PFN(RAM_END) - 1);

	(void)state;
	assert_int_equal(memremap_pages(&q, NULL, NULL), -EBUSY);
	assert_int_equal(memremap_pages(&p, NULL, NULL), 0);
	struct mem_section *ms = section_lookup(pfn_to_section_nr(PFN(RAM_END)));
	assert_int_equal(ms->flags, SECTION_PRESENT | SECTION_HAS_MEMMAP | SECTION_ONLINE | SECTION_DEVICE);
	check_pages(&p, 0);
	assert_int_equal(page_zone(pfn_to_page(PFN(RAM_END) - 1)), ZONE_NORMAL);
	assert_int_equal(memunmap_pages(&p), 0);
	assert_memory_equal(pfn_to_page(PFN(RAM_END) - 1), &ram, sizeof(ram));
	assert_true(pfn_valid(PFN(RAM_END) - 1));
	assert_int_equal(ms->flags, SECTION_PRESENT | SECTION_HAS_MEMMAP | SECTION_ONLINE);
	assert_mm_snap(host_mm_snap(), before);
}

static int done_calls;

static void count_done(struct dev_pagemap *pgmap)
{
	(void)pgmap;
	done_calls++;
}

static void memremap_pins_delay_teardown(void **state)
{
	struct dev_pagemap pgmap = pgmap_of(DEV, 128 * MiB);
	struct host_mm_snap before = host_mm_snap();
	u64 pfn = PFN(DEV) + 77;

	(void)state;
	done_calls = 0;
	pgmap.done = count_done;
	assert_null(pgmap_pin(pfn));
	assert_int_equal(memremap_pages(&pgmap, NULL, NULL), 0);
	struct dev_pagemap *p1 = pgmap_pin(pfn), *p2 = pgmap_pin(PFN(DEV + 128 * MiB) - 1);
	assert_ptr_equal(p1, &pgmap);
	assert_ptr_equal(p2, &pgmap);
	assert_null(pgmap_pin(PFN(DEV + 128 * MiB)));
	assert_int_equal(memunmap_pages(&pgmap), -EINPROGRESS);
	assert_int_equal(pgmap.state, PGMAP_DYING);
	assert_null(pgmap_pin(pfn));	/* no new pins */
	assert_int_equal(memunmap_pages(&pgmap), -EINVAL);
	/* Still usable by the holders: struct pages and data. */
	assert_ptr_equal(pfn_to_page(pfn)->pgmap, &pgmap);
	*(u64 *)phys_to_virt(PFN_PHYS(pfn)) = 42;
	assert_ptr_equal(pgmap_lookup(pfn), &pgmap);
	pgmap_unpin(p1);
	assert_int_equal(done_calls, 0);
	assert_true(pfn_valid(pfn));
	pgmap_unpin(p2);
	assert_int_equal(done_calls, 1);
	assert_int_equal(pgmap.state, PGMAP_UNREGISTERED);
	assert_false(pfn_valid(pfn));
	assert_null(pgmap_lookup(pfn));
	assert_mm_snap(host_mm_snap(), before);
	pgmap_unpin(&pgmap);
	assert_true(host_console_has("without a pin"));
}

/* Register/unregister cycles of assorted shapes leak nothing. */
static void memremap_cycles_leak_nothing(void **state)
{
	static const u64 sizes[] = { 2 * MiB, 126 * MiB, 128 * MiB, 130 * MiB, 1 * GiB + 2 * MiB };
	struct host_mm_snap before = host_mm_snap();

	(void)state;
	for (int i = 0; i < 1000; i++) {
		u64 start = DEV + (u64)(i % 7) * 2 * MiB, size = sizes[i % ARRAY_SIZE(sizes)];
		struct dev_pagemap p = pgmap_of(start, size);
		bool dev = i % 3 == 0 && size > 2 * MiB; /* 2 MiB has no room for a layout */
		struct vmem_altmap a = dev ? host_pfn_dev_altmap(start, size) : (struct vmem_altmap){0};

		if (i % 3 == 1)
			p.flags |= PGMAP_BASE_PAGES;
		assert_int_equal(memremap_pages(&p, dev ? &a : NULL, NULL), 0);
		assert_int_equal(memunmap_pages(&p), 0);
	}
	assert_mm_snap(host_mm_snap(), before);
}

/* Every allocation memremap_pages makes can fail; each failure unwinds fully. */
static void memremap_every_enomem_unwinds(void **state)
{
	struct host_mm_snap before = host_mm_snap();
	int pass;

	(void)state;
	for (pass = 0; pass < 2; pass++) {
		u64 start = 20 * GiB + 64 * MiB, size = 512 * MiB;	/* new tables everywhere */
		struct dev_pagemap p = pgmap_of(start, size);
		struct vmem_altmap a = host_pfn_dev_altmap(start, size);
		u64 n;

		for (n = 1;; n++) {
			mm_fail_nth = n;
			int err = memremap_pages(&p, pass ? &a : NULL, NULL);
			if (!err)
				break;
			assert_int_equal(err, -ENOMEM);
			assert_mm_snap(host_mm_snap(), before);
			assert_false(pfn_valid(PFN(start)));
			assert_false(direct_map_covers(start, PAGE_SIZE));
			assert_int_equal(p.state, PGMAP_UNREGISTERED);
		}
		mm_fail_nth = 0;
		assert_true(n > 5);
		check_pages(&p, pass ? 2 : 0);
		assert_int_equal(memunmap_pages(&p), 0);
		assert_mm_snap(host_mm_snap(), before);
	}
}

static void pfn_t_helpers(void **state)
{
	struct dev_pagemap pgmap = pgmap_of(DEV, 2 * MiB);
	pfn_t ram = pfn_to_pfn_t(PFN(RAM_BASE) + 3, 0);
	pfn_t dev = phys_to_pfn_t(DEV + 5 * PAGE_SIZE + 12, PFN_DEV | PFN_MAP);
	pfn_t raw = pfn_to_pfn_t(PFN(DEV), PFN_DEV);

	(void)state;
	assert_true(pfn_t_has_page(ram));
	assert_true(pfn_t_has_page(dev));
	assert_false(pfn_t_has_page(raw));
	assert_int_equal(pfn_t_to_pfn(dev), PFN(DEV) + 5);
	assert_int_equal(pfn_t_to_phys(dev), DEV + 5 * PAGE_SIZE);
	assert_ptr_equal(pfn_t_to_page(ram), pfn_to_page(PFN(RAM_BASE) + 3));
	assert_null(pfn_t_to_page(dev));	/* no memmap yet */
	assert_int_equal(memremap_pages(&pgmap, NULL, NULL), 0);
	assert_ptr_equal(pfn_t_to_page(dev), pfn_to_page(PFN(DEV) + 5));
	assert_int_equal(page_to_pfn(pfn_t_to_page(dev)), PFN(DEV) + 5);
	assert_ptr_equal(page_address(pfn_t_to_page(dev)), phys_to_virt(DEV + 5 * PAGE_SIZE));
	assert_null(pfn_t_to_page(raw));	/* page-less by its flags */
	assert_null(pfn_t_to_page(pfn_to_pfn_t(PFN(3 * GiB), PFN_DEV | PFN_MAP)));
	assert_int_equal(memunmap_pages(&pgmap), 0);
}

static void kmap_pfn_pins_device_pages(void **state)
{
	struct dev_pagemap pgmap = pgmap_of(DEV, 4 * MiB);
	struct host_mm_snap before = host_mm_snap();
	struct kmap km, none;

	(void)state;
	u8 *r = kmap_pfn(pfn_to_pfn_t(PFN(RAM_BASE), 0), &km);
	assert_ptr_equal(r, phys_to_virt(RAM_BASE));
	assert_null(km.pgmap);
	kunmap_pfn(&km);
	assert_null(kmap_pfn(pfn_to_pfn_t(PFN(3 * GiB), 0), &km));	/* not RAM */
	assert_null(kmap_pfn(pfn_to_pfn_t(PFN(DEV), PFN_DEV), &km));	/* not mapped */
	assert_null(kmap_pfn(pfn_to_pfn_t(PFN(DEV), PFN_DEV | PFN_MAP), &km));
	assert_int_equal(memremap_pages(&pgmap, NULL, NULL), 0);
	u8 *d = kmap_pfn(pfn_to_pfn_t(PFN(DEV) + 1, PFN_DEV | PFN_MAP), &km);
	assert_ptr_equal(d, phys_to_virt(DEV + PAGE_SIZE));
	assert_ptr_equal(km.pgmap, &pgmap);
	assert_int_equal(pgmap.pins, 1);
	assert_int_equal(memunmap_pages(&pgmap), -EINPROGRESS);
	assert_null(kmap_pfn(pfn_to_pfn_t(PFN(DEV) + 2, PFN_DEV | PFN_MAP), &none));
	d[0] = 7;	/* still mapped for the holder */
	kunmap_pfn(&none);	/* took nothing: drops nothing */
	assert_int_equal(pgmap.pins, 1);
	kunmap_pfn(&km);
	assert_int_equal(pgmap.state, PGMAP_UNREGISTERED);
	assert_mm_snap(host_mm_snap(), before);
}

/*
 * Regression (issue 11 item 8): kunmap_pfn decided from a fresh lookup
 * whether to drop a pin. An address of page-less device memory, mapped
 * before a pgmap was registered over it, took no pin; giving it back
 * afterwards dropped the pin of the pgmap's real holder.
 */
static void kunmap_drops_only_its_own_pin(void **state)
{
	struct dev_pagemap pgmap = pgmap_of(DEV, 4 * MiB);
	struct kmap early, holder;

	(void)state;
	assert_int_equal(direct_map_add(DEV, 4 * MiB), 0);
	assert_non_null(kmap_pfn(pfn_to_pfn_t(PFN(DEV) + 1, PFN_DEV), &early));
	assert_null(early.pgmap);
	assert_int_equal(memremap_pages(&pgmap, NULL, NULL), 0);
	assert_non_null(kmap_pfn(pfn_to_pfn_t(PFN(DEV) + 1, PFN_DEV | PFN_MAP), &holder));
	assert_int_equal(pgmap.pins, 1);
	kunmap_pfn(&early);
	assert_int_equal(pgmap.pins, 1);	/* the holder's pin survives */
	assert_int_equal(memunmap_pages(&pgmap), -EINPROGRESS);
	kunmap_pfn(&holder);
	assert_int_equal(pgmap.state, PGMAP_UNREGISTERED);
	direct_map_remove(DEV, 4 * MiB);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(memremap_map_dev_4g_struct_pages_in_device, setup),
		cmocka_unit_test_setup(memremap_map_mem_4g_uses_64m_of_ram, setup),
		cmocka_unit_test_setup(memremap_facts_1_8_example, setup),
		cmocka_unit_test_setup(memremap_facts_2_3_partial_last_section, setup),
		cmocka_unit_test_setup(memremap_altmap_too_small_fails_clean, setup),
		cmocka_unit_test_setup(memremap_refuses_bad_ranges, setup),
		cmocka_unit_test_setup(memremap_neighbours_share_a_section, setup),
		cmocka_unit_test_setup(memremap_adjacent_to_ram_section, setup),
		cmocka_unit_test_setup(memremap_pins_delay_teardown, setup),
		cmocka_unit_test_setup(memremap_cycles_leak_nothing, setup),
		cmocka_unit_test_setup(memremap_every_enomem_unwinds, setup),
		cmocka_unit_test_setup(pfn_t_helpers, setup),
		cmocka_unit_test_setup(kmap_pfn_pins_device_pages, setup),
		cmocka_unit_test_setup(kunmap_drops_only_its_own_pin, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
