/* random_u64 for host tests: a fixed sequence, so test output is stable. */
#include "random.h"

u64 random_u64(void)
{
	static u64 s = 0x243F6A8885A308D3ULL;

	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	return s;
}
