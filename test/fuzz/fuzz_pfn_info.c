/*
 * libFuzzer harness: the pfn info block (nvdimm/pfn_info.c), two ways.
 *
 * Input byte 0 picks the way and its fix-ups, then a namespace geometry
 * follows: le64 start, le64 size (made what a region can be: 4 KiB
 * aligned, non-empty, ending below 2^52, as nd_region_create guarantees).
 *
 *  - bit 0 clear, validate: the rest is a 4 KiB block as read from media
 *    (zero-padded). Bit 1: write the pfn signature; bit 2: the dax one;
 *    bit 3: recompute the checksum, so the field checks behind them are
 *    reached. nd_pfn_validate, nd_dax_validate and nd_identify run on it;
 *    a block either validates into a layout nd_pfn_place accepts and that
 *    lies inside the namespace, or is refused with a reason.
 *  - bit 0 set, round trip: le32 mode, le64 align, 16 bytes uuid.
 *    nd_pfn_init writes a block; when it succeeds, nd_pfn_validate must
 *    accept that block with the same fields, and nd_identify call it fsdax.
 *
 * Seeds: test/fuzz/seeds/fuzz_pfn_info (the Linux 6.1 info blocks of
 * test/fixtures with their 4 GiB namespace, and round trips of each mode
 * and align).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd_pfn_layout.h"
#include "nd_pfn_sb.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "invariant broken: %s\n", #cond);                          \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#define PHYS_LIMIT (1ULL << 52)
#define HEAD_LEN (ND_PFN_SB_OFFSET + ND_PFN_SB_SIZE)

static struct nd_pfn_sb sb;
static u8 head[HEAD_LEN];

static u64 take64(const u8 **p, const u8 *end)
{
	u64 v = 0;

	if (end - *p >= 8) {
		memcpy(&v, *p, 8);
		*p += 8;
	}
	return v;
}

/* A region's geometry: 4 KiB aligned, at least a page, below 2^52. */
static struct nd_pfn_geom geometry(const u8 **p, const u8 *end)
{
	struct nd_pfn_geom ns = { 0 };
	u64 start = take64(p, end) % PHYS_LIMIT, size = take64(p, end);

	ns.start = ALIGN_DOWN(start, PAGE_SIZE);
	size = size % (PHYS_LIMIT - ns.start);
	ns.size = MAX(ALIGN_DOWN(size, PAGE_SIZE), PAGE_SIZE);
	if (ns.start + ns.size > PHYS_LIMIT)
		ns.start = PHYS_LIMIT - ns.size;
	return ns;
}

/* A valid layout places inside the namespace and is one Linux would accept. */
static void check_layout(const struct nd_pfn_geom *ns, const struct nd_pfn_layout *l)
{
	struct nd_pfn_placement p;
	const char *why;

	CHECK(l->mode == PFN_MODE_RAM || l->mode == PFN_MODE_PMEM);
	CHECK(l->align >= PAGE_SIZE && l->align <= 1 * GiB && !(l->align & (l->align - 1)));
	CHECK(l->dataoff >= ND_INFO_BLOCK_RESERVE && l->dataoff < ns->size);
	CHECK(IS_ALIGNED(l->dataoff, PAGE_SIZE));
	CHECK(nd_pfn_place(ns->start, ns->size, l, &p, &why) == 0);
	CHECK(p.range.start >= ns->start && p.range.end < ns->start + ns->size);
	CHECK(p.data > p.range.start && p.data + p.data_size == p.range.end + 1);
	CHECK(l->npfns <= p.npfns && p.npfns * PAGE_SIZE <= p.data_size);
	if (l->mode == PFN_MODE_PMEM) {
		CHECK(l->npfns == p.npfns);
		CHECK(p.altmap.base_pfn * PAGE_SIZE <= p.range.start);
		CHECK((p.altmap.base_pfn + p.altmap.reserve + p.altmap.free) * PAGE_SIZE == p.data);
		CHECK(p.altmap.end_pfn == p.range.end / PAGE_SIZE);
	}
}

static void validate(const u8 *p, const u8 *end, u8 flags)
{
	struct nd_pfn_geom ns = geometry(&p, end);
	struct nd_pfn_layout l;
	const char *why = NULL;
	int err;

	memset(&sb, 0, sizeof(sb));
	memcpy(&sb, p, MIN((size_t)(end - p), sizeof(sb)));
	if (flags & 2)
		memcpy(sb.signature, PFN_SIG, PFN_SIG_LEN);
	if (flags & 4)
		memcpy(sb.signature, DAX_SIG, PFN_SIG_LEN);
	if (flags & 8)
		sb.checksum = nd_pfn_sb_checksum(&sb);

	err = nd_pfn_validate(&sb, &ns, &l, &why);
	CHECK(err == 0 || err == -ENODEV || err == -ENXIO || err == -EOPNOTSUPP || err == -EINVAL);
	CHECK(err ? why != NULL : why == NULL);
	if (!err)
		check_layout(&ns, &l);
	why = NULL;
	err = nd_dax_validate(&sb, &ns, &l, &why);
	CHECK(err ? why != NULL : why == NULL);
	if (!err)
		check_layout(&ns, &l);

	memset(head, 0, sizeof(head));
	memcpy(head + ND_PFN_SB_OFFSET, &sb, sizeof(sb));
	/* Only the block at 4 KiB is there: what it says it is, or raw. */
	enum nd_personality pers = nd_identify(head, sizeof(head));
	CHECK(pers != ND_PERS_SECTOR || !memcmp(sb.signature, BTT_SIG, BTT_SIG_LEN));
	CHECK(pers != ND_PERS_FSDAX || !memcmp(sb.signature, PFN_SIG, PFN_SIG_LEN));
	CHECK(pers != ND_PERS_DEVDAX || !memcmp(sb.signature, DAX_SIG, PFN_SIG_LEN));
}

static void round_trip(const u8 *p, const u8 *end)
{
	struct nd_pfn_geom ns = geometry(&p, end);
	u32 mode = (u32)take64(&p, end);
	u64 align = take64(&p, end);
	u8 uuid[16] = { 0 };
	struct nd_pfn_layout l;
	const char *why = NULL;

	memcpy(uuid, p, MIN((size_t)(end - p), sizeof(uuid)));
	if (nd_pfn_init(&sb, &ns, (enum nd_pfn_mode)mode, align, uuid, &why)) {
		CHECK(why != NULL);
		return;
	}
	if (nd_pfn_validate(&sb, &ns, &l, &why)) {
		fprintf(stderr, "round trip: [%#llx +%#llx] mode %u align %#llx: %s\n", ns.start,
			ns.size, mode, align, why);
		abort();
	}
	CHECK(!memcmp(l.uuid, uuid, 16));
	CHECK(l.mode == (enum nd_pfn_mode)mode && l.align == align);
	CHECK(l.dataoff == sb.dataoff && l.npfns == sb.npfns);
	CHECK(l.start_pad == sb.start_pad && l.end_trunc == sb.end_trunc);
	CHECK(l.version_minor == 4 && l.page_size == PAGE_SIZE);
	CHECK(l.page_struct_size == MAX_STRUCT_PAGE_SIZE);
	check_layout(&ns, &l);
	memset(head, 0, sizeof(head));
	memcpy(head + ND_PFN_SB_OFFSET, &sb, sizeof(sb));
	CHECK(nd_identify(head, sizeof(head)) == ND_PERS_FSDAX);
	/* The devdax block of the same request: the same bytes but for signature and checksum. */
	struct nd_pfn_sb pfn = sb;
	struct nd_pfn_layout dl;
	CHECK(nd_dax_init(&sb, &ns, (enum nd_pfn_mode)mode, align, uuid, &why) == 0);
	CHECK(!memcmp((const u8 *)&sb + PFN_SIG_LEN, (const u8 *)&pfn + PFN_SIG_LEN,
		      offsetof(struct nd_pfn_sb, checksum) - PFN_SIG_LEN));
	CHECK(nd_pfn_validate(&sb, &ns, &dl, &why) == -ENODEV);
	CHECK(nd_dax_validate(&sb, &ns, &dl, &why) == 0);
	CHECK(dl.mode == l.mode && dl.align == l.align && dl.dataoff == l.dataoff &&
	      dl.npfns == l.npfns && dl.end_trunc == l.end_trunc && !memcmp(dl.uuid, l.uuid, 16));
	memcpy(head + ND_PFN_SB_OFFSET, &sb, sizeof(sb));
	CHECK(nd_identify(head, sizeof(head)) == ND_PERS_DEVDAX);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		round_trip(data + 1, data + size);
	else
		validate(data + 1, data + size, data[0]);
	return 0;
}
