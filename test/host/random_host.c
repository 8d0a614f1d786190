/*
 * random_u64 for host tests: a fixed sequence, so test output is stable.
 * arch_rdrand64/arch_rdseed64: the kernel's entropy instructions played by
 * getrandom(), present or absent as a test sets host_rdrand_present and
 * host_rdseed_present (default: as under QEMU TCG, RDRAND only).
 */
#include <sys/random.h>

#include "host.h"
#include "random.h"

bool host_rdrand_present = true;
bool host_rdseed_present;

u64 random_u64(void)
{
	static u64 s = 0x243F6A8885A308D3ULL;

	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	return s;
}

static bool host_entropy(u64 *v)
{
	return getrandom(v, sizeof(*v), 0) == (ssize_t)sizeof(*v);
}

bool arch_rdrand64(u64 *v)
{
	return host_rdrand_present && host_entropy(v);
}

bool arch_rdseed64(u64 *v)
{
	return host_rdseed_present && host_entropy(v);
}
