/*
 * libFuzzer harness: ACPI discovery end to end (drivers/acpi_nfit): find
 * the RSDP, walk the XSDT or RSDT over tables placed in the simulated
 * physical memory (test/host/arch_host.c), then the NFIT provider on every
 * NFIT listed, and the nvdimm core on what it registered.
 *
 * Input: byte 0 = flags, then chunks, each le16 length + bytes.
 *  - flags bits 0-1, where the RSDP (chunk 0) is: 0 the boot loader's copy
 *    in boot_info, 1 an EFI system table's configuration table, 2 the BIOS
 *    area 0xE0000-0xFFFFF, 3 the EBDA; for 2 and 3 the flags' high nibble
 *    picks where in the area (a 16-byte boundary, as the scan wants).
 *  - bit 2: recompute the checksums (RSDP v1 and v2 sums, every chunk with
 *    a table header), so that what lies behind them is reached; bit 3: set
 *    each chunk's header length to the chunk's length first.
 *  - chunk k >= 1 is placed at CHUNK_PA(k). An address in the RSDP (RSDT,
 *    XSDT) or in a root table's entries that is below MAX_CHUNKS is read as
 *    a chunk number and replaced by that chunk's address (0 stays null), so
 *    inputs can link tables, list one twice or point anywhere.
 * Seeds: test/fuzz/seeds/fuzz_acpi (QEMU's own tables from SeaBIOS and
 * OVMF boots, test/fixtures/acpi, and crafted ones), made by
 * test/fuzz/mkseeds.py.
 *
 * Checked after every input: every listed table lies in simulated memory,
 * has a good checksum and a length within bounds, no address is listed
 * twice, no two DIMMs share an NFIT handle, regions are sorted, disjoint
 * and non-empty, and nothing outside the placed tables was written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acpi.h"
#include "boot_info.h"
#include "direct_map.h"
#include "host.h"
#include "nfit.h"
#include "nvdimm.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "invariant broken: %s\n", #cond);                          \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* The "machine": 256 MiB of it can be mapped; the tables sit near the top. */
#define SIM_LIMIT (256 * MiB)
#define MAX_CHUNKS 64
#define CHUNK_STRIDE (64 * KiB)
#define CHUNK_BASE (SIM_LIMIT - MAX_CHUNKS * CHUNK_STRIDE)
#define CHUNK_PA(k) (CHUNK_BASE + (u64)(k)*CHUNK_STRIDE)
#define EFI_ST_PA (CHUNK_BASE - 2 * PAGE_SIZE)
#define EFI_CFG_PA (CHUNK_BASE - PAGE_SIZE)
#define BIOS_AREA 0xe0000ULL
#define BIOS_AREA_LEN 0x20000ULL
#define EBDA_SEG 0x9000 /* EBDA at 0x90000 */

/*
 * The kernel maps up to the CPU's width; this machine has only SIM_LIMIT,
 * and maps at most MAP_MAX at a time: a table may claim up to 16 MiB
 * (SDT_MAX_LEN), and summing that much per input would make the
 * fuzzer crawl. Longer ones take the "cannot be mapped" path instead.
 */
#define MAP_MAX (256 * KiB)

int direct_map_add(u64 pa, u64 len)
{
	return pa + len < pa || pa + len > SIM_LIMIT || len > MAP_MAX ? -EINVAL : 0;
}

static struct boot_info bi;
static u32 nr_chunks;
static u16 chunk_len[MAX_CHUNKS];

static u8 *at(u64 pa)
{
	return phys_to_virt(pa);
}

static void fix_checksum(u8 *p, size_t len, size_t where)
{
	p[where] = 0;
	p[where] = (u8)(0x100 - sdt_checksum(p, len));
}

/* A chunk number stands for its address. */
static u64 link(u64 v)
{
	return v && v < MAX_CHUNKS ? CHUNK_PA(v) : v;
}

static void link_rsdp(u8 *r, u32 len)
{
	u32 rsdt;
	u64 xsdt;

	if (len >= RSDP_V1_LEN) {
		memcpy(&rsdt, r + offsetof(struct rsdp, rsdt_address), 4);
		rsdt = (u32)link(rsdt);
		memcpy(r + offsetof(struct rsdp, rsdt_address), &rsdt, 4);
	}
	if (len >= RSDP_V2_LEN) {
		memcpy(&xsdt, r + offsetof(struct rsdp, xsdt_address), 8);
		xsdt = link(xsdt);
		memcpy(r + offsetof(struct rsdp, xsdt_address), &xsdt, 8);
	}
}

static void fix_rsdp(u8 *r, u32 len)
{
	u32 v2_len;

	if (len < RSDP_V1_LEN)
		return;
	fix_checksum(r, RSDP_V1_LEN, offsetof(struct rsdp, checksum));
	if (len < RSDP_V2_LEN || r[offsetof(struct rsdp, revision)] < 2)
		return;
	memcpy(&v2_len, r + offsetof(struct rsdp, length), 4);
	if (v2_len >= RSDP_V2_LEN && v2_len <= len)
		fix_checksum(r, v2_len, offsetof(struct rsdp, extended_checksum));
}

/* Root tables: entries that are chunk numbers become addresses. */
static void link_root(u8 *t, u32 len)
{
	u32 esize = !memcmp(t, "XSDT", 4) ? 8 : !memcmp(t, "RSDT", 4) ? 4 : 0;

	if (!esize)
		return;
	for (u32 off = SDT_HEADER_LEN; off + esize <= len; off += esize) {
		u64 v = 0;
		memcpy(&v, t + off, esize);
		v = link(v);
		memcpy(t + off, &v, esize);
	}
}

static void place_table(u32 k, const u8 *src, u32 len, u8 flags)
{
	u8 *t = at(CHUNK_PA(k));
	u32 hdr_len;

	memcpy(t, src, len);
	chunk_len[k] = (u16)len;
	if (len < SDT_HEADER_LEN)
		return;
	if (flags & 8)
		memcpy(t + 4, &len, 4);
	link_root(t, len);
	memcpy(&hdr_len, t + 4, 4);
	if (flags & 4)
		fix_checksum(t, MIN(hdr_len, (u32)CHUNK_STRIDE), 9);
}

/* UEFI 2.10 §4.3: a system table with one ACPI 2.0 configuration entry. */
static void place_efi(u64 rsdp_pa)
{
	static const u8 acpi20[16] = { 0x71, 0xe8, 0x68, 0x88, 0xf1, 0xe4, 0xd3, 0x11,
				       0xbc, 0x22, 0x00, 0x80, 0xc7, 0x3c, 0x88, 0x81 };
	u64 sig = 0x5453595320494249ULL, n = 1, cfg = EFI_CFG_PA;
	u32 hsize = 120;
	u8 *st = at(EFI_ST_PA);

	memcpy(st, &sig, 8);
	memcpy(st + 12, &hsize, 4);
	memcpy(st + 104, &n, 8);
	memcpy(st + 112, &cfg, 8);
	memcpy(at(EFI_CFG_PA), acpi20, 16);
	memcpy(at(EFI_CFG_PA) + 16, &rsdp_pa, 8);
	bi.efi_system_table = EFI_ST_PA;
}

static void place_rsdp(const u8 *src, u32 len, u8 flags)
{
	u8 r[RSDP_V2_LEN] = { 0 };
	u32 step = flags >> 4;
	u16 seg = EBDA_SEG;

	len = MIN(len, (u32)sizeof(r));
	memcpy(r, src, len);
	link_rsdp(r, len);
	if (flags & 4)
		fix_rsdp(r, len);
	switch (flags & 3) {
	case 0:
		memcpy(bi.rsdp, r, len);
		bi.rsdp_len = len;
		break;
	case 1:
		memcpy(at(CHUNK_PA(0)), r, len);
		place_efi(CHUNK_PA(0));
		break;
	case 2:
		memcpy(at(BIOS_AREA + 0x1000 * step + 0x10 * (step & 7)), r, len);
		break;
	case 3:
		memcpy(at(0x40e), &seg, 2);
		memcpy(at((u64)EBDA_SEG * 16 + 16 * step), r, len);
		break;
	}
}

/* Zero everything an input may have written, so the next starts clean. */
static void clear_machine(void)
{
	for (u32 k = 0; k < nr_chunks; k++)
		memset(at(CHUNK_PA(k)), 0, MAX(chunk_len[k], (u16)RSDP_V2_LEN));
	memset(at(EFI_ST_PA), 0, 2 * PAGE_SIZE);
	memset(at(BIOS_AREA), 0, BIOS_AREA_LEN);
	memset(at(0x40e), 0, 2);
	memset(at((u64)EBDA_SEG * 16), 0, 1 * KiB);
	nr_chunks = 0;
}

static void check_tables(void)
{
	const struct fw_tables *t = &fw_tables;

	CHECK(t->nr <= FW_TABLES_MAX);
	for (u32 i = 0; i < t->nr; i++) {
		const struct fw_table *e = &t->table[i];
		CHECK(e->pa && e->pa + e->length <= SIM_LIMIT);
		CHECK(e->length >= SDT_HEADER_LEN && e->length <= SDT_MAX_LEN);
		CHECK(!memcmp(at(e->pa), e->signature, 4));
		CHECK(sdt_checksum(at(e->pa), e->length) == 0);
		for (u32 j = 0; j < i; j++)
			CHECK(t->table[j].pa != e->pa);
	}
}

static void check_nvdimm(void)
{
	for (u32 i = 0; i < nvdimm_count(); i++)
		for (u32 j = 0; j < i; j++)
			CHECK(nvdimm_get(i)->handle != nvdimm_get(j)->handle);
	for (u32 i = 0; i < nd_region_count(); i++) {
		const struct nd_region *r = nd_region_get(i);
		CHECK(r->size > 0 && r->start + r->size > r->start);
		CHECK(i == 0 ||
		      nd_region_get(i - 1)->start + nd_region_get(i - 1)->size <= r->start);
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	const u8 *p = data + 1, *end = data + size;

	if (size < 1)
		return 0;
	memset(&bi, 0, sizeof(bi));
	for (u32 k = 0; k < MAX_CHUNKS && end - p >= 2; k++) {
		u16 len;
		memcpy(&len, p, 2);
		p += 2;
		len = (u16)MIN((size_t)len, (size_t)(end - p));
		nr_chunks = k + 1;
		chunk_len[k] = 0;
		if (k == 0)
			place_rsdp(p, len, data[0]);
		else
			place_table(k, p, len, data[0]);
		p += len;
	}
	host_console_reset();
	nd_reset();
	fw_tables_init(&bi);
	check_tables();
	nfit_probe();
	nd_regions_publish();
	check_nvdimm();
	clear_machine();
	return 0;
}
