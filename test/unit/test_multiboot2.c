/* Host tests: multiboot2 boot information parsing, good and malformed (FACTS §5.3). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "e820.h"
#include "host.h"
#include "multiboot2.h"
#include "unaligned.h"

static u8 mbi[4096] __attribute__((aligned(8)));
static u32 len;
static struct boot_info bi;

static void put32(u32 off, u32 v)
{
	memcpy(mbi + off, &v, 4);
}

static void begin(void)
{
	memset(mbi, 0, sizeof(mbi));
	memset(&bi, 0, sizeof(bi));
	len = 8;
	host_console_reset();
}

/* Append a tag with `size` bytes of payload after its 8-byte header. */
static u32 tag(u32 type, const void *payload, u32 size)
{
	u32 off = len;

	put32(off, type);
	put32(off + 4, 8 + size);
	if (payload)
		memcpy(mbi + off + 8, payload, size);
	len = (u32)ALIGN_UP(off + 8 + size, 8);
	return off;
}

static void end(void)
{
	tag(MB2_TAG_END, NULL, 0);
	put32(0, len);
}

static void mmap_tag(const u64 (*e)[3], int n)
{
	u8 p[8 + 24 * 8] = { 0 };

	memcpy(p, &(u32){ 24 }, 4);
	for (int i = 0; i < n; i++) {
		memcpy(p + 8 + 24 * i, &e[i][0], 8);
		memcpy(p + 16 + 24 * i, &e[i][1], 8);
		memcpy(p + 24 + 24 * i, &(u32){ (u32)e[i][2] }, 4);
	}
	tag(MB2_TAG_MMAP, p, 8 + 24 * (u32)n);
}

static void mb2_bios_boot_fills_everything(void **state)
{
	(void)state;
	const u64 map[][3] = { { 0, 0x9fc00, 1 }, { 0x100000, 0x3fee0000, 1 },
			       { 0x3ffe0000, 0x20000, 2 }, { 0x100000000, 0x40000000, 12 } };
	u8 rsdp[20] = "RSD PTR ";

	begin();
	tag(MB2_TAG_CMDLINE, "memmap=256M!512M \"run=a; b\"", 28);
	tag(MB2_TAG_LOADER_NAME, "GRUB 2.06", 10);
	mmap_tag(map, 4);
	tag(MB2_TAG_ACPI_OLD, rsdp, 20);
	tag(MB2_TAG_LOAD_BASE, &(u32){ 0x200000 }, 4);
	end();
	assert_int_equal(multiboot2_parse(mbi, 0x10000, &bi), 0);
	assert_int_equal(bi.path, BOOT_MULTIBOOT2_BIOS);
	assert_string_equal(bi.cmdline, "memmap=256M!512M \"run=a; b\"");
	assert_string_equal(bi.loader, "GRUB 2.06");
	assert_int_equal(bi.nr_mem, 4);
	assert_int_equal(bi.mem[3].addr, 0x100000000ULL);
	assert_int_equal(bi.mem[3].type, 12);
	assert_int_equal(bi.rsdp_len, 20);
	assert_memory_equal(bi.rsdp, "RSD PTR ", 8);
	assert_int_equal(bi.load_base, 0x200000);
	assert_int_equal(bi.nr_reserved, 1);
	assert_int_equal(bi.reserved[0].addr, 0x10000);
	assert_int_equal(bi.reserved[0].size, len);
}

static void mb2_efi_map_wins_and_converts_types(void **state)
{
	(void)state;
	/* Two UEFI descriptors of 48 bytes: conventional RAM and persistent memory. */
	u8 p[8 + 2 * 48] = { 0 };
	u64 st = 0x3f000000;

	begin();
	memcpy(p, &(u32){ 48 }, 4);
	memcpy(p + 4, &(u32){ 1 }, 4);
	memcpy(p + 8, &(u32){ 7 }, 4);				/* EfiConventionalMemory */
	memcpy(p + 8 + 8, &(u64){ 0x100000 }, 8);
	memcpy(p + 8 + 24, &(u64){ 0x100 }, 8);		/* pages */
	memcpy(p + 56, &(u32){ 14 }, 4);			/* EfiPersistentMemory */
	memcpy(p + 56 + 8, &(u64){ 0x100000000 }, 8);
	memcpy(p + 56 + 24, &(u64){ 0x40000 }, 8);
	tag(MB2_TAG_EFI64, &st, 8);
	tag(MB2_TAG_EFI_MMAP, p, sizeof(p));
	const u64 map[][3] = { { 0, 0x1000, 1 } };
	mmap_tag(map, 1);	/* after the EFI map: ignored */
	end();
	assert_int_equal(multiboot2_parse(mbi, 0x5000, &bi), 0);
	assert_int_equal(bi.path, BOOT_MULTIBOOT2_EFI);
	assert_int_equal(bi.efi_system_table, st);
	assert_int_equal(bi.nr_mem, 2);
	assert_int_equal(bi.mem[0].type, E820_TYPE_RAM);
	assert_int_equal(bi.mem[0].size, 0x100000);
	assert_int_equal(bi.mem[1].type, E820_TYPE_PMEM);
	assert_int_equal(bi.mem[1].size, 1ULL << 30);
	assert_string_equal(bi.mem_source, "EFI memory map");
}

static void mb2_new_rsdp_preferred_over_old(void **state)
{
	(void)state;
	u8 v1[20] = "RSD PTR ", v2[36] = "RSD PTR ";

	v2[15] = 2;
	begin();
	tag(MB2_TAG_ACPI_NEW, v2, 36);
	tag(MB2_TAG_ACPI_OLD, v1, 20);
	end();
	assert_int_equal(multiboot2_parse(mbi, 0, &bi), 0);
	assert_int_equal(bi.rsdp_len, 36);
	assert_int_equal(bi.rsdp[15], 2);
}

static void mb2_bad_total_size_rejected(void **state)
{
	(void)state;
	begin();
	put32(0, 4);
	assert_int_equal(multiboot2_parse(mbi, 0, &bi), -EINVAL);
	put32(0, 64 << 20);
	assert_int_equal(multiboot2_parse(mbi, 0, &bi), -EINVAL);
	assert_true(host_console_has("multiboot2: boot information size"));
}

static void mb2_tag_past_end_stops_walk_keeps_earlier_tags(void **state)
{
	(void)state;
	begin();
	tag(MB2_TAG_CMDLINE, "quiet", 6);
	u32 off = tag(MB2_TAG_LOADER_NAME, "GRUB", 5);
	end();
	put32(off + 4, 4000);	/* runs past total_size */
	assert_int_equal(multiboot2_parse(mbi, 0, &bi), 0);
	assert_string_equal(bi.cmdline, "quiet");
	assert_string_equal(bi.loader, "");
	assert_true(host_console_has("multiboot2: tag 2 at offset"));
}

static void mb2_zero_size_tag_stops_walk(void **state)
{
	(void)state;
	begin();
	u32 off = tag(MB2_TAG_CMDLINE, "x", 2);
	end();
	put32(off + 4, 0);
	assert_int_equal(multiboot2_parse(mbi, 0, &bi), 0);
	assert_true(host_console_has("has bad size 0"));
}

static void mb2_unterminated_cmdline_is_bounded(void **state)
{
	(void)state;
	char big[3000];

	memset(big, 'a', sizeof(big));	/* no NUL inside the tag */
	begin();
	tag(MB2_TAG_CMDLINE, big, sizeof(big));
	end();
	assert_int_equal(multiboot2_parse(mbi, 0, &bi), 0);
	assert_true(bi.cmdline_truncated);
	assert_int_equal(strlen(bi.cmdline), BOOT_CMDLINE_MAX - 1);
}

static void mb2_bad_mmap_entry_size_ignored(void **state)
{
	(void)state;
	u8 p[8 + 24] = { 0 };

	begin();
	memcpy(p, &(u32){ 16 }, 4);	/* entries smaller than the 24-byte layout */
	tag(MB2_TAG_MMAP, p, sizeof(p));
	end();
	assert_int_equal(multiboot2_parse(mbi, 0, &bi), 0);
	assert_int_equal(bi.nr_mem, 0);
	assert_true(host_console_has("memory map entry size 16 < 24"));
}

static void mb2_no_end_tag_reported(void **state)
{
	(void)state;
	begin();
	tag(MB2_TAG_CMDLINE, "x", 2);
	put32(0, len);
	assert_int_equal(multiboot2_parse(mbi, 0, &bi), 0);
	assert_true(host_console_has("no end tag"));
}

/* Parse an exact-size heap copy of the MBI, so ASan sees any read past it. */
static int parse_exact(void)
{
	u8 *copy = malloc(len);
	int err;

	assert_non_null(copy);
	memcpy(copy, mbi, len);
	err = multiboot2_parse(copy, 0x10000, &bi);
	free(copy);
	return err;
}

/*
 * Regression: the entry offset was a u32, so an entry size near 4 GiB
 * wrapped it to a small value that passed the bounds check and the next
 * entry was read ~4 GiB past the tag. One entry is read, then the walk ends.
 */
static void mb2_huge_mmap_entry_size_does_not_wrap(void **state)
{
	(void)state;
	u8 p[8 + 24] = { 0 };

	begin();
	memcpy(p, &(u32){ 0xffffffe0 }, 4); /* 16 + size = 0xfffffff0: wraps on + 24 */
	memcpy(p + 8, &(u64){ 0x100000 }, 8);
	memcpy(p + 16, &(u64){ 0x1000 }, 8);
	memcpy(p + 24, &(u32){ 1 }, 4);
	tag(MB2_TAG_MMAP, p, sizeof(p));
	end();
	assert_int_equal(parse_exact(), 0);
	assert_int_equal(bi.nr_mem, 1);
	assert_int_equal(bi.mem[0].addr, 0x100000);
}

/* The same for the EFI memory map tag (17): descriptor size near 4 GiB. */
static void mb2_huge_efi_descriptor_size_does_not_wrap(void **state)
{
	(void)state;
	u8 p[8 + 48] = { 0 };

	begin();
	memcpy(p, &(u32){ 0xffffffd8 }, 4); /* 16 + size = 0xffffffe8: wraps on + 40 */
	memcpy(p + 4, &(u32){ 1 }, 4);
	memcpy(p + 8, &(u32){ 7 }, 4); /* EfiConventionalMemory */
	memcpy(p + 8 + 8, &(u64){ 0x100000 }, 8);
	memcpy(p + 8 + 24, &(u64){ 0x10 }, 8);
	tag(MB2_TAG_EFI_MMAP, p, sizeof(p));
	end();
	assert_int_equal(parse_exact(), 0);
	assert_int_equal(bi.nr_mem, 1);
	assert_int_equal(bi.mem[0].size, 0x10000);
}

/* A file's bytes (malloc'd, exactly its size) and length. */
static u8 *read_fixture(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	u8 *buf;

	if (!f)
		fail_msg("cannot open %s (run from the top directory)", path);
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	rewind(f);
	buf = malloc(*n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, *n, f), *n);
	buf[*n] = 0;
	fclose(f);
	return buf;
}

/* Tag 3's payload: mod_start, mod_end, then the string as given (n bytes). */
static void module_tag(u32 start, u32 end_addr, const char *str, u32 n)
{
	u8 p[8 + 64] = { 0 };

	memcpy(p, &start, 4);
	memcpy(p + 4, &end_addr, 4);
	memcpy(p + 8, str, n);
	tag(MB2_TAG_MODULE, p, 8 + n);
}

static void mb2_named_module_is_a_boot_file(void **state)
{
	(void)state;
	begin();
	module_tag(0x800000, 0x800063, "nbd.psk", 8);
	module_tag(0x900000, 0x901000, "", 1);	/* unnamed: reserved only */
	end();
	assert_int_equal(multiboot2_parse(mbi, 0x10000, &bi), 0);
	assert_int_equal(bi.nr_files, 1);
	assert_string_equal(bi.files[0].name, "nbd.psk");
	assert_int_equal(bi.files[0].addr, 0x800000);
	assert_int_equal(bi.files[0].size, 0x63);
	assert_int_equal(bi.nr_reserved, 3);	/* the MBI and both modules */
	assert_int_equal(bi.reserved[1].addr, 0x800000);
	assert_int_equal(bi.reserved[2].addr, 0x900000);
}

static void mb2_bad_module_names_are_not_boot_files(void **state)
{
	(void)state;
	char longname[40];

	memset(longname, 'a', sizeof(longname));
	begin();
	module_tag(0x800000, 0x801000, "nbd.psk extra", 14);
	module_tag(0x810000, 0x811000, "../nbd.psk", 11);
	module_tag(0x820000, 0x821000, longname, 32);	/* 32 bytes, NUL included */
	module_tag(0x830000, 0x831000, longname, 40);	/* no NUL inside the tag */
	module_tag(0x840000, 0x841000, "a\x1b[2J", 6);
	end();
	assert_int_equal(multiboot2_parse(mbi, 0x10000, &bi), 0);
	assert_int_equal(bi.nr_files, 0);
	assert_int_equal(bi.nr_reserved, 6);	/* still reserved, every one */
	assert_true(host_console_has("module name is not a boot file name"));
	assert_false(host_console_has("extra"));	/* the string is not echoed */
}

static void mb2_module_files_bounded_by_table_and_reservations(void **state)
{
	(void)state;
	char name[8];

	begin();
	for (u32 i = 0; i < BOOT_MAX_FILES + 2; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		module_tag(0x1000000 + i * 0x10000, 0x1000100 + i * 0x10000, name,
			   (u32)strlen(name) + 1);
	}
	module_tag(0x2000000, 0x1000000, "backwards", 10);
	end();
	assert_int_equal(multiboot2_parse(mbi, 0x10000, &bi), 0);
	assert_int_equal(bi.nr_files, BOOT_MAX_FILES);
	assert_string_equal(bi.files[BOOT_MAX_FILES - 1].name, "f7");
	assert_true(host_console_has("module f8 ignored: more named modules than fit"));
	assert_true(host_console_has("module backwards ignored: it ends before it starts"));
}

/*
 * GRUB's own MBI, captured under QEMU (test/fixtures/mbi): parsed from an
 * exact-size copy, it gives the firmware map the kernel printed on that
 * boot, line for line.
 */
static void check_grub_fixture(const char *name, enum boot_path path, u32 nr_mem)
{
	char file[128];
	size_t n, tn;

	snprintf(file, sizeof(file), "test/fixtures/mbi/%s.mbi", name);
	u8 *m = read_fixture(file, &n);
	snprintf(file, sizeof(file), "test/fixtures/mbi/%s.txt", name);
	char *txt = (char *)read_fixture(file, &tn);

	memset(&bi, 0, sizeof(bi));
	memset(&e820_table, 0, sizeof(e820_table));
	host_console_reset();
	assert_int_equal(get_le32(m), n);
	assert_int_equal(multiboot2_parse(m, 0x100000, &bi), 0);
	assert_int_equal(bi.path, path);
	assert_string_equal(bi.cmdline, "memmap=256M!768M");
	assert_string_equal(bi.loader, "GRUB 2.06-13+deb12u2");
	assert_int_equal(bi.load_base, 0x200000);
	assert_int_equal(bi.nr_mem, nr_mem);
	assert_memory_equal(bi.rsdp, "RSD PTR ", 8);
	e820_init(&bi);
	int lines = 0;
	for (char *l = strstr(txt, "BIOS-e820:"); l; l = strstr(l + 1, "BIOS-e820:")) {
		char want[96];
		snprintf(want, sizeof(want), "%.*s", (int)strcspn(l, "\n"), l);
		if (!host_console_has(want))
			fail_msg("%s: no \"%s\" in:\n%s", name, want, host_console_text());
		lines++;
	}
	assert_int_equal(lines, e820_table.nr);
	free(m);
	free(txt);
}

static void mb2_grub_seabios_fixture(void **state)
{
	(void)state;
	check_grub_fixture("grub-2.06-seabios", BOOT_MULTIBOOT2_BIOS, 7);
	assert_int_equal(bi.rsdp_len, 20);
}

/* OVMF: the EFI memory map (tag 17, 123 descriptors of 48 bytes) wins over tag 6. */
static void mb2_grub_ovmf_fixture(void **state)
{
	(void)state;
	check_grub_fixture("grub-2.06-ovmf", BOOT_MULTIBOOT2_EFI, 123);
	assert_string_equal(bi.mem_source, "EFI memory map");
	assert_int_equal(bi.rsdp_len, 36);
	assert_int_not_equal(bi.efi_system_table, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mb2_bios_boot_fills_everything),
		cmocka_unit_test(mb2_efi_map_wins_and_converts_types),
		cmocka_unit_test(mb2_new_rsdp_preferred_over_old),
		cmocka_unit_test(mb2_bad_total_size_rejected),
		cmocka_unit_test(mb2_tag_past_end_stops_walk_keeps_earlier_tags),
		cmocka_unit_test(mb2_zero_size_tag_stops_walk),
		cmocka_unit_test(mb2_unterminated_cmdline_is_bounded),
		cmocka_unit_test(mb2_bad_mmap_entry_size_ignored),
		cmocka_unit_test(mb2_no_end_tag_reported),
		cmocka_unit_test(mb2_huge_mmap_entry_size_does_not_wrap),
		cmocka_unit_test(mb2_huge_efi_descriptor_size_does_not_wrap),
		cmocka_unit_test(mb2_named_module_is_a_boot_file),
		cmocka_unit_test(mb2_bad_module_names_are_not_boot_files),
		cmocka_unit_test(mb2_module_files_bounded_by_table_and_reservations),
		cmocka_unit_test(mb2_grub_seabios_fixture),
		cmocka_unit_test(mb2_grub_ovmf_fixture),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
