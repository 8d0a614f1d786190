/*
 * ACPI table discovery (ACPI 6.4 §5.2): find the RSDP, walk the XSDT (the
 * RSDT when there is none), and keep a list of every table whose length and
 * checksum are good. Tables are read through the direct map: each is added
 * with direct_map_add() (header first, then its whole length) before use.
 */
#ifndef PMEMK_ACPI_H
#define PMEMK_ACPI_H

#include "types.h"

/* §5.2.5.3 Root System Description Pointer. */
struct rsdp {
	char signature[8];	/* "RSD PTR " */
	u8 checksum;		/* bytes 0-19 */
	char oem_id[6];
	u8 revision;		/* 0: ACPI 1.0, 20 bytes; 2: 36 bytes */
	u32 rsdt_address;
	u32 length;		/* rev >= 2 */
	u64 xsdt_address;	/* rev >= 2 */
	u8 extended_checksum;	/* all `length` bytes, rev >= 2 */
	u8 reserved[3];
} __packed;

#define RSDP_V1_LEN 20
#define RSDP_V2_LEN 36

/* §5.2.6 System Description Table Header. */
struct sdt_header {
	char signature[4];
	u32 length;
	u8 revision;
	u8 checksum;
	char oem_id[6];
	char oem_table_id[8];
	u32 oem_revision;
	char creator_id[4];
	u32 creator_revision;
} __packed;

#define SDT_HEADER_LEN 36
/* No sane table is bigger (QEMU's DSDT is 8 KiB; real ones reach ~1 MiB). */
#define SDT_MAX_LEN (16 * MiB)
#define FW_TABLES_MAX 64
/* Root table entries read at most (more could not be listed anyway, unless most are bad). */
#define FW_ROOT_ENTRIES_MAX (4 * FW_TABLES_MAX)

/* One table listed by the root table that passed its checks. */
struct fw_table {
	char signature[5];
	u64 pa;
	u32 length;
	u8 revision;
	char oem_id[7];
	char oem_table_id[9];
};

struct fw_tables {
	const char *rsdp_source;	/* "multiboot2", "EFI", "BIOS"; NULL: none */
	u64 rsdp_pa;			/* 0 when only a copy was given */
	u8 rsdp_revision;
	char root_signature[5];		/* "XSDT" or "RSDT" */
	u64 root_pa;
	u32 nr;
	struct fw_table table[FW_TABLES_MAX];
};

/* What fw_tables_init() found. */
extern struct fw_tables fw_tables;

/*
 * Make [pa, pa+len) readable through the direct map and return its address,
 * or NULL (nothing printed) when the range wraps, lies beyond the CPU's
 * physical address width or cannot be mapped.
 */
const void *fw_map(u64 pa, u64 len);

/* Sum of `len` bytes mod 256 (0 for a good ACPI checksum). */
u8 sdt_checksum(const void *p, size_t len);

/*
 * Validate an RSDP of `len` readable bytes: signature, the v1 checksum, and
 * for revision >= 2 the length and extended checksum. Returns 0, -ENODEV
 * (no signature: not one) or -EINVAL (bad checksum or length: printed).
 * A v2 RSDP whose v2 part is bad but v1 part good is accepted as v1: *rsdp
 * then gets revision 0 and no XSDT.
 */
int rsdp_check(const void *p, size_t len, struct rsdp *rsdp);

struct boot_info;
/*
 * Find the RSDP: the multiboot2 copy in boot_info (v2 preferred), else
 * the EFI configuration table (ACPI 2.0 GUID, then 1.0), else the BIOS
 * scan (first KiB of the EBDA, then 0xE0000-0xFFFFF, 16-byte steps).
 * The acpi_rsdp= parameter narrows this: "efi" or "bios" skip the sources
 * before them, an address (Linux's form) is the only place looked at.
 * Fills *rsdp, *pa (0 for a copy) and *source. -ENODEV when none is found.
 */
int rsdp_find(const struct boot_info *bi, struct rsdp *rsdp, u64 *pa,
		   const char **source);

/* The single sources, for tests. -ENODEV when the source has none. */
int rsdp_from_efi(u64 system_table, struct rsdp *rsdp, u64 *pa);
int rsdp_scan_bios(struct rsdp *rsdp, u64 *pa);

/*
 * Map and check the table at `pa`: header first, then its length (>= 36,
 * <= SDT_MAX_LEN), then its checksum. Returns the mapped header, or
 * NULL after printing one line naming `what` and the problem.
 */
const struct sdt_header *sdt_map(u64 pa, const char *what);

/*
 * Walk the root table the RSDP names (XSDT when rev >= 2 and it is good,
 * else the RSDT) into *out; each bad entry prints one line and is skipped.
 * Returns 0, or -ENODEV when neither root table is usable.
 */
int fw_tables_load(const struct rsdp *rsdp, struct fw_tables *out);

/* The n-th (0-based) table with `sig`, or NULL. */
const struct fw_table *fw_table_find(const struct fw_tables *t, const char *sig, u32 n);

/* The mapped header of a listed table (checked when it was listed). */
const struct sdt_header *fw_table_map(const struct fw_table *t);

/* Find the RSDP, list the tables into fw_tables and print them Linux-style. */
void fw_tables_init(const struct boot_info *bi);

/* The RSDP, the root table, the tables listed, two DSDTs and two FACSes. */
#define FW_RANGES_MAX (FW_TABLES_MAX + 6)

struct boot_reserved;
/*
 * The memory the ACPI tables of *t occupy, which the kernel and ACPICA still
 * read (kmain keeps memmap=nn!ss off it): the RSDP when its address is known
 * (not a loader's copy), the root table, every table listed, and the DSDT
 * and FACS each FADT points to (§5.2.9: DSDT, X_DSDT, FIRMWARE_CTRL and
 * X_FIRMWARE_CTRL, as far as the FADT is long; ACPICA runs the DSDT where it
 * lies). Fills out[] with up to `max` ranges, each `what` an "ACPI SIG"
 * string valid until the next call; returns how many.
 */
u32 fw_tables_ranges(const struct fw_tables *t, struct boot_reserved *out, u32 max);

#endif
