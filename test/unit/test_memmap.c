/* Host tests: memmap= specs on QEMU's 1 GiB e820 map, applied exactly or rejected. */
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
	.nr = 4,
	.r = {
		{ 0, 1 * MiB, "the first MiB (BIOS data)" },
		{ 2 * MiB, 0x96000, "the kernel image" },
		{ 0x2a0000, 0x1000, "multiboot2 info" },
		{ 0x300000, 0x80000, "module" },
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
		same = t.entries[i].addr == want[i].addr &&
		       t.entries[i].size == want[i].size &&
		       t.entries[i].type == want[i].type;
	if (!same)
		dump();
	assert_true(same);
}

#define EXPECT(a) expect((a), ARRAY_SIZE(a))

/* A rejected spec leaves the table as it was and prints `msg`. */
static void rejected(const char *arg, const char *msg)
{
	host_console_reset();
	assert_int_equal(e820_parse_memmap(&t, arg, &keep), -EINVAL);
	EXPECT(qemu_1g);
	if (!host_console_has(msg))
		dump();
	assert_true(host_console_has(msg));
}

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

static void memmap_pram_single_range(void **state)
{
	(void)state;
	const struct e820_entry want[] = {
		qemu_1g[0], qemu_1g[1], qemu_1g[2],
		R(0x100000, 0x1ff00000, 1), R(0x20000000, 0x10000000, 12),
		R(0x30000000, 0xffe0000, 1), qemu_1g[4], qemu_1g[5],
	};

	assert_int_equal(e820_parse_memmap(&t, "256M!512M", &keep), 0);
	EXPECT(want);
	assert_false(host_console_has("memmap"));	/* no warning either */
}

static void memmap_pram_several_in_one_value_stay_separate(void **state)
{
	(void)state;
	const struct e820_entry want[] = {
		qemu_1g[0], qemu_1g[1], qemu_1g[2],
		R(0x100000, 0xff00000, 1),
		R(0x10000000, 0x4000000, 12), R(0x14000000, 0x4000000, 12),
		R(0x18000000, 0x4000000, 12),
		R(0x1c000000, 0x23fe0000, 1), qemu_1g[4], qemu_1g[5],
	};

	assert_int_equal(e820_parse_memmap(&t, "64M!256M,64M!320M,0x4000000!0x18000000", &keep), 0);
	EXPECT(want);
}

static void memmap_pram_repeated_values_accumulate(void **state)
{
	(void)state;
	const struct e820_entry want[] = {
		qemu_1g[0], qemu_1g[1], qemu_1g[2],
		R(0x100000, 0xff00000, 1), R(0x10000000, 0x4000000, 12),
		R(0x14000000, 0xc000000, 1), R(0x20000000, 0x4000000, 12),
		R(0x24000000, 0x1bfe0000, 1), qemu_1g[4], qemu_1g[5],
	};

	assert_int_equal(e820_parse_memmap(&t, "64M!256M", &keep), 0);
	assert_int_equal(e820_parse_memmap(&t, "64M!512M", &keep), 0);
	EXPECT(want);
	/* The same range again now hits pmem, not RAM. */
	host_console_reset();
	assert_int_equal(e820_parse_memmap(&t, "64M!256M", &keep), -EINVAL);
	EXPECT(want);
	assert_true(host_console_has("memmap=64M!256M: [mem 0x0000000010000000-0x0000000013ffffff] overlaps persistent (type 12) [mem 0x0000000010000000-0x0000000013ffffff]"));
}

static void memmap_suffixes_and_bases(void **state)
{
	(void)state;
	const struct e820_entry want[] = {
		qemu_1g[0], qemu_1g[1], qemu_1g[2],
		R(0x100000, 0x900000, 1), R(0xa00000, 0x200000, 12),
		R(0xc00000, 0x200000, 12), R(0xe00000, 0x200000, 12),
		R(0x1000000, 0x3efe0000, 1), qemu_1g[4],
		R(0xfffc0000, 0x40040000, 2),	/* merged with 1G$4G */
		R(0x10000000000ULL, 0x40000000000ULL, 1),
	};

	/* K, lower-case m, hex, G and T suffixes. */
	assert_int_equal(e820_parse_memmap(&t, "2048K!10M,2m!0xc00000,0x200000!14680064", &keep), 0);
	assert_int_equal(e820_parse_memmap(&t, "1G$4G,4T@1T", &keep), 0);
	EXPECT(want);
}

static void memmap_octal_like_memparse(void **state)
{
	(void)state;
	const struct e820_entry want[] = {
		qemu_1g[0], qemu_1g[1], qemu_1g[2],
		R(0x100000, 0x900000, 1), R(0xa00000, 0x200000, 12),
		R(0xc00000, 0x3f3e0000, 1), qemu_1g[4], qemu_1g[5],
	};

	/* 010000000 is octal: 0x200000. */
	assert_int_equal(e820_parse_memmap(&t, "010000000!10M", &keep), 0);
	EXPECT(want);
}

/*
 * Regression (issue 11 item 1): memmap=8M!1M gave a writable pmem0 over the
 * kernel image. A `!` range touching anything the kernel runs from or was
 * handed is refused with one line naming both; the other specs still apply.
 */
static void memmap_pram_over_kernel_or_boot_data_refused(void **state)
{
	(void)state;
	rejected("8M!1M", "memmap=8M!1M: [mem 0x0000000000100000-0x00000000008fffff] covers the kernel image [mem 0x0000000000200000-0x0000000000295fff], refused");
	rejected("2048K!2M", "covers the kernel image");
	rejected("4K!0x295000", "covers the kernel image");
	rejected("64K!0x90000", "covers the first MiB (BIOS data) [mem 0x0000000000000000-0x00000000000fffff]");
	rejected("4K!0x2a0000", "covers multiboot2 info [mem 0x00000000002a0000-0x00000000002a0fff]");
	rejected("1M!0x340000", "covers module");
	/* The page right after the image is fair game (4 KiB aligned, not 2 MiB). */
	host_console_reset();
	assert_int_equal(e820_parse_memmap(&t, "4K!0x296000,8M!1M", &keep), -EINVAL);
	assert_int_equal(t.entries[4].type, E820_TYPE_PRAM);
	assert_int_equal(t.entries[4].addr, 0x296000);
	/* Without a keep list (a bare table), only the memory map's rules apply. */
	setup(NULL);
	assert_int_equal(e820_parse_memmap(&t, "2M!2M", NULL), 0);
}

static void memmap_zero_size_rejected(void **state)
{
	(void)state;
	rejected("0!512M", "memmap=0!512M: size is 0");
	rejected("0@1G", "memmap=0@1G: size is 0");
	rejected("0", "memmap=0: a limit of 0 would remove all RAM");
}

static void memmap_pram_unaligned_rejected(void **state)
{
	(void)state;
	rejected("1000!512M", "memmap=1000!512M: start 0x20000000 and size 0x3e8 must be 4 KiB aligned");
	rejected("256M!0x20000800", "memmap=256M!0x20000800: start 0x20000800 and size 0x10000000 must be 4 KiB aligned");
}

static void memmap_pram_not_2m_aligned_warns_and_applies(void **state)
{
	(void)state;
	const struct e820_entry want[] = {
		qemu_1g[0], qemu_1g[1], qemu_1g[2],
		R(0x100000, 0x1ff01000, 1), R(0x20001000, 0x1000, 12),
		R(0x20002000, 0x1ffde000, 1), qemu_1g[4], qemu_1g[5],
	};

	assert_int_equal(e820_parse_memmap(&t, "4K!0x20001000", &keep), 0);
	EXPECT(want);
	assert_true(host_console_has("memmap=4K!0x20001000: start 0x20001000 or size 0x1000 not 2 MiB aligned; pfn devices need 2 MiB alignment"));
}

static void memmap_pram_beyond_ram_rejected(void **state)
{
	(void)state;
	rejected("256M!4G", "memmap=256M!4G: [mem 0x0000000100000000-0x000000010fffffff] is not usable RAM (beyond end of RAM 0x000000003ffe0000)");
	rejected("256M!2G", "memmap=256M!2G: [mem 0x0000000080000000-0x000000008fffffff] is not usable RAM (beyond end of RAM 0x000000003ffe0000)");
}

/*
 * Reserved memory with no firmware table in it becomes pmem as on Linux; the
 * warning comes once the tables are known (none here), for what is kept.
 */
static void memmap_pram_over_reserved_applied_with_warning(void **state)
{
	(void)state;
	const struct e820_entry want[] = {
		qemu_1g[0], qemu_1g[1], qemu_1g[2],
		R(0x100000, 0x2ff00000, 1), R(0x30000000, 0x10000000, 12),
		qemu_1g[5],
	};

	assert_int_equal(e820_parse_memmap(&t, "256M!768M", &keep), 0);
	EXPECT(want);
	assert_false(host_console_has("memmap=256M!768M: covers"));
	assert_int_equal(e820_memmap_spare_firmware(&t, NULL, 0), 0);
	EXPECT(want);
	assert_true(host_console_has("memmap=256M!768M: covers reserved [mem 0x000000003ffe0000-0x000000003fffffff]; it becomes pmem as on Linux, but firmware may overwrite it at the next boot"));
}

static void memmap_pram_past_firmware_or_holes_rejected(void **state)
{
	(void)state;
	/* RAM, reserved, then the VGA hole at 0xa0000. */
	rejected("1M!0", "memmap=1M!0: [mem 0x0000000000000000-0x00000000000fffff] is not usable RAM (hole in the map at 0x00000000000a0000)");
	/* Reserved up to 4 GiB, then nothing: beyond the end of RAM. */
	rejected("1G!0xfffc0000", "memmap=1G!0xfffc0000: [mem 0x00000000fffc0000-0x000000013ffbffff] is not usable RAM (beyond end of RAM 0x000000003ffe0000)");
}

static void memmap_pram_over_unusable_or_pmem_rejected(void **state)
{
	(void)state;
	assert_int_equal(e820_parse_memmap(&t, "2M!256M", &keep), 0);
	host_console_reset();
	assert_int_equal(e820_parse_memmap(&t, "4M!255M", &keep), -EINVAL);
	assert_true(host_console_has("memmap=4M!255M: [mem 0x000000000ff00000-0x00000000102fffff] overlaps persistent (type 12) [mem 0x0000000010000000-0x00000000101fffff]"));
	e820_add(&t, 0x08000000, 0x100000, E820_TYPE_UNUSABLE);
	e820_sanitize(&t);
	assert_int_equal(e820_parse_memmap(&t, "2M!127M", &keep), -EINVAL);
	assert_true(host_console_has("overlaps unusable [mem 0x0000000008000000-0x00000000080fffff]"));
}

static void memmap_pram_over_hole_rejected(void **state)
{
	(void)state;
	rejected("128K!0xa0000", "memmap=128K!0xa0000: [mem 0x00000000000a0000-0x00000000000bffff] is not usable RAM (hole in the map at 0x00000000000a0000)");
}

static void memmap_wrap_rejected(void **state)
{
	(void)state;
	rejected("8K!0xfffffffffffff000", "memmap=8K!0xfffffffffffff000: range 0xfffffffffffff000+0x2000 wraps past 2^64");
	rejected("4K!0xfffffffffffff000", "memmap=4K!0xfffffffffffff000: range 0xfffffffffffff000+0x1000 wraps past 2^64");
	rejected("2@0xffffffffffffffff", "wraps past 2^64");
	rejected("1E$15E", "memmap=1E$15E: range 0xf000000000000000+0x1000000000000000 wraps past 2^64");
}

static void memmap_garbage_rejected(void **state)
{
	(void)state;
	rejected("abc", "memmap=abc: bad size (not a number)");
	rejected("256M!", "memmap=256M!: bad start address (missing or not a number)");
	rejected("!1G", "memmap=!1G: bad size (not a number)");
	rejected("256M!1G!", "memmap=256M!1G!: trailing characters \"!\"");
	rejected("256M?1G", "memmap=256M?1G: unknown operator '?' (expected ! @ # or $)");
	rejected("256MB!512M", "memmap=256MB!512M: unknown operator 'B'");
	rejected("-1!512M", "memmap=-1!512M: bad size (not a number)");
	rejected(" 1M!512M", "memmap= 1M!512M: bad size (not a number)");
	rejected("1M!\t512M", "bad start address (missing or not a number)");
	rejected("99999999999999999999!0", "memmap=99999999999999999999!0: bad size (too large)");
	rejected("16E!0", "memmap=16E!0: bad size (too large)");
	rejected("1M!16E", "memmap=1M!16E: bad start address (too large)");
	rejected("0x!1M", "memmap=0x!1M: unknown operator 'x'");
	rejected("", "memmap=: empty spec");
}

static void memmap_unsupported_forms_rejected(void **state)
{
	(void)state;
	rejected("exactmap", "memmap=exactmap: exactmap is not supported");
	rejected("1M%512M-1+12", "memmap=1M%512M-1+12: type conversion (nn%ss-old+new) is not supported");
}

static void memmap_empty_specs_between_commas_rejected(void **state)
{
	(void)state;
	rejected(",", "memmap=: empty spec");
	host_console_reset();
	/* The good spec is applied, the empty one after it reported. */
	assert_int_equal(e820_parse_memmap(&t, "2M!512M,", &keep), -EINVAL);
	assert_int_equal(t.nr, ARRAY_SIZE(qemu_1g) + 2);
	assert_int_equal(t.entries[4].type, 12);
	assert_true(host_console_has("memmap=: empty spec"));
}

static void memmap_long_spec_rejected(void **state)
{
	(void)state;
	char spec[80] = "0x";

	memset(spec + 2, '0', 70);
	strcpy(spec + 72, "1!0");
	rejected(spec, "memmap=0x000000000000000000000000000000...: spec longer than 63 characters");
}

static void memmap_null_rejected(void **state)
{
	(void)state;
	assert_int_equal(e820_parse_memmap(&t, NULL, &keep), -EINVAL);
	EXPECT(qemu_1g);
	assert_true(host_console_has("memmap: needs a value"));
}

static void memmap_good_and_bad_mixed(void **state)
{
	(void)state;
	const struct e820_entry want[] = {
		qemu_1g[0], qemu_1g[1], qemu_1g[2],
		R(0x100000, 0xf00000, 1), R(0x1000000, 0x1000000, 2),
		R(0x2000000, 0x1e000000, 1), R(0x20000000, 0x10000000, 12),
		R(0x30000000, 0xffe0000, 1), qemu_1g[4], qemu_1g[5],
	};

	assert_int_equal(e820_parse_memmap(&t, "256M!512M,abc,16M$0x1000000,256M!600M", &keep), -EINVAL);
	EXPECT(want);
	assert_true(host_console_has("memmap=abc: bad size"));
	assert_true(host_console_has("memmap=256M!600M: [mem 0x0000000025800000-0x00000000357fffff] overlaps persistent (type 12)"));
}

static void memmap_bare_limit_removes_ram_above(void **state)
{
	(void)state;
	const struct e820_entry want512[] = {
		qemu_1g[0], qemu_1g[1], qemu_1g[2],
		R(0x100000, 0x1ff00000, 1), qemu_1g[4], qemu_1g[5],
	};
	const struct e820_entry want_low[] = {
		R(0, 0x50000, 1), qemu_1g[1], qemu_1g[2], qemu_1g[4], qemu_1g[5],
	};

	assert_int_equal(e820_parse_memmap(&t, "512M", &keep), 0);
	EXPECT(want512);
	assert_int_equal(e820_parse_memmap(&t, "0x50000", &keep), 0);
	EXPECT(want_low);
}

static void memmap_limit_keeps_pmem(void **state)
{
	(void)state;
	const struct e820_entry want[] = {
		qemu_1g[0], qemu_1g[1], qemu_1g[2],
		R(0x100000, 0x1ff00000, 1), R(0x20000000, 0x10000000, 12),
		qemu_1g[4], qemu_1g[5],
	};

	assert_int_equal(e820_parse_memmap(&t, "256M!512M,512M", &keep), 0);
	EXPECT(want);
}

static void memmap_reserved_splits_ram(void **state)
{
	(void)state;
	const struct e820_entry want[] = {
		qemu_1g[0], qemu_1g[1], qemu_1g[2],
		R(0x100000, 0xf00000, 1), R(0x1000000, 0x1000000, 2),
		R(0x2000000, 0x3dfe0000, 1), qemu_1g[4], qemu_1g[5],
	};

	assert_int_equal(e820_parse_memmap(&t, "16M$0x1000000", &keep), 0);
	EXPECT(want);
}

static void memmap_ram_added_loses_to_reserved(void **state)
{
	(void)state;
	/* RAM over the 640K-1M area: fills the hole, the reserved parts stay. */
	const struct e820_entry want[] = {
		R(0, 0x9fc00, 1), R(0x9fc00, 0x400, 2), R(0xa0000, 0x50000, 1),
		R(0xf0000, 0x10000, 2), R(0x100000, 0x3fee0000, 1),
		qemu_1g[4], qemu_1g[5], R(0x100000000ULL, 0x40000000, 1),
	};

	assert_int_equal(e820_parse_memmap(&t, "1M@0x9f000,1G@4G", &keep), 0);
	EXPECT(want);
}

static void memmap_acpi_over_ram_end(void **state)
{
	(void)state;
	const struct e820_entry want[] = {
		qemu_1g[0], qemu_1g[1], qemu_1g[2],
		R(0x100000, 0x3fed0000, 1), R(0x3ffd0000, 0x10000, 3),
		qemu_1g[4], qemu_1g[5],
	};

	assert_int_equal(e820_parse_memmap(&t, "64K#0x3ffd0000", &keep), 0);
	EXPECT(want);
}

static void memmap_table_full_rejected(void **state)
{
	(void)state;
	/* 250 reserved pages above 4G: 256 entries in all. */
	for (u32 i = 0; i < 250; i++)
		assert_int_equal(e820_add(&t, 0x100001000ULL + i * 0x2000ULL, 0x1000, 2), 0);
	e820_sanitize(&t);
	assert_int_equal(t.nr, E820_MAX_ENTRIES);
	host_console_reset();
	assert_int_equal(e820_parse_memmap(&t, "2M!512M", &keep), -EINVAL);
	assert_int_equal(t.nr, E820_MAX_ENTRIES);
	assert_true(host_console_has("memmap=2M!512M: e820 table full (256 entries)"));
	/* Removing RAM still works on a full table. */
	assert_int_equal(e820_parse_memmap(&t, "1M", &keep), 0);
	assert_int_equal(t.nr, E820_MAX_ENTRIES - 1);
}

#define T(f) cmocka_unit_test_setup(f, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(memmap_pram_single_range),
		T(memmap_pram_several_in_one_value_stay_separate),
		T(memmap_pram_repeated_values_accumulate),
		T(memmap_suffixes_and_bases),
		T(memmap_octal_like_memparse),
		T(memmap_pram_over_kernel_or_boot_data_refused),
		T(memmap_zero_size_rejected),
		T(memmap_pram_unaligned_rejected),
		T(memmap_pram_not_2m_aligned_warns_and_applies),
		T(memmap_pram_beyond_ram_rejected),
		T(memmap_pram_over_reserved_applied_with_warning),
		T(memmap_pram_past_firmware_or_holes_rejected),
		T(memmap_pram_over_unusable_or_pmem_rejected),
		T(memmap_pram_over_hole_rejected),
		T(memmap_wrap_rejected),
		T(memmap_garbage_rejected),
		T(memmap_unsupported_forms_rejected),
		T(memmap_empty_specs_between_commas_rejected),
		T(memmap_long_spec_rejected),
		T(memmap_null_rejected),
		T(memmap_good_and_bad_mixed),
		T(memmap_bare_limit_removes_ram_above),
		T(memmap_limit_keeps_pmem),
		T(memmap_reserved_splits_ram),
		T(memmap_ram_added_loses_to_reserved),
		T(memmap_acpi_over_ram_end),
		T(memmap_table_full_rejected),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
