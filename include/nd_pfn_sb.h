/*
 * Linux's pfn info block (struct nd_pfn_sb, "NVDIMM_PFN_INFO"), byte for
 * byte: 4096 bytes at offset 4 KiB of the namespace, little-endian, version
 * 1.4, Fletcher-64 checksum. FACTS §1 (source: linux drivers/nvdimm/pfn.h,
 * pfn_devs.c). pmemk writes what Linux writes and reads what Linux reads.
 */
#ifndef PMEMK_ND_PFN_SB_H
#define PMEMK_ND_PFN_SB_H

#include "types.h"

#define PFN_SIG "NVDIMM_PFN_INFO"	/* 16 bytes with the NUL */
#define DAX_SIG "NVDIMM_DAX_INFO"
#define BTT_SIG "BTT_ARENA_INFO\0"	/* 16 bytes with the two NULs (FACTS-2 §1.2) */
#define BTT_SIG_LEN 16
#define ND_BTT_V1_OFFSET 4096		/* BTT 1.1: label-less namespaces */
#define PFN_SIG_LEN 16
#define ND_PFN_SB_SIZE 4096
#define ND_PFN_SB_OFFSET 4096		/* info block at namespace + 4 KiB */
#define ND_INFO_BLOCK_RESERVE 8192	/* memmap/data never start below it */
#define MAX_STRUCT_PAGE_SIZE 64		/* memmap bytes reserved per page */
#define ND_PFN_COMPAT_ALIGN (2 * MiB)	/* memremap_compat_align() on x86 */

enum nd_pfn_mode {
	PFN_MODE_NONE = 0,
	PFN_MODE_RAM = 1,	/* map=mem: struct pages in RAM */
	PFN_MODE_PMEM = 2,	/* map=dev: struct pages on the device */
};

struct nd_pfn_sb {
	u8 signature[PFN_SIG_LEN];
	u8 uuid[16];
	u8 parent_uuid[16];
	u32 flags;
	u16 version_major;
	u16 version_minor;
	u64 dataoff;		/* relative to namespace base + start_pad */
	u64 npfns;
	u32 mode;
	/* minor >= 1 */
	u32 start_pad;
	u32 end_trunc;
	/* minor >= 2 */
	u32 align;
	/* minor >= 4 */
	u32 page_size;
	u16 page_struct_size;
	u8 padding[3994];
	u64 checksum;
} __packed;

_Static_assert(sizeof(struct nd_pfn_sb) == ND_PFN_SB_SIZE, "nd_pfn_sb is 4 KiB");
_Static_assert(offsetof(struct nd_pfn_sb, dataoff) == 56, "FACTS §1.2");
_Static_assert(offsetof(struct nd_pfn_sb, mode) == 72, "FACTS §1.2");
_Static_assert(offsetof(struct nd_pfn_sb, align) == 84, "FACTS §1.2");
_Static_assert(offsetof(struct nd_pfn_sb, page_struct_size) == 92, "FACTS §1.2");
_Static_assert(offsetof(struct nd_pfn_sb, checksum) == 4088, "FACTS §1.2");

/* The namespace an info block describes. */
struct nd_pfn_geom {
	u64 start;			/* physical base of the namespace */
	u64 size;
	u8 parent_uuid[16];		/* all zero for label-less namespaces */
};

/* What a valid block says, with the minor-version defaults applied. */
struct nd_pfn_layout {
	u8 uuid[16];
	enum nd_pfn_mode mode;
	u64 align;
	u64 dataoff;
	u64 npfns;
	u32 start_pad;
	u32 end_trunc;
	u16 version_minor;
	u32 page_size;
	u16 page_struct_size;
};

/* Fletcher-64 over the block with the checksum field taken as zero (FACTS §1.5). */
u64 nd_pfn_sb_checksum(const struct nd_pfn_sb *sb);

/*
 * Check a block read from the namespace, never writing: -ENODEV when it is
 * not ours (signature, checksum, parent uuid: try the next personality),
 * -ENXIO for a bad mode, -EOPNOTSUPP for a block this kernel cannot honour
 * (alignment, sizes, page size). *why gets a one-line reason naming the field.
 * Fills *out on success. Rules and order: FACTS §1.6.
 */
int nd_pfn_validate(const struct nd_pfn_sb *sb, const struct nd_pfn_geom *ns,
		    struct nd_pfn_layout *out, const char **why);

/*
 * Write a new block for `ns` (FACTS §1.7, what Linux's nd_pfn_init writes):
 * zeroes *sb and fills every field from nd_pfn_lay_out() (nd_pfn_layout.h),
 * then the checksum. -EINVAL for a bad mode, an unsupported align or a start
 * not 2 MiB aligned, -ENXIO when the namespace is too small for the layout.
 */
int nd_pfn_init(struct nd_pfn_sb *sb, const struct nd_pfn_geom *ns,
		enum nd_pfn_mode mode, u64 align, const u8 uuid[16], const char **why);

/*
 * The same block under the device-dax signature (FACTS-2 §2.1): Linux's
 * devdax info block is the fsdax one byte for byte but for the signature,
 * so both are written and checked by the same code. nd_dax_init writes what
 * `ndctl create-namespace -m devdax` does; nd_dax_validate adds devdax's
 * rule that align is 4 KiB, 2 MiB or 1 GiB.
 */
int nd_dax_init(struct nd_pfn_sb *sb, const struct nd_pfn_geom *ns,
		enum nd_pfn_mode mode, u64 align, const u8 uuid[16], const char **why);
int nd_dax_validate(const struct nd_pfn_sb *sb, const struct nd_pfn_geom *ns,
		    struct nd_pfn_layout *out, const char **why);

/*
 * What Linux left on a namespace, from its first `len` bytes (8 KiB read
 * from offset 0), in Linux's probe order (FACTS-2 §1.1): a BTT info block
 * at 4 KiB (BTT 1.1) or at 0 (BTT 2.0) with signature, checksum and a zero
 * parent uuid; else a pfn or dax block at 4 KiB with a valid checksum;
 * else raw. Reads only; the block's other fields are checked later.
 */
enum nd_personality {
	ND_PERS_RAW,
	ND_PERS_SECTOR,		/* BTT_ARENA_INFO */
	ND_PERS_FSDAX,		/* NVDIMM_PFN_INFO */
	ND_PERS_DEVDAX,		/* NVDIMM_DAX_INFO */
};
enum nd_personality nd_identify(const u8 *head, size_t len);
/* The same for a namespace whose uuid (a BTT's parent_uuid) is `parent` (zero: label-less). */
enum nd_personality nd_identify_ns(const u8 *head, size_t len, const u8 parent[16]);
/* ndctl's mode names: "raw", "sector", "fsdax", "devdax". */
const char *nd_personality_name(enum nd_personality p);

/* Alignments this kernel creates: 4 KiB, 2 MiB, and 1 GiB if the CPU has 1 GiB pages. */
bool nd_pfn_align_supported(u64 align);

const char *nd_pfn_mode_name(enum nd_pfn_mode mode);	/* "none", "mem", "dev" */

#endif
