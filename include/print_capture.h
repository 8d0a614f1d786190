/*
 * Capturing what one CPU prints into a bounded buffer (docs/ARCHITECTURE.md,
 * "Capturing a command's output"): while a capture is current on a CPU,
 * that CPU's kprintf output and its pr_err/pr_warn lines (without the
 * timestamp) go into the caller's buffer, and to the console as well only
 * if the capture echoes. Other CPUs print as before.
 */
#ifndef PMEMK_PRINT_CAPTURE_H
#define PMEMK_PRINT_CAPTURE_H

#include "types.h"

/* Fill buf, size and echo (PRINT_CAPTURE_INIT); print_capture_begin sets the rest. */
struct print_capture {
	char *buf;		/* the caller's; NUL-terminated once begun */
	size_t size;		/* buf's size: at most size - 1 bytes are kept */
	bool echo;		/* the captured bytes reach the console too */
	size_t len;		/* bytes kept */
	size_t lost;		/* bytes cut because buf was full */
	u32 cpu;		/* the CPU it captures (print_capture_begin's) */
};

#define PRINT_CAPTURE_INIT(_buf, _size, _echo) { .buf = (_buf), .size = (_size), .echo = (_echo) }

/*
 * Make cap current on this CPU, its buffer emptied: 0; -EINVAL for no
 * buffer (or size 0); -EBUSY if this CPU already captures (captures do
 * not nest). Nothing changes on an error.
 */
int print_capture_begin(struct print_capture *cap);
/* Stop capturing on the CPU cap was begun on (from that CPU): buf keeps what it holds. */
void print_capture_end(struct print_capture *cap);
/* True if some output did not fit (cap->lost bytes of it). */
bool print_capture_truncated(const struct print_capture *cap);

/*
 * From any CPU, while cap captures on another (a job's output so far):
 * copy what it holds, at most size - 1 bytes, into out, NUL-terminated;
 * the bytes copied. Bytes are published before the length that covers
 * them, so what is copied was whole when it was read.
 */
size_t print_capture_peek(const struct print_capture *cap, char *out, size_t size);

/*
 * For lib/printk.c: if this CPU captures, append s[0..n) (what fits).
 * True if the console must not see it (a capture without echo).
 */
bool print_capture_take(const char *s, size_t n);

#endif
