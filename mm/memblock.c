/* memblock: boot-time RAM and reservation lists, and the top-down allocator over them. */
#include <errno.h>
#include <string.h>

#include "memblock.h"
#include "printk.h"
#include "shell.h"

struct memblock memblock;

static bool alloc_after_freeze_reported;

static u64 region_end(const struct memblock_region *r)
{
	return r->base + r->size;
}

/* A range [base, base+size) is usable if it is not empty and does not wrap. */
static bool range_valid(u64 base, u64 size)
{
	return size != 0 && base + size > base;
}

void memblock_reset(void)
{
	memset(&memblock, 0, sizeof(memblock));
	alloc_after_freeze_reported = false;
}

static void region_insert(struct memblock_type *t, u32 i, u64 base, u64 end)
{
	memmove(&t->regions[i + 1], &t->regions[i], (t->cnt - i) * sizeof(t->regions[0]));
	t->regions[i] = (struct memblock_region){ base, end - base };
	t->cnt++;
}

static void region_delete(struct memblock_type *t, u32 i, u32 n)
{
	memmove(&t->regions[i], &t->regions[i + n],
		(t->cnt - i - n) * sizeof(t->regions[0]));
	t->cnt -= n;
}

/*
 * Add [base, end) to a sorted list whose regions neither overlap nor touch;
 * every region the range overlaps or touches is merged into one. -ENOSPC
 * (and nothing changed) when a new slot is needed and the list is full.
 */
static int type_add(struct memblock_type *t, u64 base, u64 end)
{
	u32 i = 0, j;

	while (i < t->cnt && region_end(&t->regions[i]) < base)
		i++;
	for (j = i; j < t->cnt && t->regions[j].base <= end; j++)
		;
	if (i == j) {
		if (t->cnt >= MEMBLOCK_MAX_REGIONS)
			return -ENOSPC;
		region_insert(t, i, base, end);
		return 0;
	}
	base = MIN(base, t->regions[i].base);
	end = MAX(end, region_end(&t->regions[j - 1]));
	t->regions[i] = (struct memblock_region){ base, end - base };
	region_delete(t, i + 1, j - i - 1);
	return 0;
}

/*
 * Remove [base, end) from a sorted list, trimming, deleting or splitting
 * regions. -ENOSPC (and nothing changed) if a split needs a slot and the
 * list is full.
 */
static int type_remove(struct memblock_type *t, u64 base, u64 end)
{
	u32 i = 0;

	while (i < t->cnt && region_end(&t->regions[i]) <= base)
		i++;
	while (i < t->cnt && t->regions[i].base < end) {
		struct memblock_region *r = &t->regions[i];
		u64 rend = region_end(r);

		if (r->base < base && rend > end) {
			if (t->cnt >= MEMBLOCK_MAX_REGIONS)
				return -ENOSPC;
			r->size = base - r->base;
			region_insert(t, i + 1, end, rend);
			return 0;
		}
		if (r->base < base) {		/* keep the head */
			r->size = base - r->base;
			i++;
		} else if (rend > end) {	/* keep the tail */
			*r = (struct memblock_region){ end, rend - end };
			return 0;
		} else {			/* entirely inside */
			region_delete(t, i, 1);
		}
	}
	return 0;
}

int memblock_add(u64 base, u64 size)
{
	if (!range_valid(base, size))
		return -EINVAL;
	return type_add(&memblock.memory, base, base + size);
}

int memblock_reserve(u64 base, u64 size)
{
	if (!range_valid(base, size))
		return -EINVAL;
	return type_add(&memblock.reserved, base, base + size);
}

int memblock_free(u64 base, u64 size)
{
	if (!range_valid(base, size))
		return -EINVAL;
	return type_remove(&memblock.reserved, base, base + size);
}

void memblock_set_limit(u64 limit)
{
	memblock.limit = limit;
}

bool memblock_next_free(u64 *idx, u64 *base, u64 *size)
{
	const struct memblock_type *mem = &memblock.memory;
	const struct memblock_type *res = &memblock.reserved;
	u64 cursor = MAX(*idx, PAGE_SIZE);	/* page 0 is never free */
	u32 j = 0;

	for (u32 i = 0; i < mem->cnt; i++) {
		u64 start = MAX(mem->regions[i].base, cursor);
		u64 end = region_end(&mem->regions[i]);

		while (start < end) {
			while (j < res->cnt && region_end(&res->regions[j]) <= start)
				j++;
			if (j < res->cnt && res->regions[j].base <= start) {
				start = region_end(&res->regions[j]);
				continue;
			}
			if (j < res->cnt && res->regions[j].base < end)
				end = res->regions[j].base;
			*base = start;
			*size = end - start;
			*idx = end;
			return true;
		}
	}
	return false;
}

/* The highest aligned start of `size` bytes inside [base, end), or 0. */
static u64 fit_top(u64 base, u64 end, u64 size, u64 align)
{
	if (memblock.limit && end > memblock.limit)
		end = memblock.limit;
	if (end <= base || end - base < size)
		return 0;
	u64 start = ALIGN_DOWN(end - size, align);

	return start >= base ? start : 0;
}

u64 memblock_alloc(u64 size, u64 align)
{
	u64 idx = 0, base, len, best = 0;

	if (memblock.frozen) {
		if (!alloc_after_freeze_reported)
			pr_err("memblock: alloc of %#llx bytes after the page allocator took over\n",
			       size);
		alloc_after_freeze_reported = true;
		return 0;
	}
	if (size == 0 || align == 0 || (align & (align - 1)))
		return 0;
	/* Free ranges come in address order, so the last fit is the highest. */
	while (memblock_next_free(&idx, &base, &len)) {
		u64 start = fit_top(base, base + len, size, align);

		if (start)
			best = start;
	}
	if (!best || type_add(&memblock.reserved, best, best + size))
		return 0;
	return best;
}

u64 memblock_phys_mem_size(void)
{
	u64 total = 0;

	for (u32 i = 0; i < memblock.memory.cnt; i++)
		total += memblock.memory.regions[i].size;
	return total;
}

u64 memblock_reserved_in_ram(void)
{
	const struct memblock_type *mem = &memblock.memory;
	const struct memblock_type *res = &memblock.reserved;
	u64 total = 0;
	u32 i = 0, j = 0;

	/* Both lists are sorted and disjoint: sum the pairwise overlaps. */
	while (i < mem->cnt && j < res->cnt) {
		u64 mend = region_end(&mem->regions[i]);
		u64 rend = region_end(&res->regions[j]);
		u64 lo = MAX(mem->regions[i].base, res->regions[j].base);
		u64 hi = MIN(mend, rend);

		if (hi > lo)
			total += hi - lo;
		if (mend < rend)
			i++;
		else
			j++;
	}
	return total;
}

u64 memblock_end_of_ram(void)
{
	const struct memblock_type *mem = &memblock.memory;

	return mem->cnt ? region_end(&mem->regions[mem->cnt - 1]) : 0;
}

bool memblock_is_ram(u64 base, u64 size)
{
	if (!range_valid(base, size))
		return false;
	/* Touching ranges are merged, so RAM without a hole is one region. */
	for (u32 i = 0; i < memblock.memory.cnt; i++) {
		const struct memblock_region *r = &memblock.memory.regions[i];

		if (r->base <= base && base + size <= region_end(r))
			return true;
	}
	return false;
}

const struct memblock_region *memblock_ram_overlapping(u64 base, u64 size)
{
	for (u32 i = 0; size && i < memblock.memory.cnt; i++) {
		const struct memblock_region *r = &memblock.memory.regions[i];

		if (r->base < base + size && base < region_end(r))
			return r;
	}
	return NULL;
}

static void print_type(const char *name, const struct memblock_type *t)
{
	kprintf("memblock.%s: %u regions\n", name, t->cnt);
	for (u32 i = 0; i < t->cnt; i++)
		kprintf("  [0x%016llx-0x%016llx] %llu KiB\n", t->regions[i].base,
			(region_end(&t->regions[i]) - 1), (t->regions[i].size >> 10));
}

/* Debugging aid: the lists as they were when the page allocator took over. */
static int cmd_memblock(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	print_type("memory", &memblock.memory);
	print_type("reserved", &memblock.reserved);
	kprintf("limit %#llx, %s\n", memblock.limit,
		memblock.frozen ? "frozen (page allocator owns free RAM)" : "allocating");
	return 0;
}
SHELL_COMMAND(SHELL_MEMORY, "memblock", cmd_memblock, "memblock", "print memblock's memory and reserved lists");
