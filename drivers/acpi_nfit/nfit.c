/*
 * NFIT parser (ACPI 6.4 §5.2.25). subtable.c walks the table and frames
 * each subtable: a length that cannot frame one (0, past the end, below
 * its type's fixed part) prints one line and stops the walk, keeping what
 * came before. Here, per type (kinds[]): a subtable whose length frames it
 * but disagrees with its own flags or counts prints one line and is
 * rejected alone; a good one has its table bytes copied into its struct
 * (include/nfit.h), where it was noted, and the rest derived; unknown
 * types print one line and are skipped. Pure: no mapping, no heap, no
 * globals.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nfit.h"
#include "printk.h"
#include "subtable.h"
#include "unaligned.h"

/* §5.2.25.2 table 5.133, as the spec writes them (FACTS §3.5). */
static const struct {
	const char *guid;
	enum nfit_spa_type type;
	const char *name;
} spa_guids[] = {
	{ "7305944f-fdda-44e3-b16c-3f22d252e5d0", NFIT_SPA_VOLATILE, "volatile memory" },
	{ "66f0d379-b4f3-4074-ac43-0d3318b78cdb", NFIT_SPA_PM, "persistent memory" },
	{ "92f701f6-13b4-405d-910b-299367e8234c", NFIT_SPA_DCR, "control region" },
	{ "91af0530-5d86-470e-a6b0-0a2db9408249", NFIT_SPA_BDW, "block data window" },
	{ "77ab535a-45fc-624b-5560-f7b281d1f96e", NFIT_SPA_VDISK, "volatile virtual disk" },
	{ "3d5abd30-4175-87ce-6d64-d2ade523c4bb", NFIT_SPA_VCD, "volatile virtual CD" },
	{ "5cea02c9-4d07-69d3-269f-4496fbe096f9", NFIT_SPA_PDISK, "persistent virtual disk" },
	{ "08018188-42cd-bb48-100f-5387d53ded3d", NFIT_SPA_PCD, "persistent virtual CD" },
};

void nfit_guid_text(const u8 g[16], char text[NFIT_GUID_TEXT_LEN])
{
	snprintf(text, NFIT_GUID_TEXT_LEN,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", g[3], g[2],
		 g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11], g[12], g[13], g[14],
		 g[15]);
}

enum nfit_spa_type nfit_spa_type_from_guid(const u8 guid[16])
{
	char text[NFIT_GUID_TEXT_LEN];

	nfit_guid_text(guid, text);
	for (size_t i = 0; i < ARRAY_SIZE(spa_guids); i++)
		if (strcmp(text, spa_guids[i].guid) == 0)
			return spa_guids[i].type;
	return NFIT_SPA_UNKNOWN;
}

const char *nfit_spa_type_name(enum nfit_spa_type type)
{
	for (size_t i = 0; i < ARRAY_SIZE(spa_guids); i++)
		if (spa_guids[i].type == type)
			return spa_guids[i].name;
	return "unknown range type";
}

/*
 * Content, once the framing is good: the length a subtable's own flags and
 * counts ask for. The products are 64-bit: a count near 2^32 cannot wrap
 * them. Each returns 0, or prints one line and returns -EINVAL: the walk
 * rejects this subtable alone.
 */

/* §5.2.25.2: exactly 56 bytes, or 64 with the location cookie flag (Linux's sizeof_spa). */
static int check_spa(const u8 *sub, u32 off, u16 length)
{
	u16 flags = get_le16(sub + offsetof(struct nfit_spa, flags));
	u64 need = flags & NFIT_SPA_COOKIE_VALID ? NFIT_SPA_COOKIE_LEN : NFIT_SPA_LEN;

	if (length == need)
		return 0;
	pr_warn("nfit: SPA (type 0) at offset %#x: length %u, want %llu %s the location cookie flag (bit 2), SPA rejected\n",
		off, length, need, flags & NFIT_SPA_COOKIE_VALID ? "with" : "without");
	return -EINVAL;
}

/* §5.2.25.4: at least one line, and 16 bytes + 4 per line. */
static int check_idt(const u8 *sub, u32 off, u16 length)
{
	u32 lines = get_le32(sub + offsetof(struct nfit_idt, line_count));
	u64 need = NFIT_IDT_LEN + 4ULL * lines;

	if (lines && length >= need)
		return 0;
	if (!lines)
		pr_warn("nfit: IDT (type 2) at offset %#x: 0 lines, IDT rejected\n", off);
	else
		pr_warn("nfit: IDT (type 2) at offset %#x: length %u too short for %u lines (%llu bytes), IDT rejected\n",
			off, length, lines, need);
	return -EINVAL;
}

/* §5.2.25.6: block control windows need the 80-byte form. */
static int check_dcr(const u8 *sub, u32 off, u16 length)
{
	u16 windows = get_le16(sub + offsetof(struct nfit_dcr, windows));

	if (!windows || length >= NFIT_DCR_LEN)
		return 0;
	pr_warn("nfit: DCR (type 4) at offset %#x: length %u too short for %u block control windows (%u bytes), DCR rejected\n",
		off, length, windows, NFIT_DCR_LEN);
	return -EINVAL;
}

/* §5.2.25.8: 16 bytes + 8 per hint address. */
static int check_flush(const u8 *sub, u32 off, u16 length)
{
	u16 hints = get_le16(sub + offsetof(struct nfit_flush, hint_count));
	u64 need = NFIT_FLUSH_LEN + 8ULL * hints;

	if (length >= need)
		return 0;
	pr_warn("nfit: FLUSH (type 6) at offset %#x: length %u too short for %u hint addresses (%llu bytes), FLUSH rejected\n",
		off, length, hints, need);
	return -EINVAL;
}

/*
 * After the copy: what pmemk derives from a subtable. `p` is the parsed
 * struct, its table bytes and `offset` already filled; `sub` and `length`
 * are the subtable (checked by the walk and by check_*).
 */

static void finish_spa(void *p, const u8 *sub, u16 length)
{
	struct nfit_spa *s = p;

	(void)sub;
	(void)length;
	s->type = nfit_spa_type_from_guid(s->range_guid);
}

static void finish_idt(void *p, const u8 *sub, u16 length)
{
	struct nfit_idt *d = p;
	u32 keep = MIN(d->line_count, (u32)NFIT_MAX_IDT_LINES);

	(void)length;
	if (keep < d->line_count)
		pr_warn("nfit: IDT at offset %#x: %u lines, keeping the first %u\n", d->offset,
			d->line_count, keep);
	for (u32 i = 0; i < keep; i++)
		d->line_offset[i] = get_le32(sub + NFIT_IDT_LEN + 4 * i);
}

static void finish_smbios(void *p, const u8 *sub, u16 length)
{
	struct nfit_smbios *s = p;

	(void)sub;
	s->data_offset = s->offset + NFIT_SMBIOS_LEN;
	s->data_length = (u32)length - NFIT_SMBIOS_LEN;
}

static void finish_dcr(void *p, const u8 *sub, u16 length)
{
	struct nfit_dcr *d = p;

	(void)sub;
	d->length = length >= NFIT_DCR_LEN ? NFIT_DCR_LEN : NFIT_DCR_SHORT_LEN;
}

static void finish_flush(void *p, const u8 *sub, u16 length)
{
	struct nfit_flush *f = p;
	u16 keep = MIN(f->hint_count, (u16)NFIT_MAX_FLUSH_HINTS);

	(void)length;
	if (keep < f->hint_count)
		pr_warn("nfit: FLUSH at offset %#x: %u hint addresses, keeping the first %u\n",
			f->offset, f->hint_count, keep);
	for (u16 i = 0; i < keep; i++)
		f->hint[i] = get_le64(sub + NFIT_FLUSH_LEN + 8 * i);
}

/* §5.2.25.9: bits above Highest Valid Capability are to be ignored. */
static void finish_caps(void *p, const u8 *sub, u16 length)
{
	struct nfit_caps *c = p;

	(void)sub;
	(void)length;
	c->present = true;
	c->valid = c->highest_capability >= 31 ?
			   c->capabilities :
			   c->capabilities & ((1U << (c->highest_capability + 1)) - 1);
}

/*
 * Where a type's parsed copies go: an array of struct nfit_table and its
 * count. The element type gives the rest: its size, the array's capacity,
 * and how many of its leading bytes are the table's (up to `offset`).
 */
#define ARR(arr) (((struct nfit_table *)0)->arr)
#define STORE(arr, nr)                                                             \
	.array = offsetof(struct nfit_table, arr),                                 \
	.count = offsetof(struct nfit_table, nr), .size = sizeof(ARR(arr)[0]),     \
	.max = ARRAY_SIZE(ARR(arr)), .table_len = offsetof(typeof(ARR(arr)[0]), offset)

/* What the parse does with each subtable type (§5.2.25.1 table 5.131). */
static const struct kind {
	const char *name;	/* as the FACTS decode and nfitcap.py print it */
	u16 min_len;		/* its fixed part: a shorter subtable stops the walk */
	int (*check)(const u8 *sub, u32 off, u16 length);	/* NULL: nothing to check */
	void (*finish)(void *p, const u8 *sub, u16 length);	/* NULL: nothing to derive */
	size_t array, count;	/* in struct nfit_table; CAPS: none (one struct) */
	u32 size, max;
	u16 table_len;
} kinds[NFIT_TYPE_NR] = {
	[NFIT_TYPE_SPA] = { "SPA", NFIT_SPA_LEN, check_spa, finish_spa, STORE(spa, nr_spa) },
	[NFIT_TYPE_MEMDEV] = { "MEMDEV", NFIT_MEMDEV_LEN, NULL, NULL, STORE(memdev, nr_memdev) },
	[NFIT_TYPE_IDT] = { "IDT", NFIT_IDT_LEN, check_idt, finish_idt, STORE(idt, nr_idt) },
	[NFIT_TYPE_SMBIOS] = { "SMBIOS", NFIT_SMBIOS_LEN, NULL, finish_smbios,
			       STORE(smbios, nr_smbios) },
	[NFIT_TYPE_DCR] = { "DCR", NFIT_DCR_SHORT_LEN, check_dcr, finish_dcr, STORE(dcr, nr_dcr) },
	[NFIT_TYPE_BDW] = { "BDW", NFIT_BDW_LEN, NULL, NULL, STORE(bdw, nr_bdw) },
	[NFIT_TYPE_FLUSH] = { "FLUSH", NFIT_FLUSH_LEN, check_flush, finish_flush,
			      STORE(flush, nr_flush) },
	[NFIT_TYPE_CAPS] = { "CAPS", NFIT_CAPS_LEN, NULL, finish_caps,
			     .size = sizeof(struct nfit_caps),
			     .table_len = offsetof(struct nfit_caps, offset) },
};

struct parse {
	struct nfit_table *out;
	u32 full_said;		/* bit per type: "array full" already printed */
};

static const char *type_name(u16 type)
{
	return type < NFIT_TYPE_NR ? kinds[type].name : "subtable";
}

/* Unknown types need their type and length fields only. */
static u16 min_len(u16 type)
{
	return type < NFIT_TYPE_NR ? kinds[type].min_len : sizeof(struct nfit_sub_header);
}

/*
 * Where this subtable is parsed to: the next element of its array (the
 * CAPS struct for the first CAPS), or NULL when there is no room (one line
 * per type, or per extra CAPS).
 */
static u8 *slot(struct parse *ps, u16 type, u32 off)
{
	const struct kind *k = &kinds[type];
	struct nfit_table *t = ps->out;

	if (type == NFIT_TYPE_CAPS) {
		if (!t->caps.present)
			return (u8 *)&t->caps;
		pr_warn("nfit: second CAPS at offset %#x ignored\n", off);
		return NULL;
	}
	u32 *nr = (u32 *)((u8 *)t + k->count);
	if (*nr < k->max)
		return (u8 *)t + k->array + (size_t)k->size * (*nr)++;
	if (!(ps->full_said & (1U << type)))
		pr_warn("nfit: more than %u %s subtables, the rest dropped\n", k->max, k->name);
	ps->full_said |= 1U << type;
	return NULL;
}

/*
 * One framed subtable (subtable_layout.entry): check it, copy its table
 * bytes into its slot, note where it was, derive the rest. Unknown types
 * are skipped with a line.
 */
static int parse_subtable(void *ctx, u16 type, u32 off, const u8 *sub, u16 length)
{
	struct parse *ps = ctx;
	const struct kind *k;
	u8 *p;

	if (type >= NFIT_TYPE_NR) {
		pr_warn("nfit: unknown subtable type %u at offset %#x (%u bytes), skipped\n", type,
			off, length);
		ps->out->nr_unknown++;
		return 0;
	}
	k = &kinds[type];
	if (k->check && k->check(sub, off, length))
		return -EINVAL;
	p = slot(ps, type, off);
	if (!p)
		return -ENOSPC;
	memset(p, 0, k->size);
	memcpy(p, sub, MIN(length, k->table_len));
	memcpy(p + k->table_len, &off, sizeof(off));	/* its `offset` field */
	if (k->finish)
		k->finish(p, sub, length);
	return 0;
}

/* §5.2.6: the SDT header's revision and OEM IDs. */
static void read_header(void *ctx, const u8 *table)
{
	struct nfit_table *t = ((struct parse *)ctx)->out;

	t->revision = table[8];
	memcpy(t->oem_id, table + 10, 6);
	memcpy(t->oem_table_id, table + 16, 8);
}

static const struct subtable_layout nfit_layout = {
	.log = "nfit", .signature = "NFIT", .a_table = "an NFIT", .header_len = NFIT_HEADER_LEN,
	.field_size = 2, .short_stops = true, .min_len = min_len, .name = type_name,
	.header = read_header, .entry = parse_subtable,
};

int nfit_parse(const void *table, size_t len, struct nfit_table *out)
{
	struct parse ps = { .out = out };

	memset(out, 0, sizeof(*out));
	return subtable_walk(&nfit_layout, table, len, &ps, &out->walk);
}

const struct nfit_spa *nfit_find_spa(const struct nfit_table *t, u16 range_index)
{
	for (u32 i = 0; i < t->nr_spa; i++)
		if (t->spa[i].range_index == range_index)
			return &t->spa[i];
	return NULL;
}

const struct nfit_dcr *nfit_find_dcr(const struct nfit_table *t, u16 region_index)
{
	for (u32 i = 0; i < t->nr_dcr; i++)
		if (t->dcr[i].region_index == region_index)
			return &t->dcr[i];
	return NULL;
}

enum nd_persistence nfit_caps_persistence(const struct nfit_caps *caps)
{
	if (!caps->present)
		return ND_PERSIST_UNKNOWN;
	if (caps->valid & NFIT_CAP_CACHE_FLUSH)
		return ND_PERSIST_CACHE;
	if (caps->valid & NFIT_CAP_MEM_FLUSH)
		return ND_PERSIST_MEMCTRL;
	return ND_PERSIST_UNKNOWN;
}
