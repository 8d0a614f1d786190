/*
 * Host tests: pfn devices end to end in simulated memory with real page
 * tables and struct pages: probe, create map=dev/map=mem, re-probe as after
 * a reboot, corrupted blocks, block I/O bounds, direct_access.
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
#include "mm.h"
#include "nd_pfn.h"
#include "persist.h"

#define NS_START (4 * GiB)
#define NS_SIZE (1 * GiB)

static struct nd_namespace_io *ns;

/* A fresh machine: 512 MiB of RAM at 1 GiB, one e820 pmem region at 4 GiB. */
static void boot(bool keep_pmem)
{
	static u8 saved[ND_PFN_SB_OFFSET + ND_PFN_SB_SIZE];

	if (keep_pmem)
		memcpy(saved, phys_to_virt(NS_START), sizeof(saved));
	host_mm_boot(1 * GiB, 512 * MiB);
	nd_reset();
	pmem_reset();
	nd_pfn_reset();
	host_console_reset();
	if (keep_pmem)
		memcpy(phys_to_virt(NS_START), saved, sizeof(saved));
	struct nd_bus *bus = nd_bus_register("e820");
	struct nd_region_desc d = { .start = NS_START, .size = NS_SIZE, .numa_node = -1,
				    .target_node = -1 };
	assert_int_equal(nd_region_create(bus, &d, NULL), 0);
	nd_regions_publish();
	ns = nd_namespace_find("namespace0.0");
	assert_non_null(ns);
	nd_probe_namespaces();
}

static int setup(void **state)
{
	(void)state;
	boot(false);
	return 0;
}

static void pfn_probe_of_empty_namespace_is_raw(void **state)
{
	(void)state;
	assert_null(nd_pfn_of(ns));
	assert_non_null(pmem_find("pmem0"));
	assert_null(pmem_find("pmem0m"));
	assert_true(host_console_has("nd_pmem namespace0.0: raw, pmem0, 1024 MiB"));
}

static void pfn_create_needs_force(void **state)
{
	(void)state;
	struct nd_pfn_request req = { .mode = PFN_MODE_PMEM, .align = 2 * MiB };

	assert_int_equal(nd_namespace_reconfigure(ns, &req), -EBUSY);
	assert_true(host_console_has("namespace0.0 is active, specify -f/--force"));
	assert_non_null(pmem_find("pmem0"));
}

/* map=dev: Linux's layout, struct pages on the device, data at dataoff. */
static void pfn_create_map_dev_layout_and_dax(void **state)
{
	(void)state;
	struct nd_pfn_request req = { .mode = PFN_MODE_PMEM, .align = 2 * MiB, .force = true };
	struct nd_pfn_sb sb;
	struct nd_pfn_layout l;
	const char *why;

	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
	assert_null(pmem_find("pmem0"));	/* one view only */
	struct pmem_device *dev = pmem_find("pmem0m");
	assert_non_null(dev);
	assert_int_equal(nd_pfn_read_sb(ns, &sb), 0);
	struct nd_pfn_geom g = { .start = NS_START, .size = NS_SIZE };
	assert_int_equal(nd_pfn_validate(&sb, &g, &l, &why), 0);
	assert_int_equal(l.dataoff, 0x1200000);	/* FACTS §1.7, 1 GiB map=dev */
	assert_int_equal(dev->phys, NS_START + 0x1200000);
	assert_int_equal(dev->size, NS_SIZE - 0x1200000);
	/* The device keeps what its bring-up cost: every struct page but the reserve's, stored. */
	const struct memremap_stats *st = &nd_pfn_of(ns)->memmap_stats;
	assert_int_equal(st->pages_init, PFN_DOWN(NS_SIZE) - 2);
	assert_int_equal(st->pmem_pages_stored, st->pages_init);

	void *kaddr;
	pfn_t pfn;
	s64 avail = pmem_direct_access(dev, 0, &kaddr, &pfn);
	assert_int_equal(avail, (s64)dev->size);
	assert_int_equal(pfn_t_to_phys(pfn), NS_START + 0x1200000);
	assert_true(pfn.val & PFN_MAP);
	struct page *page = pfn_t_to_page(pfn);
	assert_non_null(page);
	assert_true(is_zone_device_page(page));
	assert_ptr_equal(page->pgmap, &nd_pfn_of(ns)->pgmap);
	/* That struct page lives in the namespace, between the reserve and dataoff. */
	u64 pa, prot;
	enum pg_level level;
	assert_true(host_walk((u64)VMEMMAP_BASE + PFN_DOWN(NS_START + 0x1200000) * 64, &pa, &level,
			      &prot));
	assert_true(pa >= NS_START + 8192 && pa < NS_START + 0x1200000);
	assert_int_equal(level, PG_LEVEL_2M);
	assert_int_equal(prot, PROT_KERNEL_RW);
	/* The namespace's direct map: read-write, no-execute. */
	assert_true(host_walk(PAGE_OFFSET + NS_START + 0x1200000, &pa, &level, &prot));
	assert_int_equal(pa, NS_START + 0x1200000);
	assert_int_equal(prot, PROT_KERNEL_RW);
	/* The last sector is mappable for exactly one sector. */
	u64 last = dev->size / 512 - 1;
	assert_int_equal(pmem_direct_access(dev, last, &kaddr, &pfn), 512);
	assert_true(pmem_direct_access(dev, last + 1, &kaddr, &pfn) < 0);
}

static void pmem_rw_checks_bounds_and_alignment(void **state)
{
	(void)state;
	struct nd_pfn_request req = { .mode = PFN_MODE_RAM, .align = 4 * KiB, .force = true };
	static u8 buf[4096], back[4096];

	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
	struct pmem_device *dev = pmem_find("pmem0m");
	assert_non_null(dev);
	memset(buf, 0xA5, sizeof(buf));
	u64 fences = persist_stats.fences;
	assert_int_equal(pmem_rw(dev, 512, buf, 1024, PMEM_WRITE), 0);
	assert_true(persist_stats.fences > fences);	/* durable on return */
	assert_int_equal(pmem_rw(dev, 512, back, 1024, PMEM_READ), 0);
	assert_memory_equal(buf, back, 1024);
	assert_int_equal(pmem_rw(dev, 100, buf, 512, PMEM_WRITE), -EINVAL);
	assert_int_equal(pmem_rw(dev, 512, buf, 100, PMEM_WRITE), -EINVAL);
	assert_int_equal(pmem_rw(dev, dev->size, buf, 512, PMEM_WRITE), -ERANGE);
	assert_int_equal(pmem_rw(dev, dev->size - 512, buf, 1024, PMEM_WRITE), -ERANGE);
	assert_int_equal(pmem_rw(dev, ~0ULL - 511, buf, 1024, PMEM_READ), -ERANGE);
	/* Nothing around the good write changed. */
	assert_int_equal(pmem_rw(dev, 0, back, 512, PMEM_READ), 0);
	for (int i = 0; i < 512; i++)
		assert_int_equal(back[i], 0);
	/* Sector 0 of pmem0m is dataoff (2 MiB for map=mem) into the namespace. */
	assert_int_equal(((u8 *)phys_to_virt(NS_START + 0x200000))[512], 0xA5);
}

/* A namespace with 4 KiB logical sectors gets a 4 KiB-sector block device. */
static void pmem_4k_sectors(void **state)
{
	(void)state;
	struct nd_pfn_request req = { .mode = PFN_MODE_PMEM, .align = 2 * MiB, .force = true };
	static u8 buf[8192];
	void *kaddr;
	pfn_t pfn;

	ns->sector_size = 4096;
	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
	struct pmem_device *dev = pmem_find("pmem0m");
	assert_non_null(dev);
	assert_int_equal(dev->sector_size, 4096);
	assert_int_equal(pmem_rw(dev, 4096, buf, 8192, PMEM_WRITE), 0);
	assert_int_equal(pmem_rw(dev, 512, buf, 4096, PMEM_WRITE), -EINVAL);
	assert_int_equal(pmem_rw(dev, 4096, buf, 512, PMEM_READ), -EINVAL);
	assert_int_equal(pmem_direct_access(dev, 1, &kaddr, &pfn), (s64)dev->size - 4096);
	assert_int_equal(pfn_t_to_phys(pfn), dev->phys + 4096);
}

/* A reboot (fresh machine, same pmem) brings the device back by itself. */
static void pfn_reprobe_after_reboot_finds_same_device(void **state)
{
	(void)state;
	struct nd_pfn_request req = { .mode = PFN_MODE_PMEM, .align = 2 * MiB, .force = true };
	u8 uuid[16];

	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
	memcpy(uuid, nd_pfn_of(ns)->layout.uuid, 16);
	boot(true);
	struct nd_pfn *pfn = nd_pfn_of(ns);
	assert_non_null(pfn);
	assert_true(pfn->enabled);
	assert_memory_equal(pfn->layout.uuid, uuid, 16);
	assert_int_equal(pfn->layout.mode, PFN_MODE_PMEM);
	assert_non_null(pmem_find("pmem0m"));
}

/* A checksummed block this kernel cannot honour: disabled, not raw, nothing written. */
static void pfn_bad_field_leaves_namespace_disabled(void **state)
{
	(void)state;
	struct nd_pfn_request req = { .mode = PFN_MODE_PMEM, .align = 2 * MiB, .force = true };
	struct nd_pfn_sb *sb = phys_to_virt(NS_START + ND_PFN_SB_OFFSET);
	static struct nd_pfn_sb copy;

	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
	sb->page_struct_size = 16;
	sb->checksum = nd_pfn_sb_checksum(sb);
	memcpy(&copy, sb, sizeof(copy));
	boot(true);
	struct nd_pfn *pfn = nd_pfn_of(ns);
	assert_non_null(pfn);
	assert_false(pfn->enabled);
	assert_null(pmem_find("pmem0"));
	assert_null(pmem_find("pmem0m"));
	assert_true(host_console_has("disabled: invalid info block: page_struct_size smaller"));
	assert_memory_equal(sb, &copy, sizeof(copy));
	/* -f is the way over it. */
	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
	assert_true(nd_pfn_of(ns)->enabled);
}

static void pfn_destroy_zeroes_block_and_goes_raw(void **state)
{
	(void)state;
	struct nd_pfn_request req = { .mode = PFN_MODE_PMEM, .align = 2 * MiB, .force = true };
	struct nd_pfn_request raw = { .mode = PFN_MODE_NONE, .force = true };
	static const u8 zero[ND_PFN_SB_SIZE];
	u64 mapped_before = mm_stat(MM_DEVICE_MAPPED);

	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
	assert_int_equal(nd_namespace_reconfigure(ns, &raw), 0);
	assert_memory_equal(phys_to_virt(NS_START + ND_PFN_SB_OFFSET), zero, sizeof(zero));
	assert_null(nd_pfn_of(ns));
	assert_non_null(pmem_find("pmem0"));
	assert_int_equal(mm_stat(MM_DEVICE_MAPPED), mapped_before);
}

static void pfn_disable_refused_while_pages_pinned(void **state)
{
	(void)state;
	struct nd_pfn_request req = { .mode = PFN_MODE_PMEM, .align = 2 * MiB, .force = true };

	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
	struct dev_pagemap *pg = pgmap_pin(PFN_DOWN(NS_START + 0x1200000));
	assert_non_null(pg);
	assert_int_equal(nd_namespace_reconfigure(ns, &req), -EBUSY);
	assert_non_null(pmem_find("pmem0m"));
	pgmap_unpin(pg);
	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(pfn_probe_of_empty_namespace_is_raw, setup),
		cmocka_unit_test_setup(pfn_create_needs_force, setup),
		cmocka_unit_test_setup(pfn_create_map_dev_layout_and_dax, setup),
		cmocka_unit_test_setup(pmem_rw_checks_bounds_and_alignment, setup),
		cmocka_unit_test_setup(pmem_4k_sectors, setup),
		cmocka_unit_test_setup(pfn_reprobe_after_reboot_finds_same_device, setup),
		cmocka_unit_test_setup(pfn_bad_field_leaves_namespace_disabled, setup),
		cmocka_unit_test_setup(pfn_destroy_zeroes_block_and_goes_raw, setup),
		cmocka_unit_test_setup(pfn_disable_refused_while_pages_pinned, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
