/*
 * The benchmark suite (issue 7; method and figures in docs/PERFORMANCE.md),
 * private to bench/. `bench=NAME,...` on the command line runs it at the
 * end of boot and powers off; the shell's `bench` runs it from the prompt
 * (runner.c). Each bench brings one namespace up as a pfn device (map=dev,
 * then map=mem), times with the calibrated TSC, repeats, and prints one
 * machine-readable line per figure (report.c):
 *
 *   bench: name=memmap size=4G mode=dev metric=bringup median=1.234 min=1.100
 *          max=1.300 first=0.900 unit=GiB/s n=5
 *
 * (one line). `first` is the first repetition: cold caches, and on a fresh
 * sparse backing file the host allocating pages on first touch. Benchmarks
 * print figures; nothing here judges them.
 */
#ifndef PMEMK_BENCH_H
#define PMEMK_BENCH_H

#include "nd_pfn.h"
#include "types.h"

#define BENCH_MAX_REPS 15
#define BENCH_DEFAULT_REPS 5
#define BENCH_DEFAULT_WS (64 * MiB)

/* What one pass of the suite works on. */
struct bench_ctx {
	struct nd_namespace_io *ns;
	enum nd_pfn_mode mode;	/* PFN_MODE_PMEM (map=dev) or PFN_MODE_RAM (map=mem) */
	u32 reps;
	u64 ws;			/* blk working set, bytes */
	int errors;		/* figures that could not be taken */
	const char *mode_label;	/* the report's mode= instead of c->mode's name (btt.c) */
};

/* Samples of one figure, in thousandths of its unit. */
struct bench_series {
	u32 n;
	u64 v[BENCH_MAX_REPS];
};

/*
 * runner.c: run the benches named in `spec` ("all" or NAME,...) on the
 * namespace `ns_name` (NULL: the first), `reps` repetitions each, `ws` bytes
 * of blk working set. Returns the number of figures that could not be
 * taken, or a negative errno before any was tried.
 */
int bench_run(const char *spec, const char *ns_name, u32 reps, u64 ws);

/* runner.c: bring the namespace up as a pfn device in c->mode (writes an info block). */
int bench_pfn_up(struct bench_ctx *c);
/* runner.c: the enabled pfn device of c->ns, or NULL. */
struct nd_pfn *bench_pfn(const struct bench_ctx *c);

/* report.c: append one sample (thousandths); past BENCH_MAX_REPS it is dropped. */
void bench_add(struct bench_series *s, u64 milli);
/* report.c: one `bench:` line for a series: median, min, max, first, n. Nothing if empty. */
void bench_report(const struct bench_ctx *c, const char *name, const char *metric,
		  const struct bench_series *s, const char *unit);
/* report.c: the same for a single value. */
void bench_report_one(const struct bench_ctx *c, const char *name, const char *metric,
		      u64 milli, const char *unit);
/* report.c: a `bench: ... error=` line for a figure not taken; counts it in c->errors. */
void bench_error(struct bench_ctx *c, const char *name, const char *what, int err);
/* report.c: a size as "4G", or "768M" when not a whole number of GiB; returns buf. */
const char *bench_fmt_size(char *buf, size_t n, u64 bytes);
/*
 * memmap.c: let the idle CPUs and this one finish pfn's deferred init;
 * returns the cycle count when its last section was ready.
 */
u64 bench_wait_ready(struct nd_pfn *pfn);
/* report.c: ns since arch_cycles() returned t0_cycles. */
u64 bench_ns_since(u64 t0_cycles);
/* report.c: GiB/s, in thousandths, for `bytes` moved in `ns`; 0 if ns is 0. */
u64 bench_gibps(u64 bytes, u64 ns);
/* report.c: ns as thousandths of a ms (the unit of every *_time figure). */
u64 bench_ms_milli(u64 ns);
/* report.c: silence pr_info/pr_warn in timed sections (errors print); returns the old level. */
int bench_quiet(void);
/* report.c: restore the level bench_quiet() returned. */
void bench_loud(int saved);

/* A fixed-seed pseudo-random sequence (xorshift64): every run measures the same. */
static inline u64 bench_xorshift64(u64 *s)
{
	u64 x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* blk.c: 0..n-1 in order, or shuffled with a fixed seed (every run the same). */
void bench_make_order(u32 *idx, u32 n, bool shuffle);

/* The benches, one file each; each prints its figures or a bench_error line. */
void bench_memmap(struct bench_ctx *c);		/* memmap.c */
void bench_overhead(struct bench_ctx *c);	/* overhead.c */
void bench_reprobe(struct bench_ctx *c);	/* reprobe.c */
void bench_reprobe_boot(struct bench_ctx *c);	/* reprobe.c: the boot's own probe */
void bench_blk(struct bench_ctx *c);		/* blk.c */
void bench_lookup(struct bench_ctx *c);		/* lookup.c */
void bench_btt(struct bench_ctx *c);		/* btt.c: raw and sector, once per run */
void bench_usable(struct bench_ctx *c);		/* memmap.c: every namespace, once per run */

#endif
