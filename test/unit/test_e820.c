/* Host tests: e820 table add/sanitize/print, EFI type conversion, e820_init. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "boot_info.h"
#include "e820.h"
#include "e820_qemu.h"
#include "host.h"
#include "params.h"


static struct e820_table t;

static void load(const struct e820_entry *e, size_t n)
{
	t.nr = 0;
	for (size_t i = 0; i < n; i++)
		assert_int_equal(e820_add(&t, e[i].addr, e[i].size, e[i].type), 0);
}

static void dump(const struct e820_table *tab)
{
	for (u32 i = 0; i < tab->nr; i++)
		fprintf(stderr, "  [%u] %#llx +%#llx type %u\n", (unsigned int)i,
			tab->entries[i].addr, tab->entries[i].size,
			(unsigned int)tab->entries[i].type);
}

static void expect(const struct e820_entry *want, size_t n)
{
	if (t.nr != n)
		dump(&t);
	assert_int_equal(t.nr, n);
	for (size_t i = 0; i < n; i++) {
		if (t.entries[i].addr != want[i].addr || t.entries[i].size != want[i].size ||
		    t.entries[i].type != want[i].type)
			dump(&t);
		assert_int_equal(t.entries[i].addr, want[i].addr);
		assert_int_equal(t.entries[i].size, want[i].size);
		assert_int_equal(t.entries[i].type, want[i].type);
	}
}

#define LOAD(a) load((a), ARRAY_SIZE(a))
#define EXPECT(a) expect((a), ARRAY_SIZE(a))

static int reset(void **state)
{
	(void)state;
	memset(&t, 0, sizeof(t));
	e820_reset();
	host_console_reset();
	return 0;
}

static void e820_add_rejects_empty_wrapping_and_full(void **state)
{
	(void)state;
	assert_int_equal(e820_add(&t, 0x1000, 0, 1), -EINVAL);
	assert_int_equal(e820_add(&t, ~0ULL, 2, 1), -EINVAL);
	/* The end must be representable: a range may not reach 2^64. */
	assert_int_equal(e820_add(&t, ~0ULL - 0xfff, 0x1000, 1), -EINVAL);
	assert_int_equal(e820_add(&t, ~0ULL - 0x1fff, 0x1000, 1), 0);
	assert_int_equal(t.nr, 1);
	for (u32 i = 1; i < E820_MAX_ENTRIES; i++)
		assert_int_equal(e820_add(&t, i * 0x1000ULL, 0x1000, 1), 0);
	assert_int_equal(e820_add(&t, 0, 0x1000, 1), -ENOSPC);
	assert_int_equal(t.nr, E820_MAX_ENTRIES);
}

static void e820_sanitize_sorts_unsorted_input(void **state)
{
	(void)state;
	const struct e820_entry in[] = {
		qemu_1g[4], qemu_1g[1], qemu_1g[5], qemu_1g[0], qemu_1g[3], qemu_1g[2],
	};

	LOAD(in);
	e820_sanitize(&t);
	EXPECT(qemu_1g);
}

static void e820_sanitize_empty_table(void **state)
{
	(void)state;
	e820_sanitize(&t);
	assert_int_equal(t.nr, 0);
}

static void e820_sanitize_reserved_inside_ram_splits_it(void **state)
{
	(void)state;
	const struct e820_entry in[] = { R(0, 0x1000000, 1), R(0x400000, 0x100000, 2) };
	const struct e820_entry want[] = {
		R(0, 0x400000, 1), R(0x400000, 0x100000, 2), R(0x500000, 0xb00000, 1),
	};

	LOAD(in);
	e820_sanitize(&t);
	EXPECT(want);
}

static void e820_sanitize_pmem_beats_ram_and_reserved(void **state)
{
	(void)state;
	const struct e820_entry in[] = {
		R(0, 0x40000000, 1), R(0x10000000, 0x10000000, 12),
		R(0x40000000, 0x1000, 2), R(0x3ffff000, 0x3000, 7),
	};
	const struct e820_entry want[] = {
		R(0, 0x10000000, 1), R(0x10000000, 0x10000000, 12),
		R(0x20000000, 0x1ffff000, 1), R(0x3ffff000, 0x3000, 7),
	};

	LOAD(in);
	e820_sanitize(&t);
	EXPECT(want);
}

static void e820_sanitize_three_way_overlaps(void **state)
{
	(void)state;
	/* Nested: RAM > reserved > ACPI, largest type wins at each point. */
	const struct e820_entry nested[] = { R(0, 100, 1), R(20, 60, 2), R(40, 20, 3) };
	const struct e820_entry nested_want[] = {
		R(0, 20, 1), R(20, 20, 2), R(40, 20, 3), R(60, 20, 2), R(80, 20, 1),
	};
	/* Staggered: each overlaps the next. */
	const struct e820_entry stag[] = { R(60, 40, 4), R(0, 50, 1), R(30, 40, 2) };
	const struct e820_entry stag_want[] = { R(0, 30, 1), R(30, 30, 2), R(60, 40, 4) };

	LOAD(nested);
	e820_sanitize(&t);
	EXPECT(nested_want);
	LOAD(stag);
	e820_sanitize(&t);
	EXPECT(stag_want);
}

static void e820_sanitize_identical_duplicates_collapse(void **state)
{
	(void)state;
	const struct e820_entry in[] = {
		R(0x1000, 0x1000, 1), R(0x1000, 0x1000, 1),
		R(0x10000, 0x2000, 12), R(0x10000, 0x2000, 12), R(0x10000, 0x2000, 12),
		R(0x20000, 0x1000, 7), R(0x20000, 0x1000, 7),
	};
	const struct e820_entry want[] = {
		R(0x1000, 0x1000, 1), R(0x10000, 0x2000, 12), R(0x20000, 0x1000, 7),
	};

	LOAD(in);
	e820_sanitize(&t);
	EXPECT(want);
}

static void e820_sanitize_merges_adjacent_same_type(void **state)
{
	(void)state;
	const struct e820_entry in[] = {
		R(0x2000, 0x1000, 1), R(0, 0x1000, 1), R(0x1000, 0x1000, 1),
		R(0x2800, 0x1000, 1), R(0x3800, 0x800, 2), R(0x4000, 0x1000, 2),
	};
	const struct e820_entry want[] = { R(0, 0x3800, 1), R(0x3800, 0x1800, 2) };

	LOAD(in);
	e820_sanitize(&t);
	EXPECT(want);
}

static void e820_sanitize_pmem_adjacent_not_merged(void **state)
{
	(void)state;
	const struct e820_entry in[] = {
		R(0x100000, 0x100000, 12), R(0x200000, 0x100000, 12),
		R(0x400000, 0x100000, 7), R(0x500000, 0x100000, 7),
	};

	LOAD(in);
	e820_sanitize(&t);
	EXPECT(in);
}

static void e820_sanitize_pmem_overlaps_split_at_pmem_boundaries(void **state)
{
	(void)state;
	/* Two overlapping type-12 ranges are cut at each of their boundaries. */
	const struct e820_entry in[] = {
		R(0, 0x2000, 12), R(0x1000, 0x2000, 12),
		/* RAM inside a type-7 range does not cut it. */
		R(0x10000, 0x10000, 7), R(0x12000, 0x1000, 1),
	};
	const struct e820_entry want[] = {
		R(0, 0x1000, 12), R(0x1000, 0x1000, 12), R(0x2000, 0x1000, 12),
		R(0x10000, 0x10000, 7),
	};

	LOAD(in);
	e820_sanitize(&t);
	EXPECT(want);
}

static void e820_sanitize_drops_zero_size_and_type_0(void **state)
{
	(void)state;
	const struct e820_entry want[] = { R(0x1000, 0x1000, 1) };

	t.entries[0] = (struct e820_entry)R(0x5000, 0, 2);
	t.entries[1] = (struct e820_entry)R(0x1000, 0x1000, 1);
	t.entries[2] = (struct e820_entry)R(0x8000, 0x1000, 0);
	t.entries[3] = (struct e820_entry)R(~0ULL - 10, 0x1000, 2);	/* wraps */
	t.nr = 4;
	e820_sanitize(&t);
	EXPECT(want);
}

static void e820_sanitize_full_table_kept(void **state)
{
	(void)state;
	/* 256 adjacent entries alternating RAM/reserved, given backwards. */
	for (int i = E820_MAX_ENTRIES - 1; i >= 0; i--)
		assert_int_equal(e820_add(&t, i * 0x1000ULL, 0x1000, 1 + (i & 1)), 0);
	e820_sanitize(&t);
	assert_int_equal(t.nr, E820_MAX_ENTRIES);
	for (u32 i = 0; i < E820_MAX_ENTRIES; i++) {
		assert_int_equal(t.entries[i].addr, i * 0x1000ULL);
		assert_int_equal(t.entries[i].size, 0x1000);
		assert_int_equal(t.entries[i].type, 1 + (i & 1));
	}
}

static void e820_sanitize_overflow_keeps_lowest_and_says_so(void **state)
{
	(void)state;
	/* One RAM range with 255 reserved holes punched in: 511 pieces. */
	assert_int_equal(e820_add(&t, 0, 0x1000000, 1), 0);
	for (u32 i = 0; i < E820_MAX_ENTRIES - 1; i++)
		assert_int_equal(e820_add(&t, 0x1000 + i * 0x2000ULL, 0x1000, 2), 0);
	e820_sanitize(&t);
	assert_int_equal(t.nr, E820_MAX_ENTRIES);
	for (u32 i = 0; i < E820_MAX_ENTRIES; i++) {
		assert_int_equal(t.entries[i].addr, i * 0x1000ULL);
		assert_int_equal(t.entries[i].size, 0x1000);
		assert_int_equal(t.entries[i].type, 1 + (i & 1));
	}
	assert_true(host_console_has("e820: sanitized map needs 511 entries, dropping the 255 from 0x0000000000100000 up"));
}

static void e820_type_name_uses_linux_words(void **state)
{
	(void)state;
	assert_string_equal(e820_type_name(1), "usable");
	assert_string_equal(e820_type_name(2), "reserved");
	assert_string_equal(e820_type_name(3), "ACPI data");
	assert_string_equal(e820_type_name(4), "ACPI NVS");
	assert_string_equal(e820_type_name(5), "unusable");
	assert_string_equal(e820_type_name(7), "persistent (type 7)");
	assert_string_equal(e820_type_name(12), "persistent (type 12)");
	assert_string_equal(e820_type_name(6), "type 6");
	assert_string_equal(e820_type_name(20), "type 20");
	assert_string_equal(e820_type_name(0xefffffff), "type 4026531839");
	assert_true(e820_is_pmem(7));
	assert_true(e820_is_pmem(12));
	assert_false(e820_is_pmem(1));
	assert_false(e820_is_pmem(6));
}

static void e820_print_linux_format(void **state)
{
	(void)state;
	const struct e820_entry in[] = {
		R(0, 0x9fc00, 1), R(0x100000000ULL, 0x40000000, 12), R(0x3ffe0000, 0x20000, 20),
	};

	LOAD(in);
	e820_print(&t, "BIOS-e820");
	assert_true(host_console_has("] BIOS-e820: [mem 0x0000000000000000-0x000000000009fbff] usable\n"));
	assert_true(host_console_has("] BIOS-e820: [mem 0x0000000100000000-0x000000013fffffff] persistent (type 12)\n"));
	assert_true(host_console_has("] BIOS-e820: [mem 0x000000003ffe0000-0x000000003fffffff] type 20\n"));
}

static void e820_type_from_efi_table(void **state)
{
	(void)state;
	/* UEFI 2.10 §7.2 types 0..15 -> e820 (FACTS 5.5, 6.1). */
	const u32 want[16] = { 2, 1, 1, 1, 1, 2, 2, 1, 5, 3, 4, 2, 2, 2, 7, 2 };

	for (u32 i = 0; i < 16; i++)
		assert_int_equal(e820_type_from_efi(i, 0xf), want[i]);
	assert_int_equal(e820_type_from_efi(16, 0), 2);
	assert_int_equal(e820_type_from_efi(0x70000000, 0), 2);
	assert_int_equal(e820_type_from_efi(0x80000001, 0), 2);
	/* EFI_MEMORY_NV makes anything pmem. */
	assert_int_equal(e820_type_from_efi(7, 0x8000 | 0x8), 7);
	assert_int_equal(e820_type_from_efi(0, 0x8000), 7);
	assert_int_equal(e820_type_from_efi(7, 0x40000 | 0x8), 1);	/* SP: still RAM */
}

static struct boot_info bi;

static void fill_boot_info(void)
{
	memset(&bi, 0, sizeof(bi));
	bi.mem_source = "multiboot2 mmap";
	/* Backwards, plus two ranges e820_add must refuse. */
	for (int i = ARRAY_SIZE(qemu_1g) - 1; i >= 0; i--)
		bi.mem[bi.nr_mem++] = (struct boot_mem_range){
			qemu_1g[i].addr, qemu_1g[i].size, qemu_1g[i].type };
	bi.mem[bi.nr_mem++] = (struct boot_mem_range){ 0x500000, 0, 1 };
	bi.mem[bi.nr_mem++] = (struct boot_mem_range){ ~0ULL, 2, 2 };
}

/*
 * e820_init keeps the memmap= values the parameter recorded (there is no
 * reset), so the whole life cycle is one test: no memmap=, then two.
 */
static void e820_init_firmware_map_then_memmap(void **state)
{
	(void)state;
	const struct e820_entry want[] = {
		R(0, 0x9fc00, 1), R(0x9fc00, 0x400, 2), R(0xf0000, 0x10000, 2),
		R(0x100000, 0xf00000, 1), R(0x1000000, 0x1000000, 2),
		R(0x2000000, 0x1e000000, 1), R(0x20000000, 0x10000000, 12),
		R(0x30000000, 0xffe0000, 1), R(0x3ffe0000, 0x20000, 2),
		R(0xfffc0000, 0x40000, 2),
	};

	fill_boot_info();
	e820_init(&bi);
	memcpy(&t, &e820_table, sizeof(t));
	EXPECT(qemu_1g);
	assert_true(host_console_has("] e820: firmware map (from multiboot2 mmap)\n"));
	assert_true(host_console_has("] BIOS-e820: [mem 0x0000000000100000-0x000000003ffdffff] usable\n"));
	assert_true(host_console_has("e820: firmware range addr 0x500000 size 0x0 type 1 ignored (empty or wraps)"));
	assert_true(host_console_has("e820: firmware range addr 0xffffffffffffffff size 0x2 type 2 ignored (empty or wraps)"));
	assert_false(host_console_has("user-defined"));

	host_console_reset();
	assert_int_equal(params_parse("memmap=256M!512M quiet=1 memmap=16M$16M"), 0);
	e820_init(&bi);
	memcpy(&t, &e820_table, sizeof(t));
	EXPECT(want);
	assert_true(host_console_has("] e820: user-defined physical RAM map:\n"));
	assert_true(host_console_has("] user: [mem 0x0000000020000000-0x000000002fffffff] persistent (type 12)\n"));
	assert_true(host_console_has("] user: [mem 0x0000000001000000-0x0000000001ffffff] reserved\n"));

	/* A bad value is reported by e820_init and leaves the rest applied. */
	host_console_reset();
	assert_int_equal(params_parse("memmap=256M!700M"), 0);
	e820_init(&bi);
	memcpy(&t, &e820_table, sizeof(t));
	EXPECT(want);
	assert_true(host_console_has("memmap=256M!700M: [mem 0x000000002bc00000-0x000000003bbfffff] overlaps persistent (type 12) [mem 0x0000000020000000-0x000000002fffffff]"));
}

/*
 * Regression (issue 11 item 10): 17 specs in one memmap= applied while a 17th
 * separate memmap= was dropped. Every occurrence joins one list now, so both
 * spellings give the same table.
 */
static void e820_init_memmap_separate_or_joined_same(void **state)
{
	(void)state;
	char separate[1024] = "", joined[1024] = "memmap=";
	struct e820_table one;

	for (int i = 0; i < 17; i++) {
		char spec[32];

		snprintf(spec, sizeof(spec), "4K$0x%x", 0x700000 + i * 0x2000);
		strcat(separate, "memmap=");
		strcat(separate, spec);
		strcat(separate, " ");
		strcat(joined, spec);
		strcat(joined, i < 16 ? "," : "");
	}
	fill_boot_info();
	assert_int_equal(params_parse(separate), 0);
	e820_init(&bi);
	memcpy(&one, &e820_table, sizeof(one));
	assert_int_equal(one.nr, ARRAY_SIZE(qemu_1g) + 2 * 17);	/* each splits RAM */
	e820_reset();
	assert_int_equal(params_parse(joined), 0);
	e820_init(&bi);
	assert_memory_equal(&one, &e820_table, sizeof(one));
	assert_false(host_console_has("] memmap="));	/* no spec refused or dropped */
	assert_int_equal(params_parse("memmap"), 1);
	assert_true(host_console_has("memmap: needs a value (memmap=nn!ss)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(e820_add_rejects_empty_wrapping_and_full, reset),
		cmocka_unit_test_setup(e820_sanitize_sorts_unsorted_input, reset),
		cmocka_unit_test_setup(e820_sanitize_empty_table, reset),
		cmocka_unit_test_setup(e820_sanitize_reserved_inside_ram_splits_it, reset),
		cmocka_unit_test_setup(e820_sanitize_pmem_beats_ram_and_reserved, reset),
		cmocka_unit_test_setup(e820_sanitize_three_way_overlaps, reset),
		cmocka_unit_test_setup(e820_sanitize_identical_duplicates_collapse, reset),
		cmocka_unit_test_setup(e820_sanitize_merges_adjacent_same_type, reset),
		cmocka_unit_test_setup(e820_sanitize_pmem_adjacent_not_merged, reset),
		cmocka_unit_test_setup(e820_sanitize_pmem_overlaps_split_at_pmem_boundaries, reset),
		cmocka_unit_test_setup(e820_sanitize_drops_zero_size_and_type_0, reset),
		cmocka_unit_test_setup(e820_sanitize_full_table_kept, reset),
		cmocka_unit_test_setup(e820_sanitize_overflow_keeps_lowest_and_says_so, reset),
		cmocka_unit_test_setup(e820_type_name_uses_linux_words, reset),
		cmocka_unit_test_setup(e820_print_linux_format, reset),
		cmocka_unit_test_setup(e820_type_from_efi_table, reset),
		/* These two share the memmap= values recorded by params_parse. */
		cmocka_unit_test_setup(e820_init_firmware_map_then_memmap, reset),
		cmocka_unit_test_setup(e820_init_memmap_separate_or_joined_same, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
