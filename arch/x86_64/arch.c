/* The small x86 pieces of the arch contract: direct map translation and TLB control. */
#include "arch.h"
#include "memlayout.h"
#include "mm.h"
#include "x86.h"

/* The struct page array (include/mm.h): fixed in the kernel's address space. */
struct page *vmemmap = (struct page *)VMEMMAP_BASE;

void *phys_to_virt(u64 pa)
{
	return (void *)(pa + PAGE_OFFSET);
}

u64 virt_to_phys(const void *va)
{
	u64 v = (u64)va;

	if (v >= KERNEL_VMA)
		return v - KERNEL_VMA;
	return v - PAGE_OFFSET;
}

/*
 * Bumped after every flush, so that the other CPUs drop what their TLBs
 * hold before they next run a call (smp_call.c, ap_idle): the shootdown is
 * lazy. A CPU in the middle of a call keeps its entries until that call
 * ends; what a call uses stays mapped while it runs (a block device held
 * for I/O is not detached, a pinned pgmap is not torn down).
 */
u64 tlb_flush_gen;

void arch_flush_tlb_range(u64 va, u64 len)
{
	if (len > 64 * PAGE_SIZE) {
		arch_flush_tlb_all();
		return;
	}
	for (u64 off = 0; off < len; off += PAGE_SIZE)
		invlpg(va + off);
	__atomic_fetch_add(&tlb_flush_gen, 1, __ATOMIC_RELEASE);	/* the unmap's stores before it */
}

void arch_flush_tlb_all(void)
{
	write_cr3(read_cr3());	/* kernel mappings are not global: this drops all */
	__atomic_fetch_add(&tlb_flush_gen, 1, __ATOMIC_RELEASE);
}

void arch_sync_kernel_mappings(u64 va, u64 len)
{
	/* Nothing to do: the kernel's tables are the live ones (see arch.h). */
	(void)va;
	(void)len;
}

u64 arch_pgtable_root(void)
{
	return read_cr3() & ~0xFFFULL;
}

void arch_pgtable_activate(u64 root_pa)
{
	write_cr3(root_pa); /* no global pages: every old translation goes */
}
