/*
 * The kernel's own page tables (mm/paging.c), replacing the boot loader's:
 * built once at boot from what the caller says must be mapped, then grown
 * and shrunk on demand (direct_map.h, the vmemmap).
 */
#ifndef PMEMK_PAGING_H
#define PMEMK_PAGING_H

#include "types.h"

/* Physical memory [start, end). */
struct phys_range {
	u64 start, end;
};

/* The kernel image's sections as linked: virtual addresses, KERNEL_VMA + physical. */
struct kernel_image {
	u64 text, etext; /* code: read, execute */
	u64 rodata, erodata; /* read only, no execute */
	u64 data, end; /* data and bss: read, write, no execute */
};

/*
 * Build kernel_pgtable and make it the active one: the image's sections
 * with their protections, and the direct map (PAGE_OFFSET + pa, read-write,
 * no-execute) of the nr ranges in `direct`, sorted by start; each is widened
 * to whole pages and ranges that touch or overlap are merged. Leaves are the
 * largest the CPU has (arch_pte_leaf_allowed: 1 GiB, else 2 MiB, else
 * 4 KiB); NX is used if the CPU has it (arch_pte_noexec_allowed). Nothing
 * else is mapped, so NULL faults. Table pages come from memblock. Prints
 * one summary line. Failing is fatal (the boot tables cannot be kept): a
 * message and arch_exit(EXIT_PANIC).
 */
void paging_init(const struct kernel_image *image, const struct phys_range *direct, u32 nr);

/* Once the page allocator works: later table pages come from it and go back to it. */
void paging_use_page_allocator(void);

#endif
