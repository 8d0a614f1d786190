/*
 * The AP start-up trampoline's C half (trampoline.c; the code is
 * trampoline.S): TRAMP_SIZE bytes of low RAM hold the code and its data
 * block, then its own PML4, PDPT and PD. A STARTUP IPI with vector
 * pa >> 12 starts an AP there.
 */
#ifndef PMEMK_TRAMPOLINE_H
#define PMEMK_TRAMPOLINE_H

#include "smp.h"
#include "types.h"

#define TRAMP_PAGES 4			/* code+data, PML4, PDPT, PD */
#define TRAMP_SIZE (TRAMP_PAGES * 4096ull)

/* TRAMP_SIZE bytes of cfg's RAM in [0x1000, 0xA0000), the highest not in use; 0 if none. */
u64 tramp_pick(const struct smp_config *cfg);

/* Copy the code to pa, build its page tables, fill what does not change per AP. */
void tramp_install(u64 pa);

/* The data block for the next AP: its stack top and per-CPU block. */
void tramp_prepare_ap(u64 pa, u64 stack_top, void *percpu);

/* Zero the trampoline's page tables (no identity map left) once every AP is in. */
void tramp_retire(u64 pa);

#endif
