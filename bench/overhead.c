/*
 * The overhead bench: the RAM (struct pages, page tables, section tables)
 * and pmem (struct pages, info block reserve, alignment) one bring-up of a
 * pfn device takes, per GiB of namespace, next to the least any design
 * needs.
 */
#include <errno.h>

#include "bench.h"
#include "memremap.h"
#include "mm.h"
#include "pgtable.h"

struct mm_snap {
	u64 tables, vmemmap, sections, alt_used, alt_waste;
};

static struct mm_snap mm_snap(void)
{
	return (struct mm_snap){ kernel_pgtable.nr_tables * PAGE_SIZE, mm_stat(MM_VMEMMAP),
				 mm_stat(MM_SECTION_TABLES), mm_stat(MM_ALTMAP_USED),
				 mm_stat(MM_ALTMAP_WASTE) };
}

/* Bytes per GiB of the namespace, in thousandths. */
static u64 per_gib(const struct bench_ctx *c, u64 bytes)
{
	return (u64)((unsigned __int128)bytes * GiB * 1000 / c->ns->size);
}

static void report_bytes(const struct bench_ctx *c, const char *metric, u64 bytes)
{
	bench_report_one(c, "overhead", metric, per_gib(c, bytes), "B/GiB");
}

void bench_overhead(struct bench_ctx *c)
{
	int q = bench_quiet();
	int err = nd_namespace_detach(c->ns);
	struct mm_snap a = mm_snap(), b;

	if (!err)
		err = bench_pfn_up(c);
	b = mm_snap();
	bench_loud(q);
	struct nd_pfn *pfn = bench_pfn(c);
	if (err || !pfn) {
		bench_error(c, "overhead", "bring-up failed", err ? err : -EIO);
		return;
	}
	const struct nd_pfn_layout *l = &pfn->layout;
	u64 pages = PFN_DOWN(range_len(&pfn->pgmap.range));
	u64 ram_pages = b.vmemmap - a.vmemmap, ram_tables = b.tables - a.tables;
	u64 ram_sections = b.sections - a.sections;
	u64 pmem_pages = b.alt_used - a.alt_used;
	u64 pmem_total = l->dataoff + l->start_pad + l->end_trunc;
	u64 info = ND_INFO_BLOCK_RESERVE;
	bool dev = c->mode == PFN_MODE_PMEM;
	/* The least any design needs: 64 B per page for the array, where it lives;
	 * map=dev's RAM: one 8-byte PMD entry per 2 MiB of struct pages. */
	u64 ram_min = dev ? pages * sizeof(struct page) / PMD_SIZE * 8 :
			    pages * sizeof(struct page);
	u64 pmem_min = dev ? pages * sizeof(struct page) : 0;

	report_bytes(c, "ram_struct_pages", ram_pages);
	report_bytes(c, "ram_page_tables", ram_tables);
	report_bytes(c, "ram_section_tables", ram_sections);
	report_bytes(c, "ram_total", ram_pages + ram_tables + ram_sections);
	report_bytes(c, "ram_min", ram_min);
	report_bytes(c, "pmem_struct_pages", pmem_pages);
	report_bytes(c, "pmem_infoblock", info);
	report_bytes(c, "pmem_align", pmem_total - pmem_pages - info);
	report_bytes(c, "pmem_total", pmem_total);
	report_bytes(c, "pmem_min", pmem_min);
	/* Absolute figures for the plots (RAM against pmem size). */
	bench_report_one(c, "overhead", "ram_total_bytes",
			 (ram_pages + ram_tables + ram_sections) * 1000, "B");
	bench_report_one(c, "overhead", "pmem_total_bytes", pmem_total * 1000, "B");
}
