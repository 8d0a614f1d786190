/*
 * Host tests: the "nfit" provider (drivers/acpi_nfit/nfit_register.c) on
 * crafted tables: SPA ranges that make no region and say why, interleave
 * sets and their alignment, overlapping and invalid ranges, ranges over
 * RAM, DIMMs not armed and the NFIT state flags, and the regions' NUMA
 * nodes from a SRAT.
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
#include "memblock.h"
#include "nfit.h"
#include "nfit_tests.h"
#include "nvdimm.h"
#include "printk.h"
#include "srat.h"
#include "unaligned.h"

/*
 * SPA ranges that make no region say so, one line each, at a level the
 * default console prints (before: pr_debug, never shown): known non-pmem
 * types as information, an unknown GUID as a warning, and a pmem range with
 * the invalid index 0 (memdevs use 0 for "not mapped": they must not attach).
 */
static void nfit_non_pmem_spa_one_line_each(void **state)
{
	static const u8 guid_vdisk[16] = { 0x5a, 0x53, 0xab, 0x77, 0xfc, 0x45, 0x4b, 0x62,
					   0x55, 0x60, 0xf7, 0xb2, 0x81, 0xd1, 0xf9, 0x6e };
	static const u8 guid_pcd[16] = { 0x88, 0x81, 0x01, 0x08, 0xcd, 0x42, 0x48, 0xbb,
					 0x10, 0x0f, 0x53, 0x87, 0xd5, 0x3d, 0xed, 0x3d };
	static const u8 guid_odd[16] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
					 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10 };
	char msg[160];

	(void)state;
	tb_init();
	u32 vol = add_spa(3, 2 * GiB, 1 * GiB, guid_volatile);
	u32 vdisk = add_spa(5, 8 * GiB, 1 * GiB, guid_vdisk);
	u32 pcd = add_spa(6, 9 * GiB, 1 * GiB, guid_pcd);
	u32 odd = add_spa(7, 10 * GiB, 1 * GiB, guid_odd);
	u32 zero = add_spa(0, 11 * GiB, 1 * GiB, guid_pm);
	add_memdev(9, 0, 0, 1 * GiB, 0, 1, 0); /* not mapped to any SPA */
	one_dimm(1 * GiB);
	register_tb();
	assert_int_equal(nd_region_count(), 1);
	assert_int_equal(nd_region_get(0)->start, 4 * GiB);
	snprintf(msg, sizeof(msg),
		 "nfit: SPA range 3 at offset %#x: volatile memory, not a pmem region, skipped",
		 vol);
	assert_true(host_console_has(msg));
	snprintf(
		msg, sizeof(msg),
		"nfit: SPA range 5 at offset %#x: volatile virtual disk, not a pmem region, skipped",
		vdisk);
	assert_true(host_console_has(msg));
	snprintf(
		msg, sizeof(msg),
		"nfit: SPA range 6 at offset %#x: persistent virtual CD, not a pmem region, skipped",
		pcd);
	assert_true(host_console_has(msg));
	snprintf(
		msg, sizeof(msg),
		"nfit: SPA range 7 at offset %#x: unknown range type 04030201-0605-0807-090a-0b0c0d0e0f10, skipped",
		odd);
	assert_true(host_console_has(msg));
	snprintf(msg, sizeof(msg), "nfit: SPA at offset %#x: range index 0 is invalid, ignored",
		 zero);
	assert_true(host_console_has(msg));
	/* The default console_loglevel prints pr_info (and drops pr_debug). */
	assert_true(LOGLEVEL_INFO < console_loglevel && LOGLEVEL_DEBUG >= console_loglevel);
}

/* Two DIMMs interleaved in one SPA range: one region, two mappings in offset order. */
static void nfit_interleave_two_way(void **state)
{
	(void)state;
	tb_init();
	add_spa(1, 8 * GiB, 2 * GiB, guid_pm);
	add_memdev(0x101, 1, 2, 1 * GiB, 256, 2, 0);	/* second in the interleave */
	add_memdev(0x001, 1, 3, 1 * GiB, 0, 2, 0);
	add_dcr(2, 0x11, NFIT_DCR_LEN);
	add_dcr(3, 0x22, NFIT_DCR_LEN);
	register_tb();
	assert_int_equal(nvdimm_count(), 2);
	assert_int_equal(nvdimm_get(0)->handle, 0x001);	/* nmemN in handle order */
	assert_int_equal(nvdimm_get(1)->handle, 0x101);
	assert_int_equal(nd_region_count(), 1);
	const struct nd_region *r = nd_region_get(0);
	assert_int_equal(r->nr_mappings, 2);
	assert_int_equal(r->size, 2 * GiB);
	assert_int_equal(r->align, 16 * MiB);
	assert_ptr_equal(r->mapping[0].nvdimm, nvdimm_get(1));
	assert_int_equal(r->mapping[0].position, 1);
	assert_int_equal(r->mapping[0].start, 0x101000);
	assert_int_equal(r->mapping[0].size, 1 * GiB);
	assert_int_equal(r->mapping[1].position, 0);
	assert_true(host_console_has("nd_region region0: [mem 0x200000000-0x27fffffff] nfit pmem, 2 dimms (handles 0x101, 0x1), persistence unknown"));
	assert_false(host_console_has("-way interleave"));
}

/* Three ways: 16 MiB is not a multiple of 3, so the region align is 48 MiB. */
static void nfit_interleave_three_way_align(void **state)
{
	(void)state;
	tb_init();
	add_spa(1, 8 * GiB, 3 * GiB, guid_pm);
	for (u32 h = 1; h <= 3; h++)
		add_memdev(h, 1, 0, 1 * GiB, (h - 1) * 4096, 4, 0); /* the table says 4 ways */
	register_tb();
	assert_int_equal(nd_region_get(0)->align, 48 * MiB);
	assert_true(host_console_has("nfit: SPA range 1: handle 0x1 says 4-way interleave, 3 DIMMs map it"));
	assert_true(host_console_has("nfit: DIMM handle 0x1: no control region 0, no id"));
	assert_false(nvdimm_get(0)->has_dcr);
}

/* Overlapping SPA ranges: the later one is rejected with a line. */
static void nfit_overlapping_spa_rejected(void **state)
{
	(void)state;
	tb_init();
	one_dimm(1 * GiB);
	add_spa(4, 4 * GiB + 512 * MiB, 1 * GiB, guid_pm);
	add_spa(6, 6 * GiB, 1 * GiB, guid_pm);
	register_tb();
	assert_int_equal(nd_region_count(), 2);
	assert_int_equal(nd_region_get(0)->start, 4 * GiB);
	assert_int_equal(nd_region_get(1)->start, 6 * GiB);
	assert_true(host_console_has("nd_region: nfit [mem 0x120000000-0x15fffffff] overlaps nfit [mem 0x100000000-0x13fffffff], rejected"));
}

/* Bad SPAs: zero length, wrapping, duplicate index, non-pmem types. */
static void nfit_spa_rejections(void **state)
{
	(void)state;
	tb_init();
	u32 zero = add_spa(2, 4 * GiB, 0, guid_pm);
	add_spa(3, ~0ULL - 4095, 8192, guid_pm);
	add_spa(4, 5 * GiB, 1 * GiB, guid_pm);
	u32 dup = add_spa(4, 7 * GiB, 1 * GiB, guid_pm);
	add_spa(5, 9 * GiB, 1 * GiB, guid_volatile);
	add_memdev(1, 11, 0, 1 * GiB, 0, 1, 0);	/* an SPA index that does not exist */
	register_tb();
	assert_int_equal(nd_region_count(), 1);
	assert_int_equal(nd_region_get(0)->start, 5 * GiB);
	assert_int_equal(nt.spa[4].type, NFIT_SPA_VOLATILE);
	char msg[128];
	snprintf(msg, sizeof(msg), "nfit: SPA range 2 at offset %#x: base 0x100000000 length 0, ignored", zero);
	assert_true(host_console_has(msg));
	assert_true(host_console_has("nfit: SPA range 3 at offset"));
	snprintf(msg, sizeof(msg), "nfit: SPA at offset %#x: range index 4 already used, ignored", dup);
	assert_true(host_console_has(msg));
	assert_true(host_console_has("(handle 0x1): no SPA range 11"));
}

/* A DIMM not armed makes its region read-only; ndctl's flags show on the DIMM. */
static void nfit_not_armed_region_read_only(void **state)
{
	(void)state;
	tb_init();
	add_spa(2, 4 * GiB, 1 * GiB, guid_pm);
	add_memdev(1, 2, 3, 1 * GiB, 0, 1,
		   NFIT_MEM_NOT_ARMED | NFIT_MEM_FLUSH_FAILED | NFIT_MEM_HEALTH_OBSERVED);
	add_dcr(3, 0x123456, NFIT_DCR_LEN);
	register_tb();
	const struct nd_region *r = nd_region_get(0);
	assert_true(r->ro);
	assert_true(host_console_has("nfit: SPA range 2: nmem0 (handle 0x1) not armed, region read-only"));
	assert_true(host_console_has("persistence unknown, read-only"));
	assert_true(host_console_has(", not_armed, flush_fail, smart_event"));
	struct nd_namespace_io *ns = nd_namespace_find("namespace0.0");
	int owner;
	assert_int_equal(nd_namespace_claim(ns, &owner, NULL, true), -EROFS);
	assert_int_equal(nd_namespace_claim(ns, &owner, NULL, false), 0);
	host_console_reset();
	nd_list(ND_LIST_DIMMS, NULL, NULL);
	assert_true(host_console_has("\"flag_failed_arm\":true"));
	assert_true(host_console_has("\"flag_failed_flush\":true"));
	assert_true(host_console_has("\"flag_smart_event\":true"));
	assert_false(host_console_has("flag_failed_save"));
}

/*
 * Regression (issue 11 item 2): an SPA range inside usable RAM became a
 * writable raw pmem device over kernel memory. Any overlap with RAM, and a
 * range not 4 KiB aligned, is refused with a line each; the rest registers.
 */
static void nfit_spa_over_ram_or_unaligned_refused(void **state)
{
	(void)state;
	memblock_add(0, 2 * GiB);
	tb_init();
	add_spa(1, 2 * GiB - 4096, 1 * GiB, guid_pm);	/* last RAM page */
	add_spa(2, 3 * GiB + 512, 64 * MiB, guid_pm);	/* not 4 KiB aligned */
	add_spa(3, 4 * GiB, 1 * GiB, guid_pm);		/* fine */
	add_memdev(1, 1, 3, 1 * GiB, 0, 1, 0);
	add_memdev(2, 2, 3, 64 * MiB, 0, 1, 0);
	add_memdev(3, 3, 3, 1 * GiB, 0, 1, 0);
	add_dcr(3, 0x123456, NFIT_DCR_LEN);
	register_tb();
	assert_int_equal(nd_region_count(), 1);
	assert_int_equal(nd_region_get(0)->start, 4 * GiB);
	assert_true(host_console_has("nd_region: nfit [mem 0x7ffff000-0xbfffefff] overlaps System RAM [mem 0-0x7fffffff], rejected"));
	assert_true(host_console_has("nd_region: nfit [mem 0xc0000200-0xc40001ff] is not 4 KiB aligned, rejected"));
	assert_null(nd_namespace_find("pmem1"));
}

/* Every NFIT state flag becomes nvdimm's own, once; reserved bits become nothing. */
static void nfit_state_flags_translated(void **state)
{
	(void)state;
	assert_int_equal(nfit_dimm_flags(NFIT_MEM_SAVE_FAILED), ND_DIMM_SAVE_FAILED);
	assert_int_equal(nfit_dimm_flags(NFIT_MEM_RESTORE_FAILED), ND_DIMM_RESTORE_FAILED);
	assert_int_equal(nfit_dimm_flags(NFIT_MEM_FLUSH_FAILED), ND_DIMM_FLUSH_FAILED);
	assert_int_equal(nfit_dimm_flags(NFIT_MEM_NOT_ARMED), ND_DIMM_NOT_ARMED);
	assert_int_equal(nfit_dimm_flags(NFIT_MEM_HEALTH_OBSERVED), ND_DIMM_SMART_EVENT);
	assert_int_equal(nfit_dimm_flags(NFIT_MEM_HEALTH_ENABLED), ND_DIMM_SMART_NOTIFY);
	assert_int_equal(nfit_dimm_flags(NFIT_MEM_MAP_FAILED), ND_DIMM_MAP_FAILED);
	assert_int_equal(nfit_dimm_flags(0xff80), 0);
	/* The boot line and ndctl's JSON name each flag once. */
	tb_init();
	add_spa(2, 4 * GiB, 1 * GiB, guid_pm);
	add_memdev(1, 2, 3, 1 * GiB, 0, 1, NFIT_MEM_MAP_FAILED | NFIT_MEM_HEALTH_ENABLED);
	add_dcr(3, 0x123456, NFIT_DCR_LEN);
	register_tb();
	assert_true(host_console_has(", map_fail, smart_notify"));
	host_console_reset();
	nd_list(ND_LIST_DIMMS, NULL, NULL);
	assert_true(host_console_has("\"flag_failed_map\":true"));
	assert_false(host_console_has("notify"));
}

/* A SRAT entry of `len` bytes at *at in buf. */
static void srat_put(u8 *buf, size_t *at, const u8 *e, u8 len)
{
	memcpy(buf + *at, e, len);
	*at += len;
}

/*
 * With a SRAT (srat.h), Linux's rules: SPA range 1 in proximity domain 1
 * (valid), whose node 1 has no CPU or RAM: numa_node 0 (nearest online),
 * target_node 1. SPA range 2 without a valid domain: the address decides,
 * the first RAM range's node and the hot-plug range's own node 2.
 */
static void nfit_region_nodes_from_srat(void **state)
{
	u8 t[256] = "SRAT", e[40];
	size_t len = SRAT_HEADER_LEN;
	u32 spa2;

	(void)state;
	memset(e, 0, sizeof(e));
	e[0] = SRAT_TYPE_LAPIC, e[1] = SRAT_LAPIC_LEN, e[4] = SRAT_ENABLED;
	srat_put(t, &len, e, SRAT_LAPIC_LEN);	/* the CPU: domain 0, node 0 */
	memset(e, 0, sizeof(e));
	e[0] = SRAT_TYPE_MEMORY, e[1] = SRAT_MEMORY_LEN;
	put_le64(e + 16, 2 * GiB);
	put_le32(e + 28, SRAT_ENABLED);
	srat_put(t, &len, e, SRAT_MEMORY_LEN);	/* RAM [0, 2G): domain 0 */
	put_le32(e + 2, 1);
	put_le64(e + 8, 8 * GiB);
	put_le64(e + 16, 4 * GiB);
	put_le32(e + 28, SRAT_ENABLED | SRAT_MEM_NON_VOLATILE);
	srat_put(t, &len, e, SRAT_MEMORY_LEN);	/* [8G, 12G): domain 1, node 1 */
	put_le32(e + 2, 2);
	put_le64(e + 8, 16 * GiB);
	put_le32(e + 28, SRAT_ENABLED | SRAT_MEM_HOTPLUGGABLE);
	srat_put(t, &len, e, SRAT_MEMORY_LEN);	/* [16G, 20G): domain 2, node 2 */
	put_le32(t + 4, (u32)len);
	assert_int_equal(srat_parse(t, len, &srat), 0);
	tb_init();
	add_spa(1, 8 * GiB, 1 * GiB, guid_pm);	/* domain 1, valid */
	spa2 = add_spa(2, 16 * GiB, 1 * GiB, guid_pm);
	put_le16(tb.buf + spa2 + 6, NFIT_SPA_CONTROL_ONLY);	/* domain not valid */
	fix_checksum(tb.buf, tb.len, 9);
	register_tb();
	memset(&srat, 0, sizeof(srat));
	assert_int_equal(nd_region_count(), 2);
	assert_int_equal(nd_region_get(0)->numa_node, 0);
	assert_int_equal(nd_region_get(0)->target_node, 1);
	assert_int_equal(nd_region_get(1)->numa_node, 0);
	assert_int_equal(nd_region_get(1)->target_node, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(nfit_non_pmem_spa_one_line_each, nfit_test_reset),
		cmocka_unit_test_setup(nfit_interleave_two_way, nfit_test_reset),
		cmocka_unit_test_setup(nfit_interleave_three_way_align, nfit_test_reset),
		cmocka_unit_test_setup(nfit_overlapping_spa_rejected, nfit_test_reset),
		cmocka_unit_test_setup(nfit_spa_rejections, nfit_test_reset),
		cmocka_unit_test_setup(nfit_not_armed_region_read_only, nfit_test_reset),
		cmocka_unit_test_setup(nfit_state_flags_translated, nfit_test_reset),
		cmocka_unit_test_setup(nfit_spa_over_ram_or_unaligned_refused, nfit_test_reset),
		cmocka_unit_test_setup(nfit_region_nodes_from_srat, nfit_test_reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
