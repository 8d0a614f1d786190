/*
 * Private to drivers/e820: what memmap.c (the specs) and memmap_fw.c (the
 * firmware data a `!` range must spare) share.
 */
#ifndef PMEMK_E820_MEMMAP_FW_H
#define PMEMK_E820_MEMMAP_FW_H

#include "e820.h"

#define MEMMAP_SPEC_MAX 64	/* one comma-separated spec, NUL included */

/* One parsed spec: "size" alone (op 0), or "size<op>start". */
struct memmap_spec {
	const char *text;	/* for messages */
	u64 size;
	u64 start;
	char op;
};

/*
 * Start of e820_parse_memmap(): forget the `!` ranges recorded so far and
 * keep a copy of *t (sanitized), the map the specs start from.
 */
void memmap_fw_begin(const struct e820_table *t);

/*
 * A `!` spec that passed every other rule: if it holds e820 ACPI data or
 * ACPI NVS of *t, trim *s to its largest part clear of them, or refuse it,
 * with one line (e820_clear_of). Returns 0 (s may be smaller) or -EINVAL.
 */
int memmap_spare_e820(const struct e820_table *t, struct memmap_spec *s);

/* Record a `!` range as applied, for e820_memmap_spare_firmware(). */
void memmap_fw_record(const struct memmap_spec *s);

#endif
