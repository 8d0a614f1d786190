/*
 * The benchmarks' report helpers: series of samples, their median, min and
 * max, number formatting, and the one `bench:` line format that
 * tools/bench-report.py parses (keep it byte for byte).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "bench.h"
#include "printk.h"

void bench_add(struct bench_series *s, u64 milli)
{
	if (s->n < BENCH_MAX_REPS)
		s->v[s->n++] = milli;
}

/* qsort's order for u64s. */
static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The median of n > 0 sorted values; of an even count, the mean of the middle two. */
static u64 median(const u64 *v, u32 n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* "1.234": a value in thousandths. */
static const char *fmt_milli(char *buf, size_t n, u64 milli)
{
	snprintf(buf, n, "%llu.%03llu", (milli / 1000), (milli % 1000));
	return buf;
}

/* The report's mode=: dev, mem, raw, or what the bench set (btt.c: s4096, s512). */
static const char *mode_name(const struct bench_ctx *c)
{
	if (c->mode_label)
		return c->mode_label;
	return c->mode == PFN_MODE_PMEM ? "dev" : c->mode == PFN_MODE_RAM ? "mem" : "raw";
}

const char *bench_fmt_size(char *buf, size_t n, u64 bytes)
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
	qsort(v, s->n, sizeof(u64), cmp_u64);
	kprintf("bench: name=%s size=%s mode=%s metric=%s median=%s min=%s max=%s first=%s unit=%s n=%u\n",
		name, bench_fmt_size(size, sizeof(size), c->ns->size), mode_name(c), metric,
		fmt_milli(med, sizeof(med), median(v, s->n)), fmt_milli(lo, sizeof(lo), v[0]),
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
		bench_fmt_size(size, sizeof(size), c->ns->size), mode_name(c), err, what);
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

u64 bench_ms_milli(u64 ns)
{
	return ns / 1000;	/* ns -> thousandths of a ms */
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
