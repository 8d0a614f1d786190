/*
 * Host tests: the RSDP search and the RSDT/XSDT walk (drivers/acpi_nfit),
 * run for real over tables placed in the simulated physical memory. The
 * direct map is a fake that records what was mapped and refuses what lies
 * outside simulated memory, as the kernel's refuses what lies past 64 TiB.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "acpi.h"
#include "boot_info.h"
#include "direct_map.h"
#include "host.h"
#include "params.h"

/* The fake direct map: a log of calls, and a hole beyond simulated memory. */
static struct {
	u64 pa, len;
} map_log[256];
static u32 map_calls;

int direct_map_add(u64 pa, u64 len)
{
	if (map_calls < ARRAY_SIZE(map_log))
		map_log[map_calls] = (typeof(map_log[0])){ pa, len };
	map_calls++;
	if (pa + len < pa || pa + len > HOST_PHYS_SIZE)
		return -EINVAL;
	return 0;
}

static struct boot_info bi;

/* Clear every area the tests use, the log and the console. */
static int reset(void **state)
{
	(void)state;
	memset(phys_to_virt(0), 0, 1 * MiB);
	memset(phys_to_virt(0x3f000000), 0, 16 * MiB);
	memset(&bi, 0, sizeof(bi));
	memset(&fw_tables, 0, sizeof(fw_tables));
	map_calls = 0;
	host_console_reset();
	assert_int_equal(params_parse("acpi_rsdp=auto"), 0);
	return 0;
}

static void fix_checksum(u8 *p, size_t len, size_t at)
{
	p[at] = 0;
	p[at] = (u8)(0x100 - sdt_checksum(p, len));
}

/* A table of `len` bytes at pa: header, then `body` (may be NULL: zeros). */
static u64 put_table(u64 pa, const char *sig, u32 len, const void *body, size_t body_len)
{
	struct sdt_header h = { .length = len, .revision = 1, .oem_revision = 1,
				       .creator_revision = 1 };
	u8 *p = phys_to_virt(pa);

	memcpy(h.signature, sig, 4);
	memcpy(h.oem_id, "PMEMK ", 6);
	memcpy(h.oem_table_id, "TESTTABL", 8);
	memcpy(h.creator_id, "TEST", 4);
	memset(p, 0, len);
	memcpy(p, &h, sizeof(h));
	if (body)
		memcpy(p + SDT_HEADER_LEN, body, body_len);
	fix_checksum(p, len, offsetof(struct sdt_header, checksum));
	return pa;
}

static u64 put_plain(u64 pa, const char *sig)
{
	return put_table(pa, sig, 64, NULL, 0);
}

/* RSDT (u32 entries) or XSDT (u64 entries, written unaligned). */
static u64 put_root(u64 pa, const char *sig, const u64 *entries, u32 n)
{
	u32 esize = sig[0] == 'X' ? 8 : 4;
	static u8 body[FW_ROOT_ENTRIES_MAX * 8 * 8];

	for (u32 i = 0; i < n; i++)
		memcpy(body + i * esize, &entries[i], esize);
	return put_table(pa, sig, SDT_HEADER_LEN + n * esize, body, n * esize);
}

static void make_rsdp(struct rsdp *r, u8 rev, u32 rsdt, u64 xsdt)
{
	memset(r, 0, sizeof(*r));
	memcpy(r->signature, "RSD PTR ", 8);
	memcpy(r->oem_id, "PMEMK ", 6);
	r->revision = rev;
	r->rsdt_address = rsdt;
	r->length = RSDP_V2_LEN;
	r->xsdt_address = xsdt;
	fix_checksum((u8 *)r, RSDP_V1_LEN, offsetof(struct rsdp, checksum));
	fix_checksum((u8 *)r, RSDP_V2_LEN, offsetof(struct rsdp, extended_checksum));
}

static void put_rsdp(u64 pa, u8 rev, u32 rsdt, u64 xsdt)
{
	make_rsdp(phys_to_virt(pa), rev, rsdt, xsdt);
}

#define RSDT_PA 0x3ffe0000ULL
#define XSDT_PA 0x3ffe1003ULL	/* odd: every field of it is unaligned */
#define T(i) (0x3ffe2000ULL + (i) * 0x100)

static bool listed(const char *sig, u64 pa)
{
	for (u32 i = 0; i < fw_tables.nr; i++)
		if (!memcmp(fw_tables.table[i].signature, sig, 4) && fw_tables.table[i].pa == pa)
			return true;
	return false;
}

/* SeaBIOS: a revision 0 RSDP in the BIOS area, RSDT only. */
static void fw_tables_bios_scan_finds_v0_rsdp_and_rsdt(void **state)
{
	u64 e[] = { put_plain(T(0), "FACP"), put_plain(T(1), "NFIT"), put_plain(T(2), "SSDT") };

	(void)state;
	put_root(RSDT_PA, "RSDT", e, 3);
	put_rsdp(0xf5a10, 0, RSDT_PA, 0);
	fw_tables_init(&bi);
	assert_string_equal(fw_tables.rsdp_source, "BIOS");
	assert_int_equal(fw_tables.rsdp_pa, 0xf5a10);
	assert_int_equal(fw_tables.rsdp_revision, 0);
	assert_string_equal(fw_tables.root_signature, "RSDT");
	assert_int_equal(fw_tables.nr, 3);
	assert_true(listed("FACP", T(0)) && listed("NFIT", T(1)) && listed("SSDT", T(2)));
	assert_true(host_console_has("ACPI: RSDP 0x00000000000F5A10 000014 (v00 PMEMK ) from BIOS"));
	assert_true(host_console_has("ACPI: NFIT 0x000000003FFE2100 000040 (v01 PMEMK  TESTTABL 00000001 TEST 00000001)"));
	assert_non_null(fw_table_find(&fw_tables, "NFIT", 0));
	assert_null(fw_table_find(&fw_tables, "NFIT", 1));
}

/* The EBDA's first KiB is searched before 0xE0000-0xFFFFF. */
static void fw_tables_bios_scan_prefers_ebda(void **state)
{
	u64 a = put_plain(T(0), "AAAA"), b = put_plain(T(1), "BBBB");
	u16 seg = 0x9fc0;

	(void)state;
	put_root(RSDT_PA, "RSDT", &a, 1);
	put_root(RSDT_PA + 0x100, "RSDT", &b, 1);
	memcpy(phys_to_virt(0x40e), &seg, 2);
	put_rsdp(0x9fc00 + 0x30, 0, RSDT_PA, 0);
	put_rsdp(0xe0000, 0, RSDT_PA + 0x100, 0);
	fw_tables_init(&bi);
	assert_int_equal(fw_tables.rsdp_pa, 0x9fc30);
	assert_true(listed("AAAA", a));
	/* An EBDA segment pointing nowhere sensible is not searched. */
	seg = 0x0010;
	memcpy(phys_to_virt(0x40e), &seg, 2);
	fw_tables_init(&bi);
	assert_int_equal(fw_tables.rsdp_pa, 0xe0000);
	assert_true(listed("BBBB", b));
}

/* Only 16-byte boundaries count; a bad v1 checksum is passed over. */
static void fw_tables_bios_scan_skips_bad_checksum_and_misaligned(void **state)
{
	u64 a = put_plain(T(0), "GOOD");

	(void)state;
	put_root(RSDT_PA, "RSDT", &a, 1);
	put_rsdp(0xe0008, 0, RSDT_PA, 0);	/* not on a 16-byte boundary */
	put_rsdp(0xe1000, 0, RSDT_PA, 0);
	((u8 *)phys_to_virt(0xe1000))[8] ^= 1;	/* break the v1 checksum */
	put_rsdp(0xf0000, 0, RSDT_PA, 0);
	fw_tables_init(&bi);
	assert_int_equal(fw_tables.rsdp_pa, 0xf0000);
	assert_true(host_console_has("ACPI: RSDP with a bad checksum ignored"));
	assert_true(listed("GOOD", a));
}

/* OVMF: revision 2, XSDT preferred over the RSDT; XSDT entries read unaligned. */
static void fw_tables_v2_rsdp_prefers_xsdt(void **state)
{
	u64 r = put_plain(T(0), "RRRR");
	u64 x[] = { put_plain(T(1), "TBL1"), put_plain(T(2), "TBL2") };

	(void)state;
	put_root(RSDT_PA, "RSDT", &r, 1);
	put_root(XSDT_PA, "XSDT", x, 2);
	put_rsdp(0xe0000, 2, RSDT_PA, XSDT_PA);
	fw_tables_init(&bi);
	assert_int_equal(fw_tables.rsdp_revision, 2);
	assert_string_equal(fw_tables.root_signature, "XSDT");
	assert_int_equal(fw_tables.root_pa, XSDT_PA);
	assert_int_equal(fw_tables.nr, 2);
	assert_true(listed("TBL1", x[0]) && listed("TBL2", x[1]));
	assert_false(listed("RRRR", r));
}

/* A v2 RSDP whose extended checksum is bad is used as ACPI 1.0: RSDT. */
static void fw_tables_v2_bad_extended_checksum_uses_rsdt(void **state)
{
	u64 r = put_plain(T(0), "RRRR"), x = put_plain(T(1), "TBLX");

	(void)state;
	put_root(RSDT_PA, "RSDT", &r, 1);
	put_root(XSDT_PA, "XSDT", &x, 1);
	put_rsdp(0xe0000, 2, RSDT_PA, XSDT_PA);
	((u8 *)phys_to_virt(0xe0000))[33] ^= 0x40;	/* reserved byte: only the v2 sum breaks */
	fw_tables_init(&bi);
	assert_true(host_console_has("extended checksum bad, using it as ACPI 1.0"));
	assert_int_equal(fw_tables.rsdp_revision, 0);
	assert_string_equal(fw_tables.root_signature, "RSDT");
	assert_true(listed("RRRR", r));
}

/* A bad XSDT falls back to the RSDT, with a line saying so. */
static void fw_tables_bad_xsdt_falls_back_to_rsdt(void **state)
{
	u64 r = put_plain(T(0), "RRRR"), x = put_plain(T(1), "TBLX");

	(void)state;
	put_root(RSDT_PA, "RSDT", &r, 1);
	put_root(XSDT_PA, "XSDT", &x, 1);
	((u8 *)phys_to_virt(XSDT_PA))[40] ^= 1;
	put_rsdp(0xe0000, 2, RSDT_PA, XSDT_PA);
	fw_tables_init(&bi);
	assert_true(host_console_has("ACPI: XSDT XSDT at 0x3ffe1003: bad checksum"));
	assert_true(host_console_has("ACPI: XSDT unusable, falling back to the RSDT"));
	assert_string_equal(fw_tables.root_signature, "RSDT");
	assert_true(listed("RRRR", r));
	/* A root table with the wrong signature is as bad. */
	put_table(XSDT_PA, "FACP", SDT_HEADER_LEN + 8, &x, 8);
	host_console_reset();
	fw_tables_init(&bi);
	assert_true(host_console_has("ACPI: XSDT at 0x3ffe1003 has signature FACP, skipped"));
	assert_string_equal(fw_tables.root_signature, "RSDT");
}

/* Neither root table usable: no tables, one line. */
static void fw_tables_no_root_table(void **state)
{
	(void)state;
	put_rsdp(0xe0000, 0, 0x3ffe0000, 0);	/* RSDT address holds zeros */
	fw_tables_init(&bi);
	assert_int_equal(fw_tables.nr, 0);
	assert_true(host_console_has("length 0 out of range"));
	assert_true(host_console_has("ACPI: no usable RSDT or XSDT"));
}

/* No RSDP anywhere: nothing listed, one line, no crash. */
static void fw_tables_no_rsdp(void **state)
{
	(void)state;
	fw_tables_init(&bi);
	assert_null(fw_tables.rsdp_source);
	assert_int_equal(fw_tables.nr, 0);
	assert_true(host_console_has("ACPI: no RSDP found"));
}

/* Each bad table prints one line and is skipped; the good ones stay. */
static void fw_tables_bad_tables_skipped_good_kept(void **state)
{
	u64 e[] = {
		put_plain(T(0), "GOD1"),
		put_plain(T(1), "BADC"),		/* checksum broken below */
		put_table(T(2), "SHRT", 20, NULL, 0),	/* shorter than a header */
		put_plain(T(3), "HUGE"),		/* length made huge below */
		0,					/* null entry */
		0x100000000000ULL,			/* beyond simulated memory */
		1ULL << 50,				/* beyond the physical address width */
		0xfffffffffffffff0ULL,			/* wraps */
		put_plain(T(4), "GOD2"),
	};
	u32 huge = 0x7fffffff;

	(void)state;
	((u8 *)phys_to_virt(T(1)))[50] ^= 0xff;
	memcpy((u8 *)phys_to_virt(T(3)) + 4, &huge, 4);
	put_root(XSDT_PA, "XSDT", e, ARRAY_SIZE(e));
	put_rsdp(0xe0000, 2, 0, XSDT_PA);
	fw_tables_init(&bi);
	assert_int_equal(fw_tables.nr, 2);
	assert_true(listed("GOD1", e[0]) && listed("GOD2", e[8]));
	assert_true(host_console_has("ACPI: XSDT entry 1 BADC at 0x3ffe2100: bad checksum (sum 0xff), skipped"));
	assert_true(host_console_has("ACPI: XSDT entry 2 SHRT at 0x3ffe2200: length 20 out of range, skipped"));
	assert_true(host_console_has("ACPI: XSDT entry 3 HUGE at 0x3ffe2300: length 2147483647 out of range, skipped"));
	assert_true(host_console_has("ACPI: XSDT entry 4 has a null address, skipped"));
	assert_true(host_console_has("ACPI: XSDT entry 5 at 0x100000000000 cannot be mapped, skipped"));
	assert_true(host_console_has("ACPI: XSDT entry 6 at 0x4000000000000 cannot be mapped, skipped"));
	assert_true(host_console_has("ACPI: XSDT entry 7 at 0xfffffffffffffff0 cannot be mapped, skipped"));
}

/* Header first, then the whole length, before any byte past the header is read. */
static void fw_tables_maps_header_then_whole_table(void **state)
{
	u64 nfit = put_table(T(0), "NFIT", 224, NULL, 0);
	bool header = false, whole = false;

	(void)state;
	put_root(RSDT_PA, "RSDT", &nfit, 1);
	put_rsdp(0xe0000, 0, RSDT_PA, 0);
	fw_tables_init(&bi);
	for (u32 i = 0; i < map_calls && i < ARRAY_SIZE(map_log); i++) {
		if (map_log[i].pa == nfit && map_log[i].len == SDT_HEADER_LEN)
			header = true;
		if (map_log[i].pa == nfit && map_log[i].len == 224) {
			assert_true(header);	/* whole length only after the header */
			whole = true;
		}
	}
	assert_true(header && whole);
}

/* A root table's tail shorter than an entry is ignored with a line. */
static void fw_tables_root_length_not_whole_entries(void **state)
{
	u64 e[] = { put_plain(T(0), "AAAA"), put_plain(T(1), "BBBB") };
	u8 body[16];

	(void)state;
	memcpy(body, &e[0], 8);
	memcpy(body + 8, &e[1], 8);
	put_table(XSDT_PA, "XSDT", SDT_HEADER_LEN + 12, body, 12);
	put_rsdp(0xe0000, 2, 0, XSDT_PA);
	fw_tables_init(&bi);
	assert_int_equal(fw_tables.nr, 1);
	assert_true(host_console_has("XSDT length 48 is not a whole number of entries"));
}

/* More tables than the list holds: the first FW_TABLES_MAX, and a line. */
static void fw_tables_too_many_tables(void **state)
{
	u64 e[FW_TABLES_MAX + 6];

	(void)state;
	for (u32 i = 0; i < ARRAY_SIZE(e); i++)
		e[i] = put_plain(T(i), "MANY");
	put_root(RSDT_PA, "RSDT", e, ARRAY_SIZE(e));
	put_rsdp(0xe0000, 0, RSDT_PA, 0);
	fw_tables_init(&bi);
	assert_int_equal(fw_tables.nr, FW_TABLES_MAX);
	assert_true(host_console_has("ACPI: more than 64 tables, the last 6 ignored"));
	assert_non_null(fw_table_find(&fw_tables, "MANY", FW_TABLES_MAX - 1));
}

/* The loader's copy comes first, v2 with its XSDT; its address is unknown. */
static void fw_tables_boot_info_copy_preferred(void **state)
{
	u64 x = put_plain(T(0), "TBLX"), b = put_plain(T(1), "BIOS");
	struct rsdp r;

	(void)state;
	put_root(XSDT_PA, "XSDT", &x, 1);
	put_root(RSDT_PA, "RSDT", &b, 1);
	put_rsdp(0xe0000, 0, RSDT_PA, 0);
	make_rsdp(&r, 2, 0, XSDT_PA);
	memcpy(bi.rsdp, &r, RSDP_V2_LEN);
	bi.rsdp_len = RSDP_V2_LEN;
	fw_tables_init(&bi);
	assert_string_equal(fw_tables.rsdp_source, "multiboot2");
	assert_int_equal(fw_tables.rsdp_pa, 0);
	assert_true(listed("TBLX", x));
	assert_true(host_console_has("ACPI: RSDP (multiboot2 copy) 000024 (v02 PMEMK )"));
	/* A v1 copy (20 bytes) of a v2 RSDP is used as what it is. */
	bi.rsdp_len = RSDP_V1_LEN;
	r.rsdt_address = (u32)RSDT_PA;
	fix_checksum((u8 *)&r, RSDP_V1_LEN, offsetof(struct rsdp, checksum));
	memcpy(bi.rsdp, &r, RSDP_V1_LEN);
	host_console_reset();
	fw_tables_init(&bi);
	assert_true(host_console_has("ACPI: RSDP v2 but only 20 bytes of it, using it as ACPI 1.0"));
	assert_true(listed("BIOS", b));
	/* A copy with a bad checksum is passed over for the next source. */
	bi.rsdp[8] ^= 1;
	fw_tables_init(&bi);
	assert_string_equal(fw_tables.rsdp_source, "BIOS");
}

/* A FADT of `len` bytes (§5.2.9) naming a FACS and a DSDT, 32- and 64-bit fields. */
static u64 put_fadt(u64 pa, u32 len, u32 facs, u32 dsdt, u64 x_facs, u64 x_dsdt)
{
	static u8 body[276 - SDT_HEADER_LEN];

	memset(body, 0, sizeof(body));
	memcpy(body + 36 - SDT_HEADER_LEN, &facs, 4);
	memcpy(body + 40 - SDT_HEADER_LEN, &dsdt, 4);
	memcpy(body + 132 - SDT_HEADER_LEN, &x_facs, 8);
	memcpy(body + 140 - SDT_HEADER_LEN, &x_dsdt, 8);
	return put_table(pa, "FACP", len, body, len - SDT_HEADER_LEN);
}

/* §5.2.10: a FACS has no checksummed header, only its signature and length. */
static void put_facs(u64 pa, u32 len)
{
	u8 *p = phys_to_virt(pa);

	memcpy(p, "FACS", 4);
	memcpy(p + 4, &len, 4);
}

static void expect_range(const struct boot_reserved *r, u64 addr, u64 size, const char *what)
{
	if (r->addr != addr || r->size != size || strcmp(r->what, what))
		fprintf(stderr, "range %#llx+%#llx %s, want %#llx+%#llx %s\n", r->addr, r->size,
			r->what, addr, size, what);
	assert_int_equal(r->addr, addr);
	assert_int_equal(r->size, size);
	assert_string_equal(r->what, what);
}

/*
 * SeaBIOS under QEMU (issue 29 item 5): the ranges memmap= must spare are
 * the RSDP, the RSDT, each table it lists, and the DSDT and FACS that only
 * the FADT (116 bytes, 32-bit fields) names; at most `max` of them.
 */
static void fw_tables_ranges_seabios(void **state)
{
	struct boot_reserved r[FW_RANGES_MAX];
	u64 e[2];

	(void)state;
	put_facs(0x3ffdf000, 64);
	put_table(0x3ffdf040, "DSDT", 0x1d5e, NULL, 0);
	e[0] = put_fadt(T(0), 116, 0x3ffdf000, 0x3ffdf040, 0, 0);
	e[1] = put_plain(T(1), "NFIT");
	put_root(RSDT_PA, "RSDT", e, 2);
	put_rsdp(0xf5a10, 0, RSDT_PA, 0);
	fw_tables_init(&bi);
	assert_int_equal(fw_tables_ranges(&fw_tables, r, FW_RANGES_MAX), 6);
	expect_range(&r[0], 0xf5a10, RSDP_V1_LEN, "ACPI RSDP");
	expect_range(&r[1], RSDT_PA, SDT_HEADER_LEN + 8, "ACPI RSDT");
	expect_range(&r[2], T(0), 116, "ACPI FACP");
	expect_range(&r[3], T(1), 64, "ACPI NFIT");
	expect_range(&r[4], 0x3ffdf040, 0x1d5e, "ACPI DSDT");
	expect_range(&r[5], 0x3ffdf000, 64, "ACPI FACS");
	assert_int_equal(fw_tables_ranges(&fw_tables, r, 2), 2);
	expect_range(&r[1], RSDT_PA, SDT_HEADER_LEN + 8, "ACPI RSDT");
}

/*
 * An ACPI 6 FADT: X_DSDT and X_FIRMWARE_CTRL too, each kept when it differs
 * from the 32-bit field; a length no table has counts as the header's (DSDT)
 * or 64 bytes (FACS); fields past the end of a short FADT are not read. A
 * loader's copy of the RSDP has no address to spare.
 */
static void fw_tables_ranges_fadt_64bit_fields(void **state)
{
	struct boot_reserved r[FW_RANGES_MAX];
	struct rsdp rsdp;
	u64 e[2];

	(void)state;
	put_facs(0x3ffd0000, 0x40);
	put_table(0x3ffd1000, "DSDT", 0x200, NULL, 0);
	put_table(0x3ffd2000, "DSDT", 0x300, NULL, 0);
	((struct sdt_header *)phys_to_virt(0x3ffd2000))->length = 0x7fffffff;
	put_facs(0x3ffd3000, 16);
	e[0] = put_fadt(T(0), 276, 0x3ffd0000, 0x3ffd1000, 0x3ffd0000, 0x3ffd2000);
	e[1] = put_fadt(T(4), 144, 0x3ffd3000, 0, 0x3ffd4000, 0x3ffd5000);
	put_root(XSDT_PA, "XSDT", e, 2);
	make_rsdp(&rsdp, 2, 0, XSDT_PA);
	memcpy(bi.rsdp, &rsdp, RSDP_V2_LEN);
	bi.rsdp_len = RSDP_V2_LEN;
	fw_tables_init(&bi);
	assert_int_equal(fw_tables.nr, 2);
	assert_int_equal(fw_tables_ranges(&fw_tables, r, FW_RANGES_MAX), 8);
	expect_range(&r[0], XSDT_PA, SDT_HEADER_LEN + 16, "ACPI XSDT");
	expect_range(&r[1], T(0), 276, "ACPI FACP");
	expect_range(&r[2], T(4), 144, "ACPI FACP");
	expect_range(&r[3], 0x3ffd1000, 0x200, "ACPI DSDT");
	expect_range(&r[4], 0x3ffd0000, 0x40, "ACPI FACS");
	expect_range(&r[5], 0x3ffd2000, SDT_HEADER_LEN, "ACPI DSDT");
	expect_range(&r[6], 0x3ffd3000, 64, "ACPI FACS");
	expect_range(&r[7], 0x3ffd4000, 64, "ACPI FACS");
}

/* UEFI 2.10 §4.3: an EFI system table with `n` configuration entries. */
#define EFI_ST_PA 0x3f000000ULL
#define EFI_CFG_PA 0x3f001000ULL

static void put_efi(u64 n, const u8 (*guid)[16], const u64 *ptr)
{
	u8 *st = phys_to_virt(EFI_ST_PA), *cfg = phys_to_virt(EFI_CFG_PA);
	u64 sig = 0x5453595320494249ULL, cfg_pa = EFI_CFG_PA;
	u32 hsize = 120;

	memset(st, 0, 120);
	memcpy(st, &sig, 8);
	memcpy(st + 12, &hsize, 4);
	memcpy(st + 104, &n, 8);
	memcpy(st + 112, &cfg_pa, 8);
	for (u64 i = 0; i < n && guid; i++) {
		memcpy(cfg + i * 24, guid[i], 16);
		memcpy(cfg + i * 24 + 16, &ptr[i], 8);
	}
}

static const u8 guids[3][16] = {
	{ 0x31, 0x2d, 0x9d, 0xeb, 0x88, 0x2d, 0xd3, 0x11, 0x9a, 0x16, 0x00, 0x90, 0x27, 0x3f,
	  0xc1, 0x4d },	/* SMBIOS: not ours */
	{ 0x30, 0x2d, 0x9d, 0xeb, 0x88, 0x2d, 0xd3, 0x11, 0x9a, 0x16, 0x00, 0x90, 0x27, 0x3f,
	  0xc1, 0x4d },	/* ACPI 1.0 */
	{ 0x71, 0xe8, 0x68, 0x88, 0xf1, 0xe4, 0xd3, 0x11, 0xbc, 0x22, 0x00, 0x80, 0xc7, 0x3c,
	  0x88, 0x81 },	/* ACPI 2.0 */
};

/* The ACPI 2.0 entry wins over the 1.0 one, whatever the order. */
static void fw_tables_efi_config_table_acpi20_preferred(void **state)
{
	u64 x = put_plain(T(0), "TBLX"), r = put_plain(T(1), "RRRR");
	u64 ptr[] = { 0x3f002000, 0x3f002100, 0x3f002200 };
	struct rsdp rsdp;
	u64 pa;

	(void)state;
	put_root(XSDT_PA, "XSDT", &x, 1);
	put_root(RSDT_PA, "RSDT", &r, 1);
	put_rsdp(ptr[1], 0, RSDT_PA, 0);
	put_rsdp(ptr[2], 2, RSDT_PA, XSDT_PA);
	put_efi(3, guids, ptr);
	assert_int_equal(rsdp_from_efi(EFI_ST_PA, &rsdp, &pa), 0);
	assert_int_equal(pa, ptr[2]);
	assert_int_equal(rsdp.revision, 2);
	bi.efi_system_table = EFI_ST_PA;
	fw_tables_init(&bi);
	assert_string_equal(fw_tables.rsdp_source, "EFI");
	assert_true(listed("TBLX", x));
	/* A bad 2.0 RSDP: the 1.0 one is used. */
	((u8 *)phys_to_virt(ptr[2]))[8] ^= 1;
	assert_int_equal(rsdp_from_efi(EFI_ST_PA, &rsdp, &pa), 0);
	assert_int_equal(pa, ptr[1]);
	assert_int_equal(rsdp.revision, 0);
}

/* A broken system table is not followed anywhere. */
static void fw_tables_efi_bad_system_table(void **state)
{
	u64 ptr[] = { 0x3f002000, 0x3f002100, 0x3f002200 };
	struct rsdp rsdp;
	u64 pa;

	(void)state;
	put_rsdp(ptr[2], 2, RSDT_PA, 0);
	put_efi(3, guids, ptr);
	((u8 *)phys_to_virt(EFI_ST_PA))[0] = 'X';
	assert_int_equal(rsdp_from_efi(EFI_ST_PA, &rsdp, &pa), -ENODEV);
	assert_true(host_console_has("EFI system table at 0x3f000000: bad signature"));
	put_efi(100000, NULL, NULL);	/* absurd entry count */
	assert_int_equal(rsdp_from_efi(EFI_ST_PA, &rsdp, &pa), -ENODEV);
	assert_true(host_console_has("EFI configuration table (100000 entries at 0x3f001000) unusable"));
	put_efi(2, guids, ptr);	/* no ACPI 2.0 entry, 1.0 entry points at zeros */
	assert_int_equal(rsdp_from_efi(EFI_ST_PA, &rsdp, &pa), -ENODEV);
	assert_int_equal(rsdp_from_efi(0x900000000000ULL, &rsdp, &pa), -ENODEV);
	assert_int_equal(rsdp_from_efi(0, &rsdp, &pa), -ENODEV);
}

/* acpi_rsdp= narrows the search: efi, bios, an address; junk is refused. */
static void fw_tables_rsdp_parameter(void **state)
{
	u64 a = put_plain(T(0), "AAAA"), b = put_plain(T(1), "BBBB");
	struct rsdp r;

	(void)state;
	put_root(RSDT_PA, "RSDT", &a, 1);
	put_root(RSDT_PA + 0x100, "RSDT", &b, 1);
	put_rsdp(0xe0000, 0, RSDT_PA, 0);
	put_rsdp(0x3f003000, 0, RSDT_PA + 0x100, 0);
	make_rsdp(&r, 0, RSDT_PA + 0x100, 0);
	memcpy(bi.rsdp, &r, RSDP_V1_LEN);
	bi.rsdp_len = RSDP_V1_LEN;
	assert_int_equal(params_parse("acpi_rsdp=bios"), 0);
	fw_tables_init(&bi);
	assert_string_equal(fw_tables.rsdp_source, "BIOS");
	assert_true(listed("AAAA", a));
	assert_int_equal(params_parse("acpi_rsdp=efi"), 0);
	fw_tables_init(&bi);
	assert_null(fw_tables.rsdp_source);	/* no system table given */
	assert_int_equal(params_parse("acpi_rsdp=0x3f003000"), 0);
	fw_tables_init(&bi);
	assert_string_equal(fw_tables.rsdp_source, "acpi_rsdp=");
	assert_int_equal(fw_tables.rsdp_pa, 0x3f003000);
	assert_true(listed("BBBB", b));
	assert_int_equal(params_parse("acpi_rsdp=0x3f004000"), 0);
	fw_tables_init(&bi);
	assert_true(host_console_has("ACPI: no valid RSDP at acpi_rsdp=0x3f004000"));
	assert_int_equal(params_parse("acpi_rsdp=somewhere"), 1);
	assert_true(host_console_has("acpi_rsdp=somewhere: expected auto, efi, bios or a physical address"));
	assert_int_equal(params_parse("acpi_rsdp"), 1);
}

/*
 * A table listed twice (same address) is listed once, and an entry naming
 * the root table itself is skipped; one line each (RELIABILITY A.11).
 * Before, an NFIT listed twice was parsed twice: two DIMMs with one handle.
 */
static void fw_tables_table_listed_twice_skipped(void **state)
{
	u64 nfit = put_table(T(0), "NFIT", 64, NULL, 0), ssdt = put_plain(T(1), "SSDT");
	u64 e[] = { nfit, ssdt, nfit, XSDT_PA, nfit };

	(void)state;
	put_root(XSDT_PA, "XSDT", e, ARRAY_SIZE(e));
	put_rsdp(0xe0000, 2, 0, XSDT_PA);
	fw_tables_init(&bi);
	assert_int_equal(fw_tables.nr, 2);
	assert_true(listed("NFIT", nfit) && listed("SSDT", ssdt));
	assert_non_null(fw_table_find(&fw_tables, "NFIT", 0));
	assert_null(fw_table_find(&fw_tables, "NFIT", 1));
	assert_true(
		host_console_has("ACPI: XSDT entry 2 at 0x3ffe2000: NFIT already listed, skipped"));
	assert_true(
		host_console_has("ACPI: XSDT entry 3 at 0x3ffe1003 is the XSDT itself, skipped"));
	assert_true(
		host_console_has("ACPI: XSDT entry 4 at 0x3ffe2000: NFIT already listed, skipped"));
}

/*
 * A corrupt root table with thousands of bad entries: each would print a
 * line. Only the first FW_ROOT_ENTRIES_MAX are read, and that is said
 * once (seen profiling fuzz_acpi: most of its time went to such lines).
 */
static void fw_tables_huge_root_table_bounded(void **state)
{
	static u64 e[2000];
	u64 good = put_plain(T(0), "GOOD");

	(void)state;
	for (u32 i = 0; i < ARRAY_SIZE(e); i++)
		e[i] = 0x100000000000ULL; /* beyond simulated memory: one line each */
	e[0] = good;
	put_root(0x3f100000, "XSDT", e, ARRAY_SIZE(e)); /* 16 KiB: clear of T() */
	put_rsdp(0xe0000, 2, 0, 0x3f100000);
	fw_tables_init(&bi);
	assert_true(listed("GOOD", good));
	assert_true(host_console_has("ACPI: XSDT has 2000 entries, only the first 256 are read"));
	assert_true(host_console_has("ACPI: XSDT entry 255 at"));
	assert_false(host_console_has("ACPI: XSDT entry 256 at"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(fw_tables_bios_scan_finds_v0_rsdp_and_rsdt, reset),
		cmocka_unit_test_setup(fw_tables_bios_scan_prefers_ebda, reset),
		cmocka_unit_test_setup(fw_tables_bios_scan_skips_bad_checksum_and_misaligned,
				       reset),
		cmocka_unit_test_setup(fw_tables_v2_rsdp_prefers_xsdt, reset),
		cmocka_unit_test_setup(fw_tables_v2_bad_extended_checksum_uses_rsdt, reset),
		cmocka_unit_test_setup(fw_tables_bad_xsdt_falls_back_to_rsdt, reset),
		cmocka_unit_test_setup(fw_tables_no_root_table, reset),
		cmocka_unit_test_setup(fw_tables_no_rsdp, reset),
		cmocka_unit_test_setup(fw_tables_bad_tables_skipped_good_kept, reset),
		cmocka_unit_test_setup(fw_tables_maps_header_then_whole_table, reset),
		cmocka_unit_test_setup(fw_tables_root_length_not_whole_entries, reset),
		cmocka_unit_test_setup(fw_tables_too_many_tables, reset),
		cmocka_unit_test_setup(fw_tables_table_listed_twice_skipped, reset),
		cmocka_unit_test_setup(fw_tables_huge_root_table_bounded, reset),
		cmocka_unit_test_setup(fw_tables_boot_info_copy_preferred, reset),
		cmocka_unit_test_setup(fw_tables_efi_config_table_acpi20_preferred, reset),
		cmocka_unit_test_setup(fw_tables_efi_bad_system_table, reset),
		cmocka_unit_test_setup(fw_tables_rsdp_parameter, reset),
		cmocka_unit_test_setup(fw_tables_ranges_seabios, reset),
		cmocka_unit_test_setup(fw_tables_ranges_fadt_64bit_fields, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
