/*
 * memmap=nn!ss and the firmware data it must spare (issue 29 item 5).
 *
 * A `!` range becomes a writable pmem namespace, so it may not hold what the
 * firmware still uses: e820 ACPI data and ACPI NVS (known when the spec is
 * applied: memmap_spare_e820), and the ACPI tables themselves, wherever the
 * firmware put them (SeaBIOS: in plain reserved memory at the top of RAM
 * below 4 GiB), known only once the tables are found, after the memory map
 * has been used to set up RAM (e820_memmap_spare_firmware). Either way the
 * range is trimmed to its largest part clear of that data, with one line,
 * or refused with one line when nothing usable is left.
 */
/* Ours first: newlib's <sys/cdefs.h> then redefines __used & co silently. */
#include "memmap_fw.h"
#include "printk.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The end of [addr, addr + size), at most 2^64 - 1 (firmware data never wraps; be sure). */
static u64 range_end(u64 addr, u64 size)
{
	return addr + size < addr ? ~0ULL : addr + size;
}

/* x rounded up to a, at most 2^64 - 1. */
static u64 align_up_sat(u64 x, u64 a)
{
	return x > ~0ULL - (a - 1) ? ~0ULL : ALIGN_UP(x, a);
}

static bool overlaps(const struct boot_reserved *r, u64 a, u64 b)
{
	return r->size && r->addr < b && a < range_end(r->addr, r->size);
}

/*
 * Of the ranges of fw that overlap [a, b), widened to `align`, the one that
 * starts lowest among those ending after pos: [*lo, *hi). *lo = *hi = b if none.
 */
static void next_widened(const struct boot_reserved *fw, u32 n, u64 a, u64 b, u64 align, u64 pos,
			 u64 *lo, u64 *hi)
{
	*lo = b;
	*hi = b;
	for (u32 i = 0; i < n; i++) {
		if (!overlaps(&fw[i], a, b))
			continue;
		u64 ws = ALIGN_DOWN(fw[i].addr, align);
		u64 we = align_up_sat(range_end(fw[i].addr, fw[i].size), align);

		if (we > pos && ws < *lo) {
			*lo = ws;
			*hi = MIN(we, b);
		}
	}
}

u32 e820_clear_of(u64 *start, u64 *size, const struct boot_reserved *fw, u32 n,
		  const struct boot_reserved **first)
{
	u64 a = *start, b = a + *size, pos = a, best = a, best_len = 0;
	u64 align = IS_ALIGNED(a | *size, PMD_SIZE) ? PMD_SIZE : PAGE_SIZE;
	u32 hits = 0;

	*first = NULL;
	for (u32 i = 0; i < n; i++) {
		if (!overlaps(&fw[i], a, b))
			continue;
		hits++;
		if (!*first || fw[i].addr < (*first)->addr)
			*first = &fw[i];
	}
	if (!hits)
		return 0;
	/* Each step passes one widened range: at most n + 1 steps. */
	while (pos < b) {
		u64 lo, hi;

		next_widened(fw, n, a, b, align, pos, &lo, &hi);
		if (lo > pos && lo - pos > best_len) {
			best = pos;
			best_len = lo - pos;
		}
		pos = hi;
	}
	*start = best;
	*size = best_len;
	return hits;
}

/*
 * Trim [*start, *start + *size), the range of spec `text`, clear of fw, and
 * say so in one line. Returns 0 if nothing of fw is in it, 1 if trimmed,
 * -EINVAL if nothing usable is left (*size is then 0).
 */
static int memmap_fw_trim(const char *text, u64 *start, u64 *size, const struct boot_reserved *fw,
			  u32 n)
{
	const struct boot_reserved *first;
	u64 a = *start, b = *start + *size;
	u32 hits = e820_clear_of(start, size, fw, n, &first);
	char more[24] = "";

	if (!hits)
		return 0;
	if (hits > 1)
		snprintf(more, sizeof(more), " and %u more", (unsigned int)(hits - 1));
	if (!*size) {
		pr_err("memmap=%s: [mem 0x%016llx-0x%016llx] holds firmware data in use (%s [mem 0x%016llx-0x%016llx]%s); nothing usable is left, refused\n",
		       text, a, b - 1, first->what, first->addr,
		       range_end(first->addr, first->size) - 1, more);
		return -EINVAL;
	}
	pr_warn("memmap=%s: [mem 0x%016llx-0x%016llx] holds firmware data in use (%s [mem 0x%016llx-0x%016llx]%s); trimmed to [mem 0x%016llx-0x%016llx]\n",
		text, a, b - 1, first->what, first->addr, range_end(first->addr, first->size) - 1,
		more, *start, *start + *size - 1);
	return 1;
}

int memmap_spare_e820(const struct e820_table *t, struct memmap_spec *s)
{
	static struct boot_reserved fw[E820_MAX_ENTRIES];	/* boot is single-threaded */
	u32 n = 0;

	for (u32 i = 0; i < t->nr; i++) {
		const struct e820_entry *e = &t->entries[i];

		if (e->type == E820_TYPE_ACPI || e->type == E820_TYPE_NVS)
			fw[n++] =
				(struct boot_reserved){ e->addr, e->size, e820_type_name(e->type) };
	}
	return memmap_fw_trim(s->text, &s->start, &s->size, fw, n) < 0 ? -EINVAL : 0;
}

/*
 * The `!` ranges e820_parse_memmap() applied, each its own type-12 entry
 * (pmem entries never merge, and nothing applied later has a larger type),
 * and the map they were applied to. At most one per entry of the table.
 */
static struct memmap_pram {
	char text[MEMMAP_SPEC_MAX];
	u64 start, size;	/* size 0: given back */
} prams[E820_MAX_ENTRIES];
static u32 nr_prams;
static struct e820_table before;

void memmap_fw_begin(const struct e820_table *t)
{
	nr_prams = 0;
	memcpy(&before, t, sizeof(before));
}

void memmap_fw_record(const struct memmap_spec *s)
{
	struct memmap_pram *p;

	if (nr_prams >= ARRAY_SIZE(prams))
		return;	/* cannot happen: each has an entry of its own */
	p = &prams[nr_prams++];
	snprintf(p->text, sizeof(p->text), "%s", s->text);
	p->start = s->start;
	p->size = s->size;
}

static struct e820_entry *pram_entry(struct e820_table *t, const struct memmap_pram *p)
{
	for (u32 i = 0; i < t->nr; i++) {
		struct e820_entry *e = &t->entries[i];

		if (e->type == E820_TYPE_PRAM && e->addr == p->start && e->size == p->size)
			return e;
	}
	return NULL;
}

/*
 * p's entry becomes [start, start + size) of type 12, the rest of it
 * reserved: RAM there was kept out of the allocator at boot and stays out.
 */
static void pram_shrink(struct e820_table *t, struct memmap_pram *p, u64 start, u64 size)
{
	struct e820_entry *e = pram_entry(t, p);

	if (!e)
		return;
	if (size && t->nr + 2 > E820_MAX_ENTRIES) {
		pr_err("memmap=%s: e820 table full (%u entries), cannot trim it: refused\n",
		       p->text, (unsigned int)t->nr);
		size = 0;
	}
	e->type = E820_TYPE_RESERVED;
	if (size)
		e820_add(t, start, size, E820_TYPE_PRAM);	/* room checked */
	e820_sanitize(t);
	p->start = start;
	p->size = size;
}

/* Warn once per firmware-owned entry a `!` range still covers. */
static void memmap_warn_firmware(const struct memmap_pram *p)
{
	u64 b = p->start + p->size;

	for (u32 i = 0; i < before.nr; i++) {
		const struct e820_entry *e = &before.entries[i];

		if (e->type == E820_TYPE_RAM || e->addr >= b || e->addr + e->size <= p->start)
			continue;
		pr_warn("memmap=%s: covers %s [mem 0x%016llx-0x%016llx]; it becomes pmem as on Linux, but firmware may overwrite it at the next boot\n",
			p->text, e820_type_name(e->type), e->addr, (e->addr + e->size - 1));
	}
}

u32 e820_memmap_spare_firmware(struct e820_table *t, const struct boot_reserved *fw, u32 n)
{
	u32 changed = 0;

	for (u32 i = 0; i < nr_prams; i++) {
		struct memmap_pram *p = &prams[i];
		u64 start = p->start, size = p->size;

		if (!p->size)
			continue;
		if (memmap_fw_trim(p->text, &start, &size, fw, n)) {
			pram_shrink(t, p, start, size);
			changed++;
		}
		if (p->size)
			memmap_warn_firmware(p);
	}
	return changed;
}
