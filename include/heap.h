/* The kernel heap behind newlib's malloc (sbrk in lib/syscalls.c). */
#ifndef PMEMK_HEAP_H
#define PMEMK_HEAP_H

#include "types.h"

void heap_init(void *base, size_t size);
u64 heap_used(void);
u64 heap_size(void);

#endif
