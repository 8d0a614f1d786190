/*
 * The CPU's random instructions (RDRAND, RDSEED) behind include/random.h, and
 * random_u64: RDRAND when the CPU has it, else xorshift seeded by the TSC.
 */
#include "arch.h"
#include "cpu_features.h"
#include "random.h"
#include "x86.h"

/* RDRAND: 10 tries, then the DRNG is taken as broken (Intel DRNG guide §5.2.1). */
#define RDRAND_TRIES 10
/* RDSEED may run dry under load: retry with a pause between (guide §5.3.1). */
#define RDSEED_TRIES 100

bool arch_rdrand64(u64 *v)
{
	if (!cpu_features.rdrand)
		return false;
	for (int tries = 0; tries < RDRAND_TRIES; tries++) {
		u8 ok;

		__asm__ volatile("rdrand %0; setc %1" : "=r"(*v), "=qm"(ok) : : "cc");
		if (ok)
			return true;
	}
	return false;
}

bool arch_rdseed64(u64 *v)
{
	if (!cpu_features.rdseed)
		return false;
	for (int tries = 0; tries < RDSEED_TRIES; tries++) {
		u8 ok;

		__asm__ volatile("rdseed %0; setc %1" : "=r"(*v), "=qm"(ok) : : "cc");
		if (ok)
			return true;
		arch_cpu_relax();
	}
	return false;
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
	u64 v;

	if (arch_rdrand64(&v))
		return v;
	return xorshift64();
}
