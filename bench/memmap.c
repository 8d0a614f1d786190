/*
 * Benches of a pfn device's struct pages: memmap (bring-up and teardown
 * time, struct page init against plain store bandwidth), overhead (RAM and
 * pmem per GiB against the 64-bytes-per-page minimum) and reprobe (bringing
 * an existing device back as at boot: time, and bytes stored to pmem).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "bench.h"
#include "memremap.h"
#include "mm.h"
#include "page_alloc.h"
#include "pgtable.h"
#include "printk.h"

/* ---- memmap ---- */

/* Where map=dev puts the struct pages of ns (what nd_pfn_init lays out): [*pa, *pa + *len). */
static int dev_memmap_area(struct nd_namespace_io *ns, u64 *pa, u64 *len)
{
	static struct nd_pfn_sb sb;
	struct nd_pfn_geom g = { .start = ns->start, .size = ns->size };
	struct nd_pfn_layout l;
	const char *why;
	u8 uuid[16] = { 1 };
	int err = nd_pfn_init(&sb, &g, PFN_MODE_PMEM, 2 * MiB, uuid, &why);

	if (!err)
		err = nd_pfn_validate(&sb, &g, &l, &why);
	if (err)
		return err;
	*pa = ns->start + l.start_pad + ND_INFO_BLOCK_RESERVE;
	*len = l.dataoff - ND_INFO_BLOCK_RESERVE;
	return 0;
}

/* Does the area read as never written (a fresh sparse file)? One word per 2 MiB. */
static bool looks_fresh(u64 pa, u64 len)
{
	for (u64 off = 0; off < len; off += 2 * MiB)
		if (*(volatile u64 *)phys_to_virt(pa + off))
			return false;
	return true;
}

/*
 * map=dev: make every struct page on the media differ from what bring-up
 * stores (zero them, as a fresh file has them), so each repetition pays the
 * full store; that memset is the store-bandwidth baseline. Returns its rate
 * (GiB/s, thousandths), 0 when the area was left alone: on the first
 * repetition if it reads as never written, so that repetition sees the
 * backing file as the boot found it.
 */
static u64 dev_scrub(struct nd_namespace_io *ns, bool first)
{
	u64 pa, len;

	if (dev_memmap_area(ns, &pa, &len))
		return 0;
	if (first && looks_fresh(pa, len))
		return 0;
	u64 t0 = arch_cycles();
	memset(phys_to_virt(pa), 0, len);
	u64 ns_taken = bench_ns_since(t0);
	pmem_written_add(PMEM_WR_OTHER, len);
	return bench_gibps(len, ns_taken);
}

/* map=mem baseline: memset over as much RAM as the memmap takes, in 2 MiB blocks. */
static u64 ram_fill_gibps(u64 bytes)
{
	u64 n = (bytes + 2 * MiB - 1) / (2 * MiB), got = 0, ns_taken;
	u64 *blocks = malloc(n * sizeof(u64));

	if (!blocks)
		return 0;
	while (got < n && (blocks[got] = page_alloc(PMD_ORDER)))
		got++;
	u64 t0 = arch_cycles();
	for (u64 i = 0; i < got; i++)
		memset(phys_to_virt(blocks[i]), 0, 2 * MiB);
	ns_taken = bench_ns_since(t0);
	for (u64 i = 0; i < got; i++)
		page_free(blocks[i], PMD_ORDER);
	free(blocks);
	return bench_gibps(got * 2 * MiB, ns_taken);
}

static u64 ms_milli(u64 ns)
{
	return ns / 1000;	/* ns -> thousandths of a ms */
}

void bench_memmap(struct bench_ctx *c)
{
	struct bench_series up = { 0 }, up_ms = { 0 }, per_page = { 0 }, init = { 0 };
	struct bench_series fill = { 0 }, down_ms = { 0 }, vmemmap_ms = { 0 }, init_ms = { 0 };
	bool dev = c->mode == PFN_MODE_PMEM;
	int err = 0;

	for (u32 r = 0; r < c->reps && !err; r++) {
		int q = bench_quiet();
		err = nd_namespace_detach(c->ns);
		bench_loud(q);
		if (err)
			break;
		u64 scrub = dev ? dev_scrub(c->ns, r == 0) : 0;

		q = bench_quiet();
		u64 t0 = arch_cycles();
		err = bench_pfn_up(c);
		u64 ns_up = bench_ns_since(t0);
		bench_loud(q);
		if (err)
			break;
		struct nd_pfn *pfn = bench_pfn(c);
		const struct memremap_stats *st = &pfn->memmap_stats;	/* this bring-up's */
		u64 pages = PFN_DOWN(range_len(&pfn->pgmap.range));
		u64 memmap_bytes = st->pages_init * sizeof(struct page);

		bench_add(&up, bench_gibps(c->ns->size, ns_up));
		bench_add(&up_ms, ms_milli(ns_up));
		bench_add(&per_page, ns_up * 1000 / pages);
		bench_add(&init, bench_gibps(memmap_bytes, arch_cycles_to_ns(st->init_cycles)));
		bench_add(&init_ms, ms_milli(arch_cycles_to_ns(st->init_cycles)));
		bench_add(&vmemmap_ms, ms_milli(arch_cycles_to_ns(st->sparse_cycles)));
		if (scrub)
			bench_add(&fill, scrub);

		q = bench_quiet();
		t0 = arch_cycles();
		err = nd_namespace_detach(c->ns);
		bench_add(&down_ms, ms_milli(bench_ns_since(t0)));
		bench_loud(q);
		/* map=mem's baseline on RAM like its memmap's, now free again. */
		if (!dev && !err)
			bench_add(&fill, ram_fill_gibps(memmap_bytes));
	}
	if (err) {
		bench_error(c, "memmap", "bring-up or teardown failed", err);
		return;
	}
	bench_report(c, "memmap", "bringup", &up, "GiB/s");
	bench_report(c, "memmap", "bringup_time", &up_ms, "ms");
	bench_report(c, "memmap", "ns_per_page", &per_page, "ns");
	bench_report(c, "memmap", "vmemmap_time", &vmemmap_ms, "ms");
	bench_report(c, "memmap", "init_time", &init_ms, "ms");
	bench_report(c, "memmap", "init", &init, "GiB/s");
	bench_report(c, "memmap", "fill", &fill, "GiB/s");
	bench_report(c, "memmap", "teardown_time", &down_ms, "ms");
	int q = bench_quiet();
	err = bench_pfn_up(c);	/* leave it up for the benches that follow */
	bench_loud(q);
	if (err)
		bench_error(c, "memmap", "final bring-up failed", err);
}

/* ---- overhead ---- */

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
	u64 ram_min = dev ? pages * sizeof(struct page) / PMD_SIZE * 8 : pages * sizeof(struct page);
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
	bench_report_one(c, "overhead", "ram_total_bytes", (ram_pages + ram_tables + ram_sections) * 1000, "B");
	bench_report_one(c, "overhead", "pmem_total_bytes", pmem_total * 1000, "B");
}

/* ---- reprobe ---- */

/* The probe's own figures (nd_namespace_probe records them). */
static void reprobe_reps(struct bench_ctx *c, bool rewrite, const char *time_metric,
			 const char *bytes_metric)
{
	struct bench_series t = { 0 }, bytes = { 0 };
	bool saved = memmap_pmem_rewrite;
	int err = 0;

	memmap_pmem_rewrite = rewrite;
	for (u32 r = 0; r < c->reps && !err; r++) {
		int q = bench_quiet();
		err = nd_namespace_detach(c->ns);
		if (!err)
			nd_namespace_probe(c->ns);
		bench_loud(q);
		struct nd_pfn *pfn = bench_pfn(c);
		if (!err && (!pfn || !pfn->probed || pfn->layout.mode != c->mode))
			err = -EIO;
		if (err)
			break;
		bench_add(&t, ms_milli(pfn->probe_ns));
		bench_add(&bytes, pfn->probe_pmem_written * 1000);
	}
	memmap_pmem_rewrite = saved;
	if (err) {
		bench_error(c, "reprobe", "the device did not come back", err);
		return;
	}
	bench_report(c, "reprobe", time_metric, &t, "ms");
	bench_report(c, "reprobe", bytes_metric, &bytes, "B");
}

void bench_reprobe(struct bench_ctx *c)
{
	reprobe_reps(c, false, "time", "pmem_bytes");
	/* map=dev as Linux 6.1 does it: every struct page stored at every probe. */
	if (c->mode == PFN_MODE_PMEM)
		reprobe_reps(c, true, "time_rewrite", "pmem_bytes_rewrite");
}

/* What this boot's probe cost, if it brought the device back from its info block. */
void bench_reprobe_boot(struct bench_ctx *c)
{
	struct nd_pfn *pfn = nd_pfn_of(c->ns);
	enum nd_pfn_mode saved = c->mode;

	if (!pfn || !pfn->enabled || !pfn->probed)
		return;
	c->mode = pfn->layout.mode;
	bench_report_one(c, "reprobe", "boot_time", ms_milli(pfn->probe_ns), "ms");
	bench_report_one(c, "reprobe", "boot_pmem_bytes", pfn->probe_pmem_written * 1000, "B");
	c->mode = saved;
}
