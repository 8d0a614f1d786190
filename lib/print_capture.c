/* Per-CPU capture of printed output into a caller's bounded buffer (include/print_capture.h). */
#include <errno.h>
#include <string.h>

#include "arch.h"
#include "print_capture.h"

/* Each CPU's current capture; only that CPU reads or writes its slot. */
static struct print_capture *current_capture[ARCH_MAX_CPUS];

int print_capture_begin(struct print_capture *cap)
{
	u32 cpu = arch_cpu_id();

	if (!cap->buf || !cap->size)
		return -EINVAL;
	if (current_capture[cpu])
		return -EBUSY;
	cap->len = 0;
	cap->lost = 0;
	cap->cpu = cpu;
	cap->buf[0] = '\0';
	current_capture[cpu] = cap;
	return 0;
}

void print_capture_end(struct print_capture *cap)
{
	if (current_capture[cap->cpu] == cap)
		current_capture[cap->cpu] = NULL;
}

bool print_capture_truncated(const struct print_capture *cap)
{
	return cap->lost != 0;
}

bool print_capture_take(const char *s, size_t n)
{
	struct print_capture *cap = current_capture[arch_cpu_id()];

	if (!cap)
		return false;
	size_t room = cap->size - 1 - cap->len;
	size_t kept = n < room ? n : room;
	memcpy(cap->buf + cap->len, s, kept);
	cap->buf[cap->len + kept] = '\0';
	/* After the bytes: another CPU may read buf[0..len) meanwhile (print_capture_peek). */
	__atomic_store_n(&cap->len, cap->len + kept, __ATOMIC_RELEASE);
	cap->lost += n - kept;
	return !cap->echo;
}

size_t print_capture_peek(const struct print_capture *cap, char *out, size_t size)
{
	if (!size)
		return 0;
	size_t len = __atomic_load_n(&cap->len, __ATOMIC_ACQUIRE);
	size_t n = len < size - 1 ? len : size - 1;
	memcpy(out, cap->buf, n);
	out[n] = '\0';
	return n;
}
