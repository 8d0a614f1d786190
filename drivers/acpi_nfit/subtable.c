/*
 * The walk over an ACPI table's type-length entries (include/subtable.h): the
 * header's signature and length (ACPI 6.4 §5.2.6), then each entry framed
 * by its type and length fields before the caller sees it. NFIT
 * (§5.2.25) and MADT (§5.2.12) differ only in what struct subtable_layout
 * says; every line a framing problem prints is made here.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "printk.h"
#include "subtable.h"
#include "unaligned.h"

/* §5.2.6: the signature, then the u32 length of the whole table. */
#define SDT_LENGTH_OFF 4

enum frame {
	FRAME_STOP,		/* nothing to find the next entry by */
	FRAME_SHORT,		/* below its type's fixed part: skipped by its length */
	FRAME_OK,
};

/* An entry's type and length: u16 each (NFIT) or u8 each (MADT). */
struct entry {
	u16 type;
	u16 length;
};

static struct entry read_entry(const struct subtable_layout *l, const u8 *sub)
{
	if (l->field_size == 2)
		return (struct entry){ get_le16(sub), get_le16(sub + 2) };
	return (struct entry){ sub[0], sub[1] };
}

/* How the lines name an entry: "SPA (type 0)", or "entry type 0". */
static void name_entry(const struct subtable_layout *l, u16 type, char *buf, size_t size)
{
	if (l->name)
		snprintf(buf, size, "%s (type %u)", l->name(type), type);
	else
		snprintf(buf, size, "entry type %u", type);
}

/* The header: signature, its fixed part read, and the end of the walk (*end). */
static int check_header(const struct subtable_layout *l, const u8 *p, size_t len, void *ctx,
			struct subtable_walk *w, u32 *end)
{
	bool sig_ok = len >= 4 && memcmp(p, l->signature, 4) == 0;

	if (len < l->header_len || !sig_ok) {
		pr_warn("%s: not %s (%zu bytes%s)\n", l->log, l->a_table, len,
			len >= 4 && !sig_ok ? ", bad signature" : "");
		return -ENODEV;
	}
	if (l->header)
		l->header(ctx, p);
	u32 hdr_len = get_le32(p + SDT_LENGTH_OFF);
	if (hdr_len < l->header_len) {
		pr_warn("%s: header length %u is shorter than the header itself\n", l->log,
			hdr_len);
		w->truncated = true;
		return -EINVAL;
	}
	*end = hdr_len;
	if (hdr_len > len) {
		pr_warn("%s: header length %u but only %zu bytes present, walking those\n", l->log,
			hdr_len, len);
		*end = (u32)len;
		w->truncated = true;
	}
	w->length = *end;
	return 0;
}

/*
 * One entry's framing, checked in this order, each failure one line. A
 * length below the type and length fields frames nothing; where short
 * entries stop the walk anyway (the NFIT), such a length is reported as
 * below its type's minimum instead, after the end check.
 */
static enum frame check_frame(const struct subtable_layout *l, const u8 *sub, u32 off, u32 end,
			      struct entry *e)
{
	u32 fields = 2u * l->field_size;
	char what[32];

	if (end - off < fields) {
		pr_warn("%s: %u stray byte%s at offset %#x, walk stopped\n", l->log, end - off,
			end - off == 1 ? "" : "s", off);
		return FRAME_STOP;
	}
	*e = read_entry(l, sub);
	name_entry(l, e->type, what, sizeof(what));
	if (e->length == 0 || (!l->short_stops && e->length < fields)) {
		pr_warn("%s: %s at offset %#x has length %u, walk stopped\n", l->log, what, off,
			e->length);
		return FRAME_STOP;
	}
	if (e->length > end - off) {
		pr_warn("%s: %s at offset %#x: length %u runs past the table end %#x, walk stopped\n",
			l->log, what, off, e->length, end);
		return FRAME_STOP;
	}
	u16 need = l->min_len(e->type);
	if (e->length >= need)
		return FRAME_OK;
	if (l->short_stops) {
		pr_warn("%s: %s at offset %#x: length %u below its minimum %u, walk stopped\n",
			l->log, what, off, e->length, need);
		return FRAME_STOP;
	}
	pr_warn("%s: %s at offset %#x: length %u below its size %u, skipped\n", l->log, what, off,
		e->length, need);
	return FRAME_SHORT;
}

int subtable_walk(const struct subtable_layout *l, const void *table, size_t len, void *ctx,
		  struct subtable_walk *w)
{
	const u8 *p = table;
	struct entry e;
	u32 end = 0;
	int err;

	memset(w, 0, sizeof(*w));
	err = check_header(l, p, MIN(len, (size_t)UINT32_MAX), ctx, w, &end);
	if (err)
		return err;
	for (u32 off = l->header_len; off < end; off += e.length) {
		enum frame f = check_frame(l, p + off, off, end, &e);
		if (f == FRAME_STOP) {
			w->truncated = true;
			break;
		}
		err = f == FRAME_SHORT ? -EINVAL : l->entry(ctx, e.type, off, p + off, e.length);
		if (err == -EINVAL)
			w->nr_rejected++;
		else if (err == -ENOSPC)
			w->nr_dropped++;
	}
	if (w->truncated || w->nr_rejected)
		return -EINVAL;
	return w->nr_dropped ? -ENOSPC : 0;
}
