/*
 * The blk bench: the pfn-mode block device (pmem_rw), sequential and
 * random, 4 KiB and 1 MiB requests, reads and writes, next to the media
 * path's two copies alone over the very same RAM and pmem addresses in the
 * same order: plain stores (memcpy; no flush) and, for writes, the
 * persistence-safe copy (non-temporal, one flush at the end): the limit
 * this guest can reach.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "bench.h"
#include "pmem.h"

#define BLK_RAM_BUF (4 * MiB)	/* the RAM side of every copy, used round robin */

/* 0..n-1 in order, or shuffled (Fisher-Yates, fixed seed: every run the same). */
void bench_make_order(u32 *idx, u32 n, bool shuffle)
{
	u64 seed = 0x9E3779B97F4A7C15ULL;

	for (u32 i = 0; i < n; i++)
		idx[i] = i;
	for (u32 i = n - 1; shuffle && i > 0; i--) {
		u32 j = (u32)(bench_xorshift64(&seed) % (i + 1)), t = idx[i];
		idx[i] = idx[j];
		idx[j] = t;
	}
}

enum blk_method { BLK_DEV, BLK_MEMCPY, BLK_NT, BLK_NR_METHODS };

struct blk_job {
	struct pmem_device *dev;
	u8 *ram;
	const u32 *order;
	u32 n;
	u64 req;
	bool write;
};

/* The RAM address request i uses (the same for every method). */
static u8 *ram_of(const struct blk_job *j, u32 i)
{
	return j->ram + ((u64)i * j->req) % BLK_RAM_BUF;
}

/* The device's media with the copy a baseline measures (the media path does the copying). */
static struct nsio baseline_media(const struct blk_job *j, enum blk_method m)
{
	struct nsio io = j->dev->io;

	io.cpu_cache = m == BLK_MEMCPY;	/* plain stores; else the non-temporal copy */
	return io;
}

/* One request by a baseline: the copy alone, no flush. */
static int baseline_one(const struct blk_job *j, const struct nsio *io, u32 i)
{
	u64 off = (u64)j->order[i] * j->req;

	if (j->write)
		return nsio_write_unflushed(io, off, ram_of(j, i), j->req, PMEM_WR_OTHER);
	return nsio_read(io, off, ram_of(j, i), j->req);
}

/* One pass over the working set by one method; returns ns, or 0 on an I/O error. */
static u64 blk_pass(const struct blk_job *j, enum blk_method m)
{
	struct nsio io = baseline_media(j, m);
	u64 t0 = arch_cycles();
	int err = 0;

	for (u32 i = 0; i < j->n && !err; i++) {
		if (m == BLK_DEV)
			err = pmem_rw(j->dev, (u64)j->order[i] * j->req, ram_of(j, i), j->req,
				      j->write ? PMEM_WRITE : PMEM_READ);
		else
			err = baseline_one(j, &io, i);
	}
	if (m == BLK_NT && j->write)
		nsio_flush(&io);	/* the non-temporal stores are done when it returns */
	u64 ns = bench_ns_since(t0);
	return err ? 0 : ns ? ns : 1;
}

static u64 ratio_milli(u64 a, u64 b)
{
	return b ? a * 1000 / b : 0;
}

/* "write_seq_4k" + suffix: the metric of a job. */
static void blk_metric(const struct blk_job *j, const char *pattern, const char *suffix,
		       char *buf, size_t len)
{
	snprintf(buf, len, "%s_%s_%s%s", j->write ? "write" : "read", pattern,
		 j->req == PAGE_SIZE ? "4k" : "1m", suffix);
}

static int blk_one(struct bench_ctx *c, struct blk_job *j, const char *pattern)
{
	static const char *const suffix[BLK_NR_METHODS] = { "", "_memcpy", "_nt" };
	struct bench_series rate[BLK_NR_METHODS] = { 0 }, vs_memcpy = { 0 }, vs_nt = { 0 };
	/* Reads have one copy: the non-temporal baseline is a store's. */
	int methods = j->write ? BLK_NR_METHODS : BLK_NT;
	char metric[48];

	for (u32 r = 0; r < c->reps; r++) {
		u64 gibps[BLK_NR_METHODS];
		for (int m = 0; m < methods; m++) {
			u64 ns = blk_pass(j, (enum blk_method)m);
			if (!ns)
				return -EIO;
			gibps[m] = bench_gibps((u64)j->n * j->req, ns);
			bench_add(&rate[m], gibps[m]);
		}
		bench_add(&vs_memcpy, ratio_milli(gibps[BLK_DEV], gibps[BLK_MEMCPY]));
		if (j->write)
			bench_add(&vs_nt, ratio_milli(gibps[BLK_DEV], gibps[BLK_NT]));
	}
	for (int m = 0; m < methods; m++) {
		blk_metric(j, pattern, suffix[m], metric, sizeof(metric));
		bench_report(c, "blk", metric, &rate[m], "GiB/s");
	}
	blk_metric(j, pattern, "_vs_memcpy", metric, sizeof(metric));
	bench_report(c, "blk", metric, &vs_memcpy, "ratio");
	if (j->write) {
		blk_metric(j, pattern, "_vs_nt", metric, sizeof(metric));
		bench_report(c, "blk", metric, &vs_nt, "ratio");
	}
	return 0;
}

void bench_blk(struct bench_ctx *c)
{
	static const u64 reqs[] = { PAGE_SIZE, MiB };
	struct nd_pfn *pfn = bench_pfn(c);
	struct pmem_device *dev = pfn ? &pfn->pmem : NULL;
	u64 ws = dev ? MIN(c->ws, ALIGN_DOWN(dev->size, MiB)) : 0;
	u8 *ram = malloc(BLK_RAM_BUF);
	u32 *order = malloc((ws / PAGE_SIZE) * sizeof(u32));
	int err = (!dev || !ws) ? -ENODEV : (!ram || !order) ? -ENOMEM : 0;

	if (ram)
		memset(ram, 0xa5, BLK_RAM_BUF);
	for (size_t q = 0; q < ARRAY_SIZE(reqs) && !err; q++) {
		struct blk_job j = { .dev = dev, .ram = ram, .order = order, .n = (u32)(ws / reqs[q]),
				     .req = reqs[q] };
		/* Writes first: on a fresh backing file they are the first touch. */
		for (int w = 1; w >= 0 && !err; w--) {
			j.write = w;
			bench_make_order(order, j.n, false);
			err = blk_one(c, &j, "seq");
			bench_make_order(order, j.n, true);
			if (!err)
				err = blk_one(c, &j, "rand");
		}
	}
	free(ram);
	free(order);
	if (err)
		bench_error(c, "blk", "no device, no memory or an I/O error", err);
}
