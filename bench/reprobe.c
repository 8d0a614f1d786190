/*
 * The reprobe bench: bringing an existing pfn device back exactly as at
 * boot (nd_namespace_probe), its time and the bytes it stored to pmem, with
 * the diffing struct page init and with Linux 6.1's rewrite; and what the
 * boot's own probe of the device cost.
 */
#include <errno.h>

#include "bench.h"
#include "mm.h"

/*
 * The probe's own figures (nd_namespace_probe records them), REPS times:
 * with the diffing init or Linux 6.1's rewrite, synchronous (the device
 * usable once every struct page is right), or with memmap_init=deferred
 * (usable at once; the init is then left to finish, untimed, before the
 * next repetition).
 */
static void reprobe_reps(struct bench_ctx *c, bool rewrite, bool deferred, const char *time_metric,
			 const char *bytes_metric)
{
	struct bench_series t = { 0 }, bytes = { 0 };
	bool saved = memmap_pmem_rewrite, saved_deferred = memmap_init_deferred;
	int err = 0;

	memmap_pmem_rewrite = rewrite;
	memmap_init_deferred = deferred;
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
		bench_add(&t, bench_ms_milli(pfn->probe_ns));
		if (deferred)
			bench_wait_ready(pfn);
		bench_add(&bytes, pfn->probe_pmem_written * 1000);
	}
	memmap_pmem_rewrite = saved;
	memmap_init_deferred = saved_deferred;
	if (err) {
		bench_error(c, "reprobe", "the device did not come back", err);
		return;
	}
	bench_report(c, "reprobe", time_metric, &t, "ms");
	if (bytes_metric)
		bench_report(c, "reprobe", bytes_metric, &bytes, "B");
}

void bench_reprobe(struct bench_ctx *c)
{
	reprobe_reps(c, false, false, "time", "pmem_bytes");
	/* map=dev as Linux 6.1 does it: every struct page stored at every probe. */
	if (c->mode == PFN_MODE_PMEM)
		reprobe_reps(c, true, false, "time_rewrite", "pmem_bytes_rewrite");
	/* The default, memmap_init=deferred: how soon the device is usable again. */
	reprobe_reps(c, false, true, "usable_time", NULL);
}

/* What this boot's probe cost, if it brought the device back from its info block. */
void bench_reprobe_boot(struct bench_ctx *c)
{
	struct nd_pfn *pfn = nd_pfn_of(c->ns);
	enum nd_pfn_mode saved = c->mode;

	if (!pfn || !pfn->enabled || !pfn->probed)
		return;
	c->mode = pfn->layout.mode;
	bench_report_one(c, "reprobe", "boot_time", bench_ms_milli(pfn->probe_ns), "ms");
	bench_report_one(c, "reprobe", "boot_pmem_bytes", pfn->probe_pmem_written * 1000, "B");
	c->mode = saved;
}
