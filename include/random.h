/* Random numbers for identifiers (uuids), not for cryptography. */
#ifndef PMEMK_RANDOM_H
#define PMEMK_RANDOM_H

#include "types.h"

/* RDRAND where the CPU has it, else a TSC-seeded generator (arch). */
u64 random_u64(void);

#endif
