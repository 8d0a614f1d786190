/*
 * The NVDIMM Firmware Interface Table (ACPI 6.4 §5.2.25): every subtable
 * type 0-7, each one struct that is both its on-table layout and the
 * parsed form the rest of the kernel uses. nfit_parse() is a pure function
 * of the bytes it is given (no mapping, no heap), so the host tests and
 * the fuzzer run it as is.
 */
#ifndef PMEMK_NFIT_H
#define PMEMK_NFIT_H

#include "nvdimm.h"
#include "subtable.h"
#include "types.h"

/* §5.2.25: 36-byte SDT header + 4 reserved bytes; subtables follow. */
#define NFIT_HEADER_LEN 40

/* §5.2.25.1, table 5.131: subtable types. */
enum nfit_subtable_type {
	NFIT_TYPE_SPA = 0,
	NFIT_TYPE_MEMDEV = 1,
	NFIT_TYPE_IDT = 2,
	NFIT_TYPE_SMBIOS = 3,
	NFIT_TYPE_DCR = 4,
	NFIT_TYPE_BDW = 5,
	NFIT_TYPE_FLUSH = 6,
	NFIT_TYPE_CAPS = 7,
	NFIT_TYPE_NR,
};

/* Every subtable starts with these four bytes. */
struct nfit_sub_header {
	u16 type;
	u16 length;
} __packed;

/* The Address Range Type GUIDs of §5.2.25.2 table 5.133 (FACTS §3.5). */
enum nfit_spa_type {
	NFIT_SPA_VOLATILE,
	NFIT_SPA_PM,
	NFIT_SPA_DCR,
	NFIT_SPA_BDW,
	NFIT_SPA_VDISK,
	NFIT_SPA_VCD,
	NFIT_SPA_PDISK,
	NFIT_SPA_PCD,
	NFIT_SPA_UNKNOWN,
};

/* Fixed capacities of the parsed table: more entries are dropped with a message. */
#define NFIT_MAX_SPA 32
#define NFIT_MAX_MEMDEV 64
#define NFIT_MAX_IDT 16
#define NFIT_MAX_IDT_LINES 32
#define NFIT_MAX_SMBIOS 8
#define NFIT_MAX_DCR 64
#define NFIT_MAX_BDW 32
#define NFIT_MAX_FLUSH 64
#define NFIT_MAX_FLUSH_HINTS 16

/*
 * Each subtable type has one struct, the on-table layout and the parsed
 * form at once: first the subtable's own bytes as §5.2.25 lays them out
 * (packed, little-endian as on x86-64), which nfit_parse() copies in one
 * piece (a shorter form reads as zero past its length); then, from
 * `offset` on, what pmemk adds. The asserts after each pin the table part
 * to the spec's length. The tests build tables from the same structs,
 * copying their first NFIT_*_LEN bytes.
 */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "NFIT fields are copied as they are");

/* §5.2.25.2 System Physical Address (SPA) Range Structure: 56 bytes, 64 with the cookie. */
#define NFIT_SPA_LEN 56
#define NFIT_SPA_COOKIE_LEN 64
struct nfit_spa {
	struct __packed {
		struct nfit_sub_header h;
		u16 range_index;
		u16 flags;
		u32 reserved;
		u32 proximity_domain;
		u8 range_guid[16];	/* table byte order */
		u64 address;
		u64 length;
		u64 memory_mapping;
		u64 location_cookie;	/* only with NFIT_SPA_COOKIE_VALID (64 bytes) */
	};
	u32 offset;		/* of the subtable in the NFIT */
	enum nfit_spa_type type;	/* from range_guid */
};
_Static_assert(offsetof(struct nfit_spa, offset) == NFIT_SPA_COOKIE_LEN, "SPA layout");

#define NFIT_SPA_CONTROL_ONLY (1 << 0)	/* for hot add / online only */
#define NFIT_SPA_PROXIMITY_VALID (1 << 1)
#define NFIT_SPA_COOKIE_VALID (1 << 2)	/* ACPI 6.4: location cookie present */

/* §5.2.25.3 NVDIMM Region Mapping Structure (memory device to SPA range map). */
#define NFIT_MEMDEV_LEN 48
struct nfit_memdev {
	struct __packed {
		struct nfit_sub_header h;
		u32 device_handle;
		u16 physical_id;
		u16 region_id;
		u16 range_index;
		u16 region_index;	/* NVDIMM Control Region Structure Index */
		u64 region_size;
		u64 region_offset;
		u64 address;		/* DPA of the region */
		u16 interleave_index;
		u16 interleave_ways;
		u16 flags;
		u16 reserved;
	};
	u32 offset;
};
_Static_assert(offsetof(struct nfit_memdev, offset) == NFIT_MEMDEV_LEN, "MEMDEV layout");

/* NVDIMM State Flags, §5.2.25.3 table 5.134. */
#define NFIT_MEM_SAVE_FAILED (1 << 0)
#define NFIT_MEM_RESTORE_FAILED (1 << 1)
#define NFIT_MEM_FLUSH_FAILED (1 << 2)
#define NFIT_MEM_NOT_ARMED (1 << 3)	/* writes may not persist: read-only */
#define NFIT_MEM_HEALTH_OBSERVED (1 << 4)
#define NFIT_MEM_HEALTH_ENABLED (1 << 5)
#define NFIT_MEM_MAP_FAILED (1 << 6)

/* §5.2.25.4 Interleave Structure: 16 bytes + 4 per line. */
#define NFIT_IDT_LEN 16
struct nfit_idt {
	struct __packed {
		struct nfit_sub_header h;
		u16 interleave_index;
		u16 reserved;
		u32 line_count;		/* as the table says; line_offset keeps the first */
		u32 line_size;
		/* u32 line_offset[line_count] follows */
	};
	u32 offset;
	u32 line_offset[NFIT_MAX_IDT_LINES];
};
_Static_assert(offsetof(struct nfit_idt, offset) == NFIT_IDT_LEN, "IDT layout");

/* §5.2.25.5 SMBIOS Management Information Structure: 8 bytes + data. */
#define NFIT_SMBIOS_LEN 8
struct nfit_smbios {
	struct __packed {
		struct nfit_sub_header h;
		u32 reserved;
		/* SMBIOS table data follows */
	};
	u32 offset;
	u32 data_offset;	/* of the SMBIOS data in the NFIT */
	u32 data_length;
};
_Static_assert(offsetof(struct nfit_smbios, offset) == NFIT_SMBIOS_LEN, "SMBIOS layout");

/* §5.2.25.6 NVDIMM Control Region Structure: 80 bytes, or 32 with no windows. */
#define NFIT_DCR_LEN 80
#define NFIT_DCR_SHORT_LEN 32
struct nfit_dcr {
	struct __packed {
		struct nfit_sub_header h;
		u16 region_index;
		u16 vendor_id;
		u16 device_id;
		u16 revision_id;
		u16 subsystem_vendor_id;
		u16 subsystem_device_id;
		u16 subsystem_revision_id;
		u8 valid_fields;
		u8 manufacturing_location;
		u16 manufacturing_date;
		u8 reserved[2];
		u32 serial_number;
		u16 code;	/* Region Format Interface Code */
		u16 windows;	/* Number of Block Control Windows */
		/* the 32-byte form ends here */
		u64 window_size;
		u64 command_offset;
		u64 command_size;
		u64 status_offset;
		u64 status_size;
		u16 flags;
		u8 reserved1[6];
	};
	u32 offset;
	u16 length;		/* the form: 80, or 32 for the short one */
};
_Static_assert(offsetof(struct nfit_dcr, offset) == NFIT_DCR_LEN, "DCR layout");

#define NFIT_DCR_MFG_VALID (1 << 0)	/* manufacturing location/date valid */

/* §5.2.25.7 NVDIMM Block Data Window Region Structure: 40 bytes. */
#define NFIT_BDW_LEN 40
struct nfit_bdw {
	struct __packed {
		struct nfit_sub_header h;
		u16 region_index;
		u16 windows;
		u64 window_offset;	/* Block Data Window Start Offset */
		u64 size;
		u64 capacity;
		u64 start_address;
	};
	u32 offset;
};
_Static_assert(offsetof(struct nfit_bdw, offset) == NFIT_BDW_LEN, "BDW layout");

/* §5.2.25.8 Flush Hint Address Structure: 16 bytes + 8 per hint. */
#define NFIT_FLUSH_LEN 16
struct nfit_flush {
	struct __packed {
		struct nfit_sub_header h;
		u32 device_handle;
		u16 hint_count;		/* as the table says; hint keeps the first ones */
		u8 reserved[6];
		/* u64 hint_address[hint_count] follows */
	};
	u32 offset;
	u64 hint[NFIT_MAX_FLUSH_HINTS];
};
_Static_assert(offsetof(struct nfit_flush, offset) == NFIT_FLUSH_LEN, "FLUSH layout");

/* §5.2.25.9 Platform Capabilities Structure: 16 bytes (ACPI 6.2+). */
#define NFIT_CAPS_LEN 16
struct nfit_caps {
	struct __packed {
		struct nfit_sub_header h;
		u8 highest_capability;
		u8 reserved[3];
		u32 capabilities;	/* as in the table */
		u32 reserved2;
	};
	u32 offset;
	bool present;
	u32 valid;		/* capabilities, only the bits up to highest_capability */
};
_Static_assert(offsetof(struct nfit_caps, offset) == NFIT_CAPS_LEN, "CAPS layout");

#define NFIT_CAP_CACHE_FLUSH (1 << 0)	/* CPU caches are in the persistence domain */
#define NFIT_CAP_MEM_FLUSH (1 << 1)	/* the memory controller is (ADR) */
#define NFIT_CAP_MEM_MIRRORING (1 << 2)

struct nfit_table {
	/*
	 * The walk: bytes parsed (min(header length, buffer)), whether it
	 * stopped early, subtables rejected (inconsistent with their own
	 * flags or counts) and valid ones dropped (an array full).
	 */
	struct subtable_walk walk;
	u8 revision;
	char oem_id[7];
	char oem_table_id[9];
	u32 nr_spa, nr_memdev, nr_idt, nr_smbios, nr_dcr, nr_bdw, nr_flush;
	u32 nr_unknown;		/* subtables of types > 7, skipped by length */
	struct nfit_spa spa[NFIT_MAX_SPA];
	struct nfit_memdev memdev[NFIT_MAX_MEMDEV];
	struct nfit_idt idt[NFIT_MAX_IDT];
	struct nfit_smbios smbios[NFIT_MAX_SMBIOS];
	struct nfit_dcr dcr[NFIT_MAX_DCR];
	struct nfit_bdw bdw[NFIT_MAX_BDW];
	struct nfit_flush flush[NFIT_MAX_FLUSH];
	struct nfit_caps caps;
};

/*
 * Parse an NFIT of `len` bytes (header included) into *out (zeroed first).
 * The walk uses min(header length, len). Each problem prints one line
 * naming the table offset. Returns:
 *   0        everything parsed;
 *  -ENODEV   not an NFIT (signature) or shorter than its 40-byte header:
 *            nothing parsed;
 *  -EINVAL   a subtable with length 0, below its type's minimum or running
 *            past the end stopped the walk (out->walk.truncated); everything
 *            before it is kept; or out->walk.nr_rejected subtables were well
 *            framed but disagreed with their own flags or counts (an SPA
 *            not 56 bytes, or 64 with the location cookie; an interleave
 *            with 0 lines or too short for them; a DCR with windows in 32
 *            bytes; flush hints past the length): those alone are skipped;
 *  -ENOSPC   an array was full: out->walk.nr_dropped valid subtables dropped,
 *            the rest parsed.
 * -EINVAL wins over -ENOSPC when both happen.
 */
int nfit_parse(const void *table, size_t len, struct nfit_table *out);

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" and its NUL. */
#define NFIT_GUID_TEXT_LEN 37

/*
 * A GUID in table byte order as the spec writes it, lower case: its first
 * three fields are little-endian in the table (FACTS §3.5).
 */
void nfit_guid_text(const u8 guid[16], char text[NFIT_GUID_TEXT_LEN]);

/* The range type for a GUID in table byte order (FACTS §3.5). */
enum nfit_spa_type nfit_spa_type_from_guid(const u8 guid[16]);
const char *nfit_spa_type_name(enum nfit_spa_type type);

/*
 * The persistence domain the platform capabilities give (Linux's rule:
 * CPU-cache flush wins, then memory-controller flush; none -> unknown).
 */
enum nd_persistence nfit_caps_persistence(const struct nfit_caps *caps);

/* Find the parsed SPA / DCR with a given index, or NULL. */
const struct nfit_spa *nfit_find_spa(const struct nfit_table *t, u16 range_index);
const struct nfit_dcr *nfit_find_dcr(const struct nfit_table *t, u16 region_index);

/*
 * Turn a parsed NFIT into nvdimm objects on `bus`: one DIMM per device
 * handle (nmemN in handle order), one region per persistent-memory SPA
 * range with its mappings, flush hints, read-only flag (a mapped DIMM not
 * armed), NUMA node (proximity domain) and persistence domain (platform
 * capabilities). Bad cross references and overlapping ranges print a line
 * and are skipped. Returns the number of regions registered.
 */
int nfit_register(const struct nfit_table *t, struct nd_bus *bus);

/* nvdimm's DIMM flags (enum nd_dimm_flags) for a memdev's NFIT state flags. */
u32 nfit_dimm_flags(u16 memdev_flags);

/*
 * The NFIT provider, run by kmain after fw_tables_init(): parse every NFIT found,
 * register a bus for each and its DIMMs and regions. A table with a DIMM
 * handle an earlier table registered is refused whole, with one line (the
 * first wins, as Linux reads only the first). Returns regions added.
 */
int nfit_probe(void);

#endif
