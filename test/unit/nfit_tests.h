/*
 * What the NFIT host tests share (test_nfit.c, test_nfit_subtables.c,
 * test_nfit_register.c; defined in nfit_tests.c).
 */
#ifndef PMEMK_TEST_NFIT_TESTS_H
#define PMEMK_TEST_NFIT_TESTS_H

#include <stddef.h>

#include "boot_info.h"
#include "nfit.h"
#include "types.h"

extern struct nfit_table nt;	/* the tests' parse result */
extern struct boot_info bi;	/* empty: the RSDP comes from the BIOS scan */

/* cmocka setup: no regions, memblock, e820 table, ACPI tables or console text. */
int nfit_test_reset(void **state);

/* ---- fixtures: test/fixtures/nfit/NAME.bin and its decode NAME.txt ---- */

struct fixture {
	const char *name;
	u8 *bin;
	size_t bin_len;
	char *txt;		/* NUL-terminated */
};

/* A whole file, NUL-terminated, *len its size; fails the test when absent. */
char *read_file(const char *path, size_t *len);
void load_fixture(struct fixture *fx, const char *name);
void free_fixture(struct fixture *fx);

/* Copy the line at p (without its newline) into buf; returns the next line. */
const char *get_line(const char *p, char *buf, size_t size);

/* ---- ACPI tables around an NFIT, as SeaBIOS lays them out ---- */

#define NFIT_PA 0x3ffe2000ULL
#define RSDT_PA 0x3ffe0000ULL

/* Make the byte at `at` the one that sums p[0, len) to 0. */
void fix_checksum(u8 *p, size_t len, size_t at);

/* A revision 0 RSDP (BIOS area) and an RSDT listing the n tables. */
void install_tables(const u64 *tables, u32 n);

/* The NFIT at NFIT_PA behind those, then boot: ACPI, NFIT, e820, publish. */
void boot_with_nfit(const void *nfit, size_t len);

/* ---- crafted tables ---- */

extern const u8 guid_pm[16];		/* persistent memory, table byte order */
extern const u8 guid_volatile[16];

/* The table being built: an NFIT header, then what tb_add() appended. */
struct table_builder {
	u8 buf[8192];
	u32 len;
};

extern struct table_builder tb;

/* An empty NFIT: header only, revision 1, OEM "PMEMK " "TESTNFIT". */
void tb_init(void);

/* Append `len` bytes; the header's length and checksum follow. Returns their offset. */
u32 tb_add(const void *sub, u32 len);

/* Append one subtable; each returns its offset. */
u32 add_spa(u16 index, u64 base, u64 length, const u8 *guid);
u32 add_memdev(u32 handle, u16 spa, u16 dcr, u64 size, u64 offset, u16 ways, u16 flags);
u32 add_dcr(u16 index, u32 serial, u16 len);
u32 add_raw(u16 type, u16 len, u32 total);	/* type and length, zeros to `total` bytes */

/* One DIMM at 4 GiB of `size` bytes, handle 1, as QEMU lays it out. */
void one_dimm(u64 size);

/* Parse tb into nt, register it on a new "nfit" bus and publish the regions. */
void register_tb(void);

#endif
