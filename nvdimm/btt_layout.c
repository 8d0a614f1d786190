/*
 * BTT on-media format, pure functions: arena geometry as Linux lays it out,
 * info blocks written and checked field by field, log sequence and padding
 * rules. FACTS-2 §1.2-1.5; UEFI 2.7 §6.5 (BTT layout), §6.6 (BTT theory).
 */
#include <errno.h>
#include <string.h>

#include "btt_layout.h"
#include "nd_util.h"

bool btt_lbasize_supported(u32 lbasize)
{
	static const u32 sizes[] = { 512, 520, 528, 4096, 4104, 4160, 4224 };

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		if (sizes[i] == lbasize)
			return true;
	return false;
}

/* roundup(external, 64): the size of a data block. */
static u32 btt_internal_lbasize(u32 external_lbasize)
{
	return (u32)ALIGN_UP((u64)external_lbasize, BTT_INT_LBA_ALIGN);
}

/* FACTS-2 §1.3, steps 1-6: all offsets from the arena's info block. */
static int btt_arena_lay_out(u64 size, u32 lbasize, u32 nfree, struct btt_arena_geom *g)
{
	u64 logsize = ALIGN_UP((u64)nfree * BTT_LOG_GROUP, BTT_PAGE);
	u64 avail = ALIGN_DOWN(size, BTT_PAGE);
	u32 int_lbasize = btt_internal_lbasize(lbasize);

	memset(g, 0, sizeof(*g));
	if (!btt_lbasize_supported(lbasize) || nfree < 1 || nfree > BTT_NFREE_MAX)
		return -EINVAL;
	/* info and info2, the log, and one page (Linux's "- PAGE_SIZE") before data */
	if (avail < 3 * BTT_PAGE + logsize)
		return -ENOSPC;
	avail -= 2 * BTT_PAGE + logsize;
	u64 nlba = (avail - BTT_PAGE) / (int_lbasize + 4);
	if (nlba <= nfree)
		return -ENOSPC;
	if (nlba >= BTT_MAX_INTERNAL_NLBA)
		nlba = BTT_MAX_INTERNAL_NLBA - 1;	/* unreachable below 512 GiB arenas */
	u64 mapsize = ALIGN_UP((nlba - nfree) * 4, BTT_PAGE);
	u64 datasize = avail - mapsize;

	g->size = size;
	g->external_lbasize = lbasize;
	g->internal_lbasize = int_lbasize;
	g->internal_nlba = (u32)nlba;
	g->external_nlba = (u32)(nlba - nfree);
	g->nfree = nfree;
	g->dataoff = BTT_PAGE;
	g->mapoff = BTT_PAGE + datasize;
	g->logoff = g->mapoff + mapsize;
	g->info2off = g->logoff + logsize;
	return 0;
}

int btt_lay_out(u64 rawsize, u32 lbasize, struct btt_arena_geom *arenas, u32 max, u32 *nr)
{
	u64 remaining = rawsize, off = 0;

	*nr = 0;
	if (!btt_lbasize_supported(lbasize))
		return -EINVAL;
	if (rawsize < BTT_ARENA_MIN)
		return -ENOSPC;
	while (remaining) {
		u64 size = MIN(remaining, BTT_ARENA_MAX);

		remaining -= size;
		if (size < BTT_ARENA_MIN)
			break;	/* Linux leaves such a tail unused */
		if (*nr >= max)
			return -ENOSPC;
		struct btt_arena_geom *g = &arenas[(*nr)++];
		int err = btt_arena_lay_out(size, lbasize, BTT_NFREE, g);
		if (err)
			return err;
		g->off = off;
		g->nextoff = remaining >= BTT_ARENA_MIN ? size : 0;
		off += size;
	}
	return 0;
}

u64 btt_capacity_nlba(const struct btt_arena_geom *arenas, u32 nr)
{
	u64 n = 0;

	for (u32 i = 0; i < nr; i++)
		n += arenas[i].external_nlba;
	return n;
}

u64 btt_sb_checksum(const struct btt_sb *sb)
{
	return nd_info_block_checksum(sb);
}

void btt_sb_init(struct btt_sb *sb, const struct btt_arena_geom *g, const u8 uuid[16],
		 const u8 parent_uuid[16], u16 major, u16 minor)
{
	memset(sb, 0, sizeof(*sb));
	memcpy(sb->signature, BTT_SIG, BTT_SIG_LEN);
	memcpy(sb->uuid, uuid, 16);
	memcpy(sb->parent_uuid, parent_uuid, 16);
	sb->version_major = major;
	sb->version_minor = minor;
#define COPY(type, name) sb->name = g->name;
	BTT_GEOM_FIELDS(COPY)
#undef COPY
	sb->infosize = BTT_INFO_SIZE;
	sb->checksum = btt_sb_checksum(sb);
}

int btt_sb_identify(const struct btt_sb *sb, const u8 parent_uuid[16], const char **why)
{
	if (memcmp(sb->signature, BTT_SIG, BTT_SIG_LEN) != 0)
		REJECT(-ENODEV, "no BTT info block (signature is not BTT_ARENA_INFO)");
	if (!uuid_is_null(sb->parent_uuid) && memcmp(sb->parent_uuid, parent_uuid, 16) != 0)
		REJECT(-ENODEV, "BTT parent_uuid does not match the namespace");
	if (sb->checksum != btt_sb_checksum(sb))
		REJECT(-ENODEV, "BTT info block checksum mismatch");
	return 0;
}

/* Sizes and counts: what the areas' extents are computed from. */
static int btt_sb_check_counts(const struct btt_sb *sb, const char **why)
{
	if (!btt_lbasize_supported(sb->external_lbasize))
		REJECT(-EOPNOTSUPP,
		       "external_lbasize is not one Linux uses (512 520 528 4096 4104 4160 4224)");
	if (sb->internal_lbasize < sb->external_lbasize || sb->internal_lbasize > 64 * KiB)
		REJECT(-EINVAL, "internal_lbasize is below external_lbasize or over 64 KiB");
	if (sb->infosize != BTT_INFO_SIZE)
		REJECT(-EOPNOTSUPP, "infosize is not 4096");
	if (sb->nfree < BTT_NFREE)
		REJECT(-EINVAL, "nfree is smaller than the lane count (256)");
	if (sb->nfree > BTT_NFREE_MAX)
		REJECT(-EOPNOTSUPP, "nfree is over 4096");
	if (!sb->external_nlba || sb->internal_nlba >= BTT_MAX_INTERNAL_NLBA ||
	    (u64)sb->external_nlba + sb->nfree > sb->internal_nlba)
		REJECT(-EINVAL,
		       "internal_nlba is not external_nlba + nfree or more (or over 2^30)");
	return 0;
}

/* The areas in UEFI's order, inside the arena, none overlapping (all u64, no wrap). */
static int btt_sb_check_areas(const struct btt_sb *sb, u64 size, const char **why)
{
	u64 data_end = (u64)sb->internal_nlba * sb->internal_lbasize;
	u64 map_end = (u64)sb->external_nlba * 4, log_end = (u64)sb->nfree * BTT_LOG_GROUP;

	if (sb->info2off > size || size - sb->info2off < BTT_INFO_SIZE)
		REJECT(-EINVAL, "info2off leaves no room for info2 inside the arena");
	if (sb->logoff > sb->info2off || sb->info2off - sb->logoff < log_end)
		REJECT(-EINVAL, "logoff: the log does not fit before info2");
	if (sb->mapoff > sb->logoff || sb->logoff - sb->mapoff < map_end)
		REJECT(-EINVAL, "mapoff: the map does not fit before the log");
	if (sb->dataoff < BTT_INFO_SIZE || sb->dataoff > sb->mapoff ||
	    sb->mapoff - sb->dataoff < data_end)
		REJECT(-EINVAL,
		       "dataoff: the data blocks do not fit between the info block and the map");
	/* Single 4- and 8-byte stores for map entries and log halves (FACTS-2 §1.5, §1.7). */
	if (sb->mapoff % 4 || sb->logoff % 8 || sb->info2off % 8)
		REJECT(-EOPNOTSUPP, "map or log not naturally aligned");
	return 0;
}

int btt_sb_validate(const struct btt_sb *sb, u64 remaining, u16 major, u16 minor,
		    struct btt_arena_geom *g, const char **why)
{
	memset(g, 0, sizeof(*g));
	if (sb->version_major != major || sb->version_minor != minor)
		REJECT(-EINVAL,
		       major == 1 ?
			       "version is not 1.1 (what a BTT at 4 KiB of a label-less namespace holds)" :
			       "version is not 2.0 (what a BTT at offset 0 holds)");
	int err = btt_sb_check_counts(sb, why);
	if (err)
		return err;
	if (sb->nextoff && (sb->nextoff >= remaining || sb->nextoff % BTT_PAGE))
		REJECT(-EINVAL, "nextoff is past the end of the namespace or not 4 KiB aligned");
	u64 size = sb->nextoff ? sb->nextoff : remaining;
	err = btt_sb_check_areas(sb, size, why);
	if (err)
		return err;
	g->size = size;
#define COPY(type, name) g->name = sb->name;
	BTT_GEOM_FIELDS(COPY)
#undef COPY
	return 0;
}

u32 btt_seq_next(u32 seq)
{
	static const u32 next[] = { 1, 2, 3, 1 };

	return next[seq & 3];
}

int btt_log_newer(u32 seq0, u32 seq1)
{
	if (seq0 > 3 || seq1 > 3 || seq0 == seq1)
		return -1;
	if (seq0 == btt_seq_next(seq1))
		return 0;
	if (seq1 == btt_seq_next(seq0))
		return 1;
	return -1;	/* e.g. 2 and 0: no write leaves that */
}

static bool slot_is_padding(const u8 *slot)
{
	static const u8 zero[sizeof(struct btt_log_entry)];

	return memcmp(slot, zero, sizeof(zero)) == 0;
}

int btt_log_indices(const u8 *log, u32 nfree, u32 idx[2], const char **why)
{
	bool found = false;

	idx[0] = 0;
	idx[1] = 1;	/* every group still initial: the UEFI scheme */
	for (u32 g = 0; g < nfree; g++) {
		const u8 *grp = log + (u64)g * BTT_LOG_GROUP;
		u32 used[4], n = 0;

		for (u32 s = 0; s < 4; s++)
			if (!slot_is_padding(grp + s * sizeof(struct btt_log_entry)))
				used[n++] = s;
		if (n <= 1)
			continue;	/* initial: one entry, which is no evidence */
		if (n > 2)
			REJECT(-EINVAL, "a log group has more than two slots in use");
		if (found && (used[0] != idx[0] || used[1] != idx[1]))
			REJECT(-EINVAL, "log groups use different slot pairs");
		idx[0] = used[0];
		idx[1] = used[1];
		found = true;
	}
	if (idx[0] != 0 || (idx[1] != 1 && idx[1] != 2))
		REJECT(-EINVAL, "log slots in use are neither {0,1} nor {0,2}");
	return 0;
}
