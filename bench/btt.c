/*
 * The btt bench: the BTT's block device (pmemNs, sectors of 4096 and of
 * 512 bytes) against the raw block device (pmemN) of the same namespace,
 * in the same boot. Each repetition reconfigures the namespace raw, then
 * sector 4096, then sector 512 (a new BTT each time, as create-namespace
 * -f makes it), and on each device runs the same passes: writes then reads,
 * 4 KiB and 1 MiB requests, sequential and shuffled, over the first `ws`
 * bytes of the device from the same RAM buffer. The BTT's figure is its
 * throughput divided by the raw device's in that repetition (a median of
 * ratios, so a busy host slows both sides of each ratio alike).
 *
 * One namespace rather than two of equal size: the same pmem pages (and
 * under QEMU the same backing file) serve both, so neither side gets
 * memory the other has not touched.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "bench.h"
#include "nd_btt.h"
#include "pmem.h"

#define BTT_RAM_BUF (4 * MiB)	/* the RAM side of every request, round robin */

struct btt_kind {
	const char *label;	/* the report's mode= */
	bool sector;
	u32 lbasize;
};

static const struct btt_kind kinds[] = {
	{ "raw", false, 0 },
	{ "s4096", true, 4096 },
	{ "s512", true, 512 },
};
#define NR_KINDS ARRAY_SIZE(kinds)

/* The passes: request size x pattern x direction, writes first. */
struct btt_case {
	u64 req;
	bool shuffle, write;
};

static const struct btt_case cases[] = {
	{ PAGE_SIZE, false, true }, { PAGE_SIZE, true, true },
	{ PAGE_SIZE, false, false }, { PAGE_SIZE, true, false },
	{ MiB, false, true }, { MiB, true, true },
	{ MiB, false, false }, { MiB, true, false },
};
#define NR_CASES ARRAY_SIZE(cases)

/* Reconfigure the namespace as `k` (quietly) and return its block device. */
static struct pmem_device *kind_up(struct bench_ctx *c, const struct btt_kind *k)
{
	struct nd_pfn_request req = { .mode = PFN_MODE_NONE, .force = true, .sector = k->sector,
				      .lbasize = k->lbasize };
	int q = bench_quiet();
	int err = nd_namespace_reconfigure(c->ns, &req);

	bench_loud(q);
	if (err)
		return NULL;
	if (!k->sector)
		return pmem_find(c->ns->blockdev);
	struct nd_btt *b = nd_btt_of(c->ns);
	return b && b->enabled ? &b->pmem : NULL;
}

/* One pass of case `cs` over the first `ws` bytes of `dev`: GiB/s in thousandths, 0 on error. */
static u64 btt_pass(struct pmem_device *dev, const struct btt_case *cs, u8 *ram, u32 *order,
		    u64 ws)
{
	u32 n = (u32)(ws / cs->req);

	bench_make_order(order, n, cs->shuffle);
	u64 t0 = arch_cycles();
	for (u32 i = 0; i < n; i++)
		if (pmem_rw(dev, (u64)order[i] * cs->req, ram + ((u64)i * cs->req) % BTT_RAM_BUF,
			    cs->req, cs->write ? PMEM_WRITE : PMEM_READ))
			return 0;
	u64 gibps = bench_gibps((u64)n * cs->req, bench_ns_since(t0));
	return gibps ? gibps : 1;
}

static void metric_name(char *buf, size_t n, const struct btt_case *cs, const char *suffix)
{
	snprintf(buf, n, "%s_%s_%s%s", cs->write ? "write" : "read", cs->shuffle ? "rand" : "seq",
		 cs->req == PAGE_SIZE ? "4k" : "1m", suffix);
}

/* Every kind's rate per case, and each BTT's ratio to raw. */
static void btt_report(struct bench_ctx *c, struct bench_series (*rate)[NR_CASES],
		       struct bench_series (*vs_raw)[NR_CASES])
{
	char metric[48];

	for (size_t k = 0; k < NR_KINDS; k++) {
		c->mode_label = kinds[k].label;
		for (size_t i = 0; i < NR_CASES; i++) {
			metric_name(metric, sizeof(metric), &cases[i], "");
			bench_report(c, "btt", metric, &rate[k][i], "GiB/s");
			if (!k)
				continue;
			metric_name(metric, sizeof(metric), &cases[i], "_vs_raw");
			bench_report(c, "btt", metric, &vs_raw[k][i], "ratio");
		}
	}
	c->mode_label = NULL;
}

void bench_btt(struct bench_ctx *c)
{
	static struct bench_series rate[NR_KINDS][NR_CASES], vs_raw[NR_KINDS][NR_CASES];
	/* Whole MiBs, and room for the BTT's metadata: at most half the namespace. */
	u64 ws = ALIGN_DOWN(MIN(c->ws, c->ns->size / 2), MiB);
	u8 *ram = malloc(BTT_RAM_BUF);
	u32 *order = malloc((ws / PAGE_SIZE) * sizeof(u32));
	const char *what = "no memory";
	int err = !ram || !order ? -ENOMEM : !ws ? -ENOSPC : 0;

	memset(rate, 0, sizeof(rate));
	memset(vs_raw, 0, sizeof(vs_raw));
	if (ram)
		memset(ram, 0x5a, BTT_RAM_BUF);
	for (u32 r = 0; r < c->reps && !err; r++) {
		u64 raw[NR_CASES];
		for (size_t k = 0; k < NR_KINDS && !err; k++) {
			struct pmem_device *dev = kind_up(c, &kinds[k]);
			if (!dev) {
				err = -ENODEV, what = "reconfiguring the namespace failed";
				break;
			}
			for (size_t i = 0; i < NR_CASES && !err; i++) {
				u64 g = btt_pass(dev, &cases[i], ram, order, ws);
				if (!g) {
					err = -EIO, what = "an I/O error";
					break;
				}
				bench_add(&rate[k][i], g);
				if (k)
					bench_add(&vs_raw[k][i], g * 1000 / raw[i]);
				else
					raw[i] = g;
			}
		}
	}
	free(ram);
	free(order);
	if (err) {
		bench_error(c, "btt", what, err);
		return;
	}
	btt_report(c, rate, vs_raw);
}
