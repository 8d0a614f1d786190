/*
 * The memmap bench: bringing a pfn device up as create-namespace -f does,
 * and tearing it down; the time of each step memremap_pages reports (the
 * pfn device keeps its last bring-up's stats), and struct page init against
 * plain store bandwidth on the same medium (pmem for map=dev, RAM for
 * map=mem). Then deferred init (memmap_init=deferred): the time until the
 * block device is usable, and until every struct page is ready with the
 * idle CPUs and this one (as the shell's idle loop would) taking sections.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "bench.h"
#include "memremap.h"
#include "mm.h"
#include "nd_pfn_layout.h"
#include "page_alloc.h"

/* Where map=dev puts the struct pages of ns (the pfn layout, 2 MiB align): [*pa, *pa + *len). */
static int dev_memmap_area(struct nd_namespace_io *ns, u64 *pa, u64 *len)
{
	struct nd_pfn_layout l;
	struct nd_pfn_placement p;
	const char *why;
	int err = nd_pfn_lay_out(ns->start, ns->size, PFN_MODE_PMEM, 2 * MiB, &l, &p, &why);

	if (err)
		return err;
	*pa = PFN_PHYS(p.altmap.base_pfn + p.altmap.reserve);
	*len = PFN_PHYS(p.altmap.free);
	return 0;
}

/* Does [off, off + len) of io read as never written (a fresh sparse file)? One word per 2 MiB. */
static bool looks_fresh(const struct nsio *io, u64 off, u64 len)
{
	u64 word;

	for (u64 at = off; at < off + len; at += 2 * MiB)
		if (nsio_read(io, at, &word, sizeof(word)) || word)
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

	if (dev_memmap_area(ns, &pa, &len) || nd_namespace_map(ns))
		return 0;
	/* Plain stores, as struct pages are stored; the media path stores them. */
	struct nsio io = ns->io;
	io.cpu_cache = true;
	if (first && looks_fresh(&io, pa - ns->start, len))
		return 0;
	u64 t0 = arch_cycles();
	int err = nsio_zero(&io, pa - ns->start, len, PMEM_WR_OTHER);
	u64 ns_taken = bench_ns_since(t0);
	return err ? 0 : bench_gibps(len, ns_taken);
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

/* Detach c->ns and bring it up with memmap_init=deferred; *ns_usable: how long until usable. */
static struct nd_pfn *deferred_up(struct bench_ctx *c, bool scrub, u64 *t0, u64 *ns_usable,
				  int *err)
{
	bool saved = memmap_init_deferred;
	int q = bench_quiet();

	*err = nd_namespace_detach(c->ns);
	bench_loud(q);
	if (*err)
		return NULL;
	if (scrub)
		dev_scrub(c->ns, false);
	memmap_init_deferred = true;
	q = bench_quiet();
	*t0 = arch_cycles();
	*err = bench_pfn_up(c);
	*ns_usable = bench_ns_since(*t0);
	bench_loud(q);
	memmap_init_deferred = saved;
	struct nd_pfn *pfn = *err ? NULL : bench_pfn(c);
	if (!pfn && !*err)
		*err = -ENODEV;
	return pfn;
}

u64 bench_wait_ready(struct nd_pfn *pfn)
{
	struct memmap_progress p;

	for (memmap_progress(&pfn->pgmap, &p); p.ready < p.sections; memmap_progress(&pfn->pgmap, &p))
		if (!memmap_defer_step())
			arch_cpu_relax();
	return p.done_cycles;
}

/*
 * Deferred bring-up, REPS times each way. First the time to a usable block
 * device (and, of it, memremap_pages and its vmemmap part), with the media
 * as the last bring-up left it, so the init that follows compares and
 * stores nothing. Then, map=dev scrubbed first (every struct page differs),
 * the time until the last section is ready (the APs' idle loops and this
 * CPU's steps). The usable figure is never taken right after 16 MiB per GiB
 * went to the media (a scrub, or an init that stored them all): those go
 * through QEMU's mapping of the backing file, and a bring-up of under a
 * millisecond timed while the host writes them back times that too (at
 * 256 GiB, 0.94 ms for a 0.39 ms bring-up).
 */
static int bench_memmap_deferred(struct bench_ctx *c)
{
	struct bench_series usable = { 0 }, ready = { 0 }, reg = { 0 }, sparse = { 0 };
	bool dev = c->mode == PFN_MODE_PMEM;
	int err = 0;
	u64 t0, ns_usable, done;

	for (u32 r = 0; r < c->reps && !err; r++) {
		struct nd_pfn *pfn = deferred_up(c, false, &t0, &ns_usable, &err);
		if (!pfn)
			break;
		bench_add(&usable, bench_ms_milli(ns_usable));
		bench_add(&reg, bench_ms_milli(arch_cycles_to_ns(pfn->memmap_stats.total_cycles)));
		bench_add(&sparse, bench_ms_milli(arch_cycles_to_ns(pfn->memmap_stats.sparse_cycles)));
		bench_wait_ready(pfn);
	}
	for (u32 r = 0; r < c->reps && !err; r++) {
		struct nd_pfn *pfn = deferred_up(c, dev, &t0, &ns_usable, &err);
		if (!pfn)
			break;
		done = bench_wait_ready(pfn);
		bench_add(&ready, bench_ms_milli(done ? arch_cycles_to_ns(done - t0) : ns_usable));
	}
	if (err)
		return err;
	bench_report(c, "memmap", "usable_time", &usable, "ms");
	/* Of it: memremap_pages, and its section table and vmemmap part. */
	bench_report(c, "memmap", "usable_memremap_time", &reg, "ms");
	bench_report(c, "memmap", "usable_vmemmap_time", &sparse, "ms");
	bench_report(c, "memmap", "ready_time", &ready, "ms");
	return 0;
}

/*
 * The usable sweep (bench=usable): every namespace of the boot, as map=dev
 * with deferred init, in turn within each repetition (the order rotated),
 * so every size is timed under the same emulator and host state (tools/bench boots one
 * nvdimm of each size for it). Each is first brought up synchronously,
 * which stores what its media lack; from then on every init compares and
 * stores nothing, so no size is timed while the host writes another's back.
 */
#define USABLE_MAX_NS 8

void bench_usable(struct bench_ctx *c0)
{
	/* Static: too big for a kernel stack (one run at a time: the nd lock). */
	static struct bench_ctx cs[USABLE_MAX_NS];
	static struct bench_series usable[USABLE_MAX_NS], reg[USABLE_MAX_NS], sparse[USABLE_MAX_NS];
	bool ok[USABLE_MAX_NS] = { false };
	u32 n = 0;
	u64 t0, ns_usable;
	int err;

	for (struct nd_namespace_io *ns = nd_namespace_next(NULL); ns && n < USABLE_MAX_NS;
	     ns = nd_namespace_next(ns)) {
		cs[n] = *c0;
		cs[n].ns = ns;
		cs[n].mode = PFN_MODE_PMEM;
		cs[n].errors = 0;
		usable[n] = reg[n] = sparse[n] = (struct bench_series){ 0 };
		int q = bench_quiet();
		err = bench_pfn_up(&cs[n]);	/* memmap_init=sync: bench_run's setting */
		bench_loud(q);
		if (err)
			bench_error(&cs[n], "usable", "map=dev bring-up failed", err);
		ok[n++] = !err;
	}
	/* Rotated: each size comes first in some repetition (after the last one's init). */
	for (u32 r = 0; r < c0->reps; r++)
		for (u32 k = 0, i; k < n; k++) {
			i = (r + k) % n;
			if (!ok[i])
				continue;
			struct nd_pfn *pfn = deferred_up(&cs[i], false, &t0, &ns_usable, &err);
			if (!pfn) {
				bench_error(&cs[i], "usable", "deferred bring-up failed", err);
				ok[i] = false;
				continue;
			}
			bench_add(&usable[i], bench_ms_milli(ns_usable));
			bench_add(&reg[i], bench_ms_milli(arch_cycles_to_ns(pfn->memmap_stats.total_cycles)));
			bench_add(&sparse[i],
				  bench_ms_milli(arch_cycles_to_ns(pfn->memmap_stats.sparse_cycles)));
			bench_wait_ready(pfn);
		}
	for (u32 i = 0; i < n; i++) {
		bench_report(&cs[i], "usable", "usable_time", &usable[i], "ms");
		bench_report(&cs[i], "usable", "usable_memremap_time", &reg[i], "ms");
		bench_report(&cs[i], "usable", "usable_vmemmap_time", &sparse[i], "ms");
		c0->errors += cs[i].errors;
	}
}

/* What bench_memmap measures, one value per repetition each. */
struct memmap_series {
	struct bench_series up, up_ms, per_page, init;
	struct bench_series fill, down_ms, vmemmap_ms, init_ms;
};

/*
 * One repetition: take the namespace down, scrub it (map=dev), bring the
 * pfn device up and down again, each step timed into s. 0 or the error.
 */
static int memmap_rep(struct bench_ctx *c, u32 r, struct memmap_series *s)
{
	bool dev = c->mode == PFN_MODE_PMEM;
	int q = bench_quiet();
	int err = nd_namespace_detach(c->ns);

	bench_loud(q);
	if (err)
		return err;
	u64 scrub = dev ? dev_scrub(c->ns, r == 0) : 0;

	q = bench_quiet();
	u64 t0 = arch_cycles();
	err = bench_pfn_up(c);
	u64 ns_up = bench_ns_since(t0);
	bench_loud(q);
	if (err)
		return err;
	struct nd_pfn *pfn = bench_pfn(c);
	const struct memremap_stats *st = &pfn->memmap_stats;	/* this bring-up's */
	u64 pages = PFN_DOWN(range_len(&pfn->pgmap.range));
	u64 memmap_bytes = st->pages_init * sizeof(struct page);

	bench_add(&s->up, bench_gibps(c->ns->size, ns_up));
	bench_add(&s->up_ms, bench_ms_milli(ns_up));
	bench_add(&s->per_page, ns_up * 1000 / pages);
	bench_add(&s->init, bench_gibps(memmap_bytes, arch_cycles_to_ns(st->init_cycles)));
	bench_add(&s->init_ms, bench_ms_milli(arch_cycles_to_ns(st->init_cycles)));
	bench_add(&s->vmemmap_ms, bench_ms_milli(arch_cycles_to_ns(st->sparse_cycles)));
	if (scrub)
		bench_add(&s->fill, scrub);

	q = bench_quiet();
	t0 = arch_cycles();
	err = nd_namespace_detach(c->ns);
	bench_add(&s->down_ms, bench_ms_milli(bench_ns_since(t0)));
	bench_loud(q);
	/* map=mem's baseline on RAM like its memmap's, now free again. */
	if (!dev && !err)
		bench_add(&s->fill, ram_fill_gibps(memmap_bytes));
	return err;
}

static void memmap_report(struct bench_ctx *c, const struct memmap_series *s)
{
	bench_report(c, "memmap", "bringup", &s->up, "GiB/s");
	bench_report(c, "memmap", "bringup_time", &s->up_ms, "ms");
	bench_report(c, "memmap", "ns_per_page", &s->per_page, "ns");
	bench_report(c, "memmap", "vmemmap_time", &s->vmemmap_ms, "ms");
	bench_report(c, "memmap", "init_time", &s->init_ms, "ms");
	bench_report(c, "memmap", "init", &s->init, "GiB/s");
	bench_report(c, "memmap", "fill", &s->fill, "GiB/s");
	bench_report(c, "memmap", "teardown_time", &s->down_ms, "ms");
}

void bench_memmap(struct bench_ctx *c)
{
	struct memmap_series s = { 0 };
	int err = 0;

	for (u32 r = 0; r < c->reps && !err; r++)
		err = memmap_rep(c, r, &s);
	if (err) {
		bench_error(c, "memmap", "bring-up or teardown failed", err);
		return;
	}
	memmap_report(c, &s);
	err = bench_memmap_deferred(c);
	if (err)
		bench_error(c, "memmap", "deferred bring-up failed", err);
	int q = bench_quiet();
	err = bench_pfn_up(c);	/* leave it up for the benches that follow */
	bench_loud(q);
	if (err)
		bench_error(c, "memmap", "final bring-up failed", err);
}
