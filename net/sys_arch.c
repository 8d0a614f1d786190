/*
 * lwIP's platform functions for NO_SYS=1 (lwIP's doc/NO_SYS_SampleCode.c
 * and include/lwip/sys.h): a millisecond clock, and arch/cc.h's output,
 * assertion and random numbers.
 */
#include <stdarg.h>
#include <stdio.h>

#include <lwip/sys.h>

#include "arch.h"
#include "printk.h"
#include "random.h"

u32_t sys_now(void)
{
	return (u32_t)(arch_cycles_to_ns(arch_cycles()) / 1000000);
}

void lwip_pmemk_diag(const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	kprintf("lwip: %s", buf);
}

/*
 * lwIP asserts its own invariants, not properties of received packets: a
 * failure is a broken kernel, reported as a panic is (status 2).
 */
void lwip_pmemk_assert(const char *msg, const char *file, int line)
{
	pr_emerg("Kernel panic: lwIP assertion \"%s\" failed at %s:%d\n", msg, file, line);
	arch_exit(EXIT_PANIC);
}

uint32_t lwip_pmemk_rand(void)
{
	return (uint32_t)random_u64();
}
