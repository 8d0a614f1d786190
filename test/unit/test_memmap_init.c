/*
 * Host tests: struct pages in persistent memory are stored only where they
 * differ (issue 7), and the pmem write counter counts exactly the stores
 * that reach pmem: struct pages in altmap blocks (not those in RAM), block
 * device writes (not reads, not refused requests). memremap_pages reports
 * the same counts in its stats, and only when it succeeds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "host.h"
#include "memremap.h"
#include "mm.h"
#include "pmem.h"
#include "sparse.h"

#define RAM_BASE (16 * MiB)
#define RAM_SIZE (944 * MiB)
#define DEV (4 * GiB)
#define RESERVE 2	/* the info block's 8 KiB */

static int setup(void **state)
{
	(void)state;
	host_mm_boot(RAM_BASE, RAM_SIZE);
	assert_int_equal(sparse_init_ram(), 0);
	memmap_pmem_rewrite = false;
	host_console_reset();
	return 0;
}

static struct dev_pagemap pgmap_of(u64 size)
{
	return (struct dev_pagemap){ .range = { DEV, DEV + size - 1 },
				     .type = MEMORY_DEVICE_FS_DAX };
}

/* The altmap of Linux's map=dev layout at DEV, align 2 MiB (RESERVE pages reserved). */
static struct vmem_altmap altmap_of(u64 size)
{
	struct vmem_altmap a = host_pfn_dev_altmap(DEV, size);

	assert_int_equal(a.reserve, RESERVE);
	return a;
}

static struct memremap_stats stats;	/* the last bring_up's */

/* Register, and return the bytes it stored to pmem for struct pages. */
static u64 bring_up(struct dev_pagemap *pgmap, const struct vmem_altmap *a)
{
	u64 before = pmem_written[PMEM_WR_MEMMAP];

	memset(&stats, 0xff, sizeof(stats));
	assert_int_equal(memremap_pages(pgmap, a, &stats), 0);
	return pmem_written[PMEM_WR_MEMMAP] - before;
}

static void check_pages(struct dev_pagemap *pgmap, u64 first_pfn)
{
	for (u64 pfn = first_pfn; pfn <= PFN_DOWN(pgmap->range.end); pfn++) {
		const struct page *p = pfn_to_page(pfn);
		if (page_zone(p) != ZONE_DEVICE || p->pgmap != pgmap || p->refcount || p->lru.next)
			fail_msg("pfn %#llx not a clean device page", pfn);
	}
}

/*
 * The altmap's reserve has struct pages too, initialised as reserved with no
 * owner, so a walker over every pfn never reads an uninitialised one (B8).
 */
static void check_reserve(u64 first_pfn)
{
	for (u64 pfn = first_pfn; pfn < first_pfn + RESERVE; pfn++) {
		const struct page *p = pfn_to_page(pfn);
		if (page_zone(p) != ZONE_DEVICE || !(p->flags & PG_reserved) || p->pgmap)
			fail_msg("reserve pfn %#llx not a reserved page without owner", pfn);
	}
}

static void memmap_dev_first_bringup_stores_every_page(void **state)
{
	struct dev_pagemap pgmap = pgmap_of(1 * GiB);
	struct vmem_altmap a = altmap_of(1 * GiB);
	u64 pages = PFN_DOWN(1 * GiB);	/* the reserve's included */

	(void)state;
	assert_true(vmemmap_in_altmap(PFN_DOWN(DEV) + RESERVE, &a) == false);	/* not yet mapped */
	assert_int_equal(bring_up(&pgmap, &a), pages * sizeof(struct page));
	assert_int_equal(stats.pages_init, pages);
	assert_int_equal(stats.pmem_pages_stored, pages);
	assert_true(vmemmap_in_altmap(PFN_DOWN(DEV), &pgmap.altmap));
	check_pages(&pgmap, PFN_DOWN(DEV) + RESERVE);
	check_reserve(PFN_DOWN(DEV));
	assert_int_equal(memunmap_pages(&pgmap), 0);
}

/* The reprobe of issue 7: an unchanged map=dev device comes back writing nothing. */
static void memmap_dev_reprobe_stores_nothing(void **state)
{
	struct dev_pagemap pgmap = pgmap_of(1 * GiB);
	struct vmem_altmap a = altmap_of(1 * GiB);

	(void)state;
	bring_up(&pgmap, &a);
	assert_int_equal(memunmap_pages(&pgmap), 0);
	assert_int_equal(bring_up(&pgmap, &a), 0);
	assert_int_equal(stats.pmem_pages_stored, 0);
	check_pages(&pgmap, PFN_DOWN(DEV) + RESERVE);
	assert_int_equal(memunmap_pages(&pgmap), 0);
}

/* Struct pages a user changed (or a crash left dirty) are stored again, and only they. */
static void memmap_dev_stores_only_what_differs(void **state)
{
	struct dev_pagemap pgmap = pgmap_of(1 * GiB);
	struct vmem_altmap a = altmap_of(1 * GiB);
	u64 first = PFN_DOWN(DEV) + RESERVE, last = PFN_DOWN(DEV + 1 * GiB) - 1;

	(void)state;
	bring_up(&pgmap, &a);
	pfn_to_page(first)->refcount = 1;
	pfn_to_page(first + 1000)->lru.next = (struct list_head *)0x1234;
	pfn_to_page(last)->_reserved[2] = 9;	/* the last word of the last page */
	assert_int_equal(memunmap_pages(&pgmap), 0);
	assert_int_equal(bring_up(&pgmap, &a), 3 * sizeof(struct page));
	check_pages(&pgmap, first);
	assert_int_equal(memunmap_pages(&pgmap), 0);

	/* Another owner: the pgmap pointer differs in every struct page. */
	struct dev_pagemap other = pgmap_of(1 * GiB);
	assert_int_equal(bring_up(&other, &a), (last + 1 - first) * sizeof(struct page));
	assert_int_equal(memunmap_pages(&other), 0);
}

/* memmap_pmem=rewrite is Linux 6.1: every struct page stored at every probe. */
static void memmap_dev_rewrite_stores_all(void **state)
{
	struct dev_pagemap pgmap = pgmap_of(1 * GiB);
	struct vmem_altmap a = altmap_of(1 * GiB);
	u64 pages = PFN_DOWN(1 * GiB);

	(void)state;
	bring_up(&pgmap, &a);
	assert_int_equal(memunmap_pages(&pgmap), 0);
	memmap_pmem_rewrite = true;
	assert_int_equal(bring_up(&pgmap, &a), pages * sizeof(struct page));
	memmap_pmem_rewrite = false;
	assert_int_equal(memunmap_pages(&pgmap), 0);
}

/* map=mem: struct pages in RAM are no pmem stores. */
static void memmap_mem_stores_nothing_to_pmem(void **state)
{
	struct dev_pagemap pgmap = pgmap_of(1 * GiB);

	(void)state;
	assert_int_equal(bring_up(&pgmap, NULL), 0);
	assert_int_equal(stats.pages_init, PFN_DOWN(1 * GiB));
	assert_false(vmemmap_in_altmap(PFN_DOWN(DEV), NULL));
	check_pages(&pgmap, PFN_DOWN(DEV));
	assert_int_equal(memunmap_pages(&pgmap), 0);
}

/* FACTS §2.3: the partial last section's struct pages are in RAM: not counted. */
static void memmap_dev_partial_section_in_ram_not_counted(void **state)
{
	struct dev_pagemap pgmap = pgmap_of(1 * GiB - 2 * MiB);
	struct vmem_altmap a = altmap_of(1 * GiB - 2 * MiB);
	u64 in_altmap = 7 * PAGES_PER_SECTION;

	(void)state;
	assert_int_equal(bring_up(&pgmap, &a), in_altmap * sizeof(struct page));
	assert_false(vmemmap_in_altmap(PFN_DOWN(DEV) + 7 * PAGES_PER_SECTION, &pgmap.altmap));
	check_pages(&pgmap, PFN_DOWN(DEV) + RESERVE);
	assert_int_equal(memunmap_pages(&pgmap), 0);
	assert_int_equal(bring_up(&pgmap, &a), 0);
	assert_int_equal(memunmap_pages(&pgmap), 0);
}

/* The stats are written on success only; NULL asks for none. */
static void memremap_stats_only_on_success(void **state)
{
	struct dev_pagemap pgmap = pgmap_of(1 * GiB), bad = pgmap_of(3 * MiB);
	struct memremap_stats st, untouched;

	(void)state;
	memset(&st, 0xab, sizeof(st));
	untouched = st;
	assert_int_equal(memremap_pages(&bad, NULL, &st), -EINVAL);
	assert_memory_equal(&st, &untouched, sizeof(st));
	assert_int_equal(memremap_pages(&pgmap, NULL, NULL), 0);
	assert_int_equal(memunmap_pages(&pgmap), 0);
	assert_int_equal(memremap_pages(&pgmap, NULL, &st), 0);
	assert_int_equal(st.pages_init, PFN_DOWN(1 * GiB));
	assert_int_equal(st.pmem_pages_stored, 0);
	assert_true(st.init_cycles > 0 && st.init_cycles != untouched.init_cycles);
	assert_true(st.map_cycles != untouched.map_cycles);
	assert_true(st.sparse_cycles != untouched.sparse_cycles);
	assert_int_equal(memunmap_pages(&pgmap), 0);
}

/* pmem_rw: a write counts its length once; reads and refused requests count nothing. */
static void pmem_rw_counts_what_it_stores(void **state)
{
	static struct pmem_device dev;
	static u8 buf[8192];
	struct nsio media;
	u64 before = pmem_written[PMEM_WR_BLOCK];

	(void)state;
	pmem_reset();
	assert_int_equal(nsio_init(&media, DEV, 4 * MiB, NULL), 0);
	struct pmem_span span = { .media = &media, .size = 4 * MiB, .pfn_flags = PFN_DEV };
	assert_int_equal(pmem_attach(&dev, NULL, "pmemt", &span), 0);
	assert_int_equal(pmem_rw(&dev, 4096, buf, sizeof(buf), PMEM_WRITE), 0);
	assert_int_equal(pmem_written[PMEM_WR_BLOCK] - before, sizeof(buf));
	assert_int_equal(pmem_rw(&dev, 0, buf, sizeof(buf), PMEM_READ), 0);
	assert_int_equal(pmem_rw(&dev, 4 * MiB - 512, buf, 1024, PMEM_WRITE), -ERANGE);
	assert_int_equal(pmem_rw(&dev, 100, buf, 512, PMEM_WRITE), -EINVAL);
	assert_int_equal(pmem_written[PMEM_WR_BLOCK] - before, sizeof(buf));
	assert_int_equal(pmem_written_total() - pmem_written[PMEM_WR_MEMMAP] -
				 pmem_written[PMEM_WR_INFOBLOCK] - pmem_written[PMEM_WR_OTHER],
			 pmem_written[PMEM_WR_BLOCK]);
	assert_int_equal(pmem_detach(&dev), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(memmap_dev_first_bringup_stores_every_page, setup),
		cmocka_unit_test_setup(memmap_dev_reprobe_stores_nothing, setup),
		cmocka_unit_test_setup(memmap_dev_stores_only_what_differs, setup),
		cmocka_unit_test_setup(memmap_dev_rewrite_stores_all, setup),
		cmocka_unit_test_setup(memmap_mem_stores_nothing_to_pmem, setup),
		cmocka_unit_test_setup(memmap_dev_partial_section_in_ram_not_counted, setup),
		cmocka_unit_test_setup(memremap_stats_only_on_success, setup),
		cmocka_unit_test_setup(pmem_rw_counts_what_it_stores, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
