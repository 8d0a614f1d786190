/*
 * One walker for the entries that follow the fixed part of an ACPI table,
 * each starting with its type and its length: the NFIT's subtables (ACPI
 * 6.4 §5.2.25, u16 type and u16 length) and the MADT's interrupt
 * controller structures (§5.2.12, u8 type and u8 length). Private to
 * drivers/acpi_nfit; pure (no mapping, no heap, no globals).
 */
#ifndef PMEMK_SUBTABLE_H
#define PMEMK_SUBTABLE_H

#include "types.h"

/* What the walk needs to know of one kind of table. */
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
};

/* What the walk found. */
struct subtable_walk {
	u32 length;		/* bytes walked: min(header length, buffer); 0 if none */
	bool truncated;		/* the walk stopped before the end the header gives */
	u32 nr_rejected;	/* entries skipped with a line: short, or refused by fn */
};

/*
 * Called with each entry whose length frames it (within the table, at
 * least its type's fixed part): `sub` points at its first byte and
 * `length` bytes are readable. Returns 0, or -EINVAL after printing one
 * line to reject the entry (counted in nr_rejected); the walk goes on.
 */
typedef int (*subtable_fn)(void *ctx, u16 type, u32 off, const u8 *sub, u16 length);

/*
 * Check the header of `table` (`len` readable bytes): its signature, and
 * how far to walk: min(the header's length, len). Then call `fn` on each
 * entry in table order. Every length is checked against that end before
 * anything past the type and length fields is read; fewer bytes left than
 * a type and a length, a length of 0 (or, where short entries are skipped,
 * below the type and length fields), or one past the end leaves nothing to
 * find the next entry by: one line, and the walk stops, keeping what came
 * before. Returns:
 *   0        every entry walked and kept;
 *  -ENODEV   not this table (signature, or shorter than its header): one
 *            line, nothing walked, *w zero;
 *  -EINVAL   the header's length is below the header (nothing walked), or
 *            the walk stopped early (w->truncated), or entries were
 *            rejected (w->nr_rejected).
 */
int subtable_walk(const struct subtable_layout *l, const void *table, size_t len, subtable_fn fn,
		  void *ctx, struct subtable_walk *w);

#endif
