/*
 * A booted machine for mm host tests: memblock RAM, the page allocator, and
 * kernel page tables whose table pages come from it. Its own file so only
 * the tests that call host_mm_boot() link mm/ (others fake parts of it).
 */
#include <stdio.h>
#include <stdlib.h>

#include "host.h"
#include "memblock.h"
#include "memremap.h"
#include "mm.h"
#include "page_alloc.h"
#include "pgtable.h"
#include "sparse.h"

static void die(const char *what)
{
	fprintf(stderr, "host_mm_boot: %s failed\n", what);
	exit(2);
}

static u64 host_table_alloc(void)
{
	if (mm_alloc_should_fail())
		return 0;
	return page_alloc_zeroed(0);
}

static void host_table_free(u64 pa)
{
	page_free(pa, 0);
}

void host_mm_boot(u64 ram_base, u64 ram_size)
{
	host_mm_reboot(ram_base, ram_size, 0, 0);
}

void host_mm_reboot(u64 ram_base, u64 ram_size, u64 keep, u64 size)
{
	host_phys_discard_except(keep, size);
	memblock_reset();
	page_alloc_reset();
	sparse_reset();
	memremap_reset();
	mm_stats_reset();
	cpu_features.pse = true;
	if (memblock_add(ram_base, ram_size))
		die("memblock_add");
	page_alloc_init();
	kernel_pgtable = (struct pgtable){
		.alloc_table = host_table_alloc,
		.free_table = host_table_free,
		.max_leaf = PG_LEVEL_1G,
		.nx = true,
	};
	if (pgtable_init(&kernel_pgtable))
		die("pgtable_init");
}
