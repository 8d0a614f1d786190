/*
 * Host tests: memmap=nn!ss and the firmware data it must spare (issue 29
 * item 5, drivers/e820/memmap_fw.c), on QEMU's 1 GiB e820 map: e820 ACPI
 * data and NVS when the spec is applied, the ACPI tables once they are
 * known (e820_memmap_spare_firmware), and e820_clear_of itself.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "e820.h"
#include "e820_qemu.h"
#include "host.h"

static struct e820_table t;

/* What a GRUB boot of the kernel hands over (QEMU: image at 2 MiB). */
static const struct e820_keep keep = {
	.nr = 2,
	.r = {
		{ 0, 1 * MiB, "the first MiB (BIOS data)" },
		{ 2 * MiB, 0x96000, "the kernel image" },
	},
};

static void dump(void)
{
	for (u32 i = 0; i < t.nr; i++)
		fprintf(stderr, "  [%u] %#llx +%#llx type %u\n", (unsigned int)i, t.entries[i].addr,
			t.entries[i].size, (unsigned int)t.entries[i].type);
	fprintf(stderr, "console:\n%s", host_console_text());
}

static void expect(const struct e820_entry *want, size_t n)
{
	bool same = t.nr == n;

	for (size_t i = 0; same && i < n; i++)
		same = t.entries[i].addr == want[i].addr && t.entries[i].size == want[i].size &&
		       t.entries[i].type == want[i].type;
	if (!same)
		dump();
	assert_true(same);
}

#define EXPECT(a) expect((a), ARRAY_SIZE(a))

static int setup(void **state)
{
	(void)state;
	t.nr = 0;
	for (size_t i = 0; i < ARRAY_SIZE(qemu_1g); i++)
		e820_add(&t, qemu_1g[i].addr, qemu_1g[i].size, qemu_1g[i].type);
	e820_sanitize(&t);
	host_console_reset();
	return 0;
}

/* Where SeaBIOS puts QEMU 7.2's tables in qemu_1g's reserved range (RSDP in the F segment). */
static const struct boot_reserved qemu_tables[] = {
	{ 0x3ffe14ad, 0x40, "ACPI RSDT" },   { 0x3ffe0d9e, 0x74, "ACPI FACP" },
	{ 0x3ffe0e12, 0x78, "ACPI APIC" },   { 0x3ffe13a5, 0xe0, "ACPI NFIT" },
	{ 0x3ffe0040, 0x1d5e, "ACPI DSDT" }, { 0x3ffe0000, 0x40, "ACPI FACS" },
};

/*
 * Regression (issue 29 item 5): the default memmap=256M!768M made the last
 * 128 KiB of a writable pmem0 QEMU's live ACPI tables. Trimmed to the 2 MiB
 * below them with one line; what it loses is reserved, RAM included (kept
 * from the allocator at boot), and no warning for reserved memory remains.
 */
static void memmap_pram_over_acpi_tables_trimmed(void **state)
{
	(void)state;
	const struct e820_entry want[] = {
		qemu_1g[0],
		qemu_1g[1],
		qemu_1g[2],
		R(0x100000, 0x2ff00000, 1),
		R(0x30000000, 0xfe00000, 12),
		R(0x3fe00000, 0x200000, 2),
		qemu_1g[5],
	};

	assert_int_equal(e820_parse_memmap(&t, "256M!768M", &keep), 0);
	assert_int_equal(e820_memmap_spare_firmware(&t, qemu_tables, ARRAY_SIZE(qemu_tables)), 1);
	EXPECT(want);
	assert_true(host_console_has(
		"memmap=256M!768M: [mem 0x0000000030000000-0x000000003fffffff] holds firmware data in use (ACPI FACS [mem 0x000000003ffe0000-0x000000003ffe003f] and 5 more); trimmed to [mem 0x0000000030000000-0x000000003fdfffff]\n"));
	assert_false(host_console_has("covers reserved"));
	assert_false(host_console_has("2 MiB aligned"));
}

/* Nothing but table pages: refused with one line, the map as the firmware had it. */
static void memmap_pram_only_acpi_tables_refused(void **state)
{
	(void)state;
	const struct e820_entry want[] = {
		qemu_1g[0],
		qemu_1g[1],
		qemu_1g[2],
		R(0x100000, 0x1ff00000, 1),
		R(0x20000000, 0x400000, 12),
		R(0x20400000, 0x1fbe0000, 1),
		qemu_1g[4],
		qemu_1g[5],
	};

	assert_int_equal(e820_parse_memmap(&t, "8K!0x3ffe0000,4M!512M", &keep), 0);
	assert_int_equal(e820_memmap_spare_firmware(&t, qemu_tables, ARRAY_SIZE(qemu_tables)), 1);
	EXPECT(want);
	assert_true(host_console_has(
		"memmap=8K!0x3ffe0000: [mem 0x000000003ffe0000-0x000000003ffe1fff] holds firmware data in use (ACPI FACS [mem 0x000000003ffe0000-0x000000003ffe003f] and 5 more); nothing usable is left, refused\n"));
	assert_false(host_console_has("covers reserved"));
	assert_false(host_console_has("memmap=4M!512M"));
}

/* A range not 2 MiB aligned loses only the 4 KiB pages the tables touch, and keeps the warning. */
static void memmap_pram_unaligned_over_tables_trimmed_to_pages(void **state)
{
	(void)state;
	const struct e820_entry want[] = {
		qemu_1g[0],
		qemu_1g[1],
		qemu_1g[2],
		R(0x100000, 0x3fe00000, 1),
		R(0x3ff00000, 0xe0000, 12),
		R(0x3ffe0000, 0x20000, 2),
		qemu_1g[5],
	};

	assert_int_equal(e820_parse_memmap(&t, "1M!0x3ff00000", &keep), 0);
	assert_true(host_console_has("not 2 MiB aligned"));
	host_console_reset();
	assert_int_equal(e820_memmap_spare_firmware(&t, qemu_tables, ARRAY_SIZE(qemu_tables)), 1);
	EXPECT(want);
	/* 0x3ffe2000-0x3fffffff is clear too, but smaller than what lies below the tables. */
	assert_true(host_console_has("trimmed to [mem 0x000000003ff00000-0x000000003ffdffff]\n"));
	assert_false(host_console_has("covers reserved"));
}

/* Only `!` ranges memmap= made are judged: the firmware's own type 12 is its business. */
static void memmap_spare_leaves_firmware_pmem_alone(void **state)
{
	(void)state;
	e820_add(&t, 0x3ffe0000, 0x20000, E820_TYPE_PRAM);
	e820_sanitize(&t);
	assert_int_equal(e820_parse_memmap(&t, "64M!256M", &keep), 0);
	assert_int_equal(e820_memmap_spare_firmware(&t, qemu_tables, ARRAY_SIZE(qemu_tables)), 0);
	assert_int_equal(t.entries[t.nr - 2].addr, 0x3ffe0000);
	assert_int_equal(t.entries[t.nr - 2].type, E820_TYPE_PRAM);
	assert_false(host_console_has("holds firmware data"));
}

/* No room left to split the range: given back whole, with a line saying why. */
static void memmap_spare_on_full_table_refuses(void **state)
{
	(void)state;
	assert_int_equal(e820_parse_memmap(&t, "256M!768M", &keep), 0);
	for (u32 i = 0; t.nr < E820_MAX_ENTRIES; i++)
		assert_int_equal(e820_add(&t, 0x100001000ULL + i * 0x2000ULL, 0x1000, 2), 0);
	e820_sanitize(&t);
	assert_int_equal(e820_memmap_spare_firmware(&t, qemu_tables, ARRAY_SIZE(qemu_tables)), 1);
	assert_true(host_console_has(
		"memmap=256M!768M: e820 table full (256 entries), cannot trim it: refused"));
	for (u32 i = 0; i < t.nr; i++)
		assert_int_not_equal(t.entries[i].type, E820_TYPE_PRAM);
	assert_int_equal(t.entries[4].addr, 0x30000000);
	assert_int_equal(t.entries[4].size, 0x10000000);
	assert_int_equal(t.entries[4].type, E820_TYPE_RESERVED);
}

/*
 * ACPI data and NVS are the firmware's, in use: a `!` range over them keeps
 * its largest part clear of them (here below, 4 KiB pages: the spec is not
 * 2 MiB aligned) with one line; the RAM above them stays RAM.
 */
static void memmap_pram_over_acpi_data_trimmed(void **state)
{
	(void)state;
	const struct e820_entry want[] = {
		qemu_1g[0],
		qemu_1g[1],
		qemu_1g[2],
		R(0x100000, 0x1fe00000, 1),
		R(0x1ff00000, 0x100000, 12),
		R(0x20000000, 0x10000, 3),
		R(0x20010000, 0x1ffd0000, 1),
		qemu_1g[4],
		qemu_1g[5],
	};

	assert_int_equal(e820_parse_memmap(&t, "64K#512M", &keep), 0);
	assert_int_equal(e820_parse_memmap(&t, "2M!511M", &keep), 0);
	EXPECT(want);
	assert_true(host_console_has(
		"memmap=2M!511M: [mem 0x000000001ff00000-0x00000000200fffff] holds firmware data in use (ACPI data [mem 0x0000000020000000-0x000000002000ffff]); trimmed to [mem 0x000000001ff00000-0x000000001fffffff]\n"));
	assert_true(host_console_has(
		"memmap=2M!511M: start 0x1ff00000 or size 0x100000 not 2 MiB aligned"));
	assert_false(host_console_has("covers ACPI"));
}

/*
 * NVS: a 2 MiB aligned range keeps the 2 MiB blocks clear of it; with
 * nothing clear it is refused, the map unchanged, the next spec applied.
 */
static void memmap_pram_over_acpi_nvs_trimmed_or_refused(void **state)
{
	(void)state;
	e820_add(&t, 0x20100000, 0x1000, E820_TYPE_NVS);
	e820_add(&t, 0x20000000, 0x1000, E820_TYPE_NVS);
	e820_sanitize(&t);
	assert_int_equal(e820_parse_memmap(&t, "4M!512M", &keep), 0);
	assert_true(host_console_has(
		"memmap=4M!512M: [mem 0x0000000020000000-0x00000000203fffff] holds firmware data in use (ACPI NVS [mem 0x0000000020000000-0x0000000020000fff] and 1 more); trimmed to [mem 0x0000000020200000-0x00000000203fffff]\n"));
	assert_int_equal(t.entries[8].addr, 0x20200000);
	assert_int_equal(t.entries[8].size, 0x200000);
	assert_int_equal(t.entries[8].type, E820_TYPE_PRAM);
	assert_int_equal(t.entries[7].type, E820_TYPE_RAM); /* the RAM between stays RAM */

	setup(NULL);
	e820_add(&t, 0x20100000, 0x1000, E820_TYPE_NVS);
	e820_sanitize(&t);
	u32 nr = t.nr;

	assert_int_equal(e820_parse_memmap(&t, "2M!512M,2M!600M", &keep), -EINVAL);
	assert_int_equal(t.nr, nr + 2);
	assert_int_equal(t.entries[6].addr, 0x25800000);
	assert_int_equal(t.entries[6].type, E820_TYPE_PRAM);
	assert_true(host_console_has(
		"memmap=2M!512M: [mem 0x0000000020000000-0x00000000201fffff] holds firmware data in use (ACPI NVS [mem 0x0000000020100000-0x0000000020100fff]); nothing usable is left, refused\n"));
}

/* e820_clear_of: one case per line: the range, the firmware ranges, what is kept. */
struct clear_case {
	u64 start, size;
	struct boot_reserved fw[3];
	u32 hits;
	u64 kept_start, kept_size;
};

static void memmap_clear_of_keeps_the_largest_aligned_part(void **state)
{
	(void)state;
	static const struct clear_case cases[] = {
		/* Nothing in it (one range ends where it starts, one is empty). */
		{ 0x40000000,
		  0x10000000,
		  { { 0x3ffff000, 0x1000, "a" }, { 0x40001000, 0, "b" } },
		  0,
		  0x40000000,
		  0x10000000 },
		/* At the end, the start, the middle (the larger side wins; the lower on a tie). */
		{ 0x40000000, 0x10000000, { { 0x4ffff000, 0x10, "a" } }, 1, 0x40000000, 0xfe00000 },
		{ 0x40000000, 0x10000000, { { 0x3fffff00, 0x200, "a" } }, 1, 0x40200000, 0xfe00000 },
		{ 0x40000000, 0x10000000, { { 0x45000000, 0x1000, "a" } }, 1, 0x45200000, 0xae00000 },
		{ 0x40000000, 0x800000, { { 0x40300000, 0x200000, "a" } }, 1, 0x40000000, 0x200000 },
		/* Several, unsorted, overlapping: the gap between them is kept. */
		{ 0x40000000,
		  0x10000000,
		  { { 0x4f000000, 0x1000000, "c" },
		    { 0x40000000, 0x1000, "a" },
		    { 0x40100000, 0x500000, "b" } },
		  3,
		  0x40600000,
		  0xea00000 },
		/* Not 2 MiB aligned: 4 KiB pages. */
		{ 0x40001000, 0x10000, { { 0x4000a010, 0x10, "a" } }, 1, 0x40001000, 0x9000 },
		/* Covered whole, or by ranges that end at 2^64 - 1 and wrap. */
		{ 0x40000000, 0x200000, { { 0x401fffff, 0x1, "a" } }, 1, 0x40000000, 0 },
		{ 0x40000000, 0x400000, { { 0x40300000, ~0ULL, "a" } }, 1, 0x40000000, 0x200000 },
		{ 0x40000000, 0x1000, { { 0x3fffffff, 0x2, "a" } }, 1, 0x40000000, 0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct clear_case *c = &cases[i];
		const struct boot_reserved *first;
		u64 start = c->start, size = c->size;
		u32 hits = e820_clear_of(&start, &size, c->fw, 3, &first);

		if (hits != c->hits || start != c->kept_start || size != c->kept_size)
			fprintf(stderr, "case %zu: %u hits, kept %#llx+%#llx\n", i,
				(unsigned int)hits, start, size);
		assert_int_equal(hits, c->hits);
		assert_int_equal(start, c->kept_start);
		assert_int_equal(size, c->kept_size);
		assert_true(hits ? first && first->size : !first);
	}
}

/* The firmware range named is the lowest one it holds. */
static void memmap_clear_of_names_the_lowest(void **state)
{
	(void)state;
	const struct boot_reserved *first;
	u64 start = 0x3ff00000, size = 0x100000;

	assert_int_equal(e820_clear_of(&start, &size, qemu_tables, ARRAY_SIZE(qemu_tables), &first),
			 6);
	assert_string_equal(first->what, "ACPI FACS");
}

#define T(f) cmocka_unit_test_setup(f, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(memmap_pram_over_acpi_tables_trimmed),
		T(memmap_pram_only_acpi_tables_refused),
		T(memmap_pram_unaligned_over_tables_trimmed_to_pages),
		T(memmap_spare_leaves_firmware_pmem_alone),
		T(memmap_spare_on_full_table_refuses),
		T(memmap_pram_over_acpi_data_trimmed),
		T(memmap_pram_over_acpi_nvs_trimmed_or_refused),
		T(memmap_clear_of_keeps_the_largest_aligned_part),
		T(memmap_clear_of_names_the_lowest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
