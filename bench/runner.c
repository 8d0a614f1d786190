/*
 * The benchmark runner: the bench=/bench.ns=/bench.reps=/bench.ws=
 * parameters, the boot hook, the shell's bench command, the order the
 * benches run in, the clock recalibration before them, and bringing the
 * namespace up in each pass's mode. The benches are one file each; their
 * output goes through report.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "bench.h"
#include "memremap.h"
#include "kernel.h"
#include "mm.h"
#include "params.h"
#include "persist.h"
#include "printk.h"
#include "shell.h"

static const char *bench_spec, *bench_ns_name;
static u64 bench_reps = BENCH_DEFAULT_REPS;
static u64 bench_ws = BENCH_DEFAULT_WS;

/* ---- the device the benches measure ---- */

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
	B_BTT = 1 << 5,
	B_ALL = (1 << 6) - 1,
	B_USABLE = 1 << 6,	/* not in "all": a boot with one nvdimm per size */
};

static const struct {
	const char *name;
	unsigned int bit;
	bool needs_device;	/* runs on the device as it is (else brings its own up) */
	bool once;		/* not per map= mode: once, after both passes */
	void (*run)(struct bench_ctx *c);
} benches[] = {
	/* The order of a pass: memmap first (its first repetition sees the
	 * media as the boot found it), reprobe last. */
	{ "memmap", B_MEMMAP, false, false, bench_memmap },
	{ "overhead", B_OVERHEAD, false, false, bench_overhead },
	{ "lookup", B_LOOKUP, true, false, bench_lookup },
	{ "blk", B_BLK, true, false, bench_blk },
	{ "reprobe", B_REPROBE, true, false, bench_reprobe },
	/* Raw and sector on the namespace, after the pfn passes. */
	{ "btt", B_BTT, false, true, bench_btt },
	/* Every namespace of the boot, map=dev with deferred init, in turn. */
	{ "usable", B_USABLE, false, true, bench_usable },
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
			kprintf("bench: unknown benchmark '%s' (all, memmap, overhead, lookup, blk, reprobe, btt, usable)\n", w);
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
		if (!(mask & benches[i].bit) || benches[i].once)
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
 * the median of six more and the rate in use (the boot's, on the first run)
 * and uses that from here on.
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
		c.ns->name, (c.ns->size >> 20), reps, bench_fmt_size(wsbuf, sizeof(wsbuf), ws),
		tsc_khz, persist_flush_name(persist_ops.flush), persist_copy_name(persist_ops.copy),
		memmap_pmem_rewrite ? "rewrite" : "diff", pmem_written_total());
	if (mask & B_REPROBE)
		bench_reprobe_boot(&c);	/* before anything changes the device */
	/*
	 * Every bring-up from here on is synchronous (memmap_init=sync), so
	 * each figure sees all struct pages stored and the device left up at
	 * the end has them all for the next boot; memmap.c measures deferred
	 * init on its own.
	 */
	bool deferred = memmap_init_deferred;
	memmap_init_deferred = false;
	/* map=dev first: map=mem's data area overlaps map=dev's memmap, and
	 * memmap must find that area as the backing file has it. */
	for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
		c.mode = modes[m];
		bench_pass(&c, mask);
	}
	c.mode = PFN_MODE_NONE;
	for (size_t i = 0; i < ARRAY_SIZE(benches); i++)
		if ((mask & benches[i].bit) && benches[i].once)
			benches[i].run(&c);
	/* Leave map=dev up: the next boot brings it back (bench reprobe's boot figures). */
	c.mode = PFN_MODE_PMEM;
	if (!bench_pfn(&c) || bench_pfn(&c)->layout.mode != PFN_MODE_PMEM) {
		int q = bench_quiet();
		int err = bench_pfn_up(&c);
		bench_loud(q);
		if (err)
			bench_error(&c, "end", "map=dev bring-up failed", err);
	}
	memmap_init_deferred = deferred;
	kprintf("bench: end errors=%d pmem_written=%llu\n", c.errors, pmem_written_total());
	return c.errors;
}

/* ---- parameters, boot hook, shell ---- */

static int bench_param(const char *val)
{
	unsigned int mask;

	if (!val || parse_spec(val, &mask)) {
		pr_err("bench=%s: expected all or memmap,overhead,lookup,blk,reprobe,btt,usable\n", val ? val : "");
		return -EINVAL;
	}
	bench_spec = val;
	return 0;
}
KERNEL_PARAM("bench", bench_param,
	     "run benchmarks at the end of boot, then power off: all (but usable) or memmap,overhead,lookup,blk,reprobe,btt,usable (every namespace in turn)");

KERNEL_PARAM_STRING("bench.ns", bench_ns_name, "a namespace name",
		    "namespace the benchmarks use (default the first)");

KERNEL_PARAM_U64("bench.reps", bench_reps, 1, BENCH_MAX_REPS,
		 "repetitions per figure (default 5, at most 15)");

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
	int errors = bench_run(bench_spec, bench_ns_name, (u32)bench_reps, bench_ws);
	kernel_poweroff(errors ? EXIT_TESTS_FAILED : EXIT_OK);
}

static void print_pmem_written(void)
{
	kprintf("pmem_written: total=%llu", pmem_written_total());
	for (int w = 0; w < PMEM_WR_NR; w++)
		kprintf(" %s=%llu", pmem_writer_name(w), pmem_written[w]);
	kprintf(" (bytes stored to pmem since boot)\n");
}

/* One option of bench and its value (argv[*i], moved past): 0, else one line and the usage. */
static int bench_option(int argc, char **argv, int *i, const char **ns, u32 *reps, u64 *ws)
{
	const char *a = argv[*i], *v;

	if (strcmp(a, "-n") && strcmp(a, "-r") && strcmp(a, "-w"))
		return shell_arg_unexpected(argv[0], a);
	v = shell_arg_value(argc, argv, i);
	if (!v)
		return -EINVAL;
	if (!strcmp(a, "-n")) {
		*ns = v;
		return shell_arg_name(argv[0], "namespace", v);
	}
	if (!strcmp(a, "-r"))
		return shell_arg_u32(argv[0], "repetitions", v, 1, BENCH_MAX_REPS, reps);
	if (shell_arg_size(argv[0], "working set", v, MiB, ~0ull, ws))
		return -EINVAL;
	if (!IS_ALIGNED(*ws, MiB))
		return shell_arg_error(argv[0], "working set '%s': not a multiple of 1M", v);
	return 0;
}

static int cmd_bench(int argc, char **argv)
{
	const char *ns = bench_ns_name, *spec = NULL;
	u32 reps = (u32)bench_reps;
	u64 ws = bench_ws;
	bool force = false;

	if (argc >= 2 && !strcmp(argv[1], "stat")) {
		if (shell_args_max(argc, argv, 2))
			return -EINVAL;
		print_pmem_written();
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		if (shell_arg_flag(argv[i], "-f", NULL))
			force = true;
		else if (argv[i][0] != '-' && !spec)
			spec = argv[i];
		else if (bench_option(argc, argv, &i, &ns, &reps, &ws))
			return -EINVAL;
	}
	if (!spec)
		return shell_arg_error(argv[0], "missing all or NAME,...");
	if (!force)
		return shell_arg_error(
			argv[0],
			"needs -f: it reformats NS (usable: every namespace), their data is lost");
	int errors = bench_run(spec, ns, reps, ws);
	return errors < 0 ? errors : errors ? -EIO : 0;
}
SHELL_COMMAND(SHELL_BENCH, "bench", cmd_bench,
	      "bench -f [-n NS] [-r REPS] [-w SIZE] all|memmap,overhead,lookup,blk,reprobe,btt,usable | bench stat",
	      "benchmarks (reformat the namespace; usable: every namespace); 'bench stat': bytes stored to pmem");
