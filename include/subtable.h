/*
 * One walker for the entries that follow the fixed part of an ACPI table,
 * each starting with its type and its length: the NFIT's subtables (ACPI
 * 6.4 §5.2.25, u16 type and u16 length) and the MADT's interrupt
 * controller structures (§5.2.12, u8 type and u8 length). Used by
 * drivers/acpi_nfit (subtable.c); nfit.h and madt.h keep its summary.
 * Pure: no mapping, no heap, no globals.
 */
#ifndef PMEMK_SUBTABLE_H
#define PMEMK_SUBTABLE_H

#include "types.h"

/*
 * What the walk needs to know of one kind of table, and what it calls.
 * Both callbacks get the `ctx` given to subtable_walk().
 */
struct subtable_layout {
	const char *log;	/* every line starts "<log>: " */
	const char *signature;	/* the header's, e.g. "NFIT" */
	const char *a_table;	/* for "not an NFIT (...)": "an NFIT" */
	u32 header_len;		/* bytes before the first entry */
	u8 field_size;		/* bytes of the type field and of the length field: 2 or 1 */
	/*
	 * An entry shorter than its type's fixed part: true, the walk stops
	 * there (NFIT); false, that entry alone is skipped by its length (MADT).
	 */
	bool short_stops;
	u16 (*min_len)(u16 type);	/* a type's fixed part, type and length included */
	const char *(*name)(u16 type);	/* "SPA" for "SPA (type 0)"; NULL: "entry type 0" */
	/*
	 * Once the signature is right and header_len bytes are there (even
	 * if the header's length then turns out too short): read the fixed
	 * part. NULL: nothing to read.
	 */
	void (*header)(void *ctx, const u8 *table);
	/*
	 * Each entry whose length frames it (within the table, at least its
	 * type's fixed part): `sub` points at its first byte, `length` bytes
	 * are readable. Returns 0 (kept, or skipped as not read), -EINVAL
	 * after one line to reject the entry, or -ENOSPC when a good entry
	 * found no room (its line is the callback's to print, once). The walk
	 * goes on.
	 */
	int (*entry)(void *ctx, u16 type, u32 off, const u8 *sub, u16 length);
};

/* What the walk found. */
struct subtable_walk {
	u32 length;		/* bytes walked: min(header length, buffer); 0 if none */
	bool truncated;		/* the walk stopped before the end the header gives */
	u32 nr_rejected;	/* entries skipped with a line: short, or refused by entry() */
	u32 nr_dropped;		/* good entries entry() had no room for */
};

/*
 * Check the header of `table` (`len` readable bytes): its signature, and
 * how far to walk: min(the header's length, len). Then call l->entry on
 * each entry in table order. Every length is checked against that end before
 * anything past the type and length fields is read; fewer bytes left than
 * a type and a length, a length of 0 (or, where short entries are skipped,
 * below the type and length fields), or one past the end leaves nothing to
 * find the next entry by: one line, and the walk stops, keeping what came
 * before. *w is zeroed first, then filled. Returns:
 *   0        every entry walked and kept;
 *  -ENODEV   not this table (signature, or shorter than its header): one
 *            line, nothing walked;
 *  -EINVAL   the header's length is below the header (nothing walked), or
 *            the walk stopped early (w->truncated), or entries were
 *            rejected (w->nr_rejected);
 *  -ENOSPC   only drops happened (w->nr_dropped).
 * -EINVAL wins over -ENOSPC when both happen.
 */
int subtable_walk(const struct subtable_layout *l, const void *table, size_t len, void *ctx,
		  struct subtable_walk *w);

#endif
