/*
 * What arch/x86_64/persist.c does, seen by host tests: compiled for the
 * host (HOST_TEST), the real file reports each ordinary store, non-temporal
 * store, cache-line write-back and fence through persist_trace_hook after
 * executing it. The kernel build has no hook (the calls compile to nothing).
 */
#ifndef PMEMK_TEST_PERSIST_TRACE_H
#define PMEMK_TEST_PERSIST_TRACE_H

#include "types.h"

enum persist_event {
	PERSIST_EV_STORE, /* ordinary (cached) stores to [addr, addr + len) */
	PERSIST_EV_MOVNTI, /* one non-temporal store of 8 bytes at addr */
	PERSIST_EV_CLWB, /* write-back of the cache line holding addr */
	PERSIST_EV_CLFLUSHOPT,
	PERSIST_EV_CLFLUSH,
	PERSIST_EV_SFENCE, /* addr NULL, len 0 */
};

/* Called after each event while set; NULL (the default) traces nothing. */
extern void (*persist_trace_hook)(enum persist_event ev, const void *addr, size_t len);

#endif
