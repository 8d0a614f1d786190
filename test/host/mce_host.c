/*
 * Machine-check-safe copies for host tests: plain copies (no poison on
 * the host), and the injector's copy filing its record as the kernel's
 * #MC handler would. test_copy_mc runs the real arch/x86_64/copy_mc.S.
 */
#include <string.h>

#include "arch.h"
#include "media_poison.h"

size_t arch_copy_mc(void *dst, const void *src, size_t n)
{
	memmove(dst, src, n);
	return 0;
}

int arch_load32_mc(const void *src, u32 *val)
{
	*val = *(const volatile u32 *)src;
	return 0;
}

size_t arch_copy_mc_inject(void *dst, const void *src, size_t n, u64 phys)
{
	(void)dst;
	(void)src;
	media_error_notify(phys & ~511ull, 512, MEDIA_ERR_MCE_SYNC);
	return n;
}

void arch_mce_init_cpu(void)
{
}
