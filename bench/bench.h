/*
 * The benchmark suite (issue 7; method and figures in docs/PERFORMANCE.md).
 * `bench=NAME,...` on the command line runs it at the end of boot and powers
 * off; the shell's `bench` runs it from the prompt. Each bench brings one
 * namespace up as a pfn device (map=dev, then map=mem), times with the
 * calibrated TSC, repeats, and prints one machine-readable line per figure:
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
};

/* Samples of one figure, in thousandths of its unit. */
struct bench_series {
	u32 n;
	u64 v[BENCH_MAX_REPS];
};

/* Run the benches named in `spec` ("all" or NAME,...). Returns the number of errors. */
int bench_run(const char *spec, const char *ns_name, u32 reps, u64 ws);

/* bench/runner.c: reporting and helpers for the benches. */
void bench_add(struct bench_series *s, u64 milli);
void bench_report(const struct bench_ctx *c, const char *name, const char *metric,
		  const struct bench_series *s, const char *unit);
void bench_report_one(const struct bench_ctx *c, const char *name, const char *metric,
		      u64 milli, const char *unit);
void bench_error(struct bench_ctx *c, const char *name, const char *what, int err);
u64 bench_ns_since(u64 t0_cycles);
/* GiB/s, in thousandths, for `bytes` moved in `ns`. */
u64 bench_gibps(u64 bytes, u64 ns);
/* Silence pr_info/pr_warn in timed sections (errors still print). */
int bench_quiet(void);
void bench_loud(int saved);
/* Bring the namespace up as a pfn device in c->mode (writes an info block). */
int bench_pfn_up(struct bench_ctx *c);
/* The enabled pfn device of c->ns, or NULL. */
struct nd_pfn *bench_pfn(const struct bench_ctx *c);

/* The benches (bench/memmap.c, bench/blk.c). */
void bench_memmap(struct bench_ctx *c);
void bench_overhead(struct bench_ctx *c);
void bench_reprobe(struct bench_ctx *c);
void bench_reprobe_boot(struct bench_ctx *c);
void bench_blk(struct bench_ctx *c);
void bench_lookup(struct bench_ctx *c);

#endif
