/*
 * The benchmark runner: bench=/bench.ns=/bench.reps=/bench.ws= parameters,
 * the shell's bench command, the order the benches run in, and the one
 * reporting format (bench.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "bench.h"
#include "kernel.h"
#include "params.h"
#include "persist.h"
#include "printk.h"
#include "shell.h"

static const char *bench_spec, *bench_ns_name;
static u32 bench_reps = BENCH_DEFAULT_REPS;
static u64 bench_ws = BENCH_DEFAULT_WS;

/* ---- reporting ---- */

void bench_add(struct bench_series *s, u64 milli)
{
	if (s->n < BENCH_MAX_REPS)
		s->v[s->n++] = milli;
}

static void sort_u64(u64 *v, u32 n)
{
	for (u32 i = 1; i < n; i++) {
		u64 x = v[i];
		u32 j = i;

		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* "1.234": a value in thousandths. */
static const char *fmt_milli(char *buf, size_t n, u64 milli)
{
	snprintf(buf, n, "%llu.%03llu", (milli / 1000), (milli % 1000));
	return buf;
}

static const char *mode_name(enum nd_pfn_mode m)
{
	return m == PFN_MODE_PMEM ? "dev" : m == PFN_MODE_RAM ? "mem" : "raw";
}

/* The namespace size as 4G, or 768M when not a whole number of GiB. */
static const char *fmt_size(char *buf, size_t n, u64 bytes)
{
	if (IS_ALIGNED(bytes, GiB))
		snprintf(buf, n, "%lluG", (bytes / GiB));
	else
		snprintf(buf, n, "%lluM", (bytes / MiB));
	return buf;
}

void bench_report(const struct bench_ctx *c, const char *name, const char *metric,
		  const struct bench_series *s, const char *unit)
{
	u64 v[BENCH_MAX_REPS];
	char size[24], med[32], lo[32], hi[32], first[32];

	if (!s->n)
		return;
	memcpy(v, s->v, s->n * sizeof(u64));
	sort_u64(v, s->n);
	/* The median of an even count is the mean of the middle two. */
	u64 median = s->n % 2 ? v[s->n / 2] : (v[s->n / 2 - 1] + v[s->n / 2]) / 2;
	kprintf("bench: name=%s size=%s mode=%s metric=%s median=%s min=%s max=%s first=%s unit=%s n=%u\n",
		name, fmt_size(size, sizeof(size), c->ns->size), mode_name(c->mode), metric,
		fmt_milli(med, sizeof(med), median), fmt_milli(lo, sizeof(lo), v[0]),
		fmt_milli(hi, sizeof(hi), v[s->n - 1]), fmt_milli(first, sizeof(first), s->v[0]),
		unit, s->n);
}

void bench_report_one(const struct bench_ctx *c, const char *name, const char *metric,
		      u64 milli, const char *unit)
{
	struct bench_series s = { 0 };

	bench_add(&s, milli);
	bench_report(c, name, metric, &s, unit);
}

void bench_error(struct bench_ctx *c, const char *name, const char *what, int err)
{
	char size[24];

	kprintf("bench: name=%s size=%s mode=%s error=%d what=\"%s\"\n", name,
		fmt_size(size, sizeof(size), c->ns->size), mode_name(c->mode), err, what);
	c->errors++;
}

u64 bench_ns_since(u64 t0_cycles)
{
	return arch_cycles_to_ns(arch_cycles() - t0_cycles);
}

u64 bench_gibps(u64 bytes, u64 ns)
{
	if (!ns)
		return 0;
	/* bytes * 1000 (milli) * 1e9 (per second) / 2^30, without overflow. */
	return (u64)((unsigned __int128)bytes * 1000 * 1000000000ULL / ns >> 30);
}

int bench_quiet(void)
{
	int saved = console_loglevel;

	console_loglevel = LOGLEVEL_WARNING;	/* errors only */
	return saved;
}

void bench_loud(int saved)
{
	console_loglevel = saved;
}

int bench_pfn_up(struct bench_ctx *c)
{
	struct nd_pfn_request req = { .mode = c->mode, .align = 2 * MiB, .force = true };

	return nd_namespace_reconfigure(c->ns, &req);
}

struct nd_pfn *bench_pfn(const struct bench_ctx *c)
{
	struct nd_pfn *pfn = nd_pfn_of(c->ns);

	return pfn && pfn->enabled ? pfn : NULL;
}

/* ---- the runner ---- */

enum {
	B_MEMMAP = 1 << 0,
	B_OVERHEAD = 1 << 1,
	B_BLK = 1 << 2,
	B_LOOKUP = 1 << 3,
	B_REPROBE = 1 << 4,
	B_ALL = (1 << 5) - 1,
};

static const struct {
	const char *name;
	unsigned int bit;
	bool needs_device;	/* runs on the device as it is (else brings its own up) */
	void (*run)(struct bench_ctx *c);
} benches[] = {
	/* The order of a pass: memmap first (its first repetition sees the
	 * media as the boot found it), reprobe last. */
	{ "memmap", B_MEMMAP, false, bench_memmap },
	{ "overhead", B_OVERHEAD, false, bench_overhead },
	{ "lookup", B_LOOKUP, true, bench_lookup },
	{ "blk", B_BLK, true, bench_blk },
	{ "reprobe", B_REPROBE, true, bench_reprobe },
};

/* "all" or NAME,NAME...: a mask, or -EINVAL after naming the bad word. */
static int parse_spec(const char *spec, unsigned int *mask)
{
	char buf[128];

	*mask = 0;
	strncpy(buf, spec, sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = '\0';
	for (char *w = strtok(buf, ","); w; w = strtok(NULL, ",")) {
		unsigned int bit = !strcmp(w, "all") ? B_ALL : 0;

		for (size_t i = 0; i < ARRAY_SIZE(benches) && !bit; i++)
			if (!strcmp(w, benches[i].name))
				bit = benches[i].bit;
		if (!bit) {
			kprintf("bench: unknown benchmark '%s' (all, memmap, overhead, lookup, blk, reprobe)\n", w);
			return -EINVAL;
		}
		*mask |= bit;
	}
	return *mask ? 0 : -EINVAL;
}

static struct nd_namespace_io *bench_namespace(const char *name)
{
	struct nd_namespace_io *ns = name ? nd_namespace_find(name) : nd_namespace_next(NULL);

	if (!ns)
		kprintf("bench: %s\n", name ? "no such namespace (see 'list -N')" :
					      "no namespace to measure (boot with an nvdimm)");
	return ns;
}

/* One pass in one mode: bring the device up, then each selected bench. */
static void bench_pass(struct bench_ctx *c, unsigned int mask)
{
	int q;

	for (size_t i = 0; i < ARRAY_SIZE(benches); i++) {
		if (!(mask & benches[i].bit))
			continue;
		if (benches[i].needs_device &&
		    (!bench_pfn(c) || bench_pfn(c)->layout.mode != c->mode)) {
			q = bench_quiet();
			int err = bench_pfn_up(c);
			bench_loud(q);
			if (err) {
				bench_error(c, benches[i].name, "bring-up failed", err);
				return;
			}
		}
		benches[i].run(c);
	}
}

/*
 * Every figure hangs on the clock rate. Under a loaded host (TCG) one PIT
 * calibration can be off by tens of percent either way, so the arch takes
 * the median of six more and the boot's, and uses that from here on.
 */
static u64 bench_calibrate(void)
{
	struct arch_clock_cal cal;

	arch_clock_recalibrate(6, &cal);
	kprintf("bench: tsc_khz=%llu (median of %u calibrations, %llu..%llu; the boot's %llu)\n",
		cal.khz, cal.n, cal.min_khz, cal.max_khz, cal.prev_khz);
	return cal.khz;
}

int bench_run(const char *spec, const char *ns_name, u32 reps, u64 ws)
{
	static const enum nd_pfn_mode modes[] = { PFN_MODE_PMEM, PFN_MODE_RAM };
	struct bench_ctx c = { .reps = reps, .ws = ws };
	unsigned int mask;
	char wsbuf[24];

	if (parse_spec(spec, &mask))
		return -EINVAL;
	c.ns = bench_namespace(ns_name);
	if (!c.ns)
		return -ENODEV;
	c.mode = PFN_MODE_NONE;
	u64 tsc_khz = bench_calibrate();
	kprintf("bench: begin ns=%s size=%lluM reps=%u ws=%s tsc_khz=%llu flush=%s copy=%s memmap_pmem=%s pmem_written=%llu\n",
		c.ns->name, (c.ns->size >> 20), reps, fmt_size(wsbuf, sizeof(wsbuf), ws), tsc_khz,
		persist_flush_name(persist_ops.flush), persist_copy_name(persist_ops.copy),
		memmap_pmem_rewrite ? "rewrite" : "diff", pmem_written_total());
	if (mask & B_REPROBE)
		bench_reprobe_boot(&c);	/* before anything changes the device */
	/* map=dev first: map=mem's data area overlaps map=dev's memmap, and
	 * memmap must find that area as the backing file has it. */
	for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
		c.mode = modes[m];
		bench_pass(&c, mask);
	}
	/* Leave map=dev up: the next boot brings it back (bench reprobe's boot figures). */
	c.mode = PFN_MODE_PMEM;
	if (!bench_pfn(&c) || bench_pfn(&c)->layout.mode != PFN_MODE_PMEM) {
		int q = bench_quiet();
		int err = bench_pfn_up(&c);
		bench_loud(q);
		if (err)
			bench_error(&c, "end", "map=dev bring-up failed", err);
	}
	kprintf("bench: end errors=%d pmem_written=%llu\n", c.errors, pmem_written_total());
	return c.errors;
}

/* ---- parameters, boot hook, shell ---- */

static int bench_param(const char *val)
{
	unsigned int mask;

	if (!val || parse_spec(val, &mask)) {
		pr_err("bench=%s: expected all or memmap,overhead,lookup,blk,reprobe\n", val ? val : "");
		return -EINVAL;
	}
	bench_spec = val;
	return 0;
}
KERNEL_PARAM("bench", bench_param,
	     "run benchmarks at the end of boot, then power off: all or memmap,overhead,lookup,blk,reprobe");

static int bench_ns_param(const char *val)
{
	bench_ns_name = val;
	return 0;
}
KERNEL_PARAM("bench.ns", bench_ns_param, "namespace the benchmarks use (default the first)");

static int parse_reps(const char *val, u32 *reps)
{
	char *end;
	unsigned long v = val ? strtoul(val, &end, 0) : 0;

	if (!val || *end || v < 1 || v > BENCH_MAX_REPS) {
		kprintf("bench: repetitions '%s': expected 1..%d\n", val ? val : "", BENCH_MAX_REPS);
		return -EINVAL;
	}
	*reps = (u32)v;
	return 0;
}

static int bench_reps_param(const char *val)
{
	return parse_reps(val, &bench_reps);
}
KERNEL_PARAM("bench.reps", bench_reps_param, "repetitions per figure (default 5, at most 15)");

static int parse_ws(const char *val, u64 *ws)
{
	const char *end;

	if (!val || parse_size(val, ws, &end) || *end || *ws < MiB || !IS_ALIGNED(*ws, MiB)) {
		kprintf("bench: working set '%s': expected a multiple of 1M\n", val ? val : "");
		return -EINVAL;
	}
	return 0;
}

static int bench_ws_param(const char *val)
{
	return parse_ws(val, &bench_ws);
}
KERNEL_PARAM("bench.ws", bench_ws_param, "blk benchmark working set (default 64M)");

void bench_boot(void)
{
	if (!bench_spec)
		return;
	int errors = bench_run(bench_spec, bench_ns_name, bench_reps, bench_ws);
	kernel_poweroff(errors ? EXIT_TESTS_FAILED : EXIT_OK);
}

static void print_pmem_written(void)
{
	kprintf("pmem_written: total=%llu", pmem_written_total());
	for (int w = 0; w < PMEM_WR_NR; w++)
		kprintf(" %s=%llu", pmem_writer_name(w), pmem_written[w]);
	kprintf(" (bytes stored to pmem since boot)\n");
}

static int cmd_bench(int argc, char **argv)
{
	const char *ns = bench_ns_name, *spec = NULL;
	u32 reps = bench_reps;
	u64 ws = bench_ws;
	bool force = false;

	if (argc == 2 && !strcmp(argv[1], "stat")) {
		print_pmem_written();
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-f")) {
			force = true;
		} else if (!strcmp(a, "-n") && v) {
			ns = v, i++;
		} else if (!strcmp(a, "-r") && v) {
			if (parse_reps(v, &reps))
				return -EINVAL;
			i++;
		} else if (!strcmp(a, "-w") && v) {
			if (parse_ws(v, &ws))
				return -EINVAL;
			i++;
		} else if (a[0] != '-' && !spec) {
			spec = a;
		} else {
			kprintf("bench: bad argument '%s'\n", a);
			return -EINVAL;
		}
	}
	if (!spec || !force) {
		kprintf("usage: bench -f [-n NS] [-r REPS] [-w SIZE] all|NAME,... (reformats NS: its data is lost)\n");
		return -EINVAL;
	}
	int errors = bench_run(spec, ns, reps, ws);
	return errors < 0 ? errors : errors ? -EIO : 0;
}
SHELL_COMMAND("bench", cmd_bench,
	      "bench -f [-n NS] [-r REPS] [-w SIZE] all|memmap,overhead,lookup,blk,reprobe | bench stat",
	      "benchmarks (reformat the namespace); 'bench stat': bytes stored to pmem");
