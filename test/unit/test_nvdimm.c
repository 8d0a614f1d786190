/*
 * Host tests: the nvdimm core on its own: region registration and
 * numbering, namespaces and claims, and the shapes of `list` (ndctl's:
 * bare array for one category, object for several, -B by bus, filters).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "host.h"
#include "nvdimm.h"

static struct nd_bus *nfit, *e820;
static char console_before[4096];	/* what publishing printed */

static struct nvdimm *dimm(u32 handle)
{
	struct nvdimm d = { .handle = handle, .has_dcr = true };

	snprintf(d.unique_id, sizeof(d.unique_id), "8680-%08x", handle);
	return nvdimm_create(nfit, &d);
}

static int region(struct nd_bus *bus, u64 start, u64 size, struct nvdimm *d)
{
	struct nd_region_desc rd = { .start = start, .size = size, .numa_node = 0,
				     .target_node = 0 };

	if (d)
		rd.mapping[rd.nr_mappings++] = (struct nd_mapping){ d, 0, size, 0, 0 };
	return nd_region_create(bus, &rd, NULL);
}

static int reset(void **state)
{
	(void)state;
	nd_reset();
	nfit = nd_bus_register("nfit");
	e820 = nd_bus_register("e820");
	host_console_reset();
	return 0;
}

/* Two DIMMs with a region each (registered out of address order) and an e820 region. */
static void three_regions(void)
{
	struct nvdimm *a = dimm(1), *b = dimm(2);

	assert_int_equal(region(nfit, 0x140000000ULL, 3 * GiB, b), 0);
	assert_int_equal(region(nfit, 0x100000000ULL, 1 * GiB, a), 0);
	assert_int_equal(region(e820, 0x40000000, 512 * MiB, NULL), 0);
	nd_regions_publish();
	snprintf(console_before, sizeof(console_before), "%s", host_console_text());
	host_console_reset();
}

static void nd_region_create_rejects_bad_ranges(void **state)
{
	struct nd_region_desc rd = { .start = 1 * GiB, .size = 0 };

	(void)state;
	assert_int_equal(nd_region_create(nfit, &rd, NULL), -EINVAL);
	rd.start = ~0ULL - 4095;
	rd.size = 8192;
	assert_int_equal(nd_region_create(nfit, &rd, NULL), -EINVAL);
	rd.start = ~0ULL - 4095;
	rd.size = 4096;		/* ends exactly at 2^64: not representable */
	assert_int_equal(nd_region_create(nfit, &rd, NULL), -EINVAL);
	assert_true(host_console_has("is empty or wraps, rejected"));
	rd.start = 1 * GiB;
	rd.size = 1 * GiB;
	rd.nr_mappings = ND_MAX_MAPPINGS + 1;
	assert_int_equal(nd_region_create(nfit, &rd, NULL), -EINVAL);
	assert_true(host_console_has("17 mappings, at most 16, rejected"));
	rd.nr_mappings = 0;
	struct nd_region *r;
	assert_int_equal(nd_region_create(nfit, &rd, &r), 0);
	assert_int_equal(r->start, 1 * GiB);
	assert_int_equal(r->id, -1);
	/* Overlaps at either end and containment, adjacency is fine. */
	assert_int_equal(region(e820, 2 * GiB - 4096, 8192, NULL), -EBUSY);
	assert_int_equal(region(e820, 0, 1 * GiB + 1, NULL), -EBUSY);
	assert_int_equal(region(e820, 1 * GiB + 4096, 4096, NULL), -EBUSY);
	assert_int_equal(region(e820, 0, 4 * GiB, NULL), -EBUSY);
	assert_int_equal(region(e820, 2 * GiB, 4096, NULL), 0);
	assert_int_equal(region(e820, 1 * GiB - 4096, 4096, NULL), 0);
	assert_true(host_console_has("nd_region: e820 [mem 0x7ffff000-0x80000fff] overlaps nfit [mem 0x40000000-0x7fffffff], rejected"));
}

static void nd_region_table_full(void **state)
{
	(void)state;
	for (u32 i = 0; i < ND_MAX_REGIONS; i++)
		assert_int_equal(region(e820, (u64)i * GiB, 1 * GiB, NULL), 0);
	assert_int_equal(region(e820, 100 * GiB, 1 * GiB, NULL), -ENOSPC);
	assert_true(host_console_has("more than 64 regions, e820 [mem 0x1900000000-0x193fffffff] rejected"));
	nd_regions_publish();
	assert_int_equal(nd_region_count(), ND_MAX_REGIONS);
	assert_string_equal(nd_region_namespace(nd_region_get(63), 0)->blockdev, "pmem63");
}

static void nd_buses_and_dimms_full(void **state)
{
	(void)state;
	for (u32 i = nd_bus_count(); i < ND_MAX_BUSES; i++)
		assert_non_null(nd_bus_register("nfit"));
	assert_null(nd_bus_register("e820"));
	assert_true(host_console_has("more than 8 buses, e820 bus not registered"));
	for (u32 i = 0; i < ND_MAX_DIMMS; i++)
		assert_non_null(dimm(i));
	assert_null(dimm(0x999));
	assert_true(host_console_has("more than 64 DIMMs, handle 0x999 on ndbus0 not registered"));
	assert_string_equal(nvdimm_get(63)->name, "nmem63");
	assert_ptr_equal(nvdimm_find("nmem5"), nvdimm_get(5));
	assert_null(nvdimm_find("nmem64"));
	assert_null(nvdimm_get(64));
}

/* regionN in address order, whatever order they were registered in. */
static void nd_regions_numbered_by_address(void **state)
{
	(void)state;
	three_regions();
	assert_non_null(strstr(console_before, "nd_region region0: [mem 0x40000000-0x5fffffff] e820 pmem, no dimms, persistence unknown\n"));
	assert_non_null(strstr(console_before, "nd_region region2: [mem 0x140000000-0x1ffffffff] nfit pmem, 1 dimm (handle 0x2), persistence unknown\n"));
	assert_int_equal(nd_region_count(), 3);
	assert_int_equal(nd_region_get(0)->start, 0x40000000);
	assert_string_equal(nd_region_get(0)->name, "region0");
	assert_string_equal(nd_region_get(1)->name, "region1");
	assert_int_equal(nd_region_get(1)->start, 0x100000000ULL);
	assert_int_equal(nd_region_get(2)->start, 0x140000000ULL);
	assert_null(nd_region_get(3));
	assert_ptr_equal(nd_region_find("region2"), nd_region_get(2));
	assert_null(nd_region_find("region3"));
	/* Publishing again changes nothing; a later region gets the next number. */
	host_console_reset();
	nd_regions_publish();
	assert_string_equal(host_console_text(), "");
	assert_int_equal(region(e820, 0x20000000, 256 * MiB, NULL), 0);
	nd_regions_publish();
	assert_int_equal(nd_region_get(3)->start, 0x20000000);
	assert_string_equal(nd_region_get(0)->name, "region0");
}

static void nd_region_default_align_rules(void **state)
{
	(void)state;
	assert_int_equal(nd_region_default_align(1 * GiB, 1), 16 * MiB);
	assert_int_equal(nd_region_default_align(1 * GiB, 0), 16 * MiB);
	assert_int_equal(nd_region_default_align(16 * MiB - 1, 1), PAGE_SIZE);
	assert_int_equal(nd_region_default_align(16 * MiB, 1), 16 * MiB);
	assert_int_equal(nd_region_default_align(4 * GiB, 2), 16 * MiB);
	assert_int_equal(nd_region_default_align(6 * GiB, 6), 96 * MiB);
	assert_int_equal(nd_region_default_align(8 * MiB, 3), 12 * KiB);
	assert_string_equal(nd_persistence_name(ND_PERSIST_CACHE), "cpu_cache");
	assert_string_equal(nd_persistence_name(ND_PERSIST_MEMCTRL), "memory_controller");
	assert_string_equal(nd_persistence_name(ND_PERSIST_UNKNOWN), "unknown");
}

static void nd_namespaces_cover_regions(void **state)
{
	int n = 0;

	(void)state;
	three_regions();
	for_each_nd_namespace(ns) {
		assert_ptr_equal(ns->region, nd_region_get((u32)n));
		assert_int_equal(ns->start, ns->region->start);
		assert_int_equal(ns->size, ns->region->size);
		assert_int_equal(ns->sector_size, 512);
		assert_null(ns->claim);
		n++;
	}
	assert_int_equal(n, 3);
	struct nd_namespace_io *ns = nd_namespace_find("namespace1.0");
	assert_non_null(ns);
	assert_string_equal(ns->blockdev, "pmem1");
	assert_ptr_equal(nd_namespace_find("pmem2"), nd_region_namespace(nd_region_get(2), 0));
	assert_null(nd_namespace_find("namespace3.0"));
}

static void nd_namespace_claims(void **state)
{
	int a, b;

	(void)state;
	three_regions();
	struct nd_namespace_io *ns = nd_namespace_find("namespace0.0");
	assert_int_equal(nd_namespace_claim(ns, &a, NULL, true), 0);
	assert_int_equal(nd_namespace_claim(ns, &a, NULL, true), 0);	/* same owner again */
	assert_int_equal(nd_namespace_claim(ns, &b, NULL, false), -EBUSY);
	assert_int_equal(nd_namespace_release(ns, &b), -EINVAL);
	assert_int_equal(nd_namespace_release(ns, &a), 0);
	assert_int_equal(nd_namespace_release(ns, &a), -EINVAL);
	assert_int_equal(nd_namespace_claim(ns, &b, NULL, false), 0);
}

/* ndctl: one category is a bare array. */
static void nd_list_one_category_is_an_array(void **state)
{
	(void)state;
	three_regions();
	nd_list(ND_LIST_DIMMS, NULL, NULL);
	assert_string_equal(host_console_text(),
			    "[\n"
			    "  {\n"
			    "    \"dev\":\"nmem0\",\n"
			    "    \"id\":\"8680-00000001\",\n"
			    "    \"handle\":1,\n"
			    "    \"phys_id\":0\n"
			    "  },\n"
			    "  {\n"
			    "    \"dev\":\"nmem1\",\n"
			    "    \"id\":\"8680-00000002\",\n"
			    "    \"handle\":2,\n"
			    "    \"phys_id\":0\n"
			    "  }\n"
			    "]\n");
	host_console_reset();
	nd_list(ND_LIST_NAMESPACES, NULL, "nmem1");
	assert_string_equal(host_console_text(),
			    "[\n"
			    "  {\n"
			    "    \"dev\":\"namespace2.0\",\n"
			    "    \"mode\":\"raw\",\n"
			    "    \"size\":3221225472,\n"
			    "    \"sector_size\":512,\n"
			    "    \"blockdev\":\"pmem2\",\n"
			    "    \"numa_node\":0,\n"
			    "    \"target_node\":0\n"
			    "  }\n"
			    "]\n");
	/* -R alone: no mappings (they need -D), no namespaces (they need -N). */
	host_console_reset();
	nd_list(ND_LIST_REGIONS, "1", NULL);
	assert_true(host_console_has("\"dev\":\"region1\""));
	assert_false(host_console_has("mappings"));
	assert_false(host_console_has("namespaces"));
	assert_false(host_console_has("region0"));
}

/* Several categories make an object; -D adds the mappings to regions. */
static void nd_list_several_categories_make_an_object(void **state)
{
	(void)state;
	three_regions();
	nd_list(ND_LIST_DIMMS | ND_LIST_NAMESPACES, NULL, NULL);
	assert_true(!strncmp(host_console_text(), "{\n  \"dimms\":[\n", 14));
	assert_true(host_console_has("\n  ],\n  \"namespaces\":[\n    {\n      \"dev\":\"namespace0.0\",\n"));
	host_console_reset();
	nd_list(ND_LIST_DIMMS | ND_LIST_REGIONS, "region1", NULL);
	assert_true(host_console_has("  \"regions\":[\n    {\n      \"dev\":\"region1\",\n"));
	assert_true(host_console_has("      \"mappings\":[\n        {\n          \"dimm\":\"nmem0\",\n"
				     "          \"offset\":0,\n          \"length\":1073741824,\n"
				     "          \"position\":0\n        }\n      ],\n"
				     "      \"persistence_domain\":\"unknown\"\n    }\n  ]\n}\n"));
	/* A region filter by DIMM: only regions with a mapping on it. */
	host_console_reset();
	nd_list(ND_LIST_REGIONS, NULL, "nmem1");
	assert_true(host_console_has("region2"));
	assert_false(host_console_has("region1"));
	assert_false(host_console_has("region0"));
	/* Nothing matches: nothing printed, as ndctl. */
	host_console_reset();
	nd_list(ND_LIST_DIMMS | ND_LIST_REGIONS, "region7", "nmem9");
	assert_string_equal(host_console_text(), "");
}

/* Run a `list` command line through the shell's dispatcher. */
static int run(const char *line)
{
	return host_shell(line);
}

/* The shell command: ndctl's flags, clustered or long; default everything. */
static void nd_list_command_flags(void **state)
{
	(void)state;
	three_regions();
	assert_int_equal(run("list"), 0);
	assert_true(host_console_has("\"dimms\":["));
	assert_true(host_console_has("\"mappings\":["));
	assert_true(host_console_has("\"namespaces\":["));
	assert_int_equal(run("list -RN"), 0);
	assert_true(!strncmp(host_console_text(), "[\n  {\n    \"dev\":\"region0\"", 25));
	assert_true(host_console_has("\"namespaces\":["));
	assert_int_equal(run("list --dimms -v -u"), 0);
	assert_true(!strncmp(host_console_text(), "[\n  {\n    \"dev\":\"nmem0\"", 23));
	assert_int_equal(run("list -N -r 2"), 0);
	assert_true(host_console_has("namespace2.0"));
	assert_false(host_console_has("namespace1.0"));
	assert_int_equal(run("list -D --dimm nmem1"), 0);
	assert_false(host_console_has("nmem0"));
	assert_int_equal(run("list -X"), -EINVAL);
	assert_true(host_console_has("list: unknown option '-X'\nusage: list [-B] [-D] [-R] [-N]"));
	assert_int_equal(run("list -r"), -EINVAL);
	assert_int_equal(run("list region0"), -EINVAL);
	assert_int_equal(run("list --everything"), -EINVAL);
}

/* -B groups by bus: provider and dev, then that bus's categories. */
static void nd_list_buses(void **state)
{
	(void)state;
	three_regions();
	assert_int_equal(run("list -B -R"), 0);
	assert_true(!strncmp(host_console_text(),
			     "[\n  {\n    \"provider\":\"nfit\",\n    \"dev\":\"ndbus0\",\n"
			     "    \"regions\":[\n      {\n        \"dev\":\"region1\",", 90));
	assert_true(host_console_has("    \"provider\":\"e820\",\n    \"dev\":\"ndbus1\",\n"
				     "    \"regions\":[\n      {\n        \"dev\":\"region0\","));
	assert_int_equal(run("list -BD"), 0);
	assert_true(host_console_has("\"dev\":\"ndbus1\"\n  }\n]\n"));	/* e820: no dimms */
}

/* A claimed namespace shows what its owner says, not the raw fields. */
static void claim_json(const struct nd_namespace_io *ns, struct nd_json *j)
{
	nd_json_str(j, "mode", "fsdax");
	nd_json_str(j, "map", "dev");
	nd_json_u64(j, "size", ns->size - 2 * MiB);
	nd_json_bool(j, "test", true);
	nd_json_int(j, "negative", -1);
}

static void nd_list_claimed_namespace(void **state)
{
	static const struct nd_claim_ops ops = { "pfn", claim_json, NULL, NULL };
	int owner;

	(void)state;
	three_regions();
	assert_int_equal(nd_namespace_claim(nd_namespace_find("namespace0.0"), &owner, &ops, true), 0);
	nd_list(ND_LIST_NAMESPACES, "0", NULL);
	assert_string_equal(host_console_text(),
			    "[\n"
			    "  {\n"
			    "    \"dev\":\"namespace0.0\",\n"
			    "    \"mode\":\"fsdax\",\n"
			    "    \"map\":\"dev\",\n"
			    "    \"size\":534773760,\n"
			    "    \"test\":true,\n"
			    "    \"negative\":-1\n"
			    "  }\n"
			    "]\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(nd_region_create_rejects_bad_ranges, reset),
		cmocka_unit_test_setup(nd_region_table_full, reset),
		cmocka_unit_test_setup(nd_buses_and_dimms_full, reset),
		cmocka_unit_test_setup(nd_regions_numbered_by_address, reset),
		cmocka_unit_test_setup(nd_region_default_align_rules, reset),
		cmocka_unit_test_setup(nd_namespaces_cover_regions, reset),
		cmocka_unit_test_setup(nd_namespace_claims, reset),
		cmocka_unit_test_setup(nd_list_one_category_is_an_array, reset),
		cmocka_unit_test_setup(nd_list_several_categories_make_an_object, reset),
		cmocka_unit_test_setup(nd_list_command_flags, reset),
		cmocka_unit_test_setup(nd_list_buses, reset),
		cmocka_unit_test_setup(nd_list_claimed_namespace, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
