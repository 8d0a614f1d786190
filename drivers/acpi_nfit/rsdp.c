/*
 * Finding the RSDP (ACPI 6.4 §5.2.5.1): the boot loader's copy, else the
 * EFI configuration table (UEFI 2.10 §4.3, §4.6), else the legacy BIOS
 * areas. Every candidate is checked (rsdp_check) before use.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "acpi.h"
#include "boot_info.h"
#include "params.h"
#include "printk.h"
#include "unaligned.h"

/* acpi_rsdp=: "auto" (default), "efi", "bios" or a physical address (Linux's form). */
static enum { RSDP_AUTO, RSDP_EFI, RSDP_BIOS, RSDP_ADDR } rsdp_from;
static u64 rsdp_param_pa;

static int rsdp_param(const char *val)
{
	char *end;

	if (val && !strcmp(val, "auto")) {
		rsdp_from = RSDP_AUTO;
	} else if (val && !strcmp(val, "efi")) {
		rsdp_from = RSDP_EFI;
	} else if (val && !strcmp(val, "bios")) {
		rsdp_from = RSDP_BIOS;
	} else if (val && *val && (rsdp_param_pa = strtoull(val, &end, 0), !*end)) {
		rsdp_from = RSDP_ADDR;
	} else {
		pr_err("acpi_rsdp=%s: expected auto, efi, bios or a physical address\n",
		       val ? val : "");
		return -EINVAL;
	}
	return 0;
}
KERNEL_PARAM("acpi_rsdp", rsdp_param,
	     "where to take the RSDP from: auto, efi, bios, or a physical address");

int rsdp_check(const void *p, size_t len, struct rsdp *rsdp)
{
	const u8 *b = p;
	u32 length;

	if (len < RSDP_V1_LEN || memcmp(b, "RSD PTR ", 8) != 0)
		return -ENODEV;
	if (sdt_checksum(b, RSDP_V1_LEN)) {
		pr_warn("ACPI: RSDP with a bad checksum ignored\n");
		return -EINVAL;
	}
	memset(rsdp, 0, sizeof(*rsdp));
	memcpy(rsdp, b, RSDP_V1_LEN);
	if (rsdp->revision < 2)
		return 0;
	/* §5.2.5.3: revision 2 adds the length, the XSDT and the extended checksum. */
	if (len < RSDP_V2_LEN) {
		pr_warn("ACPI: RSDP v%u but only %zu bytes of it, using it as ACPI 1.0\n",
			rsdp->revision, len);
		rsdp->revision = 0;
		return 0;
	}
	memcpy(&length, b + offsetof(struct rsdp, length), sizeof(length));
	if (length < RSDP_V2_LEN || length > len) {
		pr_warn("ACPI: RSDP v%u length %u unusable, using it as ACPI 1.0\n",
			rsdp->revision, length);
		rsdp->revision = 0;
		return 0;
	}
	if (sdt_checksum(b, length)) {
		pr_warn("ACPI: RSDP v%u extended checksum bad, using it as ACPI 1.0 (RSDT only)\n",
			rsdp->revision);
		rsdp->revision = 0;
		return 0;
	}
	memcpy(rsdp, b, RSDP_V2_LEN);
	return 0;
}

/* UEFI 2.10 §4.3: EFI_SYSTEM_TABLE (x86-64), the fields we read. */
#define EFI_SYSTEM_TABLE_SIGNATURE 0x5453595320494249ULL	/* "IBI SYST" */
#define EFI_ST_HEADER_SIZE 12		/* u32 HeaderSize */
#define EFI_ST_NR_TABLES 104		/* UINTN NumberOfTableEntries */
#define EFI_ST_CONFIG_TABLE 112		/* EFI_CONFIGURATION_TABLE * */
#define EFI_ST_LEN 120
#define EFI_CONFIG_ENTRY_LEN 24		/* EFI_GUID + VOID * */
#define EFI_MAX_CONFIG_TABLES 1024	/* sanity bound; firmware has ~10 */

/* FACTS §6.3, in memory byte order. */
static const u8 acpi20_guid[16] = { 0x71, 0xe8, 0x68, 0x88, 0xf1, 0xe4, 0xd3, 0x11,
				    0xbc, 0x22, 0x00, 0x80, 0xc7, 0x3c, 0x88, 0x81 };
static const u8 acpi10_guid[16] = { 0x30, 0x2d, 0x9d, 0xeb, 0x88, 0x2d, 0xd3, 0x11,
				    0x9a, 0x16, 0x00, 0x90, 0x27, 0x3f, 0xc1, 0x4d };

/* The RSDP a configuration-table entry points to, if it checks out. */
static int rsdp_at(u64 pa, struct rsdp *rsdp)
{
	const void *p = fw_map(pa, RSDP_V2_LEN);

	if (!p) {
		pr_warn("ACPI: RSDP pointer %#llx cannot be mapped\n", pa);
		return -EINVAL;
	}
	return rsdp_check(p, RSDP_V2_LEN, rsdp);
}

/* Search the configuration table for one GUID. */
static int config_table_rsdp(const u8 *cfg, u64 n, const u8 guid[16], struct rsdp *rsdp,
			     u64 *pa)
{
	for (u64 i = 0; i < n; i++) {
		const u8 *e = cfg + i * EFI_CONFIG_ENTRY_LEN;
		if (memcmp(e, guid, 16) != 0)
			continue;
		u64 p = get_le64(e + 16);
		if (rsdp_at(p, rsdp) == 0) {
			*pa = p;
			return 0;
		}
	}
	return -ENODEV;
}

int rsdp_from_efi(u64 system_table, struct rsdp *rsdp, u64 *pa)
{
	const u8 *st = system_table ? fw_map(system_table, EFI_ST_LEN) : NULL;

	if (!st)
		return -ENODEV;
	u32 header_size;
	memcpy(&header_size, st + EFI_ST_HEADER_SIZE, sizeof(header_size));
	if (get_le64(st) != EFI_SYSTEM_TABLE_SIGNATURE || header_size < EFI_ST_LEN) {
		pr_warn("ACPI: EFI system table at %#llx: bad signature or size %u\n", system_table,
			header_size);
		return -ENODEV;
	}
	u64 n = get_le64(st + EFI_ST_NR_TABLES), cfg_pa = get_le64(st + EFI_ST_CONFIG_TABLE);
	const u8 *cfg = n <= EFI_MAX_CONFIG_TABLES ?
			fw_map(cfg_pa, n * EFI_CONFIG_ENTRY_LEN) : NULL;
	if (!cfg) {
		pr_warn("ACPI: EFI configuration table (%llu entries at %#llx) unusable\n", n,
			cfg_pa);
		return -ENODEV;
	}
	if (config_table_rsdp(cfg, n, acpi20_guid, rsdp, pa) == 0)
		return 0;
	return config_table_rsdp(cfg, n, acpi10_guid, rsdp, pa);
}

/* §5.2.5.1: scan [start, start+len) at 16-byte boundaries. */
static int scan_area(u64 start, u64 len, struct rsdp *rsdp, u64 *pa)
{
	/* A v2 RSDP starting near the end may extend past the area. */
	const u8 *p = fw_map(start, len + RSDP_V2_LEN);

	if (!p)
		return -ENODEV;
	for (u64 off = 0; off < len; off += 16) {
		if (rsdp_check(p + off, RSDP_V2_LEN, rsdp) == 0) {
			*pa = start + off;
			return 0;
		}
	}
	return -ENODEV;
}

#define BDA_EBDA_SEGMENT 0x40e	/* real-mode segment of the EBDA */

int rsdp_scan_bios(struct rsdp *rsdp, u64 *pa)
{
	const u8 *bda = fw_map(BDA_EBDA_SEGMENT, 2);

	if (bda) {
		u64 ebda = (u64)((u32)bda[0] | (u32)bda[1] << 8) << 4;
		/* Only a plausible EBDA: above the BDA, below the 640 KiB hole. */
		if (ebda >= 0x500 && ebda + 1 * KiB <= 0xa0000 &&
		    scan_area(ebda, 1 * KiB, rsdp, pa) == 0)
			return 0;
	}
	return scan_area(0xe0000, 0x20000, rsdp, pa);
}

/* acpi_rsdp=ADDR: that address only. */
static int rsdp_from_param(struct rsdp *rsdp, u64 *pa, const char **source)
{
	*source = "acpi_rsdp=";
	if (rsdp_at(rsdp_param_pa, rsdp)) {
		pr_warn("ACPI: no valid RSDP at acpi_rsdp=%#llx\n", rsdp_param_pa);
		*source = NULL;
		return -ENODEV;
	}
	*pa = rsdp_param_pa;
	return 0;
}

int rsdp_find(const struct boot_info *bi, struct rsdp *rsdp, u64 *pa,
		   const char **source)
{
	*pa = 0;
	if (rsdp_from == RSDP_ADDR)
		return rsdp_from_param(rsdp, pa, source);
	if (rsdp_from == RSDP_AUTO && bi->rsdp_len &&
	    rsdp_check(bi->rsdp, bi->rsdp_len, rsdp) == 0) {
		/* Whoever put the copy in boot_info: GRUB's tag or our EFI loader. */
		*source = bi->path == BOOT_EFI_STUB ? "EFI loader" : "multiboot2";
		return 0;
	}
	if (rsdp_from != RSDP_BIOS && bi->efi_system_table &&
	    rsdp_from_efi(bi->efi_system_table, rsdp, pa) == 0) {
		*source = "EFI";
		return 0;
	}
	if (rsdp_from != RSDP_EFI && rsdp_scan_bios(rsdp, pa) == 0) {
		*source = "BIOS";
		return 0;
	}
	*source = NULL;
	return -ENODEV;
}
