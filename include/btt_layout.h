/*
 * The BTT (Block Translation Table, ndctl mode "sector") on-media format,
 * byte for byte as Linux 6.1 and UEFI 2.7 §6 ("Block Translation Table (BTT)
 * Layout") define it: the info block (EFI_BTT_INFO_BLOCK), the arena
 * geometry Linux's create_arenas/alloc_arena compute, map entries and log
 * (flog) entries. FACTS-2 §1.2-1.5. Pure: no I/O here (nvdimm/btt_layout.c);
 * the engine that reads and writes through these is btt.h.
 */
#ifndef PMEMK_BTT_LAYOUT_H
#define PMEMK_BTT_LAYOUT_H

#include "nd_pfn_sb.h"
#include "types.h"

#define BTT_INFO_SIZE 4096		/* info block and its backup, info2 */
#define BTT_PAGE 4096ULL		/* Linux's unit for arena areas (PAGE_SIZE) */
#define BTT_ARENA_MIN (16 * MiB)	/* FACTS-2 §1.3 */
#define BTT_ARENA_MAX (512 * GiB)
#define BTT_NFREE 256			/* ND_MAX_LANES: what Linux writes and needs */
#define BTT_NFREE_MAX 4096		/* what pmemk reads (Linux: any >= 256) */
#define BTT_MAX_ARENAS 128		/* 64 TiB of namespace */
#define BTT_INT_LBA_ALIGN 64		/* internal_lbasize = roundup(external, 64) */
#define BTT_LOG_GROUP 64		/* bytes of log per lane: 4 slots of 16 */
#define BTT_IB_FLAG_ERROR 0x1U		/* info flags bit 0: arena metadata lost, read-only */

/* Map entry (FACTS-2 §1.4): post-map block in bits 0-29, E bit 30, Z bit 31. */
#define BTT_MAP_LBA_MASK 0x3FFFFFFFU
#define BTT_MAP_E 0x40000000U
#define BTT_MAP_Z 0x80000000U
#define BTT_MAP_NORMAL (BTT_MAP_Z | BTT_MAP_E)
#define BTT_MAX_INTERNAL_NLBA (1U << 30)	/* what 30 bits address */

/* Where the first arena starts: BTT 1.1 on label-less namespaces, 2.0 at 0. */
#define BTT_V1_OFFSET ND_BTT_V1_OFFSET
#define BTT_V2_OFFSET 0

/* EFI_BTT_INFO_BLOCK / Linux struct btt_sb: 4096 bytes, little-endian. */
struct btt_sb {
	u8 signature[BTT_SIG_LEN];	/* "BTT_ARENA_INFO\0\0" */
	u8 uuid[16];
	u8 parent_uuid[16];		/* zero on label-less namespaces */
	u32 flags;
	u16 version_major;
	u16 version_minor;
	u32 external_lbasize;
	u32 external_nlba;
	u32 internal_lbasize;
	u32 internal_nlba;
	u32 nfree;
	u32 infosize;
	u64 nextoff;			/* offsets from this arena's info block */
	u64 dataoff;
	u64 mapoff;
	u64 logoff;
	u64 info2off;
	u8 padding[3968];
	u64 checksum;			/* nd_fletcher64 with this field zero */
} __packed;

_Static_assert(sizeof(struct btt_sb) == BTT_INFO_SIZE, "UEFI 2.7 §6.5.1: 4 KiB");
_Static_assert(offsetof(struct btt_sb, external_lbasize) == 56, "FACTS-2 §1.2");
_Static_assert(offsetof(struct btt_sb, nextoff) == 80, "FACTS-2 §1.2");
_Static_assert(offsetof(struct btt_sb, info2off) == 112, "FACTS-2 §1.2");
_Static_assert(offsetof(struct btt_sb, checksum) == 4088, "FACTS-2 §1.2");

/* One log slot (EFI_BTT_FLOG's Lba/OldMap/NewMap/Seq pairs), FACTS-2 §1.5. */
struct btt_log_entry {
	u32 lba;	/* pre-map (external) LBA, arena-relative */
	u32 old_map;	/* the block it left: free after this write */
	u32 new_map;	/* the block it now maps to */
	u32 seq;	/* 1 -> 2 -> 3 -> 1; 0 = never written */
} __packed;

_Static_assert(sizeof(struct btt_log_entry) == 16, "FACTS-2 §1.5");

/* The fields an arena's geometry and its info block share, by name. */
#define BTT_GEOM_FIELDS(X)                                                      \
	X(u32, external_lbasize)                                                \
	X(u32, internal_lbasize)                                                \
	X(u32, external_nlba)                                                   \
	X(u32, internal_nlba)                                                   \
	X(u32, nfree)                                                           \
	X(u64, nextoff)                                                         \
	X(u64, dataoff)                                                         \
	X(u64, mapoff)                                                          \
	X(u64, logoff)                                                          \
	X(u64, info2off)

/* One arena as laid out: areas as offsets from the arena's info block. */
#define BTT_GEOM_FIELD(type, name) type name;
struct btt_arena_geom {
	u64 off;		/* arena start, from the first arena's start */
	u64 size;		/* bytes it spans (the last: up to the end of the BTT space) */
	BTT_GEOM_FIELDS(BTT_GEOM_FIELD)	/* offsets from the arena's info block */
};
#undef BTT_GEOM_FIELD

/* External sector sizes Linux's BTT accepts (512 520 528 4096 4104 4160 4224). */
bool btt_lbasize_supported(u32 lbasize);

/*
 * Lay out the BTT space of `rawsize` bytes (namespace size minus the
 * initial offset) as Linux's create_arenas: arenas of min(512 GiB, what
 * remains), a tail under 16 MiB unused, nextoff = the arena's size when
 * another follows. Fills up to `max` entries of `arenas`, sets *nr. -ENOSPC
 * when rawsize is under 16 MiB or needs more than `max` arenas, -EINVAL for
 * an unsupported lbasize.
 */
int btt_lay_out(u64 rawsize, u32 lbasize, struct btt_arena_geom *arenas, u32 max, u32 *nr);

/* Blocks a BTT of this geometry exports: the sum of external_nlba. */
u64 btt_capacity_nlba(const struct btt_arena_geom *arenas, u32 nr);

/*
 * Fill a new info block for arena `g` (what Linux writes, FACTS-2 §1.2):
 * every other byte zero, flags 0, infosize 4096, checksum last.
 */
void btt_sb_init(struct btt_sb *sb, const struct btt_arena_geom *g, const u8 uuid[16],
		 const u8 parent_uuid[16], u16 major, u16 minor);

/* The checksum a block should carry (Fletcher-64 with the field as zero). */
u64 btt_sb_checksum(const struct btt_sb *sb);

/*
 * Is this a BTT info block for a namespace whose uuid is `parent_uuid` (all
 * zero for label-less)? Linux's nd_btt_arena_is_valid: signature, parent
 * uuid zero or equal, checksum. -ENODEV with *why naming the first failure.
 */
int btt_sb_identify(const struct btt_sb *sb, const u8 parent_uuid[16], const char **why);

/*
 * Check every field of an identified info block before anything trusts
 * it, for an arena starting `remaining` bytes before the end of the BTT
 * space: version (major.minor as expected for where the block is), sector
 * sizes, nfree (>= 256 as Linux needs, <= BTT_NFREE_MAX), infosize,
 * counts (internal = external + nfree at least, 30-bit block numbers), and
 * the areas in UEFI's order inside the arena (info, data, map, log, info2),
 * none overlapping. Fills *g (off left 0, size = nextoff or `remaining`).
 * -EINVAL (or -EOPNOTSUPP for a valid layout pmemk cannot serve) with a
 * one-line *why naming the field.
 */
int btt_sb_validate(const struct btt_sb *sb, u64 remaining, u16 major, u16 minor,
		    struct btt_arena_geom *g, const char **why);

/* Log sequence numbers: the one after `seq` (1 -> 2 -> 3 -> 1; 0 -> 1). */
u32 btt_seq_next(u32 seq);

/*
 * Which of a lane's two slots is the newer (FACTS-2 §1.5): 0 or 1, or -1
 * when the pair is corrupt (equal, out of range, or neither follows the
 * other in the cycle; a never-written slot, seq 0, is older than any).
 */
int btt_log_newer(u32 seq0, u32 seq1);

/*
 * The log's padding scheme (FACTS-2 §1.5, Linux's log_set_indices): from
 * the nfree groups of 64 bytes at `log`, the two slots in use, {0, 1}
 * (Linux >= 4.15, UEFI) or {0, 2} (older Linux). -EINVAL with *why when
 * groups disagree or use another pair.
 */
int btt_log_indices(const u8 *log, u32 nfree, u32 idx[2], const char **why);

/* A map entry's post-map block for external LBA `lba` (identity when Z=E=0). */
static inline u32 btt_map_block(u32 entry, u32 lba)
{
	return (entry & BTT_MAP_NORMAL) ? (entry & BTT_MAP_LBA_MASK) : lba;
}

#endif
