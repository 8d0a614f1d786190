/*
 * The pfn info block: validate one read from a namespace, or write a new one,
 * exactly as Linux does (FACTS §1.5-1.8); the layout arithmetic itself is in
 * pfn_layout.c. Pure functions: no I/O here.
 */
#include <errno.h>
#include <string.h>

#include "nd_pfn_layout.h"
#include "arch.h"
#include "nd_pfn_sb.h"
#include "nd_util.h"
#include "unaligned.h"

u64 nd_pfn_sb_checksum(const struct nd_pfn_sb *sb)
{
	return nd_info_block_checksum(sb);
}

bool nd_pfn_align_supported(u64 align)
{
	/* Linux offers 1 GiB only where the CPU maps 1 GiB pages (PUD leaves). */
	return align == PAGE_SIZE || align == 2 * MiB || (align == 1 * GiB && arch_pte_leaf_allowed(PG_LEVEL_1G));
}

const char *nd_pfn_mode_name(enum nd_pfn_mode mode)
{
	switch (mode) {
	case PFN_MODE_RAM:
		return "mem";
	case PFN_MODE_PMEM:
		return "dev";
	default:
		return "none";
	}
}

static u64 pow2_floor(u64 v)
{
	return v ? 1ULL << (63 - __builtin_clzll(v)) : 0;
}

/* Rules 2-4: is this block ours at all? */
static int pfn_sb_identify(const struct nd_pfn_sb *sb, const struct nd_pfn_geom *ns,
			   const char *sig, const char **why)
{
	/* By content: whether two equal literals share an address is unspecified. */
	bool pfn = memcmp(sig, PFN_SIG, PFN_SIG_LEN) == 0;

	if (pfn && memcmp(sb->signature, DAX_SIG, PFN_SIG_LEN) == 0)
		REJECT(-ENODEV, "device-dax info block (NVDIMM_DAX_INFO): not an fsdax pfn device");
	if (memcmp(sb->signature, sig, PFN_SIG_LEN) != 0)
		REJECT(-ENODEV, pfn ? "no pfn info block (signature is not NVDIMM_PFN_INFO)" :
				      "no dax info block (signature is not NVDIMM_DAX_INFO)");
	if (sb->checksum != nd_pfn_sb_checksum(sb))
		REJECT(-ENODEV, "info block checksum mismatch");
	if (memcmp(sb->parent_uuid, ns->parent_uuid, 16) != 0)
		REJECT(-ENODEV, "parent_uuid does not match the namespace");
	if (sb->version_major != 1)
		REJECT(-EOPNOTSUPP, "version_major is not 1");
	return 0;
}

/* Rule 5: fields older minor versions lack get Linux's defaults. */
static void pfn_sb_defaults(const struct nd_pfn_sb *sb, struct nd_pfn_layout *l)
{
	memset(l, 0, sizeof(*l));
	memcpy(l->uuid, sb->uuid, 16);
	l->mode = (enum nd_pfn_mode)sb->mode;
	l->dataoff = sb->dataoff;
	l->npfns = sb->npfns;
	l->version_minor = sb->version_minor;
	l->page_size = PAGE_SIZE;
	l->page_struct_size = MAX_STRUCT_PAGE_SIZE;
	if (sb->version_minor >= 1) {
		l->start_pad = sb->start_pad;
		l->end_trunc = sb->end_trunc;
	}
	if (sb->version_minor >= 2)
		l->align = sb->align;
	if (sb->version_minor >= 4) {
		l->page_size = sb->page_size;
		l->page_struct_size = sb->page_struct_size;
	}
	if (!l->align)
		l->align = pow2_floor(l->dataoff);	/* rule 7 */
}

/* Rules 6-10: can this kernel honour the block's mode and sizes? */
static int pfn_sb_check_mode(const struct nd_pfn_layout *l, const char **why)
{
	if (l->mode != PFN_MODE_RAM && l->mode != PFN_MODE_PMEM)
		REJECT(-ENXIO, "mode is neither 1 (map=mem) nor 2 (map=dev)");
	if (l->mode == PFN_MODE_PMEM && l->page_size > PAGE_SIZE)
		REJECT(-EOPNOTSUPP, "page_size larger than this kernel's 4096");
	if (l->mode == PFN_MODE_PMEM && l->page_struct_size < MAX_STRUCT_PAGE_SIZE)
		REJECT(-EOPNOTSUPP, "page_struct_size smaller than this kernel's 64-byte struct page");
	if (l->align < PAGE_SIZE || l->align > 1 * GiB || (l->align & (l->align - 1)))
		REJECT(-EOPNOTSUPP, "align is not a power of two between 4 KiB and 1 GiB");
	return 0;
}

/* Rules 12-17 and the 8 KiB reserve: does the layout fit the namespace? */
static int pfn_sb_check_layout(struct nd_pfn_layout *l, const struct nd_pfn_geom *ns,
			       const char **why)
{
	struct nd_pfn_placement p;

	if (l->align > ns->size)
		REJECT(-EOPNOTSUPP, "align larger than the namespace");
	if (l->dataoff >= ns->size)
		REJECT(-EOPNOTSUPP, "dataoff past the end of the namespace");
	if (!IS_ALIGNED(l->dataoff, PAGE_SIZE) ||
	    !IS_ALIGNED(ns->start + l->start_pad + l->dataoff, l->align))
		REJECT(-EOPNOTSUPP, "dataoff not aligned to align (or to 4 KiB)");
	int err = nd_pfn_place(ns->start, ns->size, l, &p, why); /* rules 15-17 */
	if (err)
		return err;
	if (l->mode == PFN_MODE_PMEM)
		l->npfns = p.npfns; /* Linux recomputes it for map=dev */
	else if (l->npfns > p.npfns)
		REJECT(-EOPNOTSUPP, "npfns runs past the end of the namespace");
	return 0;
}

/* The pfn and dax blocks share every rule; only the signature differs (FACTS-2 §2.1). */
static int info_block_validate(const struct nd_pfn_sb *sb, const struct nd_pfn_geom *ns,
			       const char *sig, struct nd_pfn_layout *out, const char **why)
{
	struct nd_pfn_layout l;
	int err = pfn_sb_identify(sb, ns, sig, why);

	if (err)
		return err;
	pfn_sb_defaults(sb, &l);
	err = pfn_sb_check_mode(&l, why);
	if (!err)
		err = pfn_sb_check_layout(&l, ns, why);
	if (err)
		return err;
	*out = l;
	*why = NULL;
	return 0;
}

int nd_pfn_validate(const struct nd_pfn_sb *sb, const struct nd_pfn_geom *ns,
		    struct nd_pfn_layout *out, const char **why)
{
	return info_block_validate(sb, ns, PFN_SIG, out, why);
}

int nd_dax_validate(const struct nd_pfn_sb *sb, const struct nd_pfn_geom *ns,
		    struct nd_pfn_layout *out, const char **why)
{
	int err = info_block_validate(sb, ns, DAX_SIG, out, why);

	if (!err && out->align != PAGE_SIZE && out->align != 2 * MiB && out->align != 1 * GiB)
		REJECT(-EOPNOTSUPP, "device-dax align is not 4 KiB, 2 MiB or 1 GiB");
	return err;
}

static bool btt_sb_valid(const u8 *blk, const u8 parent[16])
{
	/* FACTS-2 §1.2: signature, checksum; parent_uuid the namespace's (zero when label-less). */
	return memcmp(blk, BTT_SIG, BTT_SIG_LEN) == 0 && get_le64(blk + 4088) == nd_info_block_checksum(blk) &&
	       memcmp(blk + 32, parent, 16) == 0;
}

enum nd_personality nd_identify(const u8 *head, size_t len)
{
	static const u8 label_less[16];

	return nd_identify_ns(head, len, label_less);
}

enum nd_personality nd_identify_ns(const u8 *head, size_t len, const u8 parent[16])
{
	if (len >= ND_BTT_V1_OFFSET + ND_INFO_BLOCK_SIZE && btt_sb_valid(head + ND_BTT_V1_OFFSET, parent))
		return ND_PERS_SECTOR;
	if (len >= ND_INFO_BLOCK_SIZE && btt_sb_valid(head, parent))
		return ND_PERS_SECTOR;
	if (len < ND_PFN_SB_OFFSET + ND_PFN_SB_SIZE)
		return ND_PERS_RAW;
	const u8 *sb = head + ND_PFN_SB_OFFSET;
	if (get_le64(sb + 4088) != nd_info_block_checksum(sb))
		return ND_PERS_RAW;
	if (memcmp(sb, PFN_SIG, PFN_SIG_LEN) == 0)
		return ND_PERS_FSDAX;
	if (memcmp(sb, DAX_SIG, PFN_SIG_LEN) == 0)
		return ND_PERS_DEVDAX;
	return ND_PERS_RAW;
}

const char *nd_personality_name(enum nd_personality p)
{
	switch (p) {
	case ND_PERS_SECTOR:	return "sector";
	case ND_PERS_FSDAX:	return "fsdax";
	case ND_PERS_DEVDAX:	return "devdax";
	default:		return "raw";
	}
}

/* Linux's nd_pfn_init for either signature: one layout, two personalities (FACTS-2 §2.1). */
static int info_block_init(struct nd_pfn_sb *sb, const struct nd_pfn_geom *ns, const char *sig,
			   enum nd_pfn_mode mode, u64 align, const u8 uuid[16], const char **why)
{
	struct nd_pfn_layout l;
	struct nd_pfn_placement p;
	int err = nd_pfn_lay_out(ns->start, ns->size, mode, align, &l, &p, why);

	if (err)
		return err;
	memset(sb, 0, sizeof(*sb));
	memcpy(sb->signature, sig, PFN_SIG_LEN);
	memcpy(sb->uuid, uuid, 16);
	memcpy(sb->parent_uuid, ns->parent_uuid, 16);
	sb->version_major = 1;
	sb->version_minor = l.version_minor;
	sb->dataoff = l.dataoff;
	sb->npfns = l.npfns;
	sb->mode = l.mode;
	sb->start_pad = l.start_pad;
	sb->end_trunc = l.end_trunc;
	sb->align = (u32)l.align;
	sb->page_size = l.page_size;
	sb->page_struct_size = l.page_struct_size;
	sb->checksum = nd_pfn_sb_checksum(sb);
	return 0;
}

int nd_pfn_init(struct nd_pfn_sb *sb, const struct nd_pfn_geom *ns,
		enum nd_pfn_mode mode, u64 align, const u8 uuid[16], const char **why)
{
	return info_block_init(sb, ns, PFN_SIG, mode, align, uuid, why);
}

int nd_dax_init(struct nd_pfn_sb *sb, const struct nd_pfn_geom *ns,
		enum nd_pfn_mode mode, u64 align, const u8 uuid[16], const char **why)
{
	return info_block_init(sb, ns, DAX_SIG, mode, align, uuid, why);
}
