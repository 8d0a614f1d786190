/*
 * Host tests: struct page init split into section-sized jobs over several
 * CPUs (the work queue's host threads) stores exactly what the serial pass
 * stores: the struct pages byte for byte (read through the vmemmap), the
 * pmem under the device (map=dev's struct pages live there), the altmap,
 * and the counts. For map=dev, map=mem, ranges that start and end inside a
 * section, compound pages with and without dedup, and the diff pass over
 * media that already holds most of the struct pages. Deferred init
 * (mm/memmap_defer.c) too: registered with nothing stored, a few sections
 * made ready on the spot by pins, the rest by four CPUs taking idle-work
 * steps, the result again byte for byte the serial one; and a teardown
 * while CPUs are still stepping. Also built with ThreadSanitizer (make
 * test-tsan).
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
#include "workqueue.h"

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

enum init_mode { SERIAL, PARALLEL, DEFERRED };

static int bring_up_stats(const struct scenario *sc, struct vmem_altmap *a, bool defer,
			  struct memremap_stats *st)
{
	pgmap = (struct dev_pagemap){ .range = { sc->start, sc->start + sc->size - 1 },
				      .type = sc->shift ? MEMORY_DEVICE_GENERIC : MEMORY_DEVICE_FS_DAX,
				      .flags = defer ? PGMAP_DEFER_INIT : 0,
				      .vmemmap_shift = sc->shift };
	if (sc->dev)
		*a = host_pfn_dev_altmap(sc->start, sc->size);
	return memremap_pages(&pgmap, sc->dev ? a : NULL, st);
}

static int bring_up(const struct scenario *sc, struct vmem_altmap *a)
{
	return bring_up_stats(sc, a, false, NULL);
}

/* An idle CPU's loop: steps until no section is left (a work-queue job per CPU). */
static void idle_cpu(void *ctx, u64 job)
{
	(void)ctx;
	(void)job;
	while (memmap_defer_step())
		;
}

/*
 * Deferred: nothing stored at registration; pins make their sections ready
 * on the spot (and only those); four CPUs' idle steps do the rest.
 */
static void bring_up_deferred(const struct scenario *sc, struct vmem_altmap *a)
{
	struct memremap_stats st;
	struct memmap_progress pr;
	u64 first = PFN_DOWN(sc->start), last = PFN_DOWN(sc->start + sc->size) - 1;
	u64 before = pmem_written[PMEM_WR_MEMMAP];

	memmap_init_deferred = true;
	assert_int_equal(bring_up_stats(sc, a, true, &st), 0);
	assert_true(st.deferred);
	assert_int_equal(st.pages_init, 0);
	assert_int_equal(pmem_written[PMEM_WR_MEMMAP], before);	/* not one struct page yet */
	memmap_progress(&pgmap, &pr);
	assert_int_equal(pr.ready, 0);
	/* Users first: the last pfn and one in the middle, each its section on the spot. */
	u64 mid = first + (last - first) / 2, users[] = { last, mid, last };
	for (unsigned int i = 0; i < 3; i++) {
		struct dev_pagemap *pin = pgmap_pin(users[i]);
		assert_ptr_equal(pin, &pgmap);
		assert_ptr_equal(pfn_to_page(users[i])->pgmap, &pgmap);
		pgmap_unpin(pin);
	}
	memmap_progress(&pgmap, &pr);
	/* A compound page is readied whole: a 1 GiB one is 8 sections. */
	u64 unit = MAX(1ULL << sc->shift, PAGES_PER_SECTION);
	u64 spot = (last / unit == mid / unit ? 1 : 2) * (unit / PAGES_PER_SECTION);
	assert_int_equal(pr.ready, spot);
	assert_int_equal(pr.on_demand, spot);
	host_nr_cpus = 4;
	work_run_cpus(idle_cpu, 4, NULL, 4);
	host_nr_cpus = 1;
	memmap_progress(&pgmap, &pr);
	assert_int_equal(pr.ready, pr.sections);
	assert_true(pr.done_cycles != 0);
	assert_false(memmap_defer_step());
	assert_false(pgmap.memmap_pending);
	memmap_init_deferred = false;
}

/* Change every 777th struct page on the media (the diff pass must store exactly those). */
static void scribble(void)
{
	u64 first = PFN_DOWN(pgmap.range.start), end = PFN_DOWN(pgmap.range.end) + 1;

	for (u64 pfn = first; pfn < end; pfn += 777)
		pfn_to_page(pfn)->_reserved[1] ^= 0x5a;
}

static void run(const struct scenario *sc, enum init_mode mode, struct result *r)
{
	bool parallel = mode == PARALLEL;
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
	if (mode == DEFERRED) {
		bring_up_deferred(sc, &a);
	} else {
		assert_int_equal(bring_up(sc, &a), 0);
		assert_int_equal(memremap_reinit_pages(&pgmap, parallel ? 0 : 1, &r->st), 0);
		assert_int_equal(r->st.pmem_pages_stored, 0);	/* the same bytes again: no store */
	}
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

/* Two runs left the same struct pages, pmem, altmap and pmem writes. */
static void same(const struct scenario *sc, const struct result *s, const struct result *p)
{
	for (u64 i = 0; i < s->nr_pages; i++)
		if (memcmp(&s->pages[i], &p->pages[i], sizeof(struct page)))
			fail_msg("%s: struct page of pfn %#llx differs", sc->name,
				 PFN_DOWN(sc->start) + i);
	assert_int_equal(s->phys_hash, p->phys_hash);
	assert_memory_equal(&s->altmap, &p->altmap, sizeof(s->altmap));
	assert_int_equal(s->written, p->written);
}

static void compare_deferred(const struct scenario *sc)
{
	struct result s, d;

	run(sc, SERIAL, &s);
	run(sc, DEFERRED, &d);
	same(sc, &s, &d);
	free(s.pages);
	free(d.pages);
}

static void compare(const struct scenario *sc)
{
	struct result s, p;
	u64 sections = (ALIGN_UP(PFN_DOWN(sc->start + sc->size), PAGES_PER_SECTION) -
			ALIGN_DOWN(PFN_DOWN(sc->start), PAGES_PER_SECTION)) / PAGES_PER_SECTION;

	run(sc, SERIAL, &s);
	run(sc, PARALLEL, &p);
	same(sc, &s, &p);
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

static void deferred_map_dev_partial_is_serial(void **state)
{
	(void)state;
	compare_deferred(&(struct scenario){ "deferred map=dev partial", DEV + 6 * MiB,
					     1 * GiB + 4 * MiB, true, 0, false });
}

static void deferred_diff_pass_is_serial(void **state)
{
	(void)state;
	compare_deferred(&(struct scenario){ "deferred map=dev premade", DEV, 1 * GiB, true, 0, true });
}

static void deferred_map_mem_is_serial(void **state)
{
	(void)state;
	compare_deferred(&(struct scenario){ "deferred map=mem", DEV + 2 * MiB, 1 * GiB - 4 * MiB,
					     false, 0, false });
}

static void deferred_compound_1g_dedup_is_serial(void **state)
{
	(void)state;
	compare_deferred(&(struct scenario){ "deferred devdax 1G map=mem", DEV, 2 * GiB, false, 18,
					     false });
}

static void deferred_compound_2m_map_dev_is_serial(void **state)
{
	(void)state;
	compare_deferred(&(struct scenario){ "deferred devdax 2M map=dev", DEV, 1 * GiB, true, 9,
					     false });
}

/* Teardown while three CPUs still step: it waits for them; nothing is left to step after. */
static void teardown_while_cpus_step(void *ctx, u64 job)
{
	(void)ctx;
	if (job == 0) {
		assert_int_equal(memunmap_pages(&pgmap), 0);
		return;
	}
	while (memmap_defer_step())
		;
}

static void deferred_teardown_while_idle_cpus_work(void **state)
{
	(void)state;
	const struct scenario sc = { "deferred teardown", DEV, 2 * GiB, true, 0, false };
	struct vmem_altmap a;

	for (int round = 0; round < 20; round++) {
		host_mm_boot(RAM_BASE, RAM_SIZE);
		assert_int_equal(sparse_init_ram(), 0);
		memmap_init_deferred = true;
		assert_int_equal(bring_up_stats(&sc, &a, true, NULL), 0);
		assert_true(memmap_defer_step());
		host_nr_cpus = 4;
		work_run_cpus(teardown_while_cpus_step, 4, NULL, 4);
		host_nr_cpus = 1;
		assert_false(memmap_defer_step());
		assert_null(pgmap.defer);
		assert_true(memmap_pfn_ready(PFN_DOWN(sc.start) + 5));	/* no pgmap: nothing to wait for */
		memmap_init_deferred = false;
	}
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
		cmocka_unit_test(deferred_map_dev_partial_is_serial),
		cmocka_unit_test(deferred_diff_pass_is_serial),
		cmocka_unit_test(deferred_map_mem_is_serial),
		cmocka_unit_test(deferred_compound_1g_dedup_is_serial),
		cmocka_unit_test(deferred_compound_2m_map_dev_is_serial),
		cmocka_unit_test(deferred_teardown_while_idle_cpus_work),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
