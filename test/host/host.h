/* Host test support: the simulated machine behind include/arch.h. */
#ifndef PMEMK_TEST_HOST_H
#define PMEMK_TEST_HOST_H

#include "arch.h"

/* Size of the simulated physical address space (sparse, on demand). */
#define HOST_PHYS_SIZE (64ULL << 30)

/* Everything written to the console since the last reset. */
const char *host_console_text(void);
void host_console_reset(void);
/* True if the console output since the last reset contains `needle`. */
bool host_console_has(const char *needle);
/* Echo console output to stdout too (default: off, set HOST_CONSOLE=1). */
extern bool host_console_echo;

/* Count of TLB flushes requested (page-table tests check them). */
extern u64 host_tlb_flushes;

#endif
