/*
 * Host tests: device-dax end to end in simulated memory with real page
 * tables and struct pages: Linux's devdax fixture attaches as dax0.0 with
 * Linux's size, create -m devdax map=mem/dev at 2M and 1G, found again
 * after a reboot, the block view, the list JSON, dax_map's leaves and the
 * pin it holds, and a bad block disabled, never raw; so is a damaged dax
 * or pfn block (checksum, parent_uuid).
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
#include "memlayout.h"
#include "mm.h"
#include "nd_dax.h"
#include "nd_pfn.h"
#include "nd_util.h"
#include "pgtable.h"

#define NS_START (4 * GiB)
#define NS_SIZE (4 * GiB)

static struct nd_namespace_io *ns;
static bool region_ro;	/* the next boot's region is read-only (an NFIT DIMM not armed) */
static int region_node = -1;	/* the next boot's region's numa_node and target_node */

/* A fresh machine: RAM at 1 GiB, one 4 GiB e820 pmem region at 4 GiB (kept with keep_pmem). */
static void boot(bool keep_pmem)
{
	host_mm_reboot(1 * GiB, 512 * MiB, keep_pmem ? NS_START : 0, keep_pmem ? NS_SIZE : 0);
	nd_reset();
	pmem_reset();
	nd_pfn_reset();
	dax_map_reset();
	host_console_reset();
	struct nd_bus *bus = nd_bus_register("e820");
	struct nd_region_desc d = { .start = NS_START, .size = NS_SIZE, .numa_node = region_node,
				    .target_node = region_node, .ro = region_ro };
	assert_int_equal(nd_region_create(bus, &d, NULL), 0);
	nd_regions_publish();
	ns = nd_namespace_find("namespace0.0");
	assert_non_null(ns);
	nd_probe_namespaces();
}

static int setup(void **state)
{
	(void)state;
	host_set_leaf_allowed(PG_LEVEL_1G, true);
	region_ro = false;
	region_node = -1;
	boot(false);
	return 0;
}

static int create(enum nd_pfn_mode mode, u64 align)
{
	struct nd_pfn_request req = { .mode = mode, .align = align, .force = true, .devdax = true };

	return nd_namespace_reconfigure(ns, &req);
}

/* The first 8 KiB Linux left on the namespace (test/fixtures), the rest zero. */
static void plant_fixture(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "test/fixtures/%s.head.bin", name);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(phys_to_virt(NS_START), 1, 8192, f), 8192);
	fclose(f);
}

/* Linux's devdax (map=dev, 2M) attaches as dax0.0 with ndctl's size, uuid and listing. */
static void devdax_linux_fixture_attaches(void **state)
{
	(void)state;
	plant_fixture("linux-6.1-devdax-dev-4G-align2M");
	u64 before = host_phys_hash(NS_START, 8192);
	boot(true);
	struct nd_pfn *dax = nd_pfn_of(ns);
	assert_non_null(dax);
	assert_int_equal(dax->pers, ND_PERS_DEVDAX);
	assert_true(dax->enabled);
	assert_string_equal(dax->name, "dax0.0");
	struct pmem_device *view = pmem_find("dax0.0");
	assert_ptr_equal(view, &dax->pmem);
	assert_int_equal(view->size, 4225761280ULL);	/* ndctl list: "size":4225761280 */
	assert_int_equal(view->phys, NS_START + 0x4200000);
	assert_null(pmem_find("pmem0"));
	assert_null(pmem_find("pmem0m"));
	/* Compound pages of 2 MiB from the data on, struct pages in the device: no dedup. */
	assert_int_equal(dax->pgmap.vmemmap_shift, 9);
	assert_false(dax->pgmap.vmemmap_dedup);
	assert_int_equal(dax->memmap_stats.compound_pages, 4225761280ULL / (2 * MiB));
	struct page *head = pfn_to_page(PFN_DOWN(view->phys));
	assert_true(page_is_head(head));
	assert_ptr_equal(compound_head(pfn_to_page(PFN_DOWN(view->phys) + 300)), head);
	assert_true(host_console_has(
		"nd_pfn dax0.0: namespace0.0 devdax map=dev align 0x200000 dataoff 0x4200000: dax0.0, 4030 MiB"));
	host_console_reset();
	nd_list(ND_LIST_NAMESPACES, NULL, NULL);
	assert_true(host_console_has("\"mode\":\"devdax\""));
	assert_true(host_console_has("\"map\":\"dev\""));
	assert_true(host_console_has("\"size\":4225761280"));
	assert_true(host_console_has("\"uuid\":\"28b43fb3-0bf0-44bd-877c-6574b8550bab\""));
	assert_true(host_console_has("\"chardev\":\"dax0.0\""));
	assert_true(host_console_has("\"daxregion\":{"));
	assert_true(host_console_has("\"align\":2097152"));
	assert_false(host_console_has("sector_size"));
	assert_false(host_console_has("blockdev"));
	/* Probing wrote nothing to the info block area. */
	assert_int_equal(host_phys_hash(NS_START, 8192), before);
}

/* A devdax namespace lists its region's node, as ndctl list -v does (and as
 * pmemk's fsdax and sector namespaces do); none on a region without one. */
static void devdax_lists_numa_node(void **state)
{
	(void)state;
	assert_int_equal(create(PFN_MODE_PMEM, 2 * MiB), 0);
	host_console_reset();
	nd_list(ND_LIST_NAMESPACES, NULL, NULL);
	assert_true(host_console_has("\"mode\":\"devdax\""));
	assert_false(host_console_has("numa_node"));
	region_node = 1;
	boot(true);
	host_console_reset();
	nd_list(ND_LIST_NAMESPACES, NULL, NULL);
	assert_true(host_console_has("\"mode\":\"devdax\""));
	assert_true(host_console_has("\"align\":2097152,\n    \"numa_node\":1,\n    \"target_node\":1\n"));
	region_node = -1;
}

/* Bytes read through the block view are the namespace's from dataoff on. */
static void devdax_block_view_is_the_data(void **state)
{
	(void)state;
	u8 buf[4096];

	assert_int_equal(create(PFN_MODE_RAM, 2 * MiB), 0);
	struct pmem_device *view = pmem_find("dax0.0");
	assert_non_null(view);
	assert_int_equal(view->phys, NS_START + 2 * MiB);	/* FACTS-2 §2.1: map=mem dataoff */
	assert_int_equal(view->size, 4292870144ULL);
	memset(phys_to_virt(NS_START + 2 * MiB + 8192), 0xc3, 4096);
	assert_int_equal(pmem_rw(view, 8192, buf, 4096, PMEM_READ), 0);
	for (int i = 0; i < 4096; i++)
		assert_int_equal(buf[i], 0xc3);
	memset(buf, 0x3c, sizeof(buf));
	assert_int_equal(pmem_rw(view, view->size - 4096, buf, 4096, PMEM_WRITE), 0);
	assert_int_equal(*(u8 *)phys_to_virt(NS_START + NS_SIZE - 1), 0x3c);
}

/* create -m devdax at 2M and 1G, map=mem and dev; each found again after a reboot. */
static void devdax_create_and_find_again(void **state)
{
	static const struct {
		enum nd_pfn_mode mode;
		u64 align, size, dataoff;
		bool dedup;
	} cases[] = {
		{ PFN_MODE_RAM, 2 * MiB, 4292870144ULL, 0x200000, true },
		{ PFN_MODE_RAM, 1 * GiB, 3221225472ULL, 0x40000000, true },
		{ PFN_MODE_PMEM, 2 * MiB, 4225761280ULL, 0x4200000, false },
		{ PFN_MODE_PMEM, 1 * GiB, 3221225472ULL, 0x40000000, false },
		{ PFN_MODE_RAM, 4 * KiB, 4292870144ULL, 0x200000, false },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(create(cases[i].mode, cases[i].align), 0);
		struct nd_pfn *dax = nd_pfn_of(ns);
		u8 uuid[16];
		memcpy(uuid, dax->layout.uuid, 16);
		assert_true(dax->enabled);
		assert_int_equal(dax->pmem.size, cases[i].size);	/* Linux's (FACTS-2 §2.1 table) */
		assert_int_equal(dax->layout.dataoff, cases[i].dataoff);
		assert_int_equal(dax->pgmap.vmemmap_dedup, cases[i].dedup);
		boot(true);
		dax = nd_pfn_of(ns);
		assert_non_null(dax);
		assert_int_equal(dax->pers, ND_PERS_DEVDAX);
		assert_true(dax->enabled);
		assert_int_equal(dax->layout.align, cases[i].align);
		assert_int_equal(dax->layout.mode, cases[i].mode);
		assert_memory_equal(dax->layout.uuid, uuid, 16);
		assert_int_equal(dax->pmem.size, cases[i].size);
	}
}

/* map=mem at 1G: the struct pages of 4 GiB cost 4 x 8 KiB of RAM, not 64 MiB. */
static void devdax_1g_map_mem_struct_pages_ram(void **state)
{
	(void)state;
	assert_int_equal(create(PFN_MODE_RAM, 1 * GiB), 0);
	struct nd_pfn *dax = nd_pfn_of(ns);
	assert_int_equal(dax->memmap_stats.compound_pages, 4);
	assert_int_equal(dax->memmap_stats.vmemmap_ram, 4 * 8 * KiB);
	/* A PTE page per section (32), and upper tables where the window had none. */
	assert_in_range(dax->memmap_stats.pgtable_pages, 32, 34);
	assert_true(host_console_has("nd_pfn dax0.0: struct pages for 4096 MiB in 32 KiB of RAM"));
	assert_true(host_console_has("4 compound pages of 1048576 KiB, vmemmap deduplicated; 65536 KiB without dedup"));
}

/* dax_map: leaves of the align, the device's pfns, a pin that blocks a reconfigure. */
static void dax_map_leaves_and_pin(void **state)
{
	static const struct {
		u64 align;
		enum pg_level leaf;
	} cases[] = { { 1 * GiB, PG_LEVEL_1G }, { 2 * MiB, PG_LEVEL_2M }, { 4 * KiB, PG_LEVEL_4K } };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		u64 align = cases[i].align;
		struct dax_mapping m;
		assert_int_equal(create(PFN_MODE_RAM, align), 0);
		struct nd_pfn *dax = nd_dax_find("dax0.0");
		assert_non_null(dax);
		u64 off = align, len = MAX(2 * align, 4 * MiB);
		assert_int_equal(dax_map(dax, off, len, "test", &m), 0);
		assert_int_equal(m.leaf, cases[i].leaf);
		assert_int_equal(pfn_t_to_phys(m.pfn), dax->pmem.phys + off);
		assert_true(m.pfn.val & PFN_MAP);
		for (u64 o = 0; o < len; o += pg_level_size(m.leaf)) {
			u64 pa, prot;
			enum pg_level l;
			assert_true(host_walk((u64)m.kaddr + o, &pa, &l, &prot));
			assert_int_equal(l, cases[i].leaf);
			assert_int_equal(pa, dax->pmem.phys + off + o);
			assert_int_equal(prot, PROT_KERNEL_RW);
		}
		assert_int_equal(dax->pgmap.pins, 1);
		/* The mapping holds the device. */
		struct nd_pfn_request req = { .mode = PFN_MODE_NONE, .force = true };
		assert_int_equal(nd_namespace_reconfigure(ns, &req), -EBUSY);
		assert_true(dax->enabled);
		u64 tables = kernel_pgtable.nr_tables, va = (u64)m.kaddr, pa;
		enum pg_level l;
		dax_unmap(&m);
		assert_int_equal(dax->pgmap.pins, 0);
		assert_true(kernel_pgtable.nr_tables < tables);	/* its tables went too */
		assert_false(host_walk(va, &pa, &l, NULL));
		assert_false(host_walk(va + len - PAGE_SIZE, &pa, &l, NULL));
	}
}

static void dax_map_refuses_bad_ranges(void **state)
{
	struct dax_mapping m;

	(void)state;
	assert_int_equal(create(PFN_MODE_RAM, 2 * MiB), 0);
	struct nd_pfn *dax = nd_dax_find("dax0.0");
	assert_int_equal(dax_map(dax, 4096, 2 * MiB, "test", &m), -EINVAL);
	assert_int_equal(dax_map(dax, 0, 4096, "test", &m), -EINVAL);
	assert_int_equal(dax_map(dax, 0, 0, "test", &m), -EINVAL);
	assert_int_equal(dax_map(dax, dax->pmem.size, 2 * MiB, "test", &m), -ERANGE);
	assert_int_equal(dax_map(dax, dax->pmem.size - 2 * MiB, 4 * MiB, "test", &m), -ERANGE);
	assert_int_equal(dax->pgmap.pins, 0);
	assert_null(nd_dax_find("dax1.0"));
	/* Not devdax: fsdax has no dax_map. */
	struct nd_pfn_request req = { .mode = PFN_MODE_RAM, .align = 2 * MiB, .force = true };
	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
	assert_int_equal(dax_map(nd_pfn_of(ns), 0, 2 * MiB, "test", &m), -ENXIO);
	assert_null(nd_dax_find("pfn0.0"));
}

/* A dax block this kernel cannot honour: claimed, disabled with the reason, no raw device. */
static void devdax_bad_block_disabled_never_raw(void **state)
{
	(void)state;
	plant_fixture("linux-6.1-devdax-mem-4G-align2M");
	struct nd_pfn_sb *sb = phys_to_virt(NS_START + ND_PFN_SB_OFFSET);
	sb->align = 64 * KiB;
	sb->checksum = nd_pfn_sb_checksum(sb);
	u64 before = host_phys_hash(NS_START, NS_SIZE);
	boot(true);
	struct nd_pfn *dax = nd_pfn_of(ns);
	assert_non_null(dax);
	assert_int_equal(dax->pers, ND_PERS_DEVDAX);
	assert_false(dax->enabled);
	assert_null(pmem_find("pmem0"));
	assert_null(pmem_find("dax0.0"));
	assert_true(host_console_has(
		"nd_pfn dax0.0: namespace0.0 devdax map=mem disabled: invalid info block: device-dax align is not 4 KiB, 2 MiB or 1 GiB"));
	host_console_reset();
	nd_list(ND_LIST_NAMESPACES, NULL, NULL);
	assert_true(host_console_has("\"state\":\"disabled\""));
	assert_int_equal(host_phys_hash(NS_START, NS_SIZE), before);
}

/* How a case damages the block at 4 KiB. */
enum damage { STALE_CHECKSUM, FLIPPED_CHECKSUM, FOREIGN_PARENT };

static void damage_block(enum damage how)
{
	struct nd_pfn_sb *sb = phys_to_virt(NS_START + ND_PFN_SB_OFFSET);

	switch (how) {
	case STALE_CHECKSUM:
		sb->dataoff += 4096;	/* a field changed, the checksum not */
		break;
	case FLIPPED_CHECKSUM:
		sb->checksum ^= 1ULL << 40;
		break;
	case FOREIGN_PARENT:
		sb->parent_uuid[0] ^= 1;	/* another namespace's block, checksum good */
		sb->checksum = nd_pfn_sb_checksum(sb);
		break;
	}
}

/*
 * Regression (issue 29 item 5): a devdax block with a stale checksum made a
 * writable raw pmem0, without a word (and a pfn block one with a warning).
 * A dax or pfn signature on a block that is not valid for this namespace is
 * damaged, as a BTT's is: claimed and disabled with one line naming the
 * namespace and the reason, no block device at all, nothing written. The
 * block's fields are listed only when its checksum holds (map=none else).
 */
static void info_block_damaged_disabled_never_raw(void **state)
{
	static const struct {
		const char *fixture;
		enum damage how;
		enum nd_personality pers;
		const char *line;
	} cases[] = {
		{ "linux-6.1-devdax-mem-4G-align2M", STALE_CHECKSUM, ND_PERS_DEVDAX,
		  "nd_pfn dax0.0: namespace0.0 devdax map=none disabled: invalid info block: info block checksum mismatch\n" },
		{ "linux-6.1-devdax-dev-4G-align2M", FLIPPED_CHECKSUM, ND_PERS_DEVDAX,
		  "nd_pfn dax0.0: namespace0.0 devdax map=none disabled: invalid info block: info block checksum mismatch\n" },
		{ "linux-6.1-devdax-mem-4G-align2M", FOREIGN_PARENT, ND_PERS_DEVDAX,
		  "nd_pfn dax0.0: namespace0.0 devdax map=mem disabled: invalid info block: parent_uuid does not match the namespace\n" },
		{ "linux-6.1-fsdax-dev-4G", STALE_CHECKSUM, ND_PERS_FSDAX,
		  "nd_pfn pfn0.0: namespace0.0 fsdax map=none disabled: invalid info block: info block checksum mismatch\n" },
		{ "linux-6.1-fsdax-dev-4G", FOREIGN_PARENT, ND_PERS_FSDAX,
		  "nd_pfn pfn0.0: namespace0.0 fsdax map=dev disabled: invalid info block: parent_uuid does not match the namespace\n" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		setup(NULL);
		plant_fixture(cases[i].fixture);
		damage_block(cases[i].how);
		u64 before = host_phys_hash(NS_START, NS_SIZE);
		boot(true);
		struct nd_pfn *pfn = nd_pfn_of(ns);
		if (!host_console_has(cases[i].line))
			fprintf(stderr, "case %zu:\n%s", i, host_console_text());
		assert_non_null(pfn);
		assert_int_equal(pfn->pers, cases[i].pers);
		assert_false(pfn->enabled);
		assert_null(pmem_find("pmem0"));
		assert_null(pmem_find("pmem0m"));
		assert_null(pmem_find("dax0.0"));
		assert_true(host_console_has(cases[i].line));
		assert_false(host_console_has("raw"));
		host_console_reset();
		nd_list(ND_LIST_NAMESPACES, NULL, NULL);
		assert_true(host_console_has("\"state\":\"disabled\""));
		assert_int_equal(host_phys_hash(NS_START, NS_SIZE), before);
	}
}

/* ndctl's words: -m devdax and -m dax; fsdax <-> devdax both ways. */
static void devdax_parse_and_switch_personality(void **state)
{
	struct nd_pfn_request req = { 0 };

	(void)state;
	assert_int_equal(nd_pfn_parse_mode("devdax", "mem", &req), 0);
	assert_true(req.devdax);
	assert_int_equal(req.mode, PFN_MODE_RAM);
	assert_int_equal(nd_pfn_parse_mode("dax", NULL, &req), 0);
	assert_true(req.devdax);
	assert_int_equal(req.mode, PFN_MODE_PMEM);
	assert_int_equal(nd_pfn_parse_mode("fsdax", NULL, &req), 0);
	assert_false(req.devdax);
	assert_int_equal(create(PFN_MODE_PMEM, 2 * MiB), 0);
	assert_non_null(pmem_find("dax0.0"));
	req = (struct nd_pfn_request){ .mode = PFN_MODE_PMEM, .align = 2 * MiB, .force = true };
	assert_int_equal(nd_namespace_reconfigure(ns, &req), 0);
	assert_null(pmem_find("dax0.0"));
	assert_non_null(pmem_find("pmem0m"));
	assert_int_equal(nd_pfn_of(ns)->pers, ND_PERS_FSDAX);
	assert_int_equal(create(PFN_MODE_RAM, 1 * GiB), 0);
	assert_null(pmem_find("pmem0m"));
	assert_int_equal(nd_pfn_of(ns)->pers, ND_PERS_DEVDAX);
}

/*
 * A read-only region: a map=dev device comes up read-only with its struct
 * pages in RAM, so deduplicated; its mappings are read-only and nothing of
 * the namespace changes.
 */
static void devdax_read_only_region(void **state)
{
	struct dax_mapping m;
	u8 buf[512] = { 0 };

	(void)state;
	assert_int_equal(create(PFN_MODE_PMEM, 2 * MiB), 0);
	region_ro = true;
	u64 before = host_phys_hash(NS_START, NS_SIZE);
	boot(true);
	struct nd_pfn *dax = nd_dax_find("dax0.0");
	assert_non_null(dax);
	assert_true(dax->pmem.ro && dax->memmap_in_ram);
	assert_true(dax->pgmap.vmemmap_dedup);
	assert_int_equal(pmem_rw(&dax->pmem, 0, buf, sizeof(buf), PMEM_WRITE), -EROFS);
	assert_int_equal(dax_map(dax, 0, 2 * MiB, "test", &m), 0);
	u64 pa, prot;
	enum pg_level l;
	assert_true(host_walk((u64)m.kaddr, &pa, &l, &prot));
	assert_int_equal(prot, PROT_KERNEL_RO);
	dax_unmap(&m);
	assert_int_equal(host_phys_hash(NS_START, NS_SIZE), before);
	region_ro = false;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(devdax_linux_fixture_attaches, setup),
		cmocka_unit_test_setup(devdax_block_view_is_the_data, setup),
		cmocka_unit_test_setup(devdax_lists_numa_node, setup),
		cmocka_unit_test_setup(devdax_create_and_find_again, setup),
		cmocka_unit_test_setup(devdax_1g_map_mem_struct_pages_ram, setup),
		cmocka_unit_test_setup(dax_map_leaves_and_pin, setup),
		cmocka_unit_test_setup(dax_map_refuses_bad_ranges, setup),
		cmocka_unit_test_setup(devdax_bad_block_disabled_never_raw, setup),
		cmocka_unit_test_setup(info_block_damaged_disabled_never_raw, setup),
		cmocka_unit_test_setup(devdax_parse_and_switch_personality, setup),
		cmocka_unit_test_setup(devdax_read_only_region, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
