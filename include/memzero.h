/* Zeroing that the compiler may not drop: for secrets about to go out of use. */
#ifndef PMEMK_MEMZERO_H
#define PMEMK_MEMZERO_H

#include <string.h>

#include "types.h"

/*
 * memset to 0, then an empty asm that "reads" all memory through p: a store
 * the compiler would otherwise prove dead (a stack buffer about to go out of
 * scope) must stay. Linux's memzero_explicit.
 */
static inline void memzero_explicit(void *p, size_t n)
{
	memset(p, 0, n);
	__asm__ volatile("" : : "r"(p) : "memory");
}

#endif
