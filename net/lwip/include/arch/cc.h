/*
 * lwIP's compiler and platform header for pmemk (see lwIP's
 * src/include/lwip/arch.h for what it may define): newlib provides
 * stdint.h, inttypes.h, limits.h and ctype.h, so only output, assertions
 * and random numbers are pmemk's. x86-64 is little-endian (lwIP's default).
 */
#ifndef PMEMK_LWIP_ARCH_CC_H
#define PMEMK_LWIP_ARCH_CC_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

/* newlib's sys/types.h has ssize_t (long); tell lwIP so it does not make its own. */
#define SSIZE_MAX LONG_MAX
#define LWIP_NO_UNISTD_H 1

/* net/sys_arch.c */
void lwip_pmemk_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lwip_pmemk_assert(const char *msg, const char *file, int line) __attribute__((noreturn));
uint32_t lwip_pmemk_rand(void);

#define LWIP_PLATFORM_DIAG(x) do { lwip_pmemk_diag x; } while (0)
#define LWIP_PLATFORM_ASSERT(x) lwip_pmemk_assert(x, __FILE__, __LINE__)
#define LWIP_RAND() lwip_pmemk_rand()

#endif
