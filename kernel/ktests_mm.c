/*
 * In-kernel tests of the memory model on the real page tables: struct
 * pages of RAM, ZONE_DEVICE registration of legacy pmem (memmap=nn!ss),
 * where its struct pages live, what it costs in RAM, pins, teardown and
 * failure unwinding. The QEMU cases (test/qemu/cases/mm.sh) boot with
 * --ram 8G memmap=4G!4G memmap=64M!0x204000000: a 4 GiB range and a
 * 64 MiB one that shares a section with RAM.
 */
#include <errno.h>
#include <string.h>

#include "arch.h"
#include "direct_map.h"
#include "e820.h"
#include "ktest.h"
#include "memblock.h"
#include "memlayout.h"
#include "memremap.h"
#include "mm.h"
#include "nd_pfn_layout.h"
#include "page_alloc.h"
#include "pfn_t.h"
#include "pgtable.h"
#include "printk.h"
#include "sparse.h"

struct mm_snap {
	u64 free_pages, tables, vmemmap, sections, device, altmap;
};

static struct mm_snap mm_snap(void)
{
	struct page_alloc_stats st;

	page_alloc_stats(&st);
	return (struct mm_snap){ st.free_pages, kernel_pgtable.nr_tables, mm_stat(MM_VMEMMAP),
				 mm_stat(MM_SECTION_TABLES), mm_stat(MM_DEVICE_MAPPED),
				 mm_stat(MM_ALTMAP_USED) + mm_stat(MM_ALTMAP_WASTE) };
}

static bool mm_snap_equal(struct mm_snap a, struct mm_snap b)
{
	return memcmp(&a, &b, sizeof(a)) == 0;
}

#define KT_EXPECT_SNAP(a, b)                                                        \
	do {                                                                        \
		struct mm_snap _x = (a), _y = (b);                                  \
		KT_EXPECT_EQ(_x.free_pages, _y.free_pages);                         \
		KT_EXPECT_EQ(_x.tables, _y.tables);                                 \
		KT_EXPECT_EQ(_x.vmemmap, _y.vmemmap);                               \
		KT_EXPECT_EQ(_x.sections, _y.sections);                             \
		KT_EXPECT_EQ(_x.device, _y.device);                                 \
		KT_EXPECT_EQ(_x.altmap, _y.altmap);                                 \
	} while (0)

/*
 * The first pmem range of the e820 map at least min bytes long. Without one
 * the test is skipped (TAP "# SKIP", counted apart: ktest=all runs under
 * other memory layouts too); mm.sh boots the layout and checks each test ran.
 */
static bool find_pmem(u64 min, u64 *start, u64 *size)
{
	for (u32 i = 0; i < e820_table.nr; i++) {
		const struct e820_entry *e = &e820_table.entries[i];

		if (e820_is_pmem(e->type) && e->size >= min && IS_ALIGNED(e->addr, PMD_SIZE)) {
			*start = e->addr;
			*size = ALIGN_DOWN(e->size, PMD_SIZE);
			return true;
		}
	}
	ktest_skip("no pmem range of %llu MiB (boot with memmap=nn!ss)", (min >> 20));
	return false;
}

static struct dev_pagemap pgmap_of(u64 start, u64 size)
{
	return (struct dev_pagemap){ .range = { start, start + size - 1 },
				     .type = MEMORY_DEVICE_FS_DAX };
}

/* The altmap of Linux's map=dev layout for a namespace at start, 2 MiB align. */
static struct vmem_altmap pfn_dev_altmap(u64 start, u64 size)
{
	struct nd_pfn_layout l;
	struct nd_pfn_placement p;
	const char *why;

	if (nd_pfn_lay_out(start, size, PFN_MODE_PMEM, 2 * MiB, &l, &p, &why))
		ktest_fail(__FILE__, __LINE__, "no map=dev layout for %#llx+%#llx: %s", start, size,
			   why);
	return p.altmap;
}

/* Pfns of the range whose struct page is not zone DEVICE of pgmap (reserve skipped). */
static u64 count_bad_pages(struct dev_pagemap *pgmap, u64 reserve)
{
	u64 first = PFN_DOWN(pgmap->range.start), end = PFN_DOWN(pgmap->range.end) + 1, bad = 0;

	for (u64 pfn = first + reserve; pfn < end; pfn++) {
		const struct page *p = pfn_to_page(pfn);

		bad += !pfn_valid(pfn) || page_zone(p) != ZONE_DEVICE || p->pgmap != pgmap;
	}
	return bad;
}

/* Vmemmap pages of [s, e) that do not resolve into [lo, hi) (or are unmapped). */
static u64 count_memmap_outside(u64 s, u64 e, u64 lo, u64 hi)
{
	u64 bad = 0;

	for (u64 va = memmap_va(s); va < memmap_va(e); va += PAGE_SIZE) {
		u64 pa, flags;
		enum pg_level level;

		bad += !pgtable_walk(&kernel_pgtable, va, &pa, &flags, &level) || pa < lo ||
		       pa + PAGE_SIZE > hi;
	}
	return bad;
}

static u64 count_memmap_mapped(u64 s, u64 e)
{
	u64 n = 0;

	for (u64 va = memmap_va(s); va < memmap_va(e); va += PAGE_SIZE) {
		u64 pa, flags;
		enum pg_level level;

		n += pgtable_walk(&kernel_pgtable, va, &pa, &flags, &level);
	}
	return n;
}

KTEST(mm_ram_has_normal_struct_pages)
{
	u64 checked = 0;

	for (u32 i = 0; i < memblock.memory.cnt; i++) {
		const struct memblock_region *r = &memblock.memory.regions[i];

		for (u64 pfn = PFN_UP(r->base); pfn < PFN_DOWN(r->base + r->size); pfn += 97) {
			const struct page *p = pfn_to_page(pfn);

			if (!pfn_valid(pfn) || page_zone(p) != ZONE_NORMAL || (p->flags & PG_reserved) ||
			    p->pgmap)
				ktest_fail(__FILE__, __LINE__,
					   "RAM pfn %#llx: valid %d flags %#llx", pfn,
					   pfn_valid(pfn), p->flags);
			checked++;
		}
	}
	KT_ASSERT(checked > 1000);
	KT_ASSERT(!pfn_valid(PFN_DOWN(0xe0000000)));	/* the PCI hole */
	KT_ASSERT(pfn_t_to_page(pfn_to_pfn_t(PFN_DOWN(0xe0000000), 0)) == NULL);
	KT_EXPECT_EQ(mm_stat(MM_VMEMMAP) % (32 * KiB), 0);
}

/* map=dev: every struct page in the device's free pfns, no RAM but page tables. */
KTEST(mm_memremap_4g_map_dev_uses_no_ram_for_struct_pages)
{
	u64 start, size;

	if (!find_pmem(4 * GiB, &start, &size))
		return;
	struct dev_pagemap pgmap = pgmap_of(start, 4 * GiB);
	struct vmem_altmap a = pfn_dev_altmap(start, 4 * GiB);
	struct mm_snap before = mm_snap(), after;
	u64 first = PFN_DOWN(start), end = first + PFN_DOWN(4 * GiB);
	bool mapped_before = direct_map_covers(start, 4 * GiB);

	KT_ASSERT(memremap_pages(&pgmap, &a, NULL) == 0);
	after = mm_snap();
	kprintf("# mm: 4 GiB map=dev: struct pages %llu KiB of RAM, %llu KiB of pmem (+%llu KiB alignment); page tables +%llu KiB; section tables +%llu KiB; RAM used %llu KiB\n",
		((after.vmemmap - before.vmemmap) >> 10), (PFN_PHYS(pgmap.altmap.alloc) >> 10),
		(PFN_PHYS(pgmap.altmap.align) >> 10), ((after.tables - before.tables) * 4),
		((after.sections - before.sections) >> 10),
		((before.free_pages - after.free_pages) * 4));
	KT_EXPECT_EQ(after.vmemmap, before.vmemmap);
	KT_EXPECT_EQ(before.free_pages - after.free_pages,
		     after.tables - before.tables + (after.sections - before.sections) / PAGE_SIZE);
	KT_EXPECT_EQ(pgmap.altmap.alloc, 32 * 512);
	KT_EXPECT_EQ(count_memmap_outside(first, end, PFN_PHYS(first + a.reserve),
					  PFN_PHYS(first + a.reserve + a.free)), 0);
	KT_EXPECT_EQ(count_bad_pages(&pgmap, a.reserve), 0);
	/* Outside: the firmware hole below, RAM or nothing above. */
	KT_ASSERT(!pfn_valid(first - 1));
	KT_ASSERT(pgmap_lookup(first - 1) == NULL);
	KT_ASSERT(pgmap_pin(end) == NULL);
	KT_ASSERT(!pfn_valid(end) || page_zone(pfn_to_page(end)) == ZONE_NORMAL);
	KT_EXPECT_EQ(mm_stat(MM_DEVICE_MAPPED) - before.device, 4 * GiB);
	KT_ASSERT(memunmap_pages(&pgmap) == 0);
	KT_EXPECT_SNAP(mm_snap(), before);
	KT_EXPECT_EQ(count_memmap_mapped(first, end), 0);
	/* Ours is removed; a driver's direct map of the range is left alone. */
	KT_EXPECT_EQ(direct_map_covers(start, 4 * GiB), mapped_before);
	kprintf("# mm: direct map of the range before registration: %s\n", mapped_before ? "yes" : "no");
}

KTEST(mm_memremap_4g_map_mem_uses_64m_of_ram)
{
	u64 start, size;

	if (!find_pmem(4 * GiB, &start, &size))
		return;
	struct dev_pagemap pgmap = pgmap_of(start, 4 * GiB);
	struct mm_snap before = mm_snap(), after;
	u64 first = PFN_DOWN(start), end = first + PFN_DOWN(4 * GiB);

	KT_ASSERT(memremap_pages(&pgmap, NULL, NULL) == 0);
	after = mm_snap();
	kprintf("# mm: 4 GiB map=mem: struct pages %llu KiB of RAM; page tables +%llu KiB; section tables +%llu KiB; RAM used %llu KiB\n",
		((after.vmemmap - before.vmemmap) >> 10), ((after.tables - before.tables) * 4),
		((after.sections - before.sections) >> 10),
		((before.free_pages - after.free_pages) * 4));
	KT_EXPECT_EQ(after.vmemmap - before.vmemmap, 64 * MiB);
	KT_EXPECT_EQ(count_bad_pages(&pgmap, 0), 0);
	KT_EXPECT_EQ(count_memmap_outside(first, end, 0, memblock_end_of_ram()), 0);
	KT_ASSERT(memunmap_pages(&pgmap) == 0);
	KT_EXPECT_SNAP(mm_snap(), before);
}

/*
 * devdax compound pages of 1 GiB and 2 MiB on the same 4 GiB, map=mem: the
 * vmemmap deduplicated (FACTS-2 §2.2), against the 64 MiB above. Every
 * sampled struct page names its compound's head through whichever shared
 * frame maps it; teardown gives everything back.
 */
KTEST(mm_memremap_4g_devdax_dedup_ram)
{
	static const unsigned int shifts[] = { 18, 9 };
	u64 start, size;

	if (!find_pmem(4 * GiB, &start, &size))
		return;
	for (unsigned int i = 0; i < ARRAY_SIZE(shifts); i++) {
		struct dev_pagemap pgmap = pgmap_of(start, 4 * GiB);
		struct memremap_stats st;
		struct mm_snap before = mm_snap(), after;
		u64 nr = 1ULL << shifts[i], bad = 0;

		pgmap.type = MEMORY_DEVICE_GENERIC;
		pgmap.vmemmap_shift = shifts[i];
		KT_ASSERT(memremap_pages(&pgmap, NULL, &st) == 0);
		after = mm_snap();
		kprintf("# mm: 4 GiB devdax map=mem align %s: struct pages %llu KiB of RAM; page tables +%llu KiB; RAM used %llu KiB; %llu compound pages (64 MiB without dedup)\n",
			shifts[i] == 18 ? "1G" : "2M", ((after.vmemmap - before.vmemmap) >> 10),
			((after.tables - before.tables) * 4), ((before.free_pages - after.free_pages) * 4),
			st.compound_pages);
		KT_ASSERT(pgmap.vmemmap_dedup);
		KT_EXPECT_EQ(after.vmemmap - before.vmemmap, st.vmemmap_ram);
		KT_ASSERT(st.vmemmap_ram <= vmemmap_ram_estimate(PFN_DOWN(4 * GiB), shifts[i]));
		KT_ASSERT(st.vmemmap_ram < 64 * MiB / 3);
		for (u64 pfn = pgmap.compound_start; pfn < pgmap.compound_end; pfn += 4093) {
			struct page *p = pfn_to_page(pfn), *head = pfn_to_page(ALIGN_DOWN(pfn, nr));
			bad += compound_head(p) != head || p->pgmap != &pgmap ||
			       compound_order(head) != shifts[i];
		}
		KT_EXPECT_EQ(bad, 0);
		KT_ASSERT(memunmap_pages(&pgmap) == 0);
		KT_EXPECT_SNAP(mm_snap(), before);
	}
}

static int done_calls;

static void count_done(struct dev_pagemap *pgmap)
{
	(void)pgmap;
	done_calls++;
}

KTEST(mm_memremap_pin_keeps_range_until_unpinned)
{
	u64 start, size;

	if (!find_pmem(256 * MiB, &start, &size))
		return;
	struct dev_pagemap pgmap = pgmap_of(start, 256 * MiB);
	struct vmem_altmap a = pfn_dev_altmap(start, 256 * MiB);
	struct mm_snap before = mm_snap();
	u64 pfn = PFN_DOWN(start) + 0x1000;

	done_calls = 0;
	pgmap.done = count_done;
	KT_ASSERT(memremap_pages(&pgmap, &a, NULL) == 0);
	struct kmap km, km2;
	u64 *va = kmap_pfn(pfn_to_pfn_t(pfn, PFN_DEV | PFN_MAP), &km);
	KT_ASSERT(va == phys_to_virt(PFN_PHYS(pfn)));
	KT_EXPECT_EQ(pgmap.pins, 1);
	KT_EXPECT_EQ(memunmap_pages(&pgmap), -EINPROGRESS);
	KT_ASSERT(pgmap_pin(pfn) == NULL);
	KT_ASSERT(kmap_pfn(pfn_to_pfn_t(pfn + 1, PFN_DEV | PFN_MAP), &km2) == NULL);
	*va = 0x5a5a5a5a;	/* still mapped for the holder */
	KT_EXPECT_EQ(*va, 0x5a5a5a5a);
	KT_ASSERT(pfn_to_page(pfn)->pgmap == &pgmap);
	KT_EXPECT_EQ(done_calls, 0);
	kunmap_pfn(&km2);	/* took nothing: gives nothing back */
	KT_EXPECT_EQ(done_calls, 0);
	kunmap_pfn(&km);
	KT_EXPECT_EQ(done_calls, 1);
	KT_EXPECT_EQ(pgmap.state, PGMAP_UNREGISTERED);
	KT_ASSERT(!pfn_valid(pfn));
	KT_EXPECT_SNAP(mm_snap(), before);
}

KTEST(mm_memremap_1000_cycles_leak_nothing)
{
	static const u64 sizes[] = { 2 * MiB, 16 * MiB, 62 * MiB, 128 * MiB };
	u64 start, size;

	if (!find_pmem(512 * MiB, &start, &size))
		return;
	struct mm_snap before = mm_snap();
	u64 t0 = arch_cycles();

	for (int i = 0; i < 1000; i++) {
		u64 s = start + (i % 4 == 3 ? 128 * MiB : (u64)(i % 5) * 2 * MiB);
		u64 len = sizes[i % 4];
		struct dev_pagemap p = pgmap_of(s, len);
		struct vmem_altmap a = i % 2 ? pfn_dev_altmap(s, len) : (struct vmem_altmap){ 0 };
		int err = memremap_pages(&p, i % 2 ? &a : NULL, NULL);

		if (!err)
			err = memunmap_pages(&p);
		if (err) {
			ktest_fail(__FILE__, __LINE__, "cycle %d: error %d", i, err);
			return;
		}
	}
	kprintf("# mm: 1000 register/unregister cycles in %llu ms\n",
		(arch_cycles_to_ns(arch_cycles() - t0) / 1000000));
	KT_EXPECT_SNAP(mm_snap(), before);
}

KTEST(mm_memremap_rejects_bad_ranges_and_leaves_nothing)
{
	u64 start, size;

	if (!find_pmem(512 * MiB, &start, &size))
		return;
	struct mm_snap before = mm_snap();
	struct dev_pagemap p = pgmap_of(start, 256 * MiB), q;
	struct vmem_altmap a = pfn_dev_altmap(start, 256 * MiB);

	q = pgmap_of(start + PAGE_SIZE, 2 * MiB);
	KT_EXPECT_EQ(memremap_pages(&q, NULL, NULL), -EINVAL);
	q = pgmap_of(start, 3 * MiB);
	KT_EXPECT_EQ(memremap_pages(&q, NULL, NULL), -EINVAL);
	q = pgmap_of(ALIGN_DOWN(memblock.memory.regions[1].base, PMD_SIZE), 2 * MiB);
	KT_EXPECT_EQ(memremap_pages(&q, NULL, NULL), -EBUSY);	/* RAM */
	a.free -= 1;
	KT_EXPECT_EQ(memremap_pages(&p, &a, NULL), -ENOMEM);	/* altmap one page short */
	KT_EXPECT_EQ(count_memmap_mapped(PFN_DOWN(start), PFN_DOWN(start + 256 * MiB)), 0);
	KT_ASSERT(!pfn_valid(PFN_DOWN(start)));
	KT_EXPECT_SNAP(mm_snap(), before);
	a.free += 1;
	KT_ASSERT(memremap_pages(&p, &a, NULL) == 0);
	q = pgmap_of(start + 254 * MiB, 4 * MiB);
	KT_EXPECT_EQ(memremap_pages(&q, NULL, NULL), -EBUSY);	/* overlaps p */
	KT_EXPECT_EQ(memunmap_pages(&p), 0);
	KT_EXPECT_SNAP(mm_snap(), before);
}

/* A device range sharing its 128 MiB section with RAM (memmap=64M!0x204000000). */
KTEST(mm_memremap_adjacent_to_ram_shares_its_section)
{
	u64 start = 0, size = 0;

	for (u32 i = 0; i < e820_table.nr; i++) {
		const struct e820_entry *e = &e820_table.entries[i];

		if (e820_is_pmem(e->type) && e->size < 128 * MiB &&
		    memblock_is_ram(e->addr - PAGE_SIZE, PAGE_SIZE)) {
			start = e->addr;
			size = e->size;
		}
	}
	if (!start) {
		ktest_skip("no small pmem range right after RAM (memmap=64M!0x204000000 with 8G)");
		return;
	}
	struct mm_snap before = mm_snap();
	struct dev_pagemap p = pgmap_of(start, size);
	struct vmem_altmap a = pfn_dev_altmap(start, size);
	u64 ram_pfn = PFN_DOWN(start) - 1;
	struct page ram = *pfn_to_page(ram_pfn);

	KT_ASSERT(memremap_pages(&p, &a, NULL) == 0);
	struct mem_section *ms = section_lookup(pfn_to_section_nr(PFN_DOWN(start)));
	KT_ASSERT(ms && (ms->flags & SECTION_ONLINE) && (ms->flags & SECTION_DEVICE));
	KT_EXPECT_EQ(p.altmap.alloc, 0);	/* partial section: 4 KiB pages from RAM */
	KT_EXPECT_EQ(count_bad_pages(&p, a.reserve), 0);
	KT_EXPECT_EQ(page_zone(pfn_to_page(ram_pfn)), ZONE_NORMAL);
	KT_EXPECT_EQ(memunmap_pages(&p), 0);
	KT_ASSERT(pfn_valid(ram_pfn));
	KT_ASSERT(memcmp(pfn_to_page(ram_pfn), &ram, sizeof(ram)) == 0);
	KT_EXPECT_SNAP(mm_snap(), before);
}

static u64 (*real_alloc_table)(void);

static u64 alloc_table_failing(void)
{
	return mm_alloc_should_fail() ? 0 : real_alloc_table();
}

/* Every allocation of a registration fails in turn; each unwinds completely. */
KTEST(mm_memremap_every_enomem_unwinds)
{
	u64 start, size, n;

	if (!find_pmem(1 * GiB, &start, &size))
		return;
	start += 2 * GiB + 62 * MiB;	/* partial sections, new direct-map tables */
	struct mm_snap before = mm_snap();

	real_alloc_table = kernel_pgtable.alloc_table;
	kernel_pgtable.alloc_table = alloc_table_failing;
	for (n = 1; n < 1000; n++) {
		struct dev_pagemap p = pgmap_of(start, 260 * MiB);
		struct vmem_altmap a = pfn_dev_altmap(start, 260 * MiB);

		mm_fail_nth = n;
		int err = memremap_pages(&p, n % 2 ? &a : NULL, NULL);
		mm_fail_nth = 0;
		if (!err) {
			KT_EXPECT_EQ(memunmap_pages(&p), 0);
			break;
		}
		KT_EXPECT_EQ(err, -ENOMEM);
		if (!mm_snap_equal(mm_snap(), before))
			ktest_fail(__FILE__, __LINE__, "failing allocation %llu leaked", n);
	}
	kernel_pgtable.alloc_table = real_alloc_table;
	kprintf("# mm: %llu allocation failures injected, each unwound\n", (n - 1));
	KT_ASSERT(n > 5 && n < 1000);
	KT_EXPECT_SNAP(mm_snap(), before);
}

KTEST(mm_kmap_pfn_maps_ram_and_refuses_holes)
{
	u64 pa = memblock.memory.regions[1].base + 4 * MiB;
	struct kmap km;
	u8 *p = kmap_pfn(phys_to_pfn_t(pa, 0), &km);

	KT_ASSERT(p == phys_to_virt(pa));
	kunmap_pfn(&km);
	KT_ASSERT(kmap_pfn(phys_to_pfn_t(0xe0000000, 0), &km) == NULL);
	KT_ASSERT(kmap_pfn(phys_to_pfn_t(0xe0000000, PFN_DEV | PFN_MAP), &km) == NULL);
	KT_ASSERT(pfn_t_has_page(phys_to_pfn_t(pa, 0)));
	KT_ASSERT(!pfn_t_has_page(phys_to_pfn_t(pa, PFN_DEV)));
	KT_EXPECT_EQ(pfn_t_to_phys(phys_to_pfn_t(pa + 5, PFN_DEV | PFN_MAP)), pa);
}
