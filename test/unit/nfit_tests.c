/*
 * What the NFIT host tests share (test_nfit*.c): a reset, the QEMU
 * fixtures (test/fixtures/nfit), ACPI tables around an NFIT in simulated
 * memory, and a builder of crafted tables. Linked into each of those
 * tests (UNIT_LINK_* in the Makefile).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "acpi.h"
#include "boot_info.h"
#include "direct_map.h"
#include "e820.h"
#include "host.h"
#include "memblock.h"
#include "nfit.h"
#include "nfit_tests.h"
#include "nvdimm.h"

/* The direct map: simulated memory is all there (test_acpi checks the calls). */
int direct_map_add(u64 pa, u64 len)
{
	return pa + len < pa || pa + len > HOST_PHYS_SIZE ? -EINVAL : 0;
}

struct nfit_table nt;
struct boot_info bi;
struct table_builder tb;

int nfit_test_reset(void **state)
{
	(void)state;
	nd_reset();
	memblock_reset();
	memset(&e820_table, 0, sizeof(e820_table));
	memset(&fw_tables, 0, sizeof(fw_tables));
	memset(phys_to_virt(0xe0000), 0, 0x20000);
	host_console_reset();
	return 0;
}

/* ---- fixtures ---- */

char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		fail_msg("cannot open %s (run from the top directory)", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = 0;
	fclose(f);
	*len = (size_t)n;
	return buf;
}

void load_fixture(struct fixture *fx, const char *name)
{
	char path[128];
	size_t len;

	fx->name = name;
	snprintf(path, sizeof(path), "test/fixtures/nfit/%s.bin", name);
	fx->bin = (u8 *)read_file(path, &fx->bin_len);
	snprintf(path, sizeof(path), "test/fixtures/nfit/%s.txt", name);
	fx->txt = read_file(path, &len);
}

void free_fixture(struct fixture *fx)
{
	free(fx->bin);
	free(fx->txt);
}

/* Copy the line starting at p (without its newline) into buf. */
const char *get_line(const char *p, char *buf, size_t size)
{
	size_t n = strcspn(p, "\n");

	snprintf(buf, size, "%.*s", (int)MIN(n, size - 1), p);
	return p[n] ? p + n + 1 : p + n;
}

/* ---- ACPI tables around an NFIT ---- */

void fix_checksum(u8 *p, size_t len, size_t at)
{
	p[at] = 0;
	p[at] = (u8)(0x100 - sdt_checksum(p, len));
}

void install_tables(const u64 *tables, u32 n)
{
	u8 *rsdt = phys_to_virt(RSDT_PA), *rsdp = phys_to_virt(0xf5a10);
	struct sdt_header h = { .length = SDT_HEADER_LEN + 4 * n, .revision = 1 };
	u32 addr = RSDT_PA;

	memcpy(h.signature, "RSDT", 4);
	memcpy(rsdt, &h, sizeof(h));
	for (u32 i = 0; i < n; i++) {
		u32 pa = (u32)tables[i];
		memcpy(rsdt + SDT_HEADER_LEN + 4 * i, &pa, 4);
	}
	fix_checksum(rsdt, h.length, offsetof(struct sdt_header, checksum));
	memset(rsdp, 0, 20);
	memcpy(rsdp, "RSD PTR BOCHS ", 14);
	memcpy(rsdp + 16, &addr, 4);
	fix_checksum(rsdp, 20, 8);
}

void boot_with_nfit(const void *nfit, size_t len)
{
	u64 pa = NFIT_PA;

	memcpy(phys_to_virt(NFIT_PA), nfit, len);
	install_tables(&pa, 1);
	fw_tables_init(&bi);
	nfit_probe();
	e820_pmem_register(&e820_table);
	nvdimm_publish();
}

/* ---- crafted tables ---- */

const u8 guid_pm[16] = { 0x79, 0xd3, 0xf0, 0x66, 0xf3, 0xb4, 0x74, 0x40,
				0xac, 0x43, 0x0d, 0x33, 0x18, 0xb7, 0x8c, 0xdb };
const u8 guid_volatile[16] = { 0x4f, 0x94, 0x05, 0x73, 0xda, 0xfd, 0xe3, 0x44,
				      0xb1, 0x6c, 0x3f, 0x22, 0xd2, 0x52, 0xe5, 0xd0 };

void tb_init(void)
{
	memset(&tb, 0, sizeof(tb));
	memcpy(tb.buf, "NFIT", 4);
	tb.buf[8] = 1;
	memcpy(tb.buf + 10, "PMEMK TESTNFIT", 14);
	tb.len = NFIT_HEADER_LEN;
}

u32 tb_add(const void *sub, u32 len)
{
	u32 off = tb.len;

	assert_true(tb.len + len <= sizeof(tb.buf));
	memcpy(tb.buf + tb.len, sub, len);
	tb.len += len;
	memcpy(tb.buf + 4, &tb.len, 4);
	fix_checksum(tb.buf, tb.len, 9);
	return off;
}

u32 add_spa(u16 index, u64 base, u64 length, const u8 *guid)
{
	struct nfit_spa s = {
		.h = { NFIT_TYPE_SPA, NFIT_SPA_LEN }, .range_index = index,
		.flags = NFIT_SPA_CONTROL_ONLY | NFIT_SPA_PROXIMITY_VALID, .proximity_domain = 1,
		.address = base, .length = length, .memory_mapping = 0x8008,
	};

	memcpy(s.range_guid, guid, 16);
	return tb_add(&s, NFIT_SPA_LEN);
}

u32 add_memdev(u32 handle, u16 spa, u16 dcr, u64 size, u64 offset, u16 ways, u16 flags)
{
	struct nfit_memdev m = {
		.h = { NFIT_TYPE_MEMDEV, NFIT_MEMDEV_LEN }, .device_handle = handle,
		.physical_id = (u16)(0x20 + handle), .range_index = spa, .region_index = dcr,
		.region_size = size, .region_offset = offset, .address = 0x1000 * handle,
		.interleave_ways = ways, .flags = flags,
	};

	return tb_add(&m, NFIT_MEMDEV_LEN);
}

u32 add_dcr(u16 index, u32 serial, u16 len)
{
	struct nfit_dcr d = {
		.h = { NFIT_TYPE_DCR, len }, .region_index = index, .vendor_id = 0x8086,
		.device_id = 1, .revision_id = 1, .serial_number = serial, .code = 0x0201,
	};

	return tb_add(&d, len);
}

u32 add_raw(u16 type, u16 len, u32 total)
{
	u8 sub[256] = { 0 };

	memcpy(sub, &type, 2);
	memcpy(sub + 2, &len, 2);
	return tb_add(sub, total);
}

/* One DIMM at 4 GiB of `size` bytes, handle 1, as QEMU lays it out. */
void one_dimm(u64 size)
{
	add_spa(2, 4 * GiB, size, guid_pm);
	add_memdev(1, 2, 3, size, 0, 1, 0);
	add_dcr(3, 0x123456, NFIT_DCR_LEN);
}

void register_tb(void)
{
	nfit_parse(tb.buf, tb.len, &nt);
	nfit_register(&nt, nd_bus_register("nfit"));
	nd_regions_publish();
}
