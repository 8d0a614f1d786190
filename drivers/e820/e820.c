/* The e820 table: add ranges, sanitize overlaps (FACTS 7.3), print it. */
/* Ours first: newlib's <sys/cdefs.h> then redefines __used & co silently. */
#include "e820.h"
#include "printk.h"
#include "shell.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct e820_table e820_table;

bool e820_is_pmem(u32 type)
{
	return type == E820_TYPE_PMEM || type == E820_TYPE_PRAM;
}

/* Linux's words for the types it knows (arch/x86/kernel/e820.c), FACTS 7.1. */
static const char *e820_known_name(u32 type)
{
	switch (type) {
	case E820_TYPE_RAM:		return "usable";
	case E820_TYPE_RESERVED:	return "reserved";
	case E820_TYPE_ACPI:		return "ACPI data";
	case E820_TYPE_NVS:		return "ACPI NVS";
	case E820_TYPE_UNUSABLE:	return "unusable";
	case E820_TYPE_PMEM:		return "persistent (type 7)";
	case E820_TYPE_PRAM:		return "persistent (type 12)";
	default:			return NULL;
	}
}

/*
 * Any other type reads "type N" (GRUB's 20 for EFI runtime code, FACTS 5.5).
 * The text lives in one of a few rotating static buffers, so a caller may use
 * up to four names in one printk; not reentrant (boot is single-threaded).
 */
const char *e820_type_name(u32 type)
{
	static char bufs[4][16];
	static unsigned int next;
	const char *name = e820_known_name(type);

	if (name)
		return name;
	char *buf = bufs[next++ % ARRAY_SIZE(bufs)];

	snprintf(buf, sizeof(bufs[0]), "type %u", (unsigned int)type);
	return buf;
}

/* The end (addr + size) must be representable, so a range may not touch 2^64. */
int e820_add(struct e820_table *t, u64 addr, u64 size, u32 type)
{
	if (size == 0 || addr + size < addr)
		return -EINVAL;
	if (t->nr >= E820_MAX_ENTRIES)
		return -ENOSPC;
	t->entries[t->nr++] = (struct e820_entry){ addr, size, type };
	return 0;
}

/*
 * Sanitize: a change-point sweep (FACTS 7.3, our own code).
 *
 * Every entry contributes a start and an end point. Walking the points in
 * address order, the effective type between two consecutive addresses is the
 * numerically largest type among the entries covering it (0 = none). A new
 * output range starts where the effective type changes. Mergeable types
 * (everything but pmem) thus merge across adjacent and overlapping entries;
 * a pmem type (7, 12) is also cut wherever an entry of that same type starts
 * or ends, so two adjacent pmem ranges stay two regions, overlapping ones are
 * split at every boundary (Linux does the same for 12), and identical
 * duplicates collapse to one. Unlike Linux, a lower-typed entry ending inside
 * a pmem range does not cut it.
 *
 * Type 0 is "no range" (as in Linux) and is dropped, as are zero-size
 * entries and entries whose end wraps (only possible if the table was filled
 * by hand, not through e820_add).
 *
 * Scratch is static (no heap this early): not reentrant.
 */
struct e820_point {
	u64 addr;
	u32 idx;	/* entry index */
};

static struct e820_point points[2 * E820_MAX_ENTRIES];
static struct e820_entry out[2 * E820_MAX_ENTRIES];
/* The entries covering the sweep position, and where each sits in it. */
static u32 active[E820_MAX_ENTRIES], nr_active;
static u32 active_pos[E820_MAX_ENTRIES];
#define NOT_ACTIVE UINT32_MAX

static int point_cmp(const void *a, const void *b)
{
	const struct e820_point *pa = a, *pb = b;

	if (pa->addr != pb->addr)
		return pa->addr < pb->addr ? -1 : 1;
	return (pa->idx > pb->idx) - (pa->idx < pb->idx);
}

static bool entry_valid(const struct e820_entry *e)
{
	return e->size && e->type && e->addr + e->size > e->addr;
}

static u32 collect_points(struct e820_table *t)
{
	u32 n = 0;

	if (t->nr > E820_MAX_ENTRIES)	/* filled by hand: keep what fits */
		t->nr = E820_MAX_ENTRIES;
	for (u32 i = 0; i < t->nr; i++) {
		active_pos[i] = NOT_ACTIVE;
		if (!entry_valid(&t->entries[i]))
			continue;
		points[n++] = (struct e820_point){ t->entries[i].addr, i };
		points[n++] = (struct e820_point){ t->entries[i].addr + t->entries[i].size, i };
	}
	qsort(points, n, sizeof(points[0]), point_cmp);
	nr_active = 0;
	return n;
}

/* An entry's first point makes it active, its second one inactive. */
static void toggle_active(u32 i)
{
	u32 pos = active_pos[i];

	if (pos == NOT_ACTIVE) {
		active_pos[i] = nr_active;
		active[nr_active++] = i;
		return;
	}
	u32 last = active[--nr_active];

	active[pos] = last;
	active_pos[last] = pos;
	active_pos[i] = NOT_ACTIVE;
}

static u32 effective_type(const struct e820_table *t)
{
	u32 type = 0;

	for (u32 k = 0; k < nr_active; k++)
		type = MAX(type, t->entries[active[k]].type);
	return type;
}

/* Close [start, end) of `type` into out[]; returns the new count. */
static u32 emit(u32 nout, u64 start, u64 end, u32 type)
{
	if (type && end > start)
		out[nout++] = (struct e820_entry){ start, end - start, type };
	return nout;
}

static void copy_out(struct e820_table *t, u32 nout)
{
	if (nout > E820_MAX_ENTRIES) {
		const struct e820_entry *e = &out[E820_MAX_ENTRIES];

		pr_err("e820: sanitized map needs %u entries, dropping the %u from 0x%016llx up\n",
		       (unsigned int)nout, (unsigned int)(nout - E820_MAX_ENTRIES), e->addr);
		nout = E820_MAX_ENTRIES;
	}
	memcpy(t->entries, out, nout * sizeof(out[0]));
	t->nr = nout;
}

void e820_sanitize(struct e820_table *t)
{
	u32 npoints = collect_points(t), nout = 0, cur = 0;
	u64 start = 0;

	for (u32 p = 0; p < npoints;) {
		u64 addr = points[p].addr;
		bool cut = false;

		/* Apply every point at this address before deciding. */
		for (; p < npoints && points[p].addr == addr; p++) {
			u32 i = points[p].idx;

			toggle_active(i);
			if (t->entries[i].type == cur && e820_is_pmem(cur))
				cut = true;
		}
		u32 type = effective_type(t);

		if (type == cur && !cut)
			continue;
		nout = emit(nout, start, addr, cur);
		cur = type;
		start = addr;
	}
	copy_out(t, nout);
}

void e820_print(const struct e820_table *t, const char *prefix)
{
	for (u32 i = 0; i < t->nr; i++) {
		const struct e820_entry *e = &t->entries[i];

		printk(LOGLEVEL_INFO, "%s: [mem 0x%016llx-0x%016llx] %s\n", prefix, e->addr,
		       (e->addr + e->size - 1), e820_type_name(e->type));
	}
}

static int cmd_e820(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	for (u32 i = 0; i < e820_table.nr; i++) {
		const struct e820_entry *e = &e820_table.entries[i];
		kprintf("e820: [mem 0x%016llx-0x%016llx] %s\n", e->addr, (e->addr + e->size - 1),
			e820_type_name(e->type));
	}
	return 0;
}
SHELL_COMMAND(SHELL_MEMORY, "e820", cmd_e820, "e820", "print the kernel's memory map");
