/*
 * The blk bench: the pfn-mode block device (pmem_rw), sequential and
 * random, 4 KiB and 1 MiB requests, reads and writes, next to the media
 * path's copies alone over the very same RAM and pmem addresses in the
 * same order: plain stores (memcpy; no flush) and, for writes, the
 * persistence-safe copy (non-temporal, one flush at the end): the limit
 * this guest can reach. Reads go through the bad-block check and the
 * machine-check-safe copy (issue 29): they are also timed against a plain
 * memcpy from the pmem's kernel address (what a read was before), against
 * the machine-check-safe copy alone (the check's cost), and through the
 * block device while the region lists a bad sector outside the working
 * set (the check's slow path: the list's lock and walk).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "bench.h"
#include "nvdimm.h"
#include "pmem.h"

#define BLK_RAM_BUF (4 * MiB) /* the RAM side of every copy, used round robin */

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

/*
 * What one pass copies with. Writes: DEV, MEMCPY, NT. Reads: DEV, MEMCPY
 * (nsio_read: the check, then the machine-check-safe copy), PLAIN (memcpy
 * from the kernel address, no check), COPY_MC (arch_copy_mc from it, no
 * check), LISTED (DEV with a bad sector listed past the working set).
 */
enum blk_method { BLK_DEV, BLK_MEMCPY, BLK_NT, BLK_PLAIN, BLK_COPY_MC, BLK_LISTED, BLK_NR_METHODS };

static const enum blk_method write_methods[] = { BLK_DEV, BLK_MEMCPY, BLK_NT };
static const enum blk_method read_methods[] = { BLK_DEV, BLK_MEMCPY, BLK_PLAIN, BLK_COPY_MC,
						BLK_LISTED };

struct blk_job {
	struct pmem_device *dev;
	u8 *ram;
	const u32 *order;
	u32 n;
	u64 req;
	bool write;
	bool listable; /* BLK_LISTED may run (listable()) */
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

	io.cpu_cache = m == BLK_MEMCPY; /* plain stores; else the non-temporal copy */
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

/* A read baseline without the media path: the copy alone from the pmem's kernel address. */
static int bare_read(const struct blk_job *j, u32 i, enum blk_method m)
{
	u64 off = (u64)j->order[i] * j->req;
	const u8 *src = nsio_kaddr(&j->dev->io, off);

	if (!src)
		return -ERANGE;
	if (m == BLK_PLAIN)
		memcpy(ram_of(j, i), src, j->req);
	else if (arch_copy_mc(ram_of(j, i), src, j->req))
		return -EIO;
	return 0;
}

/* The region sector of the device's last 512 bytes, where BLK_LISTED lists a bad sector. */
static u64 last_region_sector(const struct pmem_device *dev)
{
	return (dev->io.phys + dev->io.size - dev->io.region->start) / 512 - 1;
}

/*
 * May BLK_LISTED list (and then clear) the device's last sector? Only past
 * the working set, and only while the region lists and poisons nothing:
 * the bench must never clear a sector that is really bad.
 */
static bool listable(const struct pmem_device *dev, u64 ws)
{
	const struct nd_region *r = dev->io.region;

	return r && ws < dev->size && !badblocks_count(&r->bb) && !badblocks_count(&r->poison);
}

/* One pass over the working set by one method; returns ns, or 0 on an I/O error. */
static u64 blk_pass(const struct blk_job *j, enum blk_method m)
{
	struct nsio io = baseline_media(j, m);
	struct badblocks *bb = m == BLK_LISTED ? &j->dev->io.region->bb : NULL;
	int err = bb ? badblocks_set(bb, last_region_sector(j->dev), 1) : 0;
	u64 t0 = arch_cycles();

	for (u32 i = 0; i < j->n && !err; i++) {
		if (m == BLK_DEV || m == BLK_LISTED)
			err = pmem_rw(j->dev, (u64)j->order[i] * j->req, ram_of(j, i), j->req,
				      j->write ? PMEM_WRITE : PMEM_READ);
		else if (m == BLK_PLAIN || m == BLK_COPY_MC)
			err = bare_read(j, i, m);
		else
			err = baseline_one(j, &io, i);
	}
	if (m == BLK_NT && j->write)
		nsio_flush(&io); /* the non-temporal stores are done when it returns */
	u64 ns = bench_ns_since(t0);
	if (bb && badblocks_clear(bb, last_region_sector(j->dev), 1))
		err = -ENOSPC;
	return err ? 0 : ns ? ns : 1;
}

static u64 ratio_milli(u64 a, u64 b)
{
	return b ? a * 1000 / b : 0;
}

/* "write_seq_4k" + suffix: the metric of a job. */
static void blk_metric(const struct blk_job *j, const char *pattern, const char *suffix, char *buf,
		       size_t len)
{
	snprintf(buf, len, "%s_%s_%s%s", j->write ? "write" : "read", pattern,
		 j->req == PAGE_SIZE ? "4k" : "1m", suffix);
}

/* A ratio of two methods' rates, per repetition. */
struct blk_ratio {
	enum blk_method num, den;
	const char *suffix;
	bool write;
};

static const struct blk_ratio ratios[] = {
	{ BLK_DEV, BLK_MEMCPY, "_vs_memcpy", true },
	{ BLK_DEV, BLK_NT, "_vs_nt", true },
	{ BLK_DEV, BLK_MEMCPY, "_vs_memcpy", false },
	/* Issue 29: the block read against the plain copy it used to be. */
	{ BLK_DEV, BLK_PLAIN, "_vs_plain", false },
	/* ... split: the copy's cost, the check's cost with nothing listed, and with one. */
	{ BLK_COPY_MC, BLK_PLAIN, "_copy_mc_vs_plain", false },
	{ BLK_MEMCPY, BLK_COPY_MC, "_checked_vs_copy_mc", false },
	{ BLK_LISTED, BLK_DEV, "_listed_vs_clean", false },
};

static int blk_one(struct bench_ctx *c, struct blk_job *j, const char *pattern)
{
	static const char *const suffix[BLK_NR_METHODS] = { "",	      "_memcpy",  "_nt",
							    "_plain", "_copy_mc", "_listed" };
	struct bench_series rate[BLK_NR_METHODS] = { 0 }, ratio[ARRAY_SIZE(ratios)] = { 0 };
	const enum blk_method *methods = j->write ? write_methods : read_methods;
	/* BLK_LISTED, the last read method, needs a sector outside the working set. */
	u32 nm = j->write ? ARRAY_SIZE(write_methods) : ARRAY_SIZE(read_methods) - !j->listable;
	char metric[48];

	for (u32 r = 0; r < c->reps; r++) {
		u64 gibps[BLK_NR_METHODS] = { 0 };
		/* Each repetition starts with the next method: none is always first. */
		for (u32 k = 0; k < nm; k++) {
			enum blk_method m = methods[(r + k) % nm];
			u64 ns = blk_pass(j, m);
			if (!ns)
				return -EIO;
			gibps[m] = bench_gibps((u64)j->n * j->req, ns);
			bench_add(&rate[m], gibps[m]);
		}
		for (size_t q = 0; q < ARRAY_SIZE(ratios); q++)
			if (ratios[q].write == j->write && gibps[ratios[q].num])
				bench_add(&ratio[q],
					  ratio_milli(gibps[ratios[q].num], gibps[ratios[q].den]));
	}
	for (u32 k = 0; k < nm; k++) {
		blk_metric(j, pattern, suffix[methods[k]], metric, sizeof(metric));
		bench_report(c, "blk", metric, &rate[methods[k]], "GiB/s");
	}
	for (size_t q = 0; q < ARRAY_SIZE(ratios); q++) {
		if (ratios[q].write != j->write)
			continue;
		blk_metric(j, pattern, ratios[q].suffix, metric, sizeof(metric));
		bench_report(c, "blk", metric, &ratio[q], "ratio");
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
		struct blk_job j = { .dev = dev,
				     .ram = ram,
				     .order = order,
				     .n = (u32)(ws / reqs[q]),
				     .req = reqs[q],
				     .listable = listable(dev, ws) };
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
