/*
 * Host tests of the real arch/x86_64/persist.c (RELIABILITY #43): clwb,
 * clflushopt, clflush, movnti and sfence are unprivileged, so the kernel's
 * file runs here on the host CPU. Over offsets {0, 7, 9, 63} x lengths {0,
 * 1, 63, 64, 65, 4 KiB, 1 MiB + 5 KiB}, for each write-back instruction the
 * CPU has and both copy modes: the bytes arrive and nothing around them
 * changes; every byte is stored exactly once (cached or non-temporal);
 * every line holding cached stores is written back exactly once, after its
 * last store, with the chosen instruction; no other line is; the copy
 * itself never fences and the one fence that follows ends the call. The
 * events come from persist.c's HOST_TEST trace hook (persist_trace.h).
 */
#include <cpuid.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "arch.h"
#include "host.h"
#include "params.h"
#include "persist.h"
#include "persist_trace.h"
#include "pmem.h"
/* The real persist.c reads the x86 CPU's features: this test fills them from the host's CPUID. */
#include "../../arch/x86_64/cpu_features.h"

struct cpu_features cpu_features;

#define LINE 64
#define MAX_LEN (1 * MiB + 5 * KiB)
/* A guard line, the largest request at offsets up to 1 KiB, guard lines. */
#define BUF_SIZE (LINE + 1 * KiB + MAX_LEN + 2 * LINE)
#define NR_LINES (BUF_SIZE / LINE)

static const size_t offsets[] = { 0, 7, 9, 63 };
static const size_t lengths[] = { 0, 1, 63, 64, 65, 4 * KiB, MAX_LEN };

static u8 dst[BUF_SIZE] __aligned(LINE);
static u8 src[MAX_LEN + 64];

/* What the hook saw since trace_reset(), per byte and per line of dst. */
static struct {
	u8 writes[BUF_SIZE]; /* stores of any kind to each byte */
	u32 flushes[NR_LINES]; /* write-backs of each line */
	u64 last_store[NR_LINES]; /* sequence number of its last cached store */
	u64 last_flush[NR_LINES];
	u64 seq, fences, fence_seq, last_other_seq, nt_stores;
	u64 outside; /* events naming memory outside dst */
	u64 wrong_kind; /* write-backs by another instruction */
	enum persist_event want_flush;
} tr;

static void trace_reset(enum persist_event want_flush)
{
	memset(&tr, 0, sizeof(tr));
	tr.want_flush = want_flush;
}

/* Byte index of addr in dst, or -1 (counted) when it is not inside. */
static long dst_index(const void *addr, size_t len)
{
	const u8 *p = addr;

	if (p < dst || p + len > dst + BUF_SIZE || p + len < p) {
		tr.outside++;
		return -1;
	}
	return p - dst;
}

static void record_store(const void *addr, size_t len, bool cached)
{
	long i = dst_index(addr, len);

	if (i < 0)
		return;
	for (size_t b = 0; b < len; b++)
		tr.writes[i + b]++;
	for (size_t l = i / LINE; cached && len && l <= (i + len - 1) / LINE; l++)
		tr.last_store[l] = tr.seq;
}

static void record(enum persist_event ev, const void *addr, size_t len)
{
	long i;

	tr.seq++;
	if (ev != PERSIST_EV_SFENCE)
		tr.last_other_seq = tr.seq;
	switch (ev) {
	case PERSIST_EV_STORE:
		record_store(addr, len, true);
		break;
	case PERSIST_EV_MOVNTI:
		tr.nt_stores++;
		if ((u64)addr % 8 || len != 8)
			tr.outside++; /* movnti only on aligned words */
		record_store(addr, len, false);
		break;
	case PERSIST_EV_CLWB:
	case PERSIST_EV_CLFLUSHOPT:
	case PERSIST_EV_CLFLUSH:
		tr.wrong_kind += ev != tr.want_flush;
		i = dst_index(addr, 1);
		if (i >= 0) {
			tr.flushes[i / LINE]++;
			tr.last_flush[i / LINE] = tr.seq;
		}
		break;
	case PERSIST_EV_SFENCE:
		tr.fences++;
		tr.fence_seq = tr.seq;
		break;
	}
}

/* The flush instruction of each kind, and whether this CPU has it (CPUID). */
static const struct {
	enum persist_flush flush;
	enum persist_event ev;
	const char *name;
} kinds[] = {
	{ PERSIST_FLUSH_CLWB, PERSIST_EV_CLWB, "clwb" },
	{ PERSIST_FLUSH_CLFLUSHOPT, PERSIST_EV_CLFLUSHOPT, "clflushopt" },
	{ PERSIST_FLUSH_CLFLUSH, PERSIST_EV_CLFLUSH, "clflush" },
};

/* cpu_features from the host's CPUID, as arch/x86_64/cpu.c reads them. */
static void host_cpu_features(void)
{
	unsigned int a = 0, b = 0, c = 0, d = 0;

	__get_cpuid(1, &a, &b, &c, &d);
	cpu_features.clflush = d & (1U << 19);
	cpu_features.sse2 = d & (1U << 26);
	cpu_features.clflush_size = ((b >> 8) & 0xff) * 8;
	__get_cpuid_count(7, 0, &a, &b, &c, &d);
	cpu_features.clflushopt = b & (1U << 23);
	cpu_features.clwb = b & (1U << 24);
}

static int setup(void **state)
{
	(void)state;
	host_cpu_features();
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (u8)(i * 131 + 7) ^ (u8)(i >> 9);
	persist_trace_hook = record;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	persist_trace_hook = NULL;
	return 0;
}

/* Choose the primitives the kernel's way (parameters, then persist_init). */
static void use(int k, const char *copy)
{
	char cmdline[64];

	if (!cpu_features.clflush_size)
		skip();
	if (kinds[k].flush == PERSIST_FLUSH_CLWB && !cpu_features.clwb) {
		print_message("this CPU has no clwb: the clwb variant is skipped\n");
		skip();
	}
	if (kinds[k].flush == PERSIST_FLUSH_CLFLUSHOPT && !cpu_features.clflushopt) {
		print_message("this CPU has no clflushopt: the clflushopt variant is skipped\n");
		skip();
	}
	assert_int_equal(cpu_features.clflush_size, LINE);
	snprintf(cmdline, sizeof(cmdline), "pmem.flush=%s pmem.copy=%s", kinds[k].name, copy);
	host_console_reset();
	assert_int_equal(params_parse(cmdline), 0);
	persist_init();
	assert_int_equal(persist_ops.flush, kinds[k].flush);
	assert_int_equal(persist_ops.copy,
			 strcmp(copy, "nt") ? PERSIST_COPY_CACHED : PERSIST_COPY_NT);
	assert_true(host_console_has("pmem: persistence by "));
	assert_true(host_console_has(kinds[k].name));
}

/*
 * The trace of one write of [at, at + len) of dst, fenced by the caller:
 * each byte of it stored once and nothing else stored; the lines holding
 * cached stores written back once, after the last of them; no other line
 * written back; one fence, the last event.
 */
static void check_trace(size_t at, size_t len, const char *what)
{
	size_t first = at / LINE, last = len ? (at + len - 1) / LINE : first;

	if (tr.outside || tr.wrong_kind)
		fail_msg("%s: %llu events outside the buffer or misaligned, %llu by the wrong "
			 "instruction",
			 what, tr.outside, tr.wrong_kind);
	for (size_t b = 0; b < BUF_SIZE; b++) {
		bool inside = b >= at && b < at + len;
		if (tr.writes[b] != inside)
			fail_msg("%s: byte %zu stored %u times", what, b - at, tr.writes[b]);
	}
	for (size_t l = 0; l < NR_LINES; l++) {
		bool cached = tr.last_store[l] != 0;
		if (tr.flushes[l] != cached)
			fail_msg("%s: line %ld (%s) written back %u times", what,
				 (long)l - (long)first, cached ? "cached stores" : "none",
				 tr.flushes[l]);
		if (cached && tr.last_flush[l] < tr.last_store[l])
			fail_msg("%s: line %zu written back before its last store", what,
				 l - first);
		if (cached && (l < first || l > last))
			fail_msg("%s: cached store outside the request", what);
	}
	if (tr.fences != 1 || tr.fence_seq != tr.seq || tr.last_other_seq > tr.fence_seq)
		fail_msg("%s: %llu fences, last event %llu, fence at %llu", what, tr.fences, tr.seq,
			 tr.fence_seq);
}

/* Bytes: the request holds src, everything around it the guard pattern. */
static void check_bytes(size_t at, size_t len, const char *what)
{
	for (size_t b = 0; b < BUF_SIZE; b++) {
		u8 want = b >= at && b < at + len ? src[b - at] : 0xEE;
		if (dst[b] != want)
			fail_msg("%s: byte %ld is %#x, want %#x", what, (long)b - (long)at, dst[b],
				 want);
	}
}

/* Every offset x length through arch_memcpy_flushcache + arch_wmb_pmem. */
static void copy_all(int k, const char *copy)
{
	char what[96];
	u64 nt_total = 0;

	use(k, copy);
	for (size_t o = 0; o < ARRAY_SIZE(offsets); o++) {
		for (size_t n = 0; n < ARRAY_SIZE(lengths); n++) {
			size_t at = LINE + offsets[o], len = lengths[n];

			snprintf(what, sizeof(what), "%s/%s offset %zu length %zu", kinds[k].name,
				 copy, offsets[o], len);
			memset(dst, 0xEE, sizeof(dst));
			trace_reset(kinds[k].ev);
			arch_memcpy_flushcache(dst + at, src, len);
			assert_int_equal(tr.fences,
					 0); /* the copy leaves the fence to the caller */
			arch_wmb_pmem();
			check_trace(at, len, what);
			check_bytes(at, len, what);
			nt_total += tr.nt_stores;
		}
	}
	/* The cached mode never stores non-temporally; nt does for the bulk. */
	if (strcmp(copy, "nt"))
		assert_int_equal(nt_total, 0);
	else
		assert_true(nt_total > MAX_LEN / 8);
}

/* arch_flush_cache alone: each line of [p, p + n) once, with the chosen instruction. */
static void flush_all(int k)
{
	char what[96];

	use(k, "cached");
	for (size_t o = 0; o < ARRAY_SIZE(offsets); o++) {
		for (size_t n = 0; n < ARRAY_SIZE(lengths); n++) {
			size_t at = LINE + offsets[o], len = lengths[n];
			size_t first = at / LINE, last = len ? (at + len - 1) / LINE : 0;

			snprintf(what, sizeof(what), "%s flush offset %zu length %zu",
				 kinds[k].name, offsets[o], len);
			trace_reset(kinds[k].ev);
			arch_flush_cache(dst + at, len);
			assert_int_equal(tr.outside + tr.wrong_kind + tr.fences, 0);
			for (size_t l = 0; l < NR_LINES; l++) {
				bool in = len && l >= first && l <= last;
				if (tr.flushes[l] != in)
					fail_msg("%s: line %zu written back %u times", what, l,
						 tr.flushes[l]);
			}
		}
	}
}

static void persist_clwb_nt_copy(void **state)
{
	(void)state;
	copy_all(0, "nt");
}

static void persist_clwb_cached_copy(void **state)
{
	(void)state;
	copy_all(0, "cached");
}

static void persist_clflushopt_nt_copy(void **state)
{
	(void)state;
	copy_all(1, "nt");
}

static void persist_clflushopt_cached_copy(void **state)
{
	(void)state;
	copy_all(1, "cached");
}

static void persist_clflush_nt_copy(void **state)
{
	(void)state;
	copy_all(2, "nt");
}

static void persist_clflush_cached_copy(void **state)
{
	(void)state;
	copy_all(2, "cached");
}

static void persist_flush_cache_clwb(void **state)
{
	(void)state;
	flush_all(0);
}

static void persist_flush_cache_clflushopt(void **state)
{
	(void)state;
	flush_all(1);
}

static void persist_flush_cache_clflush(void **state)
{
	(void)state;
	flush_all(2);
}

/* A CPU without clwb asked for it: the best it has, said once. */
static void persist_init_refuses_missing_instruction(void **state)
{
	(void)state;
	bool had = cpu_features.clwb;

	cpu_features.clwb = false;
	host_console_reset();
	params_parse("pmem.flush=clwb pmem.copy=nt");
	persist_init();
	cpu_features.clwb = had;
	assert_int_not_equal(persist_ops.flush, PERSIST_FLUSH_CLWB);
	assert_true(host_console_has("pmem.flush=clwb: this CPU has no clwb, using "));
}

/*
 * Through the block layer: a pmem_rw write is one copy and one fence that
 * ends it, whatever the length (sector-aligned requests only there).
 */
static void persist_pmem_rw_write_ends_with_one_fence(void **state)
{
	(void)state;
	static const size_t lens[] = { 512, 4 * KiB, MAX_LEN };
	struct pmem_device dev = {
		.name = "pmem9", .size = MAX_LEN + 1024, .sector_size = 512,
		.io = { .base = dst + LINE, .size = MAX_LEN + 1024 },
	};
	char what[64];

	use(cpu_features.clwb ? 0 : 2, "nt");
	for (size_t i = 0; i < ARRAY_SIZE(lens); i++) {
		for (u64 off = 0; off <= 512; off += 512) {
			snprintf(what, sizeof(what), "pmem_rw offset %llu length %zu", off,
				 lens[i]);
			memset(dst, 0xEE, sizeof(dst));
			trace_reset(persist_ops.flush == PERSIST_FLUSH_CLWB ? PERSIST_EV_CLWB :
									      PERSIST_EV_CLFLUSH);
			assert_int_equal(pmem_rw(&dev, off, src, lens[i], PMEM_WRITE), 0);
			check_trace(LINE + off, lens[i], what);
			check_bytes(LINE + off, lens[i], what);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(persist_clwb_nt_copy),
		cmocka_unit_test(persist_clwb_cached_copy),
		cmocka_unit_test(persist_clflushopt_nt_copy),
		cmocka_unit_test(persist_clflushopt_cached_copy),
		cmocka_unit_test(persist_clflush_nt_copy),
		cmocka_unit_test(persist_clflush_cached_copy),
		cmocka_unit_test(persist_flush_cache_clwb),
		cmocka_unit_test(persist_flush_cache_clflushopt),
		cmocka_unit_test(persist_flush_cache_clflush),
		cmocka_unit_test(persist_init_refuses_missing_instruction),
		cmocka_unit_test(persist_pmem_rw_write_ends_with_one_fence),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
