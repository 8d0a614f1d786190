/*
 * Shell commands on a pfn device's struct pages: `memmap-hash` (one hash of
 * them all, comparable across boots and CPU counts) and `memmap-init` (run
 * the device's struct page init again on N CPUs and time it: the serial
 * against parallel checks and the SMP benchmark, tools/bench-smp).
 */
#include <errno.h>
#include <string.h>

#include "arch.h"
#include "memremap.h"
#include "mm.h"
#include "nd_pfn.h"
#include "pmem.h"
#include "printk.h"
#include "shell.h"

/* The live pgmap behind a block device name (pmemNm, daxN.0), or NULL (printed). */
static struct dev_pagemap *memmap_pgmap_of(const char *cmd, const char *name)
{
	struct pmem_device *dev = pmem_find(name);
	struct nd_pfn *pfn = dev && dev->ns ? nd_pfn_of(dev->ns) : NULL;

	if (!pfn || !pfn->enabled || pfn->pgmap.state != PGMAP_LIVE) {
		kprintf("%s: %s is not a block device with struct pages (see 'list')\n", cmd, name);
		return NULL;
	}
	return &pfn->pgmap;
}

/* FNV-1a over one 64-bit word. */
static u64 fnv_word(u64 h, u64 w)
{
	for (int i = 0; i < 8; i++, w >>= 8)
		h = (h ^ (w & 0xff)) * 0x100000001b3ull;
	return h;
}

/*
 * The struct page of pfn as words, its pointers made boot-independent: the
 * owner (the pgmap's address, which depends on the heap) as 1, a tail's
 * compound_head as its head's pfn offset from the range start, shifted,
 * with bit 0 kept.
 */
static u64 memmap_page_hash(u64 h, const struct dev_pagemap *pgmap, u64 pfn)
{
	struct page p = *pfn_to_page(pfn);
	u64 w[8];

	if (p.pgmap == pgmap)
		p.pgmap = (struct dev_pagemap *)1;
	if (page_is_tail(&p))
		p.compound_head = ((page_to_pfn(compound_head(pfn_to_page(pfn))) -
				    PFN_DOWN(pgmap->range.start)) << 1) | 1;
	memcpy(w, &p, sizeof(w));
	for (int i = 0; i < 8; i++)
		h = fnv_word(h, w[i]);
	return h;
}

static int memmap_hash_cmd(int argc, char **argv)
{
	struct dev_pagemap *pgmap;
	u64 h = 0xcbf29ce484222325ull, first, end;

	if (!shell_only_name(argc, argv, "device"))
		return -EINVAL;
	pgmap = memmap_pgmap_of(argv[0], argv[1]);
	if (!pgmap)
		return -ENODEV;
	first = PFN_DOWN(pgmap->range.start);
	end = PFN_DOWN(pgmap->range.end) + 1;
	memmap_ready_range(pgmap, first, end - first);	/* a user of every struct page */
	for (u64 pfn = first; pfn < end; pfn++)
		h = memmap_page_hash(h, pgmap, pfn);
	kprintf("memmap-hash: %s pfns %llu hash %016llx\n", argv[1], end - first, h);
	return 0;
}
SHELL_COMMAND(SHELL_MEMORY, "memmap-hash", memmap_hash_cmd, "memmap-hash DEVICE",
	      "hash a pfn device's struct pages (owner and compound heads made boot-independent)");

/* One timed re-init on up to `cpus` CPUs (0: every idle one), one line. */
static int memmap_init_once(const char *name, struct dev_pagemap *pgmap, u32 cpus)
{
	struct memremap_stats st;
	int err = memremap_reinit_pages(pgmap, cpus, &st);

	if (err)
		return err;
	kprintf("memmap-init: %s cpus %u of %u pages %llu stored %llu ns %llu jobs %llu here %llu\n",
		name, st.init_cpus, cpus ? cpus : arch_nr_cpus(), st.pages_init,
		st.pmem_pages_stored, arch_cycles_to_ns(st.init_cycles), st.init_jobs,
		st.init_jobs_caller);
	return 0;
}

/* cpus=N or cpus=A..B (A <= B), arg after the '=': 0, else one line and the usage. */
static int cpus_arg(const char *cmd, const char *arg, u32 *lo, u32 *hi)
{
	const char *dots = strstr(arg, "..");
	size_t n = dots ? (size_t)(dots - arg) : 0;
	u64 first, last;
	char a[24];

	if (!dots) {
		int err = shell_arg_u32(cmd, "cpus", arg, 0, ~0u, lo);
		*hi = *lo;
		return err;
	}
	if (n < sizeof(a)) {
		memcpy(a, arg, n);
		a[n] = '\0';
	}
	if (n >= sizeof(a) || shell_parse_u64(a, &first) || shell_parse_u64(dots + 2, &last) ||
	    first > last || last > ~0u)
		return shell_arg_error(cmd, "cpus '%s': expected N or A..B (A <= B)", arg);
	*lo = (u32)first;
	*hi = (u32)last;
	return 0;
}

/* DEVICE [cpus=N|cpus=A..B] [reps=R] [rewrite]: 0, else one line and the usage. */
static int memmap_init_args(int argc, char **argv, u32 *lo, u32 *hi, u32 *reps, bool *rewrite)
{
	if (shell_arg_name(argv[0], "device", shell_arg(argc, argv, 1)))
		return -EINVAL;
	for (int i = 2; i < argc; i++) {
		int err = 0;

		if (!strncmp(argv[i], "cpus=", 5))
			err = cpus_arg(argv[0], argv[i] + 5, lo, hi);
		else if (!strncmp(argv[i], "reps=", 5))
			err = shell_arg_u32(argv[0], "reps", argv[i] + 5, 1, 100, reps);
		else if (!strcmp(argv[i], "rewrite"))
			*rewrite = true;
		else
			err = shell_arg_unexpected(argv[0], argv[i]);
		if (err)
			return err;
	}
	return 0;
}

static int memmap_init_cmd(int argc, char **argv)
{
	struct dev_pagemap *pgmap;
	bool rewrite = false, saved = memmap_pmem_rewrite;
	u32 lo = 0, hi = 0, reps = 1;
	int err = 0;

	if (memmap_init_args(argc, argv, &lo, &hi, &reps, &rewrite))
		return -EINVAL;
	pgmap = memmap_pgmap_of(argv[0], argv[1]);
	if (!pgmap)
		return -ENODEV;
	memmap_pmem_rewrite = rewrite || saved;
	/* Rounds of A..B: each CPU count measured under the same conditions, interleaved. */
	for (u32 r = 0; r < reps && !err; r++)
		for (u64 k = lo; k <= hi && !err; k++)
			err = memmap_init_once(argv[1], pgmap, (u32)k);
	memmap_pmem_rewrite = saved;
	return err;
}
SHELL_COMMAND(SHELL_MEMORY, "memmap-init", memmap_init_cmd,
	      "memmap-init DEVICE [cpus=N|cpus=A..B] [reps=R] [rewrite]",
	      "run a pfn device's struct page init again on up to N CPUs (0: all idle; A..B: each "
	      "count in turn, R rounds) and time it; rewrite: store every struct page in pmem");

/*
 * Wait until every struct page of a device is ready, leaving the work to
 * the idle CPUs (the boot CPU takes steps too, as its shell idle loop
 * would, so a one-CPU machine gets there), then say who did it.
 */
static int memmap_wait_cmd(int argc, char **argv)
{
	struct dev_pagemap *pgmap;
	struct memmap_progress p;

	if (!shell_only_name(argc, argv, "device"))
		return -EINVAL;
	pgmap = memmap_pgmap_of(argv[0], argv[1]);
	if (!pgmap)
		return -ENODEV;
	for (memmap_progress(pgmap, &p); p.ready < p.sections; memmap_progress(pgmap, &p))
		if (!memmap_defer_step())
			arch_cpu_relax();	/* the last sections are in other CPUs' hands */
	if (!p.start_cycles) {
		kprintf("memmap-wait: %s: struct pages were initialised before it appeared "
			"(memmap_init=sync)\n", argv[1]);
		return 0;
	}
	kprintf("memmap-wait: %s ready: %llu sections, %llu on demand, %llu us after it appeared\n",
		argv[1], p.sections, p.on_demand, arch_cycles_to_ns(p.done_cycles - p.start_cycles) / 1000);
	return 0;
}
SHELL_COMMAND(SHELL_MEMORY, "memmap-wait", memmap_wait_cmd, "memmap-wait DEVICE",
	      "wait until a pfn device's deferred struct page init is done (memmap_init=deferred)");
