/*
 * x86-64 persistence primitives (FACTS §10; Intel SDM vol. 2: CLWB,
 * CLFLUSHOPT, CLFLUSH, MOVNTI, SFENCE). A copy to pmem is: unaligned head
 * with ordinary stores then written back, 8-byte aligned body with MOVNTI
 * (bypasses the cache), tail like the head; the caller fences once after.
 *
 * The instructions are unprivileged, so test/unit/test_persist.c runs this
 * very file on the host CPU and watches every store, write-back and fence
 * through the HOST_TEST-only trace hook (test/host/persist_trace.h). In the
 * kernel build the hook compiles to nothing.
 */
#include <string.h>

#include "arch.h"
#include "cpu_features.h"
#include "params.h"
#include "persist.h"
#include "printk.h"

#ifdef HOST_TEST
#include "persist_trace.h"

void (*persist_trace_hook)(enum persist_event ev, const void *addr, size_t len);
#define trace(ev, addr, len)                                                                       \
	do {                                                                                       \
		if (persist_trace_hook)                                                            \
			persist_trace_hook((ev), (addr), (len));                                   \
	} while (0)
#else
#define trace(ev, addr, len)                                                                       \
	do {                                                                                       \
	} while (0)
#endif

struct persist_ops persist_ops;
struct persist_stats persist_stats;

static const char *flush_param, *copy_param;

const char *persist_flush_name(enum persist_flush f)
{
	switch (f) {
	case PERSIST_FLUSH_CLWB:
		return "clwb";
	case PERSIST_FLUSH_CLFLUSHOPT:
		return "clflushopt";
	default:
		return "clflush";
	}
}

const char *persist_copy_name(enum persist_copy c)
{
	return c == PERSIST_COPY_NT ? "nt" : "cached";
}

static int flush_param_set(const char *val)
{
	flush_param = val;
	return 0;
}
KERNEL_PARAM("pmem.flush", flush_param_set,
	     "cache write-back for pmem: auto|clwb|clflushopt|clflush (default auto)");

static int copy_param_set(const char *val)
{
	copy_param = val;
	return 0;
}
KERNEL_PARAM("pmem.copy", copy_param_set,
	     "bulk copies to pmem: nt (movnti, default) or cached (stores + write-back)");

static bool flush_supported(enum persist_flush f)
{
	switch (f) {
	case PERSIST_FLUSH_CLWB:
		return cpu_features.clwb;
	case PERSIST_FLUSH_CLFLUSHOPT:
		return cpu_features.clflushopt;
	default:
		return cpu_features.clflush;
	}
}

static enum persist_flush best_flush(void)
{
	if (cpu_features.clwb)
		return PERSIST_FLUSH_CLWB;
	if (cpu_features.clflushopt)
		return PERSIST_FLUSH_CLFLUSHOPT;
	return PERSIST_FLUSH_CLFLUSH;
}

/* pmem.flush=: a name this CPU supports, else the best one with a message. */
static enum persist_flush choose_flush(void)
{
	static const enum persist_flush all[] = {
		PERSIST_FLUSH_CLWB, PERSIST_FLUSH_CLFLUSHOPT, PERSIST_FLUSH_CLFLUSH,
	};

	if (!flush_param || !strcmp(flush_param, "auto"))
		return best_flush();
	for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
		if (strcmp(flush_param, persist_flush_name(all[i])))
			continue;
		if (flush_supported(all[i]))
			return all[i];
		pr_err("pmem.flush=%s: this CPU has no %s, using %s\n", flush_param,
		       flush_param, persist_flush_name(best_flush()));
		return best_flush();
	}
	pr_err("pmem.flush=%s: expected auto, clwb, clflushopt or clflush\n", flush_param);
	return best_flush();
}

static enum persist_copy choose_copy(void)
{
	if (!copy_param || !strcmp(copy_param, "nt"))
		return cpu_features.sse2 ? PERSIST_COPY_NT : PERSIST_COPY_CACHED;
	if (!strcmp(copy_param, "cached"))
		return PERSIST_COPY_CACHED;
	pr_err("pmem.copy=%s: expected nt or cached\n", copy_param);
	return PERSIST_COPY_NT;
}

void persist_init(void)
{
	persist_ops.flush = choose_flush();
	persist_ops.copy = choose_copy();
	pr_info("pmem: persistence by %s%s, %s copies, sfence\n",
		persist_flush_name(persist_ops.flush),
		persist_ops.flush == best_flush() ? "" : " (forced)",
		persist_copy_name(persist_ops.copy));
}

static inline void flush_line(const void *p)
{
	switch (persist_ops.flush) {
	case PERSIST_FLUSH_CLWB:
		__asm__ volatile("clwb %0" : "+m"(*(volatile char *)p));
		trace(PERSIST_EV_CLWB, p, 1);
		break;
	case PERSIST_FLUSH_CLFLUSHOPT:
		__asm__ volatile("clflushopt %0" : "+m"(*(volatile char *)p));
		trace(PERSIST_EV_CLFLUSHOPT, p, 1);
		break;
	default:
		__asm__ volatile("clflush %0" : "+m"(*(volatile char *)p));
		trace(PERSIST_EV_CLFLUSH, p, 1);
		break;
	}
}

void arch_flush_cache(const void *p, size_t n)
{
	u64 line = cpu_features.clflush_size ? cpu_features.clflush_size : 64;
	u64 start = ALIGN_DOWN((u64)p, line), end = (u64)p + n;

	if (!n)
		return;
	for (u64 a = start; a < end; a += line) {
		flush_line((const void *)a);
		persist_stats.lines_flushed++;
	}
}

void arch_wmb_pmem(void)
{
	/* Orders the NT stores and write-backs before anything that follows. */
	__asm__ volatile("sfence" ::: "memory");
	trace(PERSIST_EV_SFENCE, NULL, 0);
	persist_stats.fences++;
}

static inline u64 load64(const u8 *s)
{
	u64 w;

	/* __builtin_: under -ffreestanding a plain memcpy is a call per word. */
	__builtin_memcpy(&w, s, 8);
	return w;
}

static inline void movnti(u64 *d, u64 w)
{
	__asm__ volatile("movnti %1, %0" : "=m"(*d) : "r"(w));
	trace(PERSIST_EV_MOVNTI, d, 8);
}

/*
 * d is 8-byte aligned; s may not be (an unaligned load is fine on x86). A
 * cache line per iteration, all eight loads before the eight stores:
 * alternating load and store per word makes source and destination that
 * are a multiple of 4 KiB apart collide on every access (4K aliasing on
 * the CPU, TLB set conflicts under QEMU's TCG).
 */
static void copy_nt_body(u64 *d, const u8 *s, size_t words)
{
	size_t i = 0;

	for (; i + 8 <= words; i += 8, s += 64) {
		u64 w0 = load64(s), w1 = load64(s + 8), w2 = load64(s + 16), w3 = load64(s + 24);
		u64 w4 = load64(s + 32), w5 = load64(s + 40), w6 = load64(s + 48), w7 = load64(s + 56);

		movnti(d + i, w0);
		movnti(d + i + 1, w1);
		movnti(d + i + 2, w2);
		movnti(d + i + 3, w3);
		movnti(d + i + 4, w4);
		movnti(d + i + 5, w5);
		movnti(d + i + 6, w6);
		movnti(d + i + 7, w7);
	}
	for (; i < words; i++, s += 8)
		movnti(d + i, load64(s));
}

void arch_memcpy_flushcache(void *dst, const void *src, size_t n)
{
	u8 *d = dst;
	const u8 *s = src;

	persist_stats.bytes_flushcache += n;
	if (persist_ops.copy == PERSIST_COPY_CACHED) {
		memcpy(d, s, n);
		trace(PERSIST_EV_STORE, d, n);
		arch_flush_cache(d, n);
		return;
	}
	size_t head = MIN(n, (size_t)(ALIGN_UP((u64)d, 8) - (u64)d));
	if (head) {
		memcpy(d, s, head);
		trace(PERSIST_EV_STORE, d, head);
		arch_flush_cache(d, head);
		d += head, s += head, n -= head;
	}
	size_t words = n / 8;
	copy_nt_body((u64 *)d, s, words);
	d += words * 8, s += words * 8, n -= words * 8;
	if (n) {
		memcpy(d, s, n);
		trace(PERSIST_EV_STORE, d, n);
		arch_flush_cache(d, n);
	}
}
