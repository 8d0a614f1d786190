/*
 * Random numbers (arch): random_u64 for identifiers (uuids), not for
 * cryptography; arch_rdseed64/arch_rdrand64, the CPU's entropy
 * instructions, for the TLS layer's DRBG (net/tls_entropy.c).
 */
#ifndef PMEMK_RANDOM_H
#define PMEMK_RANDOM_H

#include "types.h"

/* RDRAND where the CPU has it, else a TSC-seeded generator (arch). */
u64 random_u64(void);

/*
 * 64 bits from RDSEED (the entropy source itself: CPUID.07H:EBX[18]) or
 * RDRAND (the CPU's DRBG, reseeded from it: CPUID.01H:ECX[30]), with the
 * retries Intel recommends (Intel DRNG Software Implementation Guide §5.2).
 * False when the CPU lacks the instruction or it kept failing: *v is then
 * unspecified. QEMU TCG emulates RDRAND (-cpu max) but not RDSEED.
 */
bool arch_rdseed64(u64 *v);
bool arch_rdrand64(u64 *v);

#endif
