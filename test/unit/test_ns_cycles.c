/*
 * Host test (RELIABILITY #38): 1,000 create / reconfigure / destroy cycles
 * of namespaces on the simulated machine of test_pfn_dev, over map=dev and
 * map=mem and the aligns 4K, 2M and 1G: every ordered pair of the six
 * configurations is created then reconfigured, then destroyed. After each
 * cycle (the namespace raw again) every counter is back at its baseline:
 * free RAM pages, kernel page-table pages, struct pages in RAM,
 * section-table RAM, device-mapped bytes, altmap use and waste; no memmap,
 * pgmap or direct map left behind; the raw block device back; the info
 * block zero. ASan checks every access on the way.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "direct_map.h"
#include "host.h"
#include "memremap.h"
#include "mm.h"
#include "nd_pfn.h"
#include "page_alloc.h"
#include "pgtable.h"
#include "sparse.h"

#define CYCLES 1000

/*
 * Two namespaces: a small one for the 4K and 2M aligns, and the smallest
 * that takes a 1G align (a 1 GiB aligned start, 1 GiB for the block and
 * memmap, 1 GiB of data). Building the big one's 32 MiB of struct pages
 * (twice a cycle) costs some 200 ms under ASan, the small one's 10 ms: one
 * cycle in 50 is one of the 20 pairs with a 1G align, each once; the other
 * 980 cycles go round the 16 pairs of 4K and 2M.
 */
#define SMALL_START (4 * GiB)
#define SMALL_SIZE (128 * MiB)
#define BIG_START (8 * GiB)
#define BIG_SIZE (2 * GiB)

struct config {
	enum nd_pfn_mode mode;
	u64 align;
	const char *name;
};

static const struct config configs[] = {
	{ PFN_MODE_PMEM, 4 * KiB, "dev/4K" }, { PFN_MODE_PMEM, 2 * MiB, "dev/2M" },
	{ PFN_MODE_PMEM, 1 * GiB, "dev/1G" }, { PFN_MODE_RAM, 4 * KiB, "mem/4K" },
	{ PFN_MODE_RAM, 2 * MiB, "mem/2M" },  { PFN_MODE_RAM, 1 * GiB, "mem/1G" },
};

/* Fail with the cycle and the first counter off its baseline. */
static void expect_baseline(const struct host_mm_snap *base, int cycle, const char *what)
{
	const char *diff = host_mm_snap_diff(*base, host_mm_snap());

	if (*diff)
		fail_msg("cycle %d (%s): %s", cycle, what, diff);
}

static struct nd_namespace_io *small, *big;

/* A fresh machine: 512 MiB of RAM at 1 GiB, the two regions, probed raw. */
static int setup(void **state)
{
	(void)state;
	host_mm_boot(1 * GiB, 512 * MiB);
	nd_reset();
	pmem_reset();
	nd_pfn_reset();
	host_console_reset();
	host_set_leaf_allowed(PG_LEVEL_1G, true);
	struct nd_bus *bus = nd_bus_register("e820");
	struct nd_region_desc d = {
		.start = SMALL_START, .size = SMALL_SIZE, .numa_node = -1, .target_node = -1
	};
	assert_int_equal(nd_region_create(bus, &d, NULL), 0);
	d.start = BIG_START;
	d.size = BIG_SIZE;
	assert_int_equal(nd_region_create(bus, &d, NULL), 0);
	nd_regions_publish();
	small = nd_namespace_find("namespace0.0");
	big = nd_namespace_find("namespace1.0");
	assert_non_null(small);
	assert_non_null(big);
	nd_probe_namespaces();
	assert_non_null(pmem_find("pmem0"));
	assert_non_null(pmem_find("pmem1"));
	return 0;
}

/* The namespace is raw and holds nothing of a pfn device. */
static void expect_raw(struct nd_namespace_io *ns, const char *raw_name, int cycle)
{
	static const u8 zero[ND_PFN_SB_SIZE];
	struct nd_pfn_sb sb;
	u64 first = PFN_DOWN(ns->start), n = PFN_DOWN(ns->size);

	if (nd_pfn_of(ns) || !pmem_find(raw_name))
		fail_msg("cycle %d: %s is not raw", cycle, ns->name);
	if (sparse_range_has_memmap(first, n) || pgmap_lookup(first) || pgmap_lookup(first + n - 1))
		fail_msg("cycle %d: struct pages or a pgmap left over %s", cycle, ns->name);
	if (!direct_map_covers(ns->start, ns->size))
		fail_msg("cycle %d: the raw device lost its direct map", cycle);
	assert_int_equal(nd_pfn_read_sb(ns, &sb), 0);
	if (memcmp(&sb, zero, sizeof(sb)))
		fail_msg("cycle %d: %s's info block is not zero after destroy", cycle, ns->name);
}

/* Reconfigure to `c` and check the device it brings up. */
static void become(struct nd_namespace_io *ns, const struct config *c, int cycle)
{
	struct nd_pfn_request req = { .mode = c->mode, .align = c->align, .force = true };
	int err = nd_namespace_reconfigure(ns, &req);

	if (err)
		fail_msg("cycle %d: %s to %s: error %d\n%s", cycle, ns->name, c->name, err,
			 host_console_text());
	struct nd_pfn *pfn = nd_pfn_of(ns);
	if (!pfn || !pfn->enabled || pfn->layout.mode != c->mode || pfn->layout.align != c->align)
		fail_msg("cycle %d: %s is not %s", cycle, ns->name, c->name);
	/* The data's struct pages: on the device for map=dev, in RAM for map=mem. */
	if (mm_stat(MM_DEVICE_MAPPED) == 0 ||
	    (c->mode == PFN_MODE_PMEM) != (mm_stat(MM_ALTMAP_USED) != 0))
		fail_msg("cycle %d: %s: device mapped %llu, altmap used %llu", cycle, c->name,
			 mm_stat(MM_DEVICE_MAPPED), mm_stat(MM_ALTMAP_USED));
}

/* The ordered pairs of configs, those with a 1G align apart: 20 and 16. */
static int pairs_1g[20][2], pairs_small[16][2];

static void make_pairs(void)
{
	int n1g = 0, nsmall = 0;

	for (int a = 0; a < 6; a++) {
		for (int b = 0; b < 6; b++) {
			bool g = configs[a].align == 1 * GiB || configs[b].align == 1 * GiB;
			int *p = g ? pairs_1g[n1g++] : pairs_small[nsmall++];
			p[0] = a;
			p[1] = b;
		}
	}
	assert_int_equal(n1g, 20);
	assert_int_equal(nsmall, 16);
}

/*
 * Cycle i: create the first config of a pair, reconfigure to the second,
 * destroy; every 50th cycle a pair with a 1G align on the big namespace.
 */
static void ns_1000_cycles_leak_nothing(void **state)
{
	(void)state;
	struct nd_pfn_request raw = { .mode = PFN_MODE_NONE, .force = true };
	struct host_mm_snap base = host_mm_snap();
	int per_config[ARRAY_SIZE(configs)] = { 0 }, on_big = 0;

	make_pairs();
	for (int i = 0; i < CYCLES; i++) {
		bool use_big = i % 50 == 49;
		const int *p = use_big ? pairs_1g[i / 50 % 20] : pairs_small[i % 16];
		const struct config *a = &configs[p[0]], *b = &configs[p[1]];
		struct nd_namespace_io *ns = use_big ? big : small;
		char what[32];

		snprintf(what, sizeof(what), "%s then %s", a->name, b->name);
		host_console_reset();
		become(ns, a, i);
		become(ns, b, i);
		if (nd_namespace_reconfigure(ns, &raw))
			fail_msg("cycle %d (%s): destroy failed\n%s", i, what, host_console_text());
		expect_raw(ns, use_big ? "pmem1" : "pmem0", i);
		expect_raw(use_big ? small : big, use_big ? "pmem0" : "pmem1", i);
		expect_baseline(&base, i, what);
		per_config[p[0]]++;
		per_config[p[1]]++;
		on_big += use_big;
	}
	print_message("%d cycles, %d of them on the 2 GiB namespace; bring-ups per config:", CYCLES,
		      on_big);
	for (size_t c = 0; c < ARRAY_SIZE(configs); c++) {
		print_message(" %s %d", configs[c].name, per_config[c]);
		assert_true(per_config[c] >= 10);
	}
	print_message("\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(ns_1000_cycles_leak_nothing, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
