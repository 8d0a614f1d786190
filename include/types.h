/* Fixed-width integer names and small helpers shared by every layer. */
#ifndef PMEMK_TYPES_H
#define PMEMK_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef unsigned long long u64;	/* printk %llx takes it without a cast */
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef long long s64;

/*
 * A physical address as a type of its own (Hafnium's trick): APIs that take
 * several addresses and sizes take these, so a swapped argument does not
 * compile. pa_init() makes one, pa_addr() reads it.
 */
typedef struct {
	u64 pa;
} phys_addr_t;

static inline phys_addr_t pa_init(u64 pa)
{
	return (phys_addr_t){ pa };
}

static inline u64 pa_addr(phys_addr_t p)
{
	return p.pa;
}

#define KiB (1ULL << 10)
#define MiB (1ULL << 20)
#define GiB (1ULL << 30)

#define PAGE_SHIFT 12
#define PAGE_SIZE (1ULL << PAGE_SHIFT)
#define PMD_SIZE (1ULL << 21)	/* one 2 MiB page-directory leaf */
#define PUD_SIZE (1ULL << 30)	/* one 1 GiB page-directory-pointer leaf */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN_DOWN(x, a) ((x) & ~((u64)(a) - 1))
#define ALIGN_UP(x, a) ALIGN_DOWN((x) + (u64)(a) - 1, (a))
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define IS_ALIGNED(x, a) (((x) & ((u64)(a) - 1)) == 0)
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

#define PFN_DOWN(pa) ((u64)(pa) >> PAGE_SHIFT)
#define PFN_UP(pa) (((u64)(pa) + PAGE_SIZE - 1) >> PAGE_SHIFT)
#define PFN_PHYS(pfn) ((u64)(pfn) << PAGE_SHIFT)

/* newlib's <sys/cdefs.h> defines some of these with the same meaning. */
#ifndef __packed
#define __packed __attribute__((packed))
#endif
#ifndef __aligned
#define __aligned(n) __attribute__((aligned(n)))
#endif
#ifndef __unused
#define __unused __attribute__((unused))
#endif
#ifndef __noreturn
#define __noreturn __attribute__((noreturn))
#endif
#ifndef __section
#define __section(s) __attribute__((section(s)))
#endif
#ifndef __used
#define __used __attribute__((used))
#endif
/* The result says whether something happened (a hold taken, bytes stored): the caller must look. */
#ifndef __must_check
#define __must_check __attribute__((warn_unused_result))
#endif

/*
 * Registries gathered by the linker (kernel parameters, shell commands,
 * in-kernel tests, PCI drivers, idle work, ...): each is an array of
 * pointers to const `type` in its own section `sec` (listed in linker.ld),
 * between __start_SEC and __stop_SEC. REGISTER(sec, type, id, init...)
 * defines a const `type` from the initialiser and adds a pointer to it
 * (REGISTER_PTR adds a pointer to one defined elsewhere);
 * REGISTRY(sec, type) declares the array (weak: a link with no entry, a
 * host test, sees an empty one); for_each_registered(sec, p) walks it.
 */
#define REGISTER_PTR(_sec, _type, _id, _ptr)                                    \
	static const _type *const __regp_##_sec##_##_id __section(#_sec) __used __aligned(8) = _ptr
#define REGISTER(_sec, _type, _id, ...)                                         \
	static const _type __reg_##_sec##_##_id = { __VA_ARGS__ };              \
	REGISTER_PTR(_sec, _type, _id, &__reg_##_sec##_##_id)
#define REGISTRY(_sec, _type)                                                   \
	extern const _type *const __start_##_sec[] __attribute__((weak));       \
	extern const _type *const __stop_##_sec[] __attribute__((weak))
#define for_each_registered(_sec, _p)                                           \
	for (typeof(&__start_##_sec[0]) _p = __start_##_sec; _p < __stop_##_sec; _p++)

#endif
