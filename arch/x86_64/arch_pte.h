/*
 * The x86-64 page-table entry format behind the arch contract (include/arch.h
 * includes this file in the kernel build, before its prototypes): 4-level
 * paging, SDM vol. 3A §4.5, tables 4-15 to 4-20. Static inline because mm/
 * calls these once or more per entry it visits; as out-of-line calls they
 * made memremap_pages/memunmap_pages cycles 1.5x slower under QEMU TCG. The
 * bits are private to this file: they are undefined again at its end. What
 * the CPU allows (arch_pte_leaf_allowed, arch_pte_noexec_allowed) depends on
 * CPUID, not on the format: cpu.c answers it.
 */
#ifndef PMEMK_ARCH_PTE_H
#define PMEMK_ARCH_PTE_H

#define PTE_PRESENT (1ULL << 0)
#define PTE_WRITE (1ULL << 1)
#define PTE_PSE (1ULL << 7) /* PDPTE/PDE: maps a 1 GiB/2 MiB page; PTE: PAT */
#define PTE_NX (1ULL << 63) /* only with EFER.NXE, else a reserved bit */
#define PTE_ADDR_MASK 0x000FFFFFFFFFF000ULL

static inline pte_t arch_pte_absent(enum pg_level level)
{
	(void)level;
	return (pte_t){0};
}

static inline pte_t arch_pte_table(enum pg_level level, u64 table_pa)
{
	(void)level;
	/* Writable, executable: the effective rights are the leaf's (SDM §4.6). */
	return (pte_t){(table_pa & PTE_ADDR_MASK) | PTE_PRESENT | PTE_WRITE};
}

/*
 * NX is set only when prot lacks EXEC: a caller on a CPU without NX asks for
 * EXEC everywhere (struct pgtable's nx), so the reserved bit stays clear.
 */
static inline pte_t arch_pte_leaf(enum pg_level level, u64 pa, u64 prot)
{
	u64 v = (pa & PTE_ADDR_MASK) | PTE_PRESENT;

	if (level > PG_LEVEL_4K)
		v |= PTE_PSE;
	if (prot & PGPROT_WRITE)
		v |= PTE_WRITE;
	if (!(prot & PGPROT_EXEC))
		v |= PTE_NX;
	return (pte_t){v};
}

static inline bool arch_pte_is_present(enum pg_level level, pte_t pte)
{
	(void)level;
	return pte.val & PTE_PRESENT;
}

static inline bool arch_pte_is_leaf(enum pg_level level, pte_t pte)
{
	if (!(pte.val & PTE_PRESENT))
		return false;
	return level == PG_LEVEL_4K || (pte.val & PTE_PSE);
}

static inline bool arch_pte_is_table(enum pg_level level, pte_t pte)
{
	return (pte.val & PTE_PRESENT) && !arch_pte_is_leaf(level, pte);
}

static inline u64 arch_pte_table_pa(enum pg_level level, pte_t pte)
{
	(void)level;
	return pte.val & PTE_ADDR_MASK;
}

static inline u64 arch_pte_leaf_pa(enum pg_level level, pte_t pte)
{
	/* Above 4 KiB, bit 12 is PAT and the low address bits are reserved. */
	return pte.val & PTE_ADDR_MASK & ~(pg_level_size(level) - 1);
}

static inline u64 arch_pte_prot(enum pg_level level, pte_t pte)
{
	(void)level;
	return ((pte.val & PTE_WRITE) ? PGPROT_WRITE : 0) | ((pte.val & PTE_NX) ? 0 : PGPROT_EXEC);
}

#undef PTE_PRESENT
#undef PTE_WRITE
#undef PTE_PSE
#undef PTE_NX
#undef PTE_ADDR_MASK

#endif
