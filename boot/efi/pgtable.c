/*
 * The boot page tables the kernel's EFI entry runs on: in effect the ones
 * boot/multiboot2.S builds (x86-64 4-level paging, 2 MiB leaves), so both
 * entries reach the kernel in the same address space. Pure.
 */
#include "loader.h"
#include "memlayout.h"

#define PTE_P_W 0x003ULL	/* present, writable */
#define PDE_2M 0x083ULL		/* present, writable, page size */
#define PT_ENTRIES 512

enum { PML4, PDPT_LOW, PDPT_HIGH, PD0 };	/* page index in tables; PD0..PD0+3 */

static u64 *page(u64 *tables, int i)
{
	return tables + (u64)i * PT_ENTRIES;
}

static u64 table_entry(u64 *tables, int i)
{
	return (u64)page(tables, i) | PTE_P_W;
}

u64 efi_build_pgtables(u64 *tables)
{
	/* PD0..PD3: 2048 leaves of 2 MiB, [0, 4 GiB). */
	u64 *pd = page(tables, PD0);
	for (u64 i = 0; i < 4 * PT_ENTRIES; i++)
		pd[i] = (i * PMD_SIZE) | PDE_2M;

	/* PDPT_low[0..3] -> PD0..PD3: the identity and the direct map. */
	for (int i = 0; i < 4; i++)
		page(tables, PDPT_LOW)[i] = table_entry(tables, PD0 + i);

	/* PDPT_high[510], [511] -> PD0, PD1: KERNEL_VMA + [0, 2 GiB). */
	u64 *pdpt_high = page(tables, PDPT_HIGH);
	pdpt_high[(KERNEL_VMA >> 30) & 511] = table_entry(tables, PD0);
	pdpt_high[((KERNEL_VMA >> 30) & 511) + 1] = table_entry(tables, PD0 + 1);

	/* PML4: [0] identity, [273] direct map (PAGE_OFFSET), [511] kernel image. */
	u64 *pml4 = page(tables, PML4);
	pml4[0] = table_entry(tables, PDPT_LOW);
	pml4[(PAGE_OFFSET >> 39) & 511] = table_entry(tables, PDPT_LOW);
	pml4[(KERNEL_VMA >> 39) & 511] = table_entry(tables, PDPT_HIGH);
	return (u64)pml4;
}
