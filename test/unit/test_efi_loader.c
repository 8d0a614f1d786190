/*
 * Host tests: the EFI loader's pure parts: load options decoding, kernel ELF
 * checks, the memory map conversion.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../boot/efi/loader.h"
#include "e820.h"

static char out[BOOT_CMDLINE_MAX];
static bool trunc_;

static u32 ucs2(const char *s, u8 *buf)
{
	u32 n = 0;

	for (; *s; s++) {
		buf[n++] = (u8)*s;
		buf[n++] = 0;
	}
	buf[n++] = 0;
	buf[n++] = 0;
	return n;
}

static void efi_shell_options_drop_image_path(void **state)
{
	(void)state;
	u8 buf[256];
	u32 n = ucs2("fs0:\\pmemk.efi memmap=garbage ktest=x", buf);

	assert_int_equal(load_options_decode(buf, n, out, sizeof(out), &trunc_), LOAD_OPTIONS_UCS2);
	assert_string_equal(out, "memmap=garbage ktest=x");
	assert_false(trunc_);
}

static void efi_ipxe_image_only_uses_default(void **state)
{
	(void)state;
	u8 buf[64];
	u32 n = ucs2("BOOTX64.EFI", buf);

	assert_int_equal(load_options_decode(buf, n, out, sizeof(out), &trunc_),
			 LOAD_OPTIONS_IMAGE_ONLY);
}

static void efi_8bit_boot_entry_text_accepted(void **state)
{
	(void)state;
	const char *s = "pmem.create=namespace0.0:fsdax:dev";

	assert_int_equal(load_options_decode(s, (u32)strlen(s), out, sizeof(out), &trunc_),
			 LOAD_OPTIONS_ASCII);
	assert_string_equal(out, s);
}

static void efi_binary_options_ignored(void **state)
{
	(void)state;
	/* EDK2's own boot options carry a 16-byte GUID: not text. */
	const u8 guid[16] = { 0x4e, 0xac, 0x08, 0x81, 0x11, 0x9f, 0x59, 0x4d,
			      0x85, 0x0e, 0xe2, 0x1a, 0x52, 0x2c, 0x59, 0xb2 };

	assert_int_equal(load_options_decode(guid, sizeof(guid), out, sizeof(out), &trunc_),
			 LOAD_OPTIONS_BINARY);
	assert_string_equal(out, "");
}

static void efi_empty_and_nul_options_use_default(void **state)
{
	(void)state;
	const u8 zeros[8] = { 0 };

	assert_int_equal(load_options_decode(NULL, 0, out, sizeof(out), &trunc_), LOAD_OPTIONS_NONE);
	assert_int_equal(load_options_decode(zeros, sizeof(zeros), out, sizeof(out), &trunc_),
			 LOAD_OPTIONS_NONE);
}

static void efi_long_options_truncated(void **state)
{
	(void)state;
	static char big[3000];

	memset(big, 'a', sizeof(big) - 1);
	assert_int_equal(load_options_decode(big, sizeof(big) - 1, out, sizeof(out), &trunc_),
			 LOAD_OPTIONS_ASCII);
	assert_true(trunc_);
	assert_int_equal(strlen(out), sizeof(out) - 1);
}

/* ---- the memory map (UEFI 2.10 §7.2, FACTS §6.2) ---- */

static struct boot_info mbi;

/* One version-1 descriptor at `d`: type, start, pages, attribute. */
static void desc(u8 *d, u32 type, u64 start, u64 pages, u64 attr)
{
	memcpy(d, &type, 4);
	memcpy(d + 8, &start, 8);
	memcpy(d + 24, &pages, 8);
	memcpy(d + 32, &attr, 8);
}

/* Convert from an exact-size heap copy, so ASan sees any read outside it. */
static void convert(const u8 *map, u64 size, u64 desc_size)
{
	u8 *copy = malloc(size ? size : 1);

	assert_non_null(copy);
	memcpy(copy, map, size);
	memset(&mbi, 0, sizeof(mbi));
	efi_memmap_to_boot_info(copy, size, desc_size, &mbi);
	free(copy);
}

/* OVMF's 48-byte descriptors: RAM neighbours merge, pmem stays one per descriptor. */
static void efi_memmap_merges_ram_keeps_pmem(void **state)
{
	(void)state;
	u8 map[5 * 48] = { 0 };

	desc(map, 7, 0, 0xa0, 0xf); /* conventional */
	desc(map + 48, 4, 0xa0000, 0x60, 0xf); /* boot services data: RAM too */
	desc(map + 96, 0, 0x100000, 0x100, 0xf); /* reserved */
	desc(map + 144, 14, 0x100000000, 0x40000, 0x8008); /* persistent */
	desc(map + 192, 14, 0x140000000, 0x40000, 0x8008); /* adjacent: not merged */
	convert(map, sizeof(map), 48);
	assert_int_equal(mbi.nr_mem, 4);
	assert_int_equal(mbi.mem[0].size, 0x100000);
	assert_int_equal(mbi.mem[0].type, E820_TYPE_RAM);
	assert_int_equal(mbi.mem[1].type, E820_TYPE_RESERVED);
	assert_int_equal(mbi.mem[2].type, E820_TYPE_PMEM);
	assert_int_equal(mbi.mem[3].addr, 0x140000000);
	assert_false(mbi.mem_truncated);
}

/*
 * Regression (found by fuzz_efi_memmap, test/fuzz/crashes/fuzz_efi_memmap/
 * desc-size-wraps-offset): a DescriptorSize near 2^64 wrapped the offset of
 * the second descriptor to just below the map, and it was read from there.
 * Only the first descriptor counts; nothing outside the map is read.
 */
static void efi_memmap_huge_descriptor_size_does_not_wrap(void **state)
{
	(void)state;
	u8 map[50];

	memset(map, 0xff, sizeof(map));
	convert(map, sizeof(map), ~0ULL);
	assert_int_equal(mbi.nr_mem, 0); /* the one descriptor has 2^64-1 pages */
	memset(map, 0, sizeof(map));
	desc(map, 7, 0x100000, 0x10, 0);
	convert(map, sizeof(map), ~0ULL - 7);
	assert_int_equal(mbi.nr_mem, 1);
	assert_int_equal(mbi.mem[0].size, 0x10000);
	convert(map, sizeof(map), 1ULL << 63);
	assert_int_equal(mbi.nr_mem, 1);
}

/*
 * Found by fuzz_efi_memmap (test/fuzz/crashes/fuzz_efi_memmap/merge-wraps-size):
 * a descriptor whose end wraps past 2^64 was merged with its neighbours.
 */
static void efi_memmap_wrapping_range_not_merged(void **state)
{
	(void)state;
	u8 map[2 * 40] = { 0 };

	desc(map, 7, 0 - 0x1000ULL, 1, 0); /* ends exactly at 2^64 */
	desc(map + 40, 7, 0, 0x10, 0); /* starts at 0 */
	convert(map, sizeof(map), 40);
	assert_int_equal(mbi.nr_mem, 2);
	assert_int_equal(mbi.mem[1].addr, 0);
	assert_int_equal(mbi.mem[1].size, 0x10000);
	/* Nor with what precedes it: the sum of the sizes would wrap to 0. */
	desc(map, 7, 0x1000, 1, 0);
	desc(map + 40, 7, 0x2000, ~0ULL >> PAGE_SHIFT, 0);
	convert(map, sizeof(map), 40);
	assert_int_equal(mbi.nr_mem, 2);
	assert_int_equal(mbi.mem[0].size, 0x1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(efi_shell_options_drop_image_path),
		cmocka_unit_test(efi_ipxe_image_only_uses_default),
		cmocka_unit_test(efi_8bit_boot_entry_text_accepted),
		cmocka_unit_test(efi_binary_options_ignored),
		cmocka_unit_test(efi_empty_and_nul_options_use_default),
		cmocka_unit_test(efi_long_options_truncated),
		cmocka_unit_test(efi_memmap_merges_ram_keeps_pmem),
		cmocka_unit_test(efi_memmap_huge_descriptor_size_does_not_wrap),
		cmocka_unit_test(efi_memmap_wrapping_range_not_merged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
