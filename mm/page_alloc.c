/* The buddy page allocator: free RAM after boot in naturally aligned 2^order-page blocks. */
#include <string.h>

#include "arch.h"
#include "memblock.h"
#include "page_alloc.h"
#include "printk.h"
#include "spinlock.h"
#include "shell.h"

/*
 * Metadata: one byte per pfn of each segment, the state of the block that
 * starts there (0 for pages that start no block: tails, holes, reserved).
 * A segment covers the whole pages of one or more memblock memory regions;
 * regions closer than SEGMENT_MERGE_GAP share a segment (the gap costs a
 * byte per page), farther ones (RAM on both sides of a large pmem range)
 * get their own, so metadata stays near 256 KiB per GiB of RAM.
 *
 * Free blocks sit on doubly linked lists, one per order. Below MAX_ORDER
 * the links live in the first page of each free block. MAX_ORDER blocks,
 * nearly all of RAM at boot, have their links in a per-segment table (16
 * bytes per 4 MiB, 4 KiB per GiB) instead: init then writes no free page,
 * which under QEMU would make the host back every block of guest RAM.
 */
#define META_FREE 0x80		/* head of a free block; low bits: order */
#define META_ALLOC 0x40		/* head of an allocated block; low bits: order */
#define META_ORDER 0x0f

#define SEGMENT_MERGE_GAP (1 * GiB / PAGE_SIZE)

struct free_link {
	u64 next_pfn;		/* 0: end of list (pfn 0 is never managed) */
	u64 prev_pfn;
};

struct segment {
	u64 start_pfn;
	u64 end_pfn;		/* exclusive */
	u8 *meta;		/* meta[pfn - start_pfn] */
	struct free_link *top;	/* top[(pfn >> MAX_ORDER) - (start_pfn >> MAX_ORDER)] */
};

static struct segment segments[MEMBLOCK_MAX_REGIONS];
static u32 nr_segments;
static u64 free_list[MAX_ORDER + 1];	/* pfn of the first free block, or 0 */
static struct page_alloc_stats stats;
static u64 meta_pa, meta_bytes;

void page_alloc_reset(void)
{
	memset(segments, 0, sizeof(segments));
	nr_segments = 0;
	memset(free_list, 0, sizeof(free_list));
	memset(&stats, 0, sizeof(stats));
	meta_pa = meta_bytes = 0;
}

static u64 order_pages(unsigned int order)
{
	return 1ULL << order;
}

/* The segment holding pfn, or NULL (binary search: segments are sorted). */
static struct segment *segment_of(u64 pfn)
{
	u32 lo = 0, hi = nr_segments;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (pfn < segments[mid].start_pfn)
			hi = mid;
		else if (pfn >= segments[mid].end_pfn)
			lo = mid + 1;
		else
			return &segments[mid];
	}
	return NULL;
}

static u8 *meta_of(struct segment *seg, u64 pfn)
{
	return &seg->meta[pfn - seg->start_pfn];
}

static u64 top_slots(const struct segment *seg)
{
	return ((seg->end_pfn - 1) >> MAX_ORDER) - (seg->start_pfn >> MAX_ORDER) + 1;
}

/* The links of the free block of `order` at pfn. */
static struct free_link *link_of(u64 pfn, unsigned int order)
{
	if (order == MAX_ORDER) {
		struct segment *seg = segment_of(pfn);

		return &seg->top[(pfn >> MAX_ORDER) - (seg->start_pfn >> MAX_ORDER)];
	}
	return phys_to_virt(PFN_PHYS(pfn));
}

/* Put a block on its free list and mark it free. */
static void mark_free(struct segment *seg, u64 pfn, unsigned int order)
{
	struct free_link *l = link_of(pfn, order);

	l->next_pfn = free_list[order];
	l->prev_pfn = 0;
	if (free_list[order])
		link_of(free_list[order], order)->prev_pfn = pfn;
	free_list[order] = pfn;
	*meta_of(seg, pfn) = META_FREE | order;
	stats.free_blocks[order]++;
	stats.free_pages += order_pages(order);
}

/* Take a free block off its list; its head byte becomes 0. */
static void unmark_free(struct segment *seg, u64 pfn, unsigned int order)
{
	struct free_link *l = link_of(pfn, order);

	if (l->prev_pfn)
		link_of(l->prev_pfn, order)->next_pfn = l->next_pfn;
	else
		free_list[order] = l->next_pfn;
	if (l->next_pfn)
		link_of(l->next_pfn, order)->prev_pfn = l->prev_pfn;
	*meta_of(seg, pfn) = 0;
	stats.free_blocks[order]--;
	stats.free_pages -= order_pages(order);
}

/*
 * Free a block whose head byte is 0, merging it with free buddies. A merged
 * block never leaves the segment, so buddies outside it are never free.
 */
static void free_block(struct segment *seg, u64 pfn, unsigned int order)
{
	while (order < MAX_ORDER) {
		u64 buddy = pfn ^ order_pages(order);

		if (buddy < seg->start_pfn || buddy + order_pages(order) > seg->end_pfn)
			break;
		if (*meta_of(seg, buddy) != (META_FREE | order))
			break;
		unmark_free(seg, buddy, order);
		pfn &= ~order_pages(order);
		order++;
	}
	mark_free(seg, pfn, order);
}

/* The largest order of a naturally aligned block at pfn that ends by `end`. */
static unsigned int fit_order(u64 pfn, u64 end)
{
	unsigned int order = MAX_ORDER;

	while (!IS_ALIGNED(pfn, order_pages(order)) || pfn + order_pages(order) > end)
		order--;
	return order;
}

/* Hand the whole pages of [pfn, end) to the buddy lists, one block at a time. */
static void add_range(u64 pfn, u64 end)
{
	struct segment *seg = segment_of(pfn);

	if (!seg || end > seg->end_pfn) {
		pr_err("page_alloc: free pfns [%#llx-%#llx) outside every segment\n", pfn, end);
		return;
	}
	while (pfn < end) {
		unsigned int order = fit_order(pfn, end);

		free_block(seg, pfn, order);
		stats.managed_pages += order_pages(order);
		pfn += order_pages(order);
	}
}

/* Segments from memblock.memory, whole pages only. */
static void build_segments(void)
{
	const struct memblock_type *mem = &memblock.memory;

	for (u32 i = 0; i < mem->cnt; i++) {
		u64 start = PFN_UP(mem->regions[i].base);
		u64 end = PFN_DOWN(mem->regions[i].base + mem->regions[i].size);
		struct segment *last = nr_segments ? &segments[nr_segments - 1] : NULL;

		if (start >= end)
			continue;
		if (last && start - last->end_pfn <= SEGMENT_MERGE_GAP)
			last->end_pfn = end;
		else
			segments[nr_segments++] = (struct segment){ start, end, NULL, NULL };
	}
}

/* Bytes of metadata: the link tables first (8-byte aligned), then the state bytes. */
static u64 metadata_bytes(void)
{
	u64 bytes = 0;

	for (u32 i = 0; i < nr_segments; i++)
		bytes += top_slots(&segments[i]) * sizeof(struct free_link);
	for (u32 i = 0; i < nr_segments; i++)
		bytes += segments[i].end_pfn - segments[i].start_pfn;
	return bytes;
}

/* Carve the zeroed metadata at va into each segment's tables. */
static void place_metadata(u8 *va)
{
	memset(va, 0, meta_bytes);
	for (u32 i = 0; i < nr_segments; i++) {
		segments[i].top = (struct free_link *)va;
		va += top_slots(&segments[i]) * sizeof(struct free_link);
	}
	for (u32 i = 0; i < nr_segments; i++) {
		segments[i].meta = va;
		va += segments[i].end_pfn - segments[i].start_pfn;
	}
}

/*
 * Take over RAM from memblock: allocate the metadata (one byte per pfn of
 * each segment, plus the MAX_ORDER link tables) from memblock, give every
 * free range to the buddy lists in the largest naturally aligned blocks,
 * then freeze memblock. Runs once.
 */
void page_alloc_init(void)
{
	u64 idx = 0, base, size;

	if (nr_segments) {
		pr_err("page_alloc: already initialized\n");
		return;
	}
	build_segments();
	meta_bytes = metadata_bytes();
	meta_pa = meta_bytes ? memblock_alloc(meta_bytes, PAGE_SIZE) : 0;
	if (!meta_pa) {
		pr_err("page_alloc: no RAM for %llu bytes of metadata, managing nothing\n",
		       meta_bytes);
		page_alloc_reset();
		return;
	}
	place_metadata(phys_to_virt(meta_pa));
	while (memblock_next_free(&idx, &base, &size))
		add_range(PFN_UP(base), PFN_DOWN(base + size));
	memblock.frozen = true;
	pr_info("page_alloc: %llu MiB managed in %u segments, metadata %llu KiB at %#llx\n",
		(stats.managed_pages >> (20 - PAGE_SHIFT)), nr_segments, (meta_bytes >> 10),
		meta_pa);
}

/* The free lists, the metadata and the stats: any CPU may allocate (include/spinlock.h). */
static struct spinlock page_alloc_lock = SPINLOCK_INIT("page_alloc", LOCK_RANK_PAGE_ALLOC);

static u64 page_alloc_locked(unsigned int order)
{
	unsigned int k = order;

	if (order > MAX_ORDER)
		return 0;
	while (k <= MAX_ORDER && !free_list[k])
		k++;
	if (k > MAX_ORDER)
		return 0;

	u64 pfn = free_list[k];
	struct segment *seg = segment_of(pfn);

	if (!seg || *meta_of(seg, pfn) != (META_FREE | k)) {
		pr_err("page_alloc: free list %u corrupt at pfn %#llx\n", k, pfn);
		return 0;
	}
	unmark_free(seg, pfn, k);
	while (k > order) {	/* keep the low half, free the high half */
		k--;
		mark_free(seg, pfn + order_pages(k), k);
	}
	*meta_of(seg, pfn) = META_ALLOC | order;
	return PFN_PHYS(pfn);
}

u64 page_alloc(unsigned int order)
{
	spin_lock(&page_alloc_lock);
	u64 pa = page_alloc_locked(order);
	spin_unlock(&page_alloc_lock);
	return pa;
}

u64 page_alloc_zeroed(unsigned int order)
{
	u64 pa = page_alloc(order);

	if (pa)
		memset(phys_to_virt(pa), 0, PAGE_SIZE << order);
	return pa;
}

/* True if pfn lies inside a free block (whose head is pfn aligned down). */
static bool in_free_block(struct segment *seg, u64 pfn)
{
	for (unsigned int k = 0; k <= MAX_ORDER; k++) {
		u64 head = pfn & ~(order_pages(k) - 1);

		if (head >= seg->start_pfn && *meta_of(seg, head) == (META_FREE | k))
			return true;
	}
	return false;
}

/*
 * Check a block handed to page_free; a bad one is a kernel bug, reported
 * once per call and otherwise ignored. Returns its segment or NULL.
 */
static struct segment *free_check(u64 pa, unsigned int order)
{
	unsigned long long a = pa;
	struct segment *seg;
	u8 m;

	if (order > MAX_ORDER) {
		pr_err("page_free: %#llx: order %u > MAX_ORDER\n", a, order);
		return NULL;
	}
	if (!IS_ALIGNED(pa, PAGE_SIZE << order)) {
		pr_err("page_free: %#llx is not aligned for order %u: not from page_alloc\n",
		       a, order);
		return NULL;
	}
	seg = segment_of(PFN_DOWN(pa));
	if (!seg || PFN_DOWN(pa) + order_pages(order) > seg->end_pfn) {
		pr_err("page_free: %#llx order %u is outside the managed RAM\n", a, order);
		return NULL;
	}
	m = *meta_of(seg, PFN_DOWN(pa));
	if (m == (META_ALLOC | order))
		return seg;
	if (m & META_ALLOC)
		pr_err("page_free: %#llx freed with order %u, allocated with order %u\n", a,
		       order, m & META_ORDER);
	else if (in_free_block(seg, PFN_DOWN(pa)))
		pr_err("page_free: double free of %#llx order %u\n", a, order);
	else
		pr_err("page_free: %#llx order %u was never allocated (reserved or inside a block)\n",
		       a, order);
	return NULL;
}

void page_free(u64 pa, unsigned int order)
{
	spin_lock(&page_alloc_lock);
	struct segment *seg = free_check(pa, order);

	if (seg) {
		*meta_of(seg, PFN_DOWN(pa)) = 0;
		free_block(seg, PFN_DOWN(pa), order);
	}
	spin_unlock(&page_alloc_lock);
}

void page_alloc_stats(struct page_alloc_stats *st)
{
	spin_lock(&page_alloc_lock);
	*st = stats;
	spin_unlock(&page_alloc_lock);
}

/* Debugging aid: free blocks per order, like Linux's /proc/buddyinfo. */
static int cmd_buddyinfo(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	kprintf("order ");
	for (unsigned int k = 0; k <= MAX_ORDER; k++)
		kprintf("%7u", k);
	kprintf("\nfree  ");
	for (unsigned int k = 0; k <= MAX_ORDER; k++)
		kprintf("%7llu", stats.free_blocks[k]);
	kprintf("\nmanaged %llu pages, free %llu pages, metadata %llu KiB at %#llx in %u segments\n",
		stats.managed_pages, stats.free_pages, (meta_bytes >> 10), meta_pa, nr_segments);
	return 0;
}
SHELL_COMMAND(SHELL_MEMORY, "buddyinfo", cmd_buddyinfo, "buddyinfo",
	      "free blocks per order of the page allocator");
