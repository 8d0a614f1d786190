/*
 * NFIT parser (ACPI 6.4 §5.2.25): walk the subtables of one table by their
 * length and copy each into its parsed form (include/nfit.h). Every length
 * is checked before a byte is read. A length that cannot frame a subtable
 * (0, past the end, below its type's fixed part) prints one line and stops
 * the walk, keeping what came before; a subtable whose length frames it but
 * disagrees with its own flags or counts prints one line and is rejected
 * alone; unknown types print one line and are skipped. Pure: no mapping, no
 * heap, no globals.
 */
#include <errno.h>
#include <string.h>

#include "nfit.h"
#include "printk.h"
#include "subtable.h"
#include "unaligned.h"

/* §5.2.25.2 table 5.133, in table byte order (FACTS §3.5). */
static const struct {
	u8 guid[16];
	enum nfit_spa_type type;
	const char *name;
} spa_guids[] = {
	{ { 0x4f, 0x94, 0x05, 0x73, 0xda, 0xfd, 0xe3, 0x44,
	    0xb1, 0x6c, 0x3f, 0x22, 0xd2, 0x52, 0xe5, 0xd0 },
	  NFIT_SPA_VOLATILE, "volatile memory" },
	{ { 0x79, 0xd3, 0xf0, 0x66, 0xf3, 0xb4, 0x74, 0x40,
	    0xac, 0x43, 0x0d, 0x33, 0x18, 0xb7, 0x8c, 0xdb },
	  NFIT_SPA_PM, "persistent memory" },
	{ { 0xf6, 0x01, 0xf7, 0x92, 0xb4, 0x13, 0x5d, 0x40,
	    0x91, 0x0b, 0x29, 0x93, 0x67, 0xe8, 0x23, 0x4c },
	  NFIT_SPA_DCR, "control region" },
	{ { 0x30, 0x05, 0xaf, 0x91, 0x86, 0x5d, 0x0e, 0x47,
	    0xa6, 0xb0, 0x0a, 0x2d, 0xb9, 0x40, 0x82, 0x49 },
	  NFIT_SPA_BDW, "block data window" },
	{ { 0x5a, 0x53, 0xab, 0x77, 0xfc, 0x45, 0x4b, 0x62,
	    0x55, 0x60, 0xf7, 0xb2, 0x81, 0xd1, 0xf9, 0x6e },
	  NFIT_SPA_VDISK, "volatile virtual disk" },
	{ { 0x30, 0xbd, 0x5a, 0x3d, 0x75, 0x41, 0xce, 0x87,
	    0x6d, 0x64, 0xd2, 0xad, 0xe5, 0x23, 0xc4, 0xbb },
	  NFIT_SPA_VCD, "volatile virtual CD" },
	{ { 0xc9, 0x02, 0xea, 0x5c, 0x07, 0x4d, 0xd3, 0x69,
	    0x26, 0x9f, 0x44, 0x96, 0xfb, 0xe0, 0x96, 0xf9 },
	  NFIT_SPA_PDISK, "persistent virtual disk" },
	{ { 0x88, 0x81, 0x01, 0x08, 0xcd, 0x42, 0x48, 0xbb,
	    0x10, 0x0f, 0x53, 0x87, 0xd5, 0x3d, 0xed, 0x3d },
	  NFIT_SPA_PCD, "persistent virtual CD" },
};

enum nfit_spa_type nfit_spa_type_from_guid(const u8 guid[16])
{
	for (size_t i = 0; i < ARRAY_SIZE(spa_guids); i++)
		if (memcmp(guid, spa_guids[i].guid, 16) == 0)
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

/* Subtable names as the FACTS decode and nfitcap.py print them. */
static const char *const type_names[NFIT_TYPE_NR] = {
	[NFIT_TYPE_SPA] = "SPA", [NFIT_TYPE_MEMDEV] = "MEMDEV", [NFIT_TYPE_IDT] = "IDT",
	[NFIT_TYPE_SMBIOS] = "SMBIOS", [NFIT_TYPE_DCR] = "DCR", [NFIT_TYPE_BDW] = "BDW",
	[NFIT_TYPE_FLUSH] = "FLUSH", [NFIT_TYPE_CAPS] = "CAPS",
};

/* The fixed part of each type; a shorter subtable is malformed. */
static const u16 base_len[NFIT_TYPE_NR] = {
	[NFIT_TYPE_SPA] = NFIT_SPA_LEN, [NFIT_TYPE_MEMDEV] = NFIT_MEMDEV_LEN,
	[NFIT_TYPE_IDT] = NFIT_IDT_LEN, [NFIT_TYPE_SMBIOS] = NFIT_SMBIOS_LEN,
	[NFIT_TYPE_DCR] = NFIT_DCR_SHORT_LEN, [NFIT_TYPE_BDW] = NFIT_BDW_LEN,
	[NFIT_TYPE_FLUSH] = NFIT_FLUSH_LEN, [NFIT_TYPE_CAPS] = NFIT_CAPS_LEN,
};

struct walk {
	struct nfit_table *out;
	u32 full_said;		/* bit per type: "array full" already printed */
};

static const char *type_name(u16 type)
{
	return type < NFIT_TYPE_NR ? type_names[type] : "subtable";
}

/* Unknown types need their type and length fields only. */
static u16 min_len(u16 type)
{
	return type < NFIT_TYPE_NR ? base_len[type] : sizeof(struct nfit_sub_header);
}

/*
 * Content, once the framing is good: the length a subtable's own flags and
 * counts ask for. SPA: exactly 56, or 64 with the location cookie flag
 * (§5.2.25.2; Linux's sizeof_spa); DCR: 80 with block control windows
 * (§5.2.25.6); interleave: at least one line and 16 + 4 per line
 * (§5.2.25.4); flush hint: 16 + 8 per address (§5.2.25.8). The products are
 * 64-bit: a count near 2^32 cannot wrap them. Returns 0, or prints one line
 * and returns -EINVAL: the caller rejects this subtable alone.
 */
static int check_content(u16 type, const u8 *sub, u32 off, u16 length)
{
	u16 flags, windows, hints;
	u32 lines;
	u64 need;

	switch (type) {
	case NFIT_TYPE_SPA:
		flags = get_le16(sub + offsetof(struct acpi_nfit_spa, flags));
		need = flags & NFIT_SPA_COOKIE_VALID ? NFIT_SPA_COOKIE_LEN : NFIT_SPA_LEN;
		if (length == need)
			return 0;
		pr_warn("nfit: SPA (type 0) at offset %#x: length %u, want %llu %s the location cookie flag (bit 2), SPA rejected\n",
			off, length, need, flags & NFIT_SPA_COOKIE_VALID ? "with" : "without");
		return -EINVAL;
	case NFIT_TYPE_IDT:
		lines = get_le32(sub + offsetof(struct acpi_nfit_idt, line_count));
		need = NFIT_IDT_LEN + 4ULL * lines;
		if (lines && length >= need)
			return 0;
		if (!lines)
			pr_warn("nfit: IDT (type 2) at offset %#x: 0 lines, IDT rejected\n", off);
		else
			pr_warn("nfit: IDT (type 2) at offset %#x: length %u too short for %u lines (%llu bytes), IDT rejected\n",
				off, length, lines, need);
		return -EINVAL;
	case NFIT_TYPE_DCR:
		windows = get_le16(sub + offsetof(struct acpi_nfit_dcr, windows));
		if (!windows || length >= NFIT_DCR_LEN)
			return 0;
		pr_warn("nfit: DCR (type 4) at offset %#x: length %u too short for %u block control windows (%u bytes), DCR rejected\n",
			off, length, windows, NFIT_DCR_LEN);
		return -EINVAL;
	case NFIT_TYPE_FLUSH:
		hints = get_le16(sub + offsetof(struct acpi_nfit_flush, hint_count));
		need = NFIT_FLUSH_LEN + 8ULL * hints;
		if (length >= need)
			return 0;
		pr_warn("nfit: FLUSH (type 6) at offset %#x: length %u too short for %u hint addresses (%llu bytes), FLUSH rejected\n",
			off, length, hints, need);
		return -EINVAL;
	default:
		return 0;
	}
}

/* A slot in one of the arrays, or NULL (and one line per type) when full. */
static void *slot(struct walk *w, u16 type, u32 *nr, u32 max, void *array, size_t size)
{
	if (*nr >= max) {
		w->out->nr_dropped++;
		if (!(w->full_said & (1U << type)))
			pr_warn("nfit: more than %u %s subtables, the rest dropped\n", max,
				type_names[type]);
		w->full_said |= 1U << type;
		return NULL;
	}
	return (u8 *)array + size * (*nr)++;
}

/* Copy a subtable into a zeroed on-table struct: short forms read as zero. */
static void load(void *dst, size_t dst_len, const u8 *sub, u16 length)
{
	memset(dst, 0, dst_len);
	memcpy(dst, sub, MIN((size_t)length, dst_len));
}

static void parse_spa(struct walk *w, u32 off, const u8 *sub, u16 length)
{
	struct nfit_table *t = w->out;
	struct nfit_spa *s = slot(w, NFIT_TYPE_SPA, &t->nr_spa, NFIT_MAX_SPA, t->spa, sizeof(*s));
	struct acpi_nfit_spa a;

	if (!s)
		return;
	load(&a, sizeof(a), sub, length);
	*s = (struct nfit_spa){
		.offset = off,
		.range_index = a.range_index,
		.flags = a.flags,
		.proximity_domain = a.proximity_domain,
		.type = nfit_spa_type_from_guid(a.range_guid),
		.address = a.address,
		.length = a.length,
		.memory_mapping = a.memory_mapping,
		.has_cookie = (a.flags & NFIT_SPA_COOKIE_VALID) != 0,
		.location_cookie = a.location_cookie,
	};
	memcpy(s->range_guid, a.range_guid, sizeof(s->range_guid));
}

static void parse_memdev(struct walk *w, u32 off, const u8 *sub, u16 length)
{
	struct nfit_table *t = w->out;
	struct nfit_memdev *m = slot(w, NFIT_TYPE_MEMDEV, &t->nr_memdev, NFIT_MAX_MEMDEV,
				     t->memdev, sizeof(*m));
	struct acpi_nfit_memdev a;

	if (!m)
		return;
	load(&a, sizeof(a), sub, length);
	*m = (struct nfit_memdev){
		.offset = off,
		.device_handle = a.device_handle,
		.physical_id = a.physical_id,
		.region_id = a.region_id,
		.range_index = a.range_index,
		.region_index = a.region_index,
		.region_size = a.region_size,
		.region_offset = a.region_offset,
		.address = a.address,
		.interleave_index = a.interleave_index,
		.interleave_ways = a.interleave_ways,
		.flags = a.flags,
	};
}

static void parse_idt(struct walk *w, u32 off, const u8 *sub, u16 length)
{
	struct nfit_table *t = w->out;
	struct nfit_idt *d = slot(w, NFIT_TYPE_IDT, &t->nr_idt, NFIT_MAX_IDT, t->idt, sizeof(*d));
	struct acpi_nfit_idt a;

	if (!d)
		return;
	load(&a, sizeof(a), sub, length);
	*d = (struct nfit_idt){
		.offset = off,
		.interleave_index = a.interleave_index,
		.line_count = a.line_count,
		.line_size = a.line_size,
	};
	u32 keep = MIN(a.line_count, (u32)NFIT_MAX_IDT_LINES);
	if (keep < a.line_count)
		pr_warn("nfit: IDT at offset %#x: %u lines, keeping the first %u\n", off,
			a.line_count, keep);
	for (u32 i = 0; i < keep; i++)
		d->line_offset[i] = get_le32(sub + NFIT_IDT_LEN + 4 * i);
}

static void parse_smbios(struct walk *w, u32 off, const u8 *sub, u16 length)
{
	struct nfit_table *t = w->out;
	struct nfit_smbios *s = slot(w, NFIT_TYPE_SMBIOS, &t->nr_smbios, NFIT_MAX_SMBIOS,
				     t->smbios, sizeof(*s));

	(void)sub;
	if (!s)
		return;
	*s = (struct nfit_smbios){
		.offset = off,
		.data_offset = off + NFIT_SMBIOS_LEN,
		.data_length = (u32)length - NFIT_SMBIOS_LEN,
	};
}

static void parse_dcr(struct walk *w, u32 off, const u8 *sub, u16 length)
{
	struct nfit_table *t = w->out;
	struct nfit_dcr *d = slot(w, NFIT_TYPE_DCR, &t->nr_dcr, NFIT_MAX_DCR, t->dcr, sizeof(*d));
	struct acpi_nfit_dcr a;

	if (!d)
		return;
	load(&a, sizeof(a), sub, length);
	*d = (struct nfit_dcr){
		.offset = off,
		.length = length >= NFIT_DCR_LEN ? NFIT_DCR_LEN : NFIT_DCR_SHORT_LEN,
		.region_index = a.region_index,
		.vendor_id = a.vendor_id,
		.device_id = a.device_id,
		.revision_id = a.revision_id,
		.subsystem_vendor_id = a.subsystem_vendor_id,
		.subsystem_device_id = a.subsystem_device_id,
		.subsystem_revision_id = a.subsystem_revision_id,
		.valid_fields = a.valid_fields,
		.manufacturing_location = a.manufacturing_location,
		.manufacturing_date = a.manufacturing_date,
		.serial_number = a.serial_number,
		.code = a.code,
		.windows = a.windows,
		.window_size = a.window_size,
		.command_offset = a.command_offset,
		.command_size = a.command_size,
		.status_offset = a.status_offset,
		.status_size = a.status_size,
		.flags = a.flags,
	};
}

static void parse_bdw(struct walk *w, u32 off, const u8 *sub, u16 length)
{
	struct nfit_table *t = w->out;
	struct nfit_bdw *b = slot(w, NFIT_TYPE_BDW, &t->nr_bdw, NFIT_MAX_BDW, t->bdw, sizeof(*b));
	struct acpi_nfit_bdw a;

	if (!b)
		return;
	load(&a, sizeof(a), sub, length);
	*b = (struct nfit_bdw){
		.offset = off,
		.region_index = a.region_index,
		.windows = a.windows,
		.window_offset = a.offset,
		.size = a.size,
		.capacity = a.capacity,
		.start_address = a.start_address,
	};
}

static void parse_flush(struct walk *w, u32 off, const u8 *sub, u16 length)
{
	struct nfit_table *t = w->out;
	struct nfit_flush *f = slot(w, NFIT_TYPE_FLUSH, &t->nr_flush, NFIT_MAX_FLUSH, t->flush,
				    sizeof(*f));
	struct acpi_nfit_flush a;

	if (!f)
		return;
	load(&a, sizeof(a), sub, length);
	*f = (struct nfit_flush){
		.offset = off,
		.device_handle = a.device_handle,
		.hint_count = a.hint_count,
	};
	u16 keep = MIN(a.hint_count, (u16)NFIT_MAX_FLUSH_HINTS);
	if (keep < a.hint_count)
		pr_warn("nfit: FLUSH at offset %#x: %u hint addresses, keeping the first %u\n",
			off, a.hint_count, keep);
	for (u16 i = 0; i < keep; i++)
		memcpy(&f->hint[i], sub + NFIT_FLUSH_LEN + 8 * i, sizeof(u64));
}

/* §5.2.25.9: bits above Highest Valid Capability are to be ignored. */
static void parse_caps(struct walk *w, u32 off, const u8 *sub, u16 length)
{
	struct nfit_caps *c = &w->out->caps;
	struct acpi_nfit_caps a;

	if (c->present) {
		w->out->nr_dropped++;
		pr_warn("nfit: second CAPS at offset %#x ignored\n", off);
		return;
	}
	load(&a, sizeof(a), sub, length);
	c->present = true;
	c->highest_capability = a.highest_capability;
	c->raw = a.capabilities;
	c->capabilities = a.highest_capability >= 31 ? a.capabilities :
			  a.capabilities & ((1U << (a.highest_capability + 1)) - 1);
}

typedef void (*parse_fn)(struct walk *w, u32 off, const u8 *sub, u16 length);

static const parse_fn parsers[NFIT_TYPE_NR] = {
	[NFIT_TYPE_SPA] = parse_spa, [NFIT_TYPE_MEMDEV] = parse_memdev,
	[NFIT_TYPE_IDT] = parse_idt, [NFIT_TYPE_SMBIOS] = parse_smbios,
	[NFIT_TYPE_DCR] = parse_dcr, [NFIT_TYPE_BDW] = parse_bdw,
	[NFIT_TYPE_FLUSH] = parse_flush, [NFIT_TYPE_CAPS] = parse_caps,
};

/* One framed subtable (subtable_fn): unknown types are skipped with a line. */
static int parse_subtable(void *ctx, u16 type, u32 off, const u8 *sub, u16 length)
{
	struct walk *w = ctx;

	if (type >= NFIT_TYPE_NR) {
		pr_warn("nfit: unknown subtable type %u at offset %#x (%u bytes), skipped\n", type,
			off, length);
		w->out->nr_unknown++;
		return 0;
	}
	if (check_content(type, sub, off, length))
		return -EINVAL;
	parsers[type](w, off, sub, length);
	return 0;
}

static const struct subtable_layout nfit_layout = {
	.log = "nfit",
	.signature = "NFIT",
	.a_table = "an NFIT",
	.header_len = NFIT_HEADER_LEN,
	.field_size = 2,
	.short_stops = true,
	.min_len = min_len,
	.name = type_name,
};

int nfit_parse(const void *table, size_t len, struct nfit_table *out)
{
	struct walk w = { .out = out };
	struct subtable_walk sw;
	const u8 *p = table;
	int err;

	memset(out, 0, sizeof(*out));
	err = subtable_walk(&nfit_layout, table, len, parse_subtable, &w, &sw);
	if (err == -ENODEV)
		return err;
	/* §5.2.6: the SDT header's revision and OEM IDs. */
	out->revision = p[8];
	memcpy(out->oem_id, p + 10, 6);
	memcpy(out->oem_table_id, p + 16, 8);
	out->length = sw.length;
	out->truncated = sw.truncated;
	out->nr_rejected = sw.nr_rejected;
	if (err)
		return err;
	return out->nr_dropped ? -ENOSPC : 0;
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
	if (caps->capabilities & NFIT_CAP_CACHE_FLUSH)
		return ND_PERSIST_CACHE;
	if (caps->capabilities & NFIT_CAP_MEM_FLUSH)
		return ND_PERSIST_MEMCTRL;
	return ND_PERSIST_UNKNOWN;
}
