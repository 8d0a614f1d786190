/*
 * Host tests: the NFIT parser (drivers/acpi_nfit/nfit.c, its walk in
 * subtable.c) on crafted tables: every framing problem that stops the
 * walk, every subtable inconsistent with itself that is rejected alone,
 * unknown types, a table cut anywhere, both forms of the SPA and the DCR,
 * the block window structures, flush hints, platform capabilities and full
 * arrays.
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
#include "nfit.h"
#include "nfit_tests.h"
#include "nvdimm.h"
#include "printk.h"

static void nfit_zero_length_subtable_stops_walk(void **state)
{
	(void)state;
	tb_init();
	one_dimm(1 * GiB);
	u32 off = add_raw(NFIT_TYPE_SPA, 0, 56);
	add_spa(4, 8 * GiB, 1 * GiB, guid_pm);
	assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), -EINVAL);
	assert_true(nt.walk.truncated);
	assert_int_equal(nt.nr_spa, 1);
	assert_int_equal(nt.nr_memdev, 1);
	assert_int_equal(nt.nr_dcr, 1);
	char msg[96];
	snprintf(msg, sizeof(msg), "nfit: SPA (type 0) at offset %#x has length 0, walk stopped", off);
	assert_true(host_console_has(msg));
	/* What came before still makes a region. */
	register_tb();
	assert_int_equal(nd_region_count(), 1);
}

static void nfit_length_past_end_stops_walk(void **state)
{
	(void)state;
	tb_init();
	one_dimm(1 * GiB);
	u32 off = add_raw(NFIT_TYPE_MEMDEV, 200, 48);
	assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), -EINVAL);
	assert_int_equal(nt.nr_memdev, 1);
	char msg[128];
	snprintf(msg, sizeof(msg),
		 "nfit: MEMDEV (type 1) at offset %#x: length 200 runs past the table end %#x, walk stopped",
		 off, tb.len);
	assert_true(host_console_has(msg));
}

/* The header says more than the buffer holds: walk what is there. */
static void nfit_truncated_table(void **state)
{
	struct fixture fx;

	(void)state;
	load_fixture(&fx, "two-1G-3G");
	/* Cut inside the second SPA: the first group survives. */
	assert_int_equal(nfit_parse(fx.bin, 0xe0 + 20, &nt), -EINVAL);
	assert_true(host_console_has("nfit: header length 408 but only 244 bytes present"));
	assert_true(host_console_has("nfit: SPA (type 0) at offset 0xe0: length 56 runs past the table end 0xf4"));
	assert_int_equal(nt.nr_spa, 1);
	assert_int_equal(nt.nr_memdev, 1);
	assert_int_equal(nt.nr_dcr, 1);
	assert_int_equal(nt.spa[0].address, 0x140000000ULL);
	/* Three stray bytes: too few for a subtable header. */
	host_console_reset();
	assert_int_equal(nfit_parse(fx.bin, 0xe0 + 3, &nt), -EINVAL);
	assert_true(host_console_has("nfit: 3 stray bytes at offset 0xe0, walk stopped"));
	/*
	 * Every cut of every length: never a crash, never more than was there.
	 * Each cut is an exact-size heap copy, so ASan sees a read one byte
	 * past it (the whole fixture behind the cut would hide one).
	 */
	for (size_t len = 0; len <= fx.bin_len; len++) {
		u8 *cut = malloc(len ? len : 1);
		assert_non_null(cut);
		memcpy(cut, fx.bin, len);
		int err = nfit_parse(cut, len, &nt);
		free(cut);
		assert_true(err == 0 || err == -EINVAL || err == -ENODEV);
		assert_true(nt.nr_spa <= 2 && nt.nr_memdev <= 2 && nt.nr_dcr <= 2);
		assert_true(nt.walk.length <= len);
	}
	free_fixture(&fx);
}

static void nfit_not_an_nfit(void **state)
{
	(void)state;
	tb_init();
	one_dimm(1 * GiB);
	assert_int_equal(nfit_parse(tb.buf, 39, &nt), -ENODEV);
	assert_int_equal(nt.nr_spa, 0);
	memcpy(tb.buf, "SSDT", 4);
	assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), -ENODEV);
	assert_true(host_console_has("nfit: not an NFIT"));
	memcpy(tb.buf, "NFIT", 4);
	u32 short_len = 20;
	memcpy(tb.buf + 4, &short_len, 4);
	assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), -EINVAL);
	assert_true(host_console_has("nfit: header length 20 is shorter than the header itself"));
	assert_int_equal(nt.nr_spa, 0);
	/* A header length below the buffer: only that much is walked. */
	u32 len = NFIT_HEADER_LEN + NFIT_SPA_LEN;
	memcpy(tb.buf + 4, &len, 4);
	assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), 0);
	assert_int_equal(nt.nr_spa, 1);
	assert_int_equal(nt.nr_memdev, 0);
}

/* One crafted subtable: its type and length, a count or flags field set, and the line it earns. */
struct crafted {
	u16 type, len;
	u32 count_off, count;	/* the field to set, 0: none */
	u8 count_size;
	const char *msg;
};

/* A fresh table with `c` first, then `then` (one SPA, or one DIMM); parse it into nt. */
static int parse_crafted(const struct crafted *c, void (*then)(void))
{
	u8 sub[128] = { 0 };

	tb_init();
	memcpy(sub, &c->type, 2);
	memcpy(sub + 2, &c->len, 2);
	memcpy(sub + c->count_off, &c->count, c->count_size);
	tb_add(sub, c->len);
	then();
	host_console_reset();
	return nfit_parse(tb.buf, tb.len, &nt);
}

static void one_spa(void)
{
	add_spa(2, 4 * GiB, 1 * GiB, guid_pm);
}

static void one_1g_dimm(void)
{
	one_dimm(1 * GiB);
}

/* Each type's minimum length, and the ones that grow with their content. */
static void nfit_below_minimum_stops_walk(void **state)
{
	static const struct crafted cases[] = {
		{ NFIT_TYPE_SPA, 40, 0, 0, 0,
		  "SPA (type 0) at offset 0x28: length 40 below its minimum 56" },
		{ NFIT_TYPE_MEMDEV, 47, 0, 0, 0,
		  "MEMDEV (type 1) at offset 0x28: length 47 below its minimum 48" },
		{ NFIT_TYPE_IDT, 12, 0, 0, 0,
		  "IDT (type 2) at offset 0x28: length 12 below its minimum 16" },
		{ NFIT_TYPE_SMBIOS, 6, 0, 0, 0,
		  "SMBIOS (type 3) at offset 0x28: length 6 below its minimum 8" },
		{ NFIT_TYPE_DCR, 31, 0, 0, 0,
		  "DCR (type 4) at offset 0x28: length 31 below its minimum 32" },
		{ NFIT_TYPE_BDW, 39, 0, 0, 0,
		  "BDW (type 5) at offset 0x28: length 39 below its minimum 40" },
		{ NFIT_TYPE_FLUSH, 12, 0, 0, 0,
		  "FLUSH (type 6) at offset 0x28: length 12 below its minimum 16" },
		{ NFIT_TYPE_CAPS, 12, 0, 0, 0,
		  "CAPS (type 7) at offset 0x28: length 12 below its minimum 16" },
		{ 42, 3, 0, 0, 0,
		  "subtable (type 42) at offset 0x28: length 3 below its minimum 4" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(parse_crafted(&cases[i], one_spa), -EINVAL);
		if (!host_console_has(cases[i].msg))
			fail_msg("case %zu: no \"%s\" in: %s", i, cases[i].msg, host_console_text());
		assert_true(nt.walk.truncated);
		assert_int_equal(nt.nr_spa, 0);
	}
}

/*
 * A subtable whose length frames it but disagrees with its own flags or
 * counts is rejected alone, with one line; the walk goes on to the next
 * (RELIABILITY A.3, A.5). Before, each of these stopped the whole walk, and
 * an interleave table with 0 lines was accepted without a word.
 */
static void nfit_inconsistent_subtable_rejected_walk_goes_on(void **state)
{
	static const struct crafted cases[] = {
		{ NFIT_TYPE_SPA, 56, 6, NFIT_SPA_COOKIE_VALID, 2,
		  "SPA (type 0) at offset 0x28: length 56, want 64 with the location cookie flag (bit 2), SPA rejected" },
		{ NFIT_TYPE_SPA, 64, 6, 0, 2,
		  "SPA (type 0) at offset 0x28: length 64, want 56 without the location cookie flag (bit 2), SPA rejected" },
		{ NFIT_TYPE_SPA, 72, 6, NFIT_SPA_COOKIE_VALID, 2,
		  "SPA (type 0) at offset 0x28: length 72, want 64 with the location cookie flag (bit 2), SPA rejected" },
		{ NFIT_TYPE_IDT, 16, 8, 0, 4,
		  "IDT (type 2) at offset 0x28: 0 lines, IDT rejected" },
		{ NFIT_TYPE_IDT, 20, 8, 2, 4,
		  "IDT (type 2) at offset 0x28: length 20 too short for 2 lines (24 bytes), IDT rejected" },
		/* 16 + 4 * 0x40000001 is 20 in 32 bits: the count must not wrap the product. */
		{ NFIT_TYPE_IDT, 20, 8, 0x40000001, 4,
		  "IDT (type 2) at offset 0x28: length 20 too short for 1073741825 lines (4294967316 bytes), IDT rejected" },
		{ NFIT_TYPE_DCR, 32, 30, 1, 2,
		  "DCR (type 4) at offset 0x28: length 32 too short for 1 block control windows (80 bytes), DCR rejected" },
		{ NFIT_TYPE_FLUSH, 24, 8, 2, 2,
		  "FLUSH (type 6) at offset 0x28: length 24 too short for 2 hint addresses (32 bytes), FLUSH rejected" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(parse_crafted(&cases[i], one_1g_dimm), -EINVAL);
		if (!host_console_has(cases[i].msg))
			fail_msg("case %zu: no \"%s\" in: %s", i, cases[i].msg,
				 host_console_text());
		assert_false(nt.walk.truncated);
		assert_int_equal(nt.walk.nr_rejected, 1);
		assert_int_equal(nt.nr_spa, 1); /* the good SPA after it */
		assert_int_equal(nt.spa[0].address, 4 * GiB);
		assert_int_equal(nt.nr_idt + nt.nr_flush, 0);
		assert_int_equal(nt.nr_dcr, 1);
		assert_int_equal(nt.nr_memdev, 1);
		/* One line, and the good DIMM still makes its region. */
		const char *first = strstr(host_console_text(), cases[i].msg);
		assert_null(strstr(first + 1, cases[i].msg));
		nd_reset();
		register_tb();
		assert_int_equal(nd_region_count(), 1);
	}
}

/* Types above 7 are skipped by their length; the walk goes on. */
static void nfit_unknown_types_skipped(void **state)
{
	(void)state;
	tb_init();
	add_raw(8, 12, 12);
	add_raw(0xffff, 4, 4);
	add_raw(0x1234, 100, 100);
	one_dimm(1 * GiB);
	assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), 0);
	assert_int_equal(nt.nr_unknown, 3);
	assert_int_equal(nt.nr_spa, 1);
	assert_int_equal(nt.nr_dcr, 1);
	/* One line each, at a level the default console prints (it was silent). */
	assert_true(host_console_has(
		"nfit: unknown subtable type 8 at offset 0x28 (12 bytes), skipped"));
	assert_true(host_console_has(
		"nfit: unknown subtable type 65535 at offset 0x34 (4 bytes), skipped"));
	assert_true(host_console_has(
		"nfit: unknown subtable type 4660 at offset 0x38 (100 bytes), skipped"));
	assert_true(LOGLEVEL_WARNING < console_loglevel);
}

/*
 * ACPI 6.4: a 64-byte SPA with the location cookie, next to a 56-byte one
 * without. The crossed combinations reject that SPA only (RELIABILITY A.3).
 */
static void nfit_spa_64_byte_form(void **state)
{
	struct nfit_spa s = {
		.h = { NFIT_TYPE_SPA, NFIT_SPA_COOKIE_LEN }, .range_index = 7,
		.flags = NFIT_SPA_COOKIE_VALID, .address = 0x180000000ULL, .length = 256 * MiB,
		.memory_mapping = 0x8008, .location_cookie = 0x1122334455667788ULL,
	};

	(void)state;
	memcpy(s.range_guid, guid_pm, 16);
	tb_init();
	tb_add(&s, NFIT_SPA_COOKIE_LEN);
	s.flags = 0; /* 64 bytes without the flag: rejected */
	s.range_index = 8;
	s.address += 256 * MiB;
	u32 crossed64 = tb_add(&s, NFIT_SPA_COOKIE_LEN);
	s.flags = NFIT_SPA_COOKIE_VALID; /* 56 bytes with the flag: rejected */
	s.h.length = NFIT_SPA_LEN;
	u32 crossed56 = tb_add(&s, NFIT_SPA_LEN);
	s.flags = 0; /* 56 bytes without the flag */
	s.range_index = 9;
	s.address += 256 * MiB;
	tb_add(&s, NFIT_SPA_LEN);
	assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), -EINVAL);
	assert_int_equal(nt.walk.nr_rejected, 2);
	assert_int_equal(nt.nr_spa, 2);
	assert_true(nt.spa[0].flags & NFIT_SPA_COOKIE_VALID);
	assert_int_equal(nt.spa[0].location_cookie, 0x1122334455667788ULL);
	assert_int_equal(nt.spa[0].type, NFIT_SPA_PM);
	assert_false(nt.spa[1].flags & NFIT_SPA_COOKIE_VALID);
	assert_int_equal(nt.spa[1].range_index, 9);
	assert_int_equal(nt.spa[1].address, 0x1a0000000ULL);
	char msg[160];
	snprintf(
		msg, sizeof(msg),
		"nfit: SPA (type 0) at offset %#x: length 64, want 56 without the location cookie flag (bit 2), SPA rejected",
		crossed64);
	assert_true(host_console_has(msg));
	snprintf(
		msg, sizeof(msg),
		"nfit: SPA (type 0) at offset %#x: length 56, want 64 with the location cookie flag (bit 2), SPA rejected",
		crossed56);
	assert_true(host_console_has(msg));
	register_tb();
	assert_int_equal(nd_region_count(), 2);
	assert_int_equal(nd_region_get(0)->numa_node, -1);	/* proximity not valid */
}

/* The 32-byte DCR (no block control windows) next to the 80-byte one. */
static void nfit_dcr_32_byte_form(void **state)
{
	(void)state;
	tb_init();
	add_spa(2, 4 * GiB, 1 * GiB, guid_pm);
	add_memdev(1, 2, 3, 1 * GiB, 0, 1, 0);
	add_dcr(3, 0xaabbccdd, NFIT_DCR_SHORT_LEN);
	assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), 0);
	assert_int_equal(nt.nr_dcr, 1);
	assert_int_equal(nt.dcr[0].length, NFIT_DCR_SHORT_LEN);
	assert_int_equal(nt.dcr[0].serial_number, 0xaabbccdd);
	assert_int_equal(nt.dcr[0].code, 0x0201);
	assert_int_equal(nt.dcr[0].window_size, 0);
	register_tb();
	assert_string_equal(nvdimm_get(0)->unique_id, "8680-ddccbbaa");
}

/* A full DCR with windows, its block data window, interleave and SMBIOS. */
static void nfit_block_window_structures(void **state)
{
	struct nfit_dcr d = {
		.h = { NFIT_TYPE_DCR, NFIT_DCR_LEN }, .region_index = 5, .vendor_id = 0x8086,
		.valid_fields = NFIT_DCR_MFG_VALID, .manufacturing_location = 0xa5,
		.manufacturing_date = 0x1234, .serial_number = 0x01020304, .code = 0x0201,
		.windows = 2, .window_size = 0x2000, .command_offset = 0x100, .command_size = 8,
		.status_offset = 0x200, .status_size = 4, .flags = 1,
	};
	struct nfit_bdw b = {
		.h = { NFIT_TYPE_BDW, NFIT_BDW_LEN }, .region_index = 5, .windows = 2,
		.window_offset = 0x1000, .size = 0x2000, .capacity = 1 * GiB,
		.start_address = 0x40000,
	};
	u8 idt[NFIT_IDT_LEN + 12] = { NFIT_TYPE_IDT, 0, sizeof(idt), 0, 9, 0, 0, 0, 3, 0, 0, 0,
				      0, 1, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0 };
	u8 smbios[NFIT_SMBIOS_LEN + 5] = { NFIT_TYPE_SMBIOS, 0, sizeof(smbios), 0, 0, 0, 0, 0,
					   17, 0x28, 1, 2, 3 };

	(void)state;
	tb_init();
	tb_add(&d, NFIT_DCR_LEN);
	tb_add(&b, NFIT_BDW_LEN);
	u32 idt_off = tb_add(idt, sizeof(idt));
	u32 smbios_off = tb_add(smbios, sizeof(smbios));
	add_spa(2, 4 * GiB, 1 * GiB, guid_pm);
	add_memdev(7, 2, 5, 1 * GiB, 0, 1, 0);
	assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), 0);
	assert_int_equal(nt.dcr[0].windows, 2);
	assert_int_equal(nt.dcr[0].status_offset, 0x200);
	assert_int_equal(nt.dcr[0].flags, 1);
	assert_int_equal(nt.bdw[0].capacity, 1 * GiB);
	assert_int_equal(nt.bdw[0].start_address, 0x40000);
	assert_int_equal(nt.idt[0].offset, idt_off);
	assert_int_equal(nt.idt[0].interleave_index, 9);
	assert_int_equal(nt.idt[0].line_count, 3);
	assert_int_equal(nt.idt[0].line_size, 256);
	assert_int_equal(nt.idt[0].line_offset[1], 2);
	assert_int_equal(nt.idt[0].line_offset[2], 1);
	assert_int_equal(nt.smbios[0].data_offset, smbios_off + 8);
	assert_int_equal(nt.smbios[0].data_length, 5);
	register_tb();
	/* Linux's id with the manufacturing fields: vendor-location-date-serial. */
	assert_string_equal(nvdimm_get(0)->unique_id, "8680-a5-3412-04030201");
}

/* Flush hints attach to their DIMM; more than the cap keep the first ones. */
static void nfit_flush_hints(void **state)
{
	u8 f[NFIT_FLUSH_LEN + 8 * 20] = { NFIT_TYPE_FLUSH, 0, NFIT_FLUSH_LEN + 16, 0, 1, 0, 0, 0,
					  2, 0 };
	u64 hint;

	(void)state;
	tb_init();
	one_dimm(1 * GiB);
	for (int i = 0; i < 20; i++) {
		hint = 0xfed00000ULL + 0x1000 * (u64)i;
		memcpy(f + NFIT_FLUSH_LEN + 8 * i, &hint, 8);
	}
	tb_add(f, NFIT_FLUSH_LEN + 16);	/* handle 1, two hints */
	f[2] = NFIT_FLUSH_LEN + 8 * 20;
	f[4] = 9;
	f[8] = 20;
	tb_add(f, NFIT_FLUSH_LEN + 8 * 20);	/* handle 9 (no such DIMM), 20 hints */
	assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), 0);
	assert_int_equal(nt.nr_flush, 2);
	assert_int_equal(nt.flush[0].hint_count, 2);
	assert_int_equal(nt.flush[0].hint[1], 0xfed01000ULL);
	assert_int_equal(nt.flush[1].hint_count, 20);
	assert_int_equal(nt.flush[1].hint[15], 0xfed0f000ULL);
	assert_true(host_console_has("20 hint addresses, keeping the first 16"));
	register_tb();
	const struct nvdimm *d = nvdimm_get(0);
	assert_int_equal(d->nr_flush_hints, 2);
	assert_int_equal(d->flush_hint[0], 0xfed00000ULL);
	assert_int_equal(d->flush_hint[1], 0xfed01000ULL);
	assert_true(host_console_has("nvdimm nmem0: ndbus0 handle 0x1, phys_id 0x21, id 8680-56341200, 2 flush hints at 0xfed00000.."));
	assert_true(host_console_has("nfit: FLUSH at offset"));
	assert_true(host_console_has("no memdev has handle 0x9, ignored"));
}

/* §5.2.25.9: bits above the highest valid one are ignored; bit 0 wins. */
static void nfit_platform_capabilities(void **state)
{
	static const struct {
		u8 highest;
		u32 caps;
		enum nd_persistence want;
	} cases[] = {
		{ 1, 3, ND_PERSIST_CACHE },	{ 1, 2, ND_PERSIST_MEMCTRL },
		{ 0, 2, ND_PERSIST_UNKNOWN },	{ 0, 3, ND_PERSIST_CACHE },
		{ 31, 0x80000002, ND_PERSIST_MEMCTRL },
		{ 255, 1, ND_PERSIST_CACHE },	{ 2, 4, ND_PERSIST_UNKNOWN },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct nfit_caps c = { .h = { NFIT_TYPE_CAPS, NFIT_CAPS_LEN },
					    .highest_capability = cases[i].highest,
					    .capabilities = cases[i].caps };
		tb_init();
		tb_add(&c, NFIT_CAPS_LEN);
		c.capabilities = 1;
		tb_add(&c, NFIT_CAPS_LEN);	/* a second one is ignored */
		assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), -ENOSPC);
		assert_int_equal(nt.caps.capabilities, cases[i].caps);
		assert_int_equal(nfit_caps_persistence(&nt.caps), cases[i].want);
	}
	assert_true(host_console_has("nfit: second CAPS at offset 0x38 ignored"));
}

/* Full arrays drop the rest with one line per type; the walk goes on. */
static void nfit_arrays_full(void **state)
{
	(void)state;
	tb_init();
	for (u16 i = 0; i < NFIT_MAX_SPA + 3; i++)
		add_spa((u16)(i + 1), 4 * GiB + (u64)i * GiB, 1 * GiB, guid_pm);
	add_dcr(3, 1, NFIT_DCR_SHORT_LEN);
	assert_int_equal(nfit_parse(tb.buf, tb.len, &nt), -ENOSPC);
	assert_int_equal(nt.nr_spa, NFIT_MAX_SPA);
	assert_int_equal(nt.walk.nr_dropped, 3);
	assert_int_equal(nt.nr_dcr, 1);
	assert_true(host_console_has("nfit: more than 32 SPA subtables, the rest dropped"));
	const char *first = strstr(host_console_text(), "more than 32 SPA");
	assert_null(strstr(first + 1, "more than 32 SPA"));
	register_tb();
	assert_int_equal(nd_region_count(), NFIT_MAX_SPA);
}

static void nfit_spa_type_names(void **state)
{
	(void)state;
	assert_int_equal(nfit_spa_type_from_guid(guid_pm), NFIT_SPA_PM);
	assert_string_equal(nfit_spa_type_name(NFIT_SPA_PM), "persistent memory");
	assert_string_equal(nfit_spa_type_name(NFIT_SPA_UNKNOWN), "unknown range type");
	u8 other[16] = { 1 };
	assert_int_equal(nfit_spa_type_from_guid(other), NFIT_SPA_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(nfit_zero_length_subtable_stops_walk, nfit_test_reset),
		cmocka_unit_test_setup(nfit_length_past_end_stops_walk, nfit_test_reset),
		cmocka_unit_test_setup(nfit_truncated_table, nfit_test_reset),
		cmocka_unit_test_setup(nfit_not_an_nfit, nfit_test_reset),
		cmocka_unit_test_setup(nfit_below_minimum_stops_walk, nfit_test_reset),
		cmocka_unit_test_setup(nfit_inconsistent_subtable_rejected_walk_goes_on,
				       nfit_test_reset),
		cmocka_unit_test_setup(nfit_unknown_types_skipped, nfit_test_reset),
		cmocka_unit_test_setup(nfit_spa_64_byte_form, nfit_test_reset),
		cmocka_unit_test_setup(nfit_dcr_32_byte_form, nfit_test_reset),
		cmocka_unit_test_setup(nfit_block_window_structures, nfit_test_reset),
		cmocka_unit_test_setup(nfit_flush_hints, nfit_test_reset),
		cmocka_unit_test_setup(nfit_platform_capabilities, nfit_test_reset),
		cmocka_unit_test_setup(nfit_arrays_full, nfit_test_reset),
		cmocka_unit_test_setup(nfit_spa_type_names, nfit_test_reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
