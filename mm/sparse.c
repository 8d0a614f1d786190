/*
 * The sparse section table: which 2 MiB subsections have struct pages and
 * which of those are ZONE_DEVICE. Two levels: a static array of pointers to
 * 4 KiB chunks of 128 sections (16 GiB each), allocated when a range first
 * needs them and freed when they hold nothing again.
 */
#include <errno.h>
#include <string.h>

#include "arch.h"
#include "memblock.h"
#include "memremap.h"
#include "printk.h"
#include "sparse.h"

#define SECTIONS_PER_CHUNK (PAGE_SIZE / sizeof(struct mem_section))
#define NR_SECTION_CHUNKS (NR_MEM_SECTIONS / SECTIONS_PER_CHUNK)

_Static_assert(sizeof(struct mem_section) == 32, "128 sections per chunk page");

static struct mem_section *chunks[NR_SECTION_CHUNKS];
static u32 chunk_ranges[NR_SECTION_CHUNKS];	/* added ranges covering each chunk */
static u32 chunk_used[NR_SECTION_CHUNKS];	/* atomic: its sections with a memmap */

void sparse_reset(void)
{
	memset(chunks, 0, sizeof(chunks));
	memset(chunk_ranges, 0, sizeof(chunk_ranges));
	memset(chunk_used, 0, sizeof(chunk_used));
	vmemmap_reset();
}

static u64 chunk_of(u64 pfn)
{
	return pfn_to_section_nr(pfn) / SECTIONS_PER_CHUNK;
}

struct mem_section *section_lookup(u64 section_nr)
{
	struct mem_section *chunk;

	if (section_nr >= NR_MEM_SECTIONS)
		return NULL;
	chunk = chunks[section_nr / SECTIONS_PER_CHUNK];
	return chunk ? &chunk[section_nr % SECTIONS_PER_CHUNK] : NULL;
}

bool pfn_valid(u64 pfn)
{
	struct mem_section *ms = section_lookup(pfn_to_section_nr(pfn));

	return ms && ((ms->memmap_map >> subsection_index(pfn)) & 1);
}

/* The bits of the subsections of [s, e), a part of one section. */
static u64 subsection_mask(u64 s, u64 e)
{
	unsigned int lo = subsection_index(s), hi = subsection_index(e - 1);
	u64 upto = hi == 63 ? ~0ULL : (1ULL << (hi + 1)) - 1;

	return upto & ~((1ULL << lo) - 1);
}

/* First pfn of the chunk after pfn's. */
static u64 chunk_end_pfn(u64 pfn)
{
	return (chunk_of(pfn) + 1) * SECTIONS_PER_CHUNK * PAGES_PER_SECTION;
}

bool sparse_range_has_memmap(u64 start_pfn, u64 nr_pages)
{
	u64 end = start_pfn + nr_pages;

	for (u64 s = start_pfn, e; s < end; s = e) {
		u64 nr = pfn_to_section_nr(s);
		const struct mem_section *chunk = nr < NR_MEM_SECTIONS ? chunks[chunk_of(s)] : NULL;

		if (!chunk || !__atomic_load_n(&chunk_used[chunk_of(s)], __ATOMIC_RELAXED)) {
			/* 128 sections without a memmap */
			e = MIN(end, chunk_end_pfn(s));
			continue;
		}
		e = section_part_end(s, end);
		if (chunk[nr % SECTIONS_PER_CHUNK].memmap_map & subsection_mask(s, e))
			return true;
	}
	return false;
}

/* One range fewer in the chunks covering [start, end); a chunk no range holds is freed. */
static void chunks_put(u64 start, u64 end)
{
	for (u64 c = chunk_of(start); c <= chunk_of(end - 1); c++) {
		if (!chunks[c] || --chunk_ranges[c])
			continue;
		mm_free_pages(virt_to_phys(chunks[c]), 0, MM_SECTION_TABLES);
		chunks[c] = NULL;
	}
}

/* Allocate the missing chunks for [start, end) and count the range in each; all or nothing. */
static int chunks_get(u64 start, u64 end)
{
	for (u64 c = chunk_of(start); c <= chunk_of(end - 1); c++) {
		if (!chunks[c]) {
			u64 pa = mm_alloc_pages(0, true, MM_SECTION_TABLES);

			if (!pa) {
				if (c > chunk_of(start))
					chunks_put(start, c * SECTIONS_PER_CHUNK * PAGES_PER_SECTION);
				return -ENOMEM;
			}
			chunks[c] = phys_to_virt(pa);
		}
		chunk_ranges[c]++;
	}
	return 0;
}

static void section_update_flags(struct mem_section *ms)
{
	u32 f = 0;

	if (ms->memmap_map)
		f |= SECTION_PRESENT | SECTION_HAS_MEMMAP;
	if (ms->memmap_map & ~ms->device_map)
		f |= SECTION_ONLINE;
	if (ms->device_map)
		f |= SECTION_DEVICE;
	ms->flags = f;
}

/* Set (or clear) the subsections of [start, end); chunks must exist. */
static void sections_mark(u64 start, u64 end, bool set, bool device)
{
	for (u64 s = start, e; s < end; s = e) {
		u64 nr = pfn_to_section_nr(s), mask;
		struct mem_section *ms = &chunks[nr / SECTIONS_PER_CHUNK][nr % SECTIONS_PER_CHUNK];

		bool had = ms->memmap_map != 0;

		e = section_part_end(s, end);
		mask = e - s == PAGES_PER_SECTION ? ~0ULL : subsection_mask(s, e);
		ms->memmap_map = set ? ms->memmap_map | mask : ms->memmap_map & ~mask;
		if (had != (ms->memmap_map != 0))
			__atomic_fetch_add(&chunk_used[nr / SECTIONS_PER_CHUNK], had ? -1U : 1U,
					   __ATOMIC_RELAXED);
		ms->device_map = set && device ? ms->device_map | mask : ms->device_map & ~mask;
		section_update_flags(ms);
	}
}

/*
 * sparse_add_range, and with `lazy` sparse_add_range_lazy: the whole
 * sections it leaves to sparse_populate_lazy get no bits now.
 */
static int sparse_add(u64 start_pfn, u64 nr_pages, struct vmem_altmap *altmap,
		      unsigned int flags, bool device, struct vmemmap_lazy *lazy)
{
	u64 end = start_pfn + nr_pages;
	int err;

	if (!nr_pages || !IS_ALIGNED(start_pfn | nr_pages, PAGES_PER_SUBSECTION) ||
	    end > MAX_PFN || end < start_pfn)
		return -EINVAL;
	if (sparse_range_has_memmap(start_pfn, nr_pages))
		return -EEXIST;
	err = chunks_get(start_pfn, end);
	if (err)
		return err;
	err = lazy ? vmemmap_populate_lazy(start_pfn, nr_pages, altmap, lazy) :
		     vmemmap_populate(start_pfn, nr_pages, altmap, flags);
	if (err) {
		chunks_put(start_pfn, end);
		return err;
	}
	if (!lazy || lazy->end_pfn == lazy->first_pfn) {
		sections_mark(start_pfn, end, true, device);
		return 0;
	}
	/* The edges now; the whole sections between them as they are populated. */
	if (start_pfn < lazy->first_pfn)
		sections_mark(start_pfn, lazy->first_pfn, true, device);
	if (lazy->end_pfn < end)
		sections_mark(lazy->end_pfn, end, true, device);
	return 0;
}

int sparse_add_range(u64 start_pfn, u64 nr_pages, struct vmem_altmap *altmap,
		     unsigned int flags, bool device)
{
	return sparse_add(start_pfn, nr_pages, altmap, flags, device, NULL);
}

int sparse_add_range_lazy(u64 start_pfn, u64 nr_pages, struct vmem_altmap *altmap,
			  struct vmemmap_lazy *lazy)
{
	return sparse_add(start_pfn, nr_pages, altmap, 0, true, lazy);
}

void sparse_populate_lazy(const struct vmemmap_lazy *lazy, u64 pfn)
{
	u64 s = ALIGN_DOWN(pfn, PAGES_PER_SECTION);

	if (s < lazy->first_pfn || s >= lazy->end_pfn)
		return;
	vmemmap_install_lazy(lazy, s);
	/* Published after the leaf: pfn_valid() true means the struct pages are mapped. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	sections_mark(s, s + PAGES_PER_SECTION, true, true);
}

void sparse_remove_range(u64 start_pfn, u64 nr_pages, struct vmem_altmap *altmap,
			 unsigned int flags)
{
	u64 end = start_pfn + nr_pages;

	sections_mark(start_pfn, end, false, false);
	vmemmap_free(start_pfn, nr_pages, altmap, flags);
	chunks_put(start_pfn, end);
}

int sparse_reserve_range(u64 start_pfn, u64 nr_pages)
{
	u64 end = start_pfn + nr_pages;

	if (!nr_pages || end > MAX_PFN || end < start_pfn)
		return -EINVAL;
	mm_lock();	/* the section table and kernel_pgtable, as memremap_pages changes them */
	int err = chunks_get(start_pfn, end);
	if (!err) {
		err = vmemmap_reserve_tables(start_pfn, nr_pages);
		if (err)
			chunks_put(start_pfn, end);
	}
	mm_unlock();
	return err;
}

/* Struct pages of one RAM span: NORMAL where memblock has RAM, else PG_reserved. */
static void ram_memmap_init(u64 start, u64 end)
{
	const struct memblock_type *mem = &memblock.memory;
	struct page ram = { .flags = ZONE_NORMAL };
	struct page hole = { .flags = ZONE_NORMAL | PG_reserved };
	u64 cursor = start;

	for (u32 i = 0; i < mem->cnt; i++) {
		u64 s = MAX(start, PFN_UP(mem->regions[i].base));
		u64 e = MIN(end, PFN_DOWN(mem->regions[i].base + mem->regions[i].size));

		if (s >= e)
			continue;
		memmap_init_range(cursor, s, &hole);
		memmap_init_range(s, e, &ram);
		cursor = e;
	}
	memmap_init_range(cursor, end, &hole);
}

static int ram_span_add(u64 start, u64 end)
{
	int err = sparse_add_range(start, end - start, NULL, 0, false);

	if (err) {
		pr_err("sparse: no struct pages for RAM [mem %#llx-%#llx]: error %d\n",
		       PFN_PHYS(start), PFN_PHYS(end) - 1, err);
		return err;
	}
	ram_memmap_init(start, end);
	return 0;
}

int sparse_init_ram(void)
{
	const struct memblock_type *mem = &memblock.memory;
	u64 start = 0, end = 0, before = mm_stat(MM_VMEMMAP);
	int err = 0;

	for (u32 i = 0; i <= mem->cnt && !err; i++) {
		u64 s = i < mem->cnt ? ALIGN_DOWN(PFN_DOWN(mem->regions[i].base), PAGES_PER_SUBSECTION) : 0;
		u64 e = i < mem->cnt ? ALIGN_UP(PFN_UP(mem->regions[i].base + mem->regions[i].size),
						PAGES_PER_SUBSECTION) : 0;

		if (i < mem->cnt && end && s <= end) {
			end = MAX(end, MIN(e, MAX_PFN));	/* touches the span: grow it */
			continue;
		}
		if (end)
			err = ram_span_add(start, end);
		start = s;
		end = MIN(e, MAX_PFN);
	}
	pr_info("sparse: struct pages for RAM in %llu KiB of vmemmap, sections of 128 MiB, subsections of 2 MiB\n",
		((mm_stat(MM_VMEMMAP) - before) >> 10));
	return err;
}
