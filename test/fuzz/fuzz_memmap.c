/*
 * libFuzzer harness: a small e820 table from the first bytes, sanitized and
 * checked against the input, then memmap= from the rest, checked again.
 *
 * Input: byte 0 = flags (bits 0-3: entry count, bit 7: pad the table with
 * 240 more entries to reach the full-table paths); then per entry 10 bytes:
 * le32 addr, le32 size, u8 type (mod 21, so 0..20: 7, 12 and GRUB's 20), u8
 * scale (addr and size are multiplied by 1, 4 KiB, 1 MiB or 1 GiB); the
 * rest is the memmap= value (up to the first NUL), applied with a keep list
 * like a boot's (no `!` range may land on it), then spared of a few firmware
 * tables as kmain does once they are known: no `!` range may then hold them,
 * nor e820 ACPI data or NVS.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e820.h"
#include "host.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

#define CHECK(cond, what)                                               \
	do {                                                            \
		if (!(cond)) {                                          \
			fprintf(stderr, "invariant broken: %s\n", what); \
			dump(&t);                                       \
			abort();                                        \
		}                                                       \
	} while (0)

static struct e820_table in, t, again, before;

/* A boot's hand-off, as GRUB gives it: `!` may never make these pmem. */
static const struct e820_keep keep = {
	.nr = 3,
	.r = {
		{ 0, 1 * MiB, "the first MiB (BIOS data)" },
		{ 2 * MiB, 1 * MiB, "the kernel image" },
		{ 64 * MiB, 4 * KiB, "multiboot2 info" },
	},
};
static u32 nr_fuzzed;	/* entries of `in` from the input, before the padding */

/* ACPI tables, where fuzzed maps put `!` ranges: 4 KiB, 1 MiB and 1 GiB scales. */
static const struct boot_reserved tables[] = {
	{ 0x3ffe0040, 0x1d5e, "ACPI DSDT" }, { 0x3ffe0000, 0x40, "ACPI FACS" },
	{ 0x20000ffc, 0x8, "ACPI FACP" },    { 0x1fffff000ULL, 0x2000, "ACPI SSDT" },
	{ 0x123456, 0x100, "ACPI NFIT" },
};

static void dump(const struct e820_table *tab)
{
	for (u32 i = 0; i < tab->nr; i++)
		fprintf(stderr, "  [%u] %#llx +%#llx type %u\n", (unsigned int)i,
			tab->entries[i].addr, tab->entries[i].size,
			(unsigned int)tab->entries[i].type);
}

static u32 le32(const u8 *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24;
}

static size_t build_input(const u8 *data, size_t size)
{
	static const unsigned int scale[] = { 0, 12, 20, 30 };
	size_t pos = 1;
	u32 n = data[0] & 0xf;

	in.nr = 0;
	for (u32 i = 0; i < n && pos + 10 <= size; i++, pos += 10) {
		unsigned int sh = scale[data[pos + 9] % 4];

		e820_add(&in, (u64)le32(data + pos) << sh, (u64)le32(data + pos + 4) << sh,
			 data[pos + 8] % 21);
	}
	nr_fuzzed = in.nr;
	if (data[0] & 0x80)
		for (u32 i = 0; i < 240; i++)
			e820_add(&in, (1ULL << 44) + i * 0x2000ULL, 0x1000, 2);
	return pos;
}

/* Sorted, non-overlapping, no empty or typeless entry, mergeable ones merged. */
static void check_sane(void)
{
	CHECK(t.nr <= E820_MAX_ENTRIES, "entry count");
	for (u32 i = 0; i < t.nr; i++) {
		const struct e820_entry *e = &t.entries[i];

		CHECK(e->size && e->type, "zero size or type");
		CHECK(e->addr + e->size > e->addr, "wraps");
		if (i + 1 == t.nr)
			break;
		const struct e820_entry *f = e + 1;

		CHECK(e->addr + e->size <= f->addr, "unsorted or overlapping");
		CHECK(e->addr + e->size < f->addr || e->type != f->type ||
		      e820_is_pmem(e->type), "adjacent mergeable entries");
	}
	/* Sanitizing a sanitized table changes nothing. */
	memcpy(&again, &t, sizeof(t));
	e820_sanitize(&again);
	CHECK(again.nr == t.nr &&
	      !memcmp(again.entries, t.entries, t.nr * sizeof(t.entries[0])),
	      "sanitize not idempotent");
}

static u32 type_at(const struct e820_table *tab, u64 a, bool max_of_all)
{
	u32 type = 0;

	for (u32 i = 0; i < tab->nr; i++) {
		const struct e820_entry *e = &tab->entries[i];

		if (e->addr <= a && a - e->addr < e->size && e->type > type) {
			type = e->type;
			if (!max_of_all)
				break;
		}
	}
	return type;
}

static bool starts_at(u64 a)
{
	for (u32 i = 0; i < t.nr; i++)
		if (t.entries[i].addr == a)
			return true;
	return false;
}

static bool ends_at(u64 a)
{
	for (u32 i = 0; i < t.nr; i++)
		if (t.entries[i].addr + t.entries[i].size == a)
			return true;
	return false;
}

/*
 * At every boundary of a fuzzed entry the output type is the largest input
 * type there (the padding is regular; probing it too would cost O(n^2)).
 */
static void check_against_input(void)
{
	if (t.nr == E820_MAX_ENTRIES)
		return;	/* may have been cut short (reported) */
	for (u32 i = 0; i < nr_fuzzed; i++) {
		const struct e820_entry *e = &in.entries[i];
		u64 probe[] = { e->addr, e->addr + e->size - 1, e->addr + e->size };

		for (size_t k = 0; k < ARRAY_SIZE(probe); k++)
			CHECK(type_at(&t, probe[k], false) == type_at(&in, probe[k], true),
			      "type at a boundary differs from the input's largest");
		if (!e820_is_pmem(e->type))
			continue;
		/* A pmem range that wins at its edge keeps that edge (no merge). */
		if (type_at(&in, e->addr, true) == e->type)
			CHECK(starts_at(e->addr), "pmem start lost");
		if (type_at(&in, e->addr + e->size - 1, true) == e->type)
			CHECK(ends_at(e->addr + e->size), "pmem end lost");
	}
}

/* No `!` range landed on kept memory that was not pmem before. */
static void check_keep(void)
{
	for (u32 i = 0; i < t.nr; i++) {
		const struct e820_entry *e = &t.entries[i];

		if (e->type != E820_TYPE_PRAM)
			continue;
		for (u32 k = 0; k < keep.nr; k++) {
			const struct boot_reserved *r = &keep.r[k];
			u64 a = MAX(e->addr, r->addr), b = MIN(e->addr + e->size, r->addr + r->size);

			if (a < b)
				CHECK(type_at(&before, a, false) == E820_TYPE_PRAM,
				      "memmap=!: pmem over kept boot memory");
		}
	}
}

static bool overlap(u64 a, u64 b, u64 c, u64 d)
{
	return a < d && c < b;
}

/* A type-12 entry no byte of which was pmem before: made by a `!` spec. */
static bool made_by_memmap(const struct e820_entry *e)
{
	for (u32 i = 0; i < before.nr; i++) {
		const struct e820_entry *f = &before.entries[i];

		if (f->type == E820_TYPE_PRAM &&
		    overlap(e->addr, e->addr + e->size, f->addr, f->addr + f->size))
			return false;
	}
	return e->type == E820_TYPE_PRAM;
}

/* No `!` range holds ACPI data or NVS of the map it was applied to, nor (after) a table. */
static void check_spared(bool after_tables)
{
	for (u32 i = 0; i < t.nr; i++) {
		const struct e820_entry *e = &t.entries[i];
		u64 a = e->addr, b = e->addr + e->size;

		if (!made_by_memmap(e))
			continue;
		for (u32 k = 0; k < before.nr; k++) {
			const struct e820_entry *f = &before.entries[k];

			if (f->type == E820_TYPE_ACPI || f->type == E820_TYPE_NVS)
				CHECK(!overlap(a, b, f->addr, f->addr + f->size),
				      "memmap=!: pmem over ACPI data or NVS");
		}
		for (size_t k = 0; after_tables && k < ARRAY_SIZE(tables); k++)
			CHECK(!overlap(a, b, tables[k].addr, tables[k].addr + tables[k].size),
			      "memmap=!: pmem over an ACPI table");
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static char arg[4096];

	if (!size)
		return 0;
	size_t pos = build_input(data, size);
	size_t len = MIN(size - pos, sizeof(arg) - 1);

	host_console_reset();
	memcpy(&t, &in, sizeof(t));
	e820_sanitize(&t);
	check_sane();
	check_against_input();

	memcpy(arg, data + pos, len);
	arg[len] = '\0';
	memcpy(&before, &t, sizeof(t));
	int ret = e820_parse_memmap(&t, arg, &keep);

	CHECK(ret == 0 || ret == -EINVAL, "return value");
	check_sane();
	check_keep();
	check_spared(false);
	e820_memmap_spare_firmware(&t, tables, ARRAY_SIZE(tables));
	check_sane();
	check_keep();
	check_spared(true);
	return 0;
}
