/*
 * Initialising struct pages: one template copied over a range, no call per
 * page; in persistent memory only the struct pages that differ are stored.
 * Also the count of bytes stored to pmem (mm.h).
 */
#include "mm.h"
#include "params.h"
#include "printk.h"

u64 pmem_written[PMEM_WR_NR];
int memmap_pmem_rewrite;	/* memmap_pmem=: 0 diff, 1 rewrite */

const char *pmem_writer_name(enum pmem_writer w)
{
	static const char *const names[PMEM_WR_NR] = { "block", "infoblock", "memmap", "btt",
						       "other" };

	return w < PMEM_WR_NR ? names[w] : "?";
}

void memmap_init_range(u64 start_pfn, u64 end_pfn, const struct page *tmpl)
{
	const struct page t = *tmpl;
	struct page *p = pfn_to_page(start_pfn);
	struct page *end = pfn_to_page(end_pfn);

	/* A 64-byte struct assignment compiles to eight plain 8-byte stores. */
	for (; p < end; p++)
		*p = t;
}

/* struct page as eight words, for the comparison (may alias the struct). */
typedef u64 __attribute__((__may_alias__)) page_word;
_Static_assert(sizeof(struct page) == 8 * sizeof(u64), "struct page is eight words");

u64 memmap_init_range_pmem(u64 start_pfn, u64 end_pfn, const struct page *tmpl)
{
	const page_word *src = (const page_word *)tmpl;
	/* In registers: nothing the loop stores through p can alias them. */
	const u64 t0 = src[0], t1 = src[1], t2 = src[2], t3 = src[3];
	const u64 t4 = src[4], t5 = src[5], t6 = src[6], t7 = src[7];
	page_word *p = (page_word *)pfn_to_page(start_pfn);
	page_word *end = (page_word *)pfn_to_page(end_pfn);
	u64 stored = 0;

	if (memmap_pmem_rewrite) {
		memmap_init_range(start_pfn, end_pfn, tmpl);
		return end_pfn - start_pfn;
	}
	/*
	 * flags and pgmap first: on media that never held this device's struct
	 * pages they differ, and one load decides; an unchanged page costs
	 * eight loads and no store.
	 */
	for (; p < end; p += 8) {
		if (p[0] == t0 && p[2] == t2 &&
		    !((p[1] ^ t1) | (p[3] ^ t3) | (p[4] ^ t4) | (p[5] ^ t5) | (p[6] ^ t6) |
		      (p[7] ^ t7)))
			continue;
		p[0] = t0, p[1] = t1, p[2] = t2, p[3] = t3;
		p[4] = t4, p[5] = t5, p[6] = t6, p[7] = t7;
		stored++;
	}
	return stored;
}

KERNEL_PARAM_CHOICE("memmap_pmem", memmap_pmem_rewrite, -1,
		    "struct pages in pmem: diff (store only what differs, default) or rewrite (all, as Linux 6.1)",
		    "diff", "rewrite");
