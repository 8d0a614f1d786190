/*
 * The label storage area, parsed and built (nd_label.h). Layouts from
 * FACTS-2 §3.1 (UEFI 2.7 §13.19 EFI_NVDIMM_LABEL_INDEX_BLOCK and
 * EFI_NVDIMM_LABEL; Linux drivers/nvdimm/label.h), validation rules from
 * FACTS-2 §3.1 (Linux label.c __nd_label_validate, slot_valid), printing
 * from ndctl's read-labels -j (ndctl/dimm.c). The area is untrusted: every
 * field is checked before it is used, and a refused block or label gets
 * one reason.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nd_label.h"
#include "nd_util.h"
#include "nvdimm.h"
#include "unaligned.h"

/* Index block fields (FACTS-2 §3.1). */
#define IDX_SIG 0
#define IDX_FLAGS 16
#define IDX_LABELSIZE 19
#define IDX_SEQ 20
#define IDX_MYOFF 24
#define IDX_MYSIZE 32
#define IDX_OTHEROFF 40
#define IDX_LABELOFF 48
#define IDX_NSLOT 56
#define IDX_MAJOR 60
#define IDX_MINOR 62
#define IDX_CHECKSUM 64
#define IDX_FREE 72

/* Label fields (FACTS-2 §3.1); v1.1 labels end at 128. */
#define LBL_UUID 0
#define LBL_NAME 16
#define LBL_FLAGS 80
#define LBL_NLABEL 84
#define LBL_POSITION 86
#define LBL_ISETCOOKIE 88
#define LBL_LBASIZE 96
#define LBL_DPA 104
#define LBL_RAWSIZE 112
#define LBL_SLOT 120
#define LBL_ALIGN 124
#define LBL_TYPE_GUID 128
#define LBL_ABSTRACTION_GUID 144
#define LBL_CHECKSUM 248

const u8 nd_label_pmem_type_guid[16] = { 0x79, 0xd3, 0xf0, 0x66, 0xf3, 0xb4, 0x74, 0x40,
					 0xac, 0x43, 0x0d, 0x33, 0x18, 0xb7, 0x8c, 0xdb };

/* Abstraction GUIDs as stored (GUID byte order), Linux's NVDIMM_*_GUID. */
static const struct {
	enum nd_claim_class cls;
	u8 guid[16];
	const char *mode;
} claim_guids[] = {
	/* 266400ba-fb9f-4677-bcb0-968f11d0d225 */
	{ ND_CLAIM_PFN, { 0xba, 0x00, 0x64, 0x26, 0x9f, 0xfb, 0x77, 0x46,
			  0xbc, 0xb0, 0x96, 0x8f, 0x11, 0xd0, 0xd2, 0x25 }, "fsdax" },
	/* 97a86d9c-3cdd-4eda-986f-5068b4f80088 */
	{ ND_CLAIM_DAX, { 0x9c, 0x6d, 0xa8, 0x97, 0xdd, 0x3c, 0xda, 0x4e,
			  0x98, 0x6f, 0x50, 0x68, 0xb4, 0xf8, 0x00, 0x88 }, "devdax" },
	/* 8aed63a2-29a2-4c66-8b12-f05d15d3922a */
	{ ND_CLAIM_BTT, { 0xa2, 0x63, 0xed, 0x8a, 0xa2, 0x29, 0x66, 0x4c,
			  0x8b, 0x12, 0xf0, 0x5d, 0x15, 0xd3, 0x92, 0x2a }, "sector" },
	/* 18633bfc-1735-4217-8ac9-17239282d3f8 */
	{ ND_CLAIM_BTT2, { 0xfc, 0x3b, 0x63, 0x18, 0x35, 0x17, 0x17, 0x42,
			   0x8a, 0xc9, 0x17, 0x23, 0x92, 0x82, 0xd3, 0xf8 }, "sector" },
};

enum nd_claim_class nd_label_claim_class(const u8 guid[16])
{
	if (uuid_is_null(guid))
		return ND_CLAIM_NONE;
	for (size_t i = 0; i < ARRAY_SIZE(claim_guids); i++)
		if (!memcmp(guid, claim_guids[i].guid, 16))
			return claim_guids[i].cls;
	return ND_CLAIM_UNKNOWN;
}

void nd_label_claim_guid(enum nd_claim_class c, u8 guid[16])
{
	memset(guid, 0, 16);
	for (size_t i = 0; i < ARRAY_SIZE(claim_guids); i++)
		if (claim_guids[i].cls == c)
			memcpy(guid, claim_guids[i].guid, 16);
}

const char *nd_claim_class_mode(enum nd_claim_class c)
{
	for (size_t i = 0; i < ARRAY_SIZE(claim_guids); i++)
		if (claim_guids[i].cls == c)
			return claim_guids[i].mode;
	return "raw";
}

/* The 2-bit cycle (FACTS-2 §3.1; Linux nd_inc_seq). */
u32 nd_label_next_seq(u32 seq)
{
	static const u32 next[4] = { 0, 2, 3, 1 };

	return next[seq & 3];
}

/* Of two valid sequence numbers, the newer (Linux best_seq): equal -> b. */
static u32 newer_seq(u32 a, u32 b)
{
	a &= 3;
	b &= 3;
	if (a == 0 || a == b)
		return b;
	if (b == 0)
		return a;
	return nd_label_next_seq(a) == b ? b : a;
}

static u32 index_size_for(u32 nslot)
{
	return ALIGN_UP(ND_LABEL_INDEX_HDR + DIV_ROUND_UP(nslot, 8), ND_LABEL_INDEX_ALIGN);
}

/* Linux nvdimm_num_label_slots: estimate the index from a first guess of nslot. */
u32 nd_lsa_nslot(u32 area_size, u32 label_size)
{
	u32 guess = index_size_for(area_size / label_size);

	return area_size > 2 * guess ? (area_size - 2 * guess) / label_size : 0;
}

u32 nd_lsa_index_size(u32 area_size, u32 label_size)
{
	u32 nslot = nd_lsa_nslot(area_size, label_size);
	u32 size = index_size_for(nslot);

	if (nslot < 2 || 2 * (u64)size > area_size - (u64)nslot * label_size)
		return 0;	/* too small for two index blocks and two labels */
	return size;
}

/* Fletcher-64 of `len` bytes with the 8 bytes at `skip` taken as zero. */
static u64 checksum_skipping(const u8 *p, u32 len, u32 skip)
{
	u64 a = nd_fletcher64(p, skip);
	u32 lo = (u32)a, hi = (u32)(a >> 32);

	hi += 2 * lo;	/* the two zero words */
	for (u32 i = skip + 8; i + 4 <= len; i += 4) {
		lo += get_le32(p + i);
		hi += lo;
	}
	return (u64)hi << 32 | lo;
}

static void read_index(struct nd_label_index *ix, const u8 *b)
{
	memcpy(ix->sig, b + IDX_SIG, 15);
	ix->sig[15] = 0;
	ix->major = get_le16(b + IDX_MAJOR);
	ix->minor = get_le16(b + IDX_MINOR);
	ix->labelsize = b[IDX_LABELSIZE];
	ix->seq = get_le32(b + IDX_SEQ);
	ix->nslot = get_le32(b + IDX_NSLOT);
}

/* The label bytes an index block declares (FACTS-2 §3.1: ignored for v1.1). */
static u32 declared_label_size(const struct nd_label_index *ix)
{
	if (ix->major == 1 && ix->minor == 1)
		return 128;
	return ix->labelsize <= 1 ? 128u << ix->labelsize : 0;
}

/* Check index block `i` of an area whose labels are `label_size` bytes. */
static const char *index_refusal(const u8 *area, u32 size, int i, u32 label_size,
				 const struct nd_label_index *ix)
{
	u32 isize = nd_lsa_index_size(size, label_size);
	const u8 *b = area + (u32)i * isize;

	if (!isize)
		return "label area too small for two index blocks";
	if (memcmp(b + IDX_SIG, ND_LABEL_INDEX_SIG, 16))
		return "no NAMESPACE_INDEX signature";
	if (ix->major != 1 || (ix->minor != 1 && ix->minor != 2))
		return "version is not 1.1 or 1.2";
	if (declared_label_size(ix) != label_size)
		return "label size field does not match";
	if (get_le64(b + IDX_CHECKSUM) != checksum_skipping(b, isize, IDX_CHECKSUM))
		return "checksum mismatch";
	if ((ix->seq & 3) == 0)
		return "sequence number 0";
	if (get_le64(b + IDX_MYOFF) != (u64)i * isize)
		return "myoff is not where the block is";
	if (get_le64(b + IDX_OTHEROFF) != (u64)(1 - i) * isize)
		return "otheroff is not the other block";
	if (get_le64(b + IDX_LABELOFF) != 2 * (u64)isize)
		return "labeloff is not after the two index blocks";
	if (get_le64(b + IDX_MYSIZE) < ND_LABEL_INDEX_HDR || get_le64(b + IDX_MYSIZE) > isize)
		return "mysize out of range";
	if (ix->nslot < 1 || (u64)ix->nslot * label_size + 2 * (u64)isize > size)
		return "nslot does not fit in the label area";
	/*
	 * Bits past nslot are not checked: Linux clears them, but ndctl
	 * init-labels sets whole bytes (the v1.2 fixtures' last byte is 0xff
	 * with nslot 510), and Linux accepts both.
	 */
	return NULL;
}

void nd_label_decode(struct nd_label *l, const u8 *area, u32 off, u32 label_size)
{
	const u8 *p = area + off;

	memset(l, 0, sizeof(*l));
	memcpy(l->uuid, p + LBL_UUID, 16);
	memcpy(l->name, p + LBL_NAME, ND_LABEL_NAME_LEN);
	l->name[ND_LABEL_NAME_LEN - 1] = 0;	/* as ndctl does */
	l->flags = get_le32(p + LBL_FLAGS);
	l->nlabel = get_le16(p + LBL_NLABEL);
	l->position = get_le16(p + LBL_POSITION);
	l->isetcookie = get_le64(p + LBL_ISETCOOKIE);
	l->lbasize = get_le64(p + LBL_LBASIZE);
	l->dpa = get_le64(p + LBL_DPA);
	l->rawsize = get_le64(p + LBL_RAWSIZE);
	l->slot = get_le32(p + LBL_SLOT);
	if (label_size >= 256) {
		l->align = p[LBL_ALIGN];
		memcpy(l->type_guid, p + LBL_TYPE_GUID, 16);
		memcpy(l->abstraction_guid, p + LBL_ABSTRACTION_GUID, 16);
	}
}

/* Why a label in use must not be believed (Linux slot_valid, and sanity). */
static const char *label_refusal(const u8 *area, u32 off, u32 label_size, u32 slot,
				 const struct nd_label *l)
{
	if (l->slot != slot)
		return "slot field does not match its slot";
	if (label_size >= 256 &&
	    get_le64(area + off + LBL_CHECKSUM) != checksum_skipping(area + off, 256, LBL_CHECKSUM))
		return "checksum mismatch";
	if (uuid_is_null(l->uuid))
		return "null uuid";
	if (!l->rawsize)
		return "rawsize 0";
	if (l->dpa + l->rawsize < l->dpa)
		return "dpa + rawsize wraps";
	if (!IS_ALIGNED(l->dpa | l->rawsize, PAGE_SIZE))
		return "dpa or rawsize not 4 KiB aligned";
	return NULL;
}

static void collect_labels(struct nd_lsa *lsa, const u8 *area)
{
	const u8 *map = area + (u32)lsa->current * lsa->index_size + IDX_FREE;

	for (u32 s = 0; s < lsa->nslot; s++) {
		u32 off = 2 * lsa->index_size + s * lsa->label_size;
		struct nd_label l;
		const char *why;

		if (nd_label_slot_free(map, s))
			continue;
		nd_label_decode(&l, area, off, lsa->label_size);
		why = label_refusal(area, off, lsa->label_size, s, &l);
		if (!why && lsa->nr_live >= ND_LABEL_MAX_LIVE)
			why = "more live labels than pmemk keeps";
		if (why) {
			if (lsa->nr_refused < ND_LABEL_MAX_LIVE)
				lsa->refused[lsa->nr_refused++] = (struct nd_label_refusal){ s, why };
			continue;
		}
		lsa->live[lsa->nr_live++] = l;
	}
}

/* Validate both index blocks for labels of `label_size`; the current one or -1. */
static int pick_index(struct nd_lsa *lsa, const u8 *area, u32 size, u32 label_size)
{
	for (int i = 0; i < 2; i++) {
		struct nd_label_index *ix = &lsa->index[i];

		ix->why = index_refusal(area, size, i, label_size, ix);
		ix->valid = !ix->why;
	}
	if (lsa->index[0].valid && lsa->index[1].valid)
		return newer_seq(lsa->index[1].seq, lsa->index[0].seq) == (lsa->index[1].seq & 3) ?
			       1 : 0;
	return lsa->index[0].valid ? 0 : lsa->index[1].valid ? 1 : -1;
}

int nd_lsa_parse(struct nd_lsa *lsa, const u8 *area, u32 size)
{
	static const u32 sizes[] = { 256, 128 };	/* Linux tries v1.2 first */
	struct nd_label_index first[2];

	memset(lsa, 0, sizeof(*lsa));
	lsa->size = size;
	lsa->current = -1;
	for (size_t k = 0; k < ARRAY_SIZE(sizes); k++) {
		u32 isize = nd_lsa_index_size(size, sizes[k]);

		for (int i = 0; i < 2; i++)
			if (isize && (u64)(i + 1) * isize <= size)
				read_index(&lsa->index[i], area + (u32)i * isize);
		lsa->current = pick_index(lsa, area, size, sizes[k]);
		if (k == 0)
			memcpy(first, lsa->index, sizeof(first));
		if (lsa->current >= 0) {
			lsa->label_size = sizes[k];
			lsa->index_size = isize;
			break;
		}
	}
	if (lsa->current < 0) {
		/* Say why for the v1.2 geometry, the one Linux writes by default. */
		memcpy(lsa->index, first, sizeof(first));
		lsa->label_size = 128;
		lsa->index_size = nd_lsa_index_size(size, 128);
		return -EINVAL;
	}
	lsa->nslot = lsa->index[lsa->current].nslot;
	collect_labels(lsa, area);
	return 0;
}

/* ---- ndctl read-labels -j ---- */

static void index_json(struct nd_json *j, const u8 *b)
{
	struct nd_label_index ix;

	read_index(&ix, b);
	nd_json_open(j, NULL, '{');
	nd_json_str(j, "signature", ix.sig);
	nd_json_u64(j, "major", ix.major);
	nd_json_u64(j, "minor", ix.minor);
	/* ndctl prints 1 << (7 + labelsize) whatever the version. */
	nd_json_u64(j, "labelsize", ix.labelsize < 25 ? 128ull << ix.labelsize : 0);
	nd_json_u64(j, "seq", ix.seq);
	nd_json_u64(j, "nslot", ix.nslot);
	nd_json_close(j, '}');
}

static void label_json(struct nd_json *j, const struct nd_label *l, u32 label_size)
{
	char u[UUID_STR_LEN + 1];

	nd_json_open(j, NULL, '{');
	uuid_to_str(l->uuid, u);
	nd_json_str(j, "uuid", u);
	nd_json_str(j, "name", l->name);
	nd_json_u64(j, "slot", l->slot);
	nd_json_u64(j, "position", l->position);
	nd_json_u64(j, "nlabel", l->nlabel);
	nd_json_u64(j, "flags", l->flags);
	nd_json_u64(j, "isetcookie", l->isetcookie);
	nd_json_u64(j, "lbasize", l->lbasize);
	nd_json_u64(j, "dpa", l->dpa);
	nd_json_u64(j, "rawsize", l->rawsize);
	if (label_size >= 256) {
		/* ndctl prints the GUIDs' stored bytes in order, as a uuid. */
		uuid_to_str(l->type_guid, u);
		nd_json_str(j, "type_guid", u);
		uuid_to_str(l->abstraction_guid, u);
		nd_json_str(j, "abstraction_guid", u);
	}
	nd_json_close(j, '}');
}

void nd_lsa_json(const u8 *area, u32 size, const char *dev)
{
	static struct nd_lsa lsa;
	struct nd_json j = { .first = true };
	u32 isize;

	nd_lsa_parse(&lsa, area, size);
	isize = lsa.index_size;
	nd_json_open(&j, NULL, '[');
	nd_json_open(&j, NULL, '{');
	nd_json_str(&j, "dev", dev);
	nd_json_open(&j, "index", '[');
	for (u32 i = 0; isize && i < 2; i++)
		index_json(&j, area + i * isize);
	nd_json_close(&j, ']');
	/* Every slot whose slot field is its position, in use or not (ndctl). */
	nd_json_open(&j, "label", '[');
	for (u32 off = 2 * isize, s = 0; isize && off + lsa.label_size <= size;
	     off += lsa.label_size, s++) {
		struct nd_label l;

		nd_label_decode(&l, area, off, lsa.label_size);
		if (l.slot == s)
			label_json(&j, &l, lsa.label_size);
	}
	nd_json_close(&j, ']');
	nd_json_close(&j, '}');
	nd_json_close(&j, ']');
}

/* ---- cookies ---- */

u64 nd_label_cookie(const struct nd_cookie_rec *recs, u32 n, bool v1_2)
{
	u8 buf[48 * ND_MAX_MAPPINGS];
	u32 rec = v1_2 ? 48 : 16;

	memset(buf, 0, sizeof(buf));
	for (u32 i = 0; i < n && i < ND_MAX_MAPPINGS; i++) {
		u8 *p = buf + i * rec;

		put_le64(p, recs[i].region_offset);
		put_le32(p + 8, recs[i].serial);
		if (v1_2) {
			put_le16(p + 12, recs[i].vendor);
			put_le16(p + 14, recs[i].mfg_date);
			p[16] = recs[i].mfg_loc;
		}
	}
	return nd_fletcher64(buf, MIN(n, (u32)ND_MAX_MAPPINGS) * rec);
}

/* ---- writers ---- */

static void put_index(u8 *area, u32 isize, int i, u32 seq, u32 nslot, u32 label_size,
		      const u8 *free_map)
{
	u8 *b = area + (u32)i * isize;

	memset(b, 0, isize);
	memcpy(b + IDX_SIG, ND_LABEL_INDEX_SIG, 16);
	b[IDX_LABELSIZE] = label_size == 256 ? 1 : 0;
	put_le32(b + IDX_SEQ, seq);
	put_le64(b + IDX_MYOFF, (u64)i * isize);
	put_le64(b + IDX_MYSIZE, isize);
	put_le64(b + IDX_OTHEROFF, (u64)(1 - i) * isize);
	put_le64(b + IDX_LABELOFF, 2 * (u64)isize);
	put_le32(b + IDX_NSLOT, nslot);
	put_le16(b + IDX_MAJOR, 1);
	put_le16(b + IDX_MINOR, label_size == 256 ? 2 : 1);
	if (free_map) {
		memcpy(b + IDX_FREE, free_map, DIV_ROUND_UP(nslot, 8));
	} else {	/* every slot free; bits past nslot clear, as Linux writes them */
		memset(b + IDX_FREE, 0xff, nslot / 8);
		if (nslot % 8)
			b[IDX_FREE + nslot / 8] = (u8)((1u << (nslot % 8)) - 1);
	}
	put_le64(b + IDX_CHECKSUM, checksum_skipping(b, isize, IDX_CHECKSUM));
}

int nd_lsa_init(u8 *area, u32 size, u32 label_size)
{
	u32 isize, nslot;

	if (label_size != 128 && label_size != 256)
		return -EINVAL;
	isize = nd_lsa_index_size(size, label_size);
	if (!isize)
		return -ENOSPC;
	nslot = nd_lsa_nslot(size, label_size);
	put_index(area, isize, 0, 3, nslot, label_size, NULL);
	put_index(area, isize, 1, 2, nslot, label_size, NULL);
	return 0;
}

void nd_label_encode(const struct nd_lsa *lsa, u8 *area, const struct nd_label *l)
{
	u8 *p = area + 2 * lsa->index_size + l->slot * lsa->label_size;

	memset(p, 0, lsa->label_size);
	memcpy(p + LBL_UUID, l->uuid, 16);
	memcpy(p + LBL_NAME, l->name, strnlen(l->name, ND_LABEL_NAME_LEN - 1));	/* NUL-padded: zeroed above */
	put_le32(p + LBL_FLAGS, l->flags);
	put_le16(p + LBL_NLABEL, l->nlabel);
	put_le16(p + LBL_POSITION, l->position);
	put_le64(p + LBL_ISETCOOKIE, l->isetcookie);
	put_le64(p + LBL_LBASIZE, l->lbasize);
	put_le64(p + LBL_DPA, l->dpa);
	put_le64(p + LBL_RAWSIZE, l->rawsize);
	put_le32(p + LBL_SLOT, l->slot);
	if (lsa->label_size >= 256) {
		p[LBL_ALIGN] = l->align;
		memcpy(p + LBL_TYPE_GUID, l->type_guid, 16);
		memcpy(p + LBL_ABSTRACTION_GUID, l->abstraction_guid, 16);
		put_le64(p + LBL_CHECKSUM, checksum_skipping(p, 256, LBL_CHECKSUM));
	}
}

void nd_lsa_write_index(const struct nd_lsa *lsa, u8 *area, int which, u32 seq,
			const u8 *free_map)
{
	put_index(area, lsa->index_size, which, seq, lsa->nslot, lsa->label_size, free_map);
}
