/* The kernel heap behind newlib's malloc (sbrk in lib/syscalls.c). */
#ifndef PMEMK_HEAP_H
#define PMEMK_HEAP_H

#include "types.h"

void heap_init(void *base, size_t size);
size_t heap_used(void);
size_t heap_size(void);

#endif
