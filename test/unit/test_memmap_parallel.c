/*
 * Host tests: struct page init split into section-sized jobs over several
 * CPUs (the work queue's host threads) stores exactly what the serial pass
 * stores: the struct pages byte for byte (read through the vmemmap), the
 * pmem under the device (map=dev's struct pages live there), the altmap,
 * and the counts. For map=dev, map=mem, ranges that start and end inside a
 * section, compound pages with and without dedup, and the diff pass over
 * media that already holds most of the struct pages. Also built with
 * ThreadSanitizer (make test-tsan).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "host.h"
#include "memremap.h"
#include "mm.h"
#include "sparse.h"

#define RAM_BASE (16 * MiB)
#define RAM_SIZE (944 * MiB)
#define DEV (4 * GiB)

struct scenario {
	const char *name;
	u64 start, size;	/* the pgmap's range */
	bool dev;		/* map=dev: altmap of Linux's layout */
	unsigned int shift;	/* compound pages */
	bool premade;		/* media holds the struct pages already, every 777th changed */
};

/* What a bring-up left: every struct page, the pmem hash, the altmap and the counts. */
struct result {
	struct page *pages;
	u64 nr_pages, phys_hash, written;
	struct vmem_altmap altmap;
	struct memremap_stats st;
};

static struct dev_pagemap pgmap;	/* one address for every run: struct pages point at it */

static int bring_up(const struct scenario *sc, struct vmem_altmap *a)
{
	pgmap = (struct dev_pagemap){ .range = { sc->start, sc->start + sc->size - 1 },
				      .type = sc->shift ? MEMORY_DEVICE_GENERIC : MEMORY_DEVICE_FS_DAX,
				      .vmemmap_shift = sc->shift };
	if (sc->dev)
		*a = host_pfn_dev_altmap(sc->start, sc->size);
	return memremap_pages(&pgmap, sc->dev ? a : NULL, NULL);
}

/* Change every 777th struct page on the media (the diff pass must store exactly those). */
static void scribble(void)
{
	u64 first = PFN_DOWN(pgmap.range.start), end = PFN_DOWN(pgmap.range.end) + 1;

	for (u64 pfn = first; pfn < end; pfn += 777)
		pfn_to_page(pfn)->_reserved[1] ^= 0x5a;
}

static void run(const struct scenario *sc, bool parallel, struct result *r)
{
	struct vmem_altmap a;
	u64 first = PFN_DOWN(sc->start);

	host_mm_boot(RAM_BASE, RAM_SIZE);
	assert_int_equal(sparse_init_ram(), 0);
	memmap_pmem_rewrite = false;
	memmap_parallel = false;
	if (sc->premade) {
		assert_int_equal(bring_up(sc, &a), 0);
		scribble();
		assert_int_equal(memunmap_pages(&pgmap), 0);
	}
	memmap_parallel = parallel;
	host_nr_cpus = parallel ? 4 : 1;
	u64 before = pmem_written[PMEM_WR_MEMMAP];
	assert_int_equal(bring_up(sc, &a), 0);
	assert_int_equal(memremap_reinit_pages(&pgmap, parallel ? 0 : 1, &r->st), 0);
	assert_int_equal(r->st.pmem_pages_stored, 0);	/* the same bytes again: in pmem, no store */
	r->written = pmem_written[PMEM_WR_MEMMAP] - before;
	r->nr_pages = PFN_DOWN(sc->size);
	r->pages = malloc(r->nr_pages * sizeof(struct page));
	assert_non_null(r->pages);
	memcpy(r->pages, pfn_to_page(first), r->nr_pages * sizeof(struct page));
	r->altmap = pgmap.altmap;
	r->phys_hash = host_phys_hash(sc->start, sc->size);
	assert_int_equal(memunmap_pages(&pgmap), 0);
	memmap_parallel = true;
	host_nr_cpus = 1;
}

static void compare(const struct scenario *sc)
{
	struct result s, p;
	u64 sections = (ALIGN_UP(PFN_DOWN(sc->start + sc->size), PAGES_PER_SECTION) -
			ALIGN_DOWN(PFN_DOWN(sc->start), PAGES_PER_SECTION)) / PAGES_PER_SECTION;

	run(sc, false, &s);
	run(sc, true, &p);
	for (u64 i = 0; i < s.nr_pages; i++)
		if (memcmp(&s.pages[i], &p.pages[i], sizeof(struct page)))
			fail_msg("%s: struct page of pfn %#llx differs", sc->name,
				 PFN_DOWN(sc->start) + i);
	assert_int_equal(s.phys_hash, p.phys_hash);
	assert_memory_equal(&s.altmap, &p.altmap, sizeof(s.altmap));
	assert_int_equal(s.written, p.written);
	assert_int_equal(s.st.pages_init, p.st.pages_init);
	assert_int_equal(s.st.compound_pages, p.st.compound_pages);
	assert_int_equal(s.st.init_cpus, 1);
	/* Four CPUs enlisted whenever there are four jobs for them. */
	assert_int_equal(p.st.init_cpus, sections >= 4 ? 4 : sections);
	free(s.pages);
	free(p.pages);
}

static void parallel_map_dev_is_serial(void **state)
{
	(void)state;
	compare(&(struct scenario){ "map=dev 1G", DEV, 1 * GiB, true, 0, false });
}

static void parallel_map_dev_partial_sections_is_serial(void **state)
{
	(void)state;
	/* Starts 6 MiB into a section, ends 10 MiB into another: clipped jobs at both ends. */
	compare(&(struct scenario){ "map=dev partial", DEV + 6 * MiB, 1 * GiB + 4 * MiB, true, 0,
				    false });
}

static void parallel_map_dev_diff_pass_is_serial(void **state)
{
	(void)state;
	compare(&(struct scenario){ "map=dev premade", DEV, 1 * GiB, true, 0, true });
}

static void parallel_map_mem_is_serial(void **state)
{
	(void)state;
	compare(&(struct scenario){ "map=mem partial", DEV + 2 * MiB, 1 * GiB - 4 * MiB, false, 0,
				    false });
}

static void parallel_compound_2m_dedup_is_serial(void **state)
{
	(void)state;
	compare(&(struct scenario){ "devdax 2M map=mem", DEV, 1 * GiB, false, 9, false });
}

static void parallel_compound_1g_dedup_is_serial(void **state)
{
	(void)state;
	/* 1 GiB compounds span 8 sections: their own struct pages lie in the first. */
	compare(&(struct scenario){ "devdax 1G map=mem", DEV, 2 * GiB, false, 18, false });
}

static void parallel_compound_2m_map_dev_is_serial(void **state)
{
	(void)state;
	compare(&(struct scenario){ "devdax 2M map=dev", DEV, 1 * GiB, true, 9, false });
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parallel_map_dev_is_serial),
		cmocka_unit_test(parallel_map_dev_partial_sections_is_serial),
		cmocka_unit_test(parallel_map_dev_diff_pass_is_serial),
		cmocka_unit_test(parallel_map_mem_is_serial),
		cmocka_unit_test(parallel_compound_2m_dedup_is_serial),
		cmocka_unit_test(parallel_compound_1g_dedup_is_serial),
		cmocka_unit_test(parallel_compound_2m_map_dev_is_serial),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
