/* random_u64: RDRAND when CPUID.01H:ECX[30] says so, else xorshift seeded by the TSC. */
#include "arch.h"
#include "random.h"
#include "x86.h"

static bool has_rdrand(void)
{
	u32 a, b, c, d;

	cpuid(1, 0, &a, &b, &c, &d);
	return c & (1U << 30);
}

static u64 xorshift_state;

static u64 xorshift64(void)
{
	if (!xorshift_state)
		xorshift_state = rdtsc() | 1;
	xorshift_state ^= xorshift_state << 13;
	xorshift_state ^= xorshift_state >> 7;
	xorshift_state ^= xorshift_state << 17;
	return xorshift_state ^ rdtsc();
}

u64 random_u64(void)
{
	if (has_rdrand()) {
		for (int tries = 0; tries < 10; tries++) {
			u64 v;
			u8 ok;
			__asm__ volatile("rdrand %0; setc %1" : "=r"(v), "=qm"(ok));
			if (ok)
				return v;
		}
	}
	return xorshift64();
}
