/*
 * The AP start-up trampoline's C half (FACTS-2 §6.2): trampoline.S copied
 * below 1 MiB with its far jumps patched, its data block filled from the
 * boot CPU's control registers, and a PML4 of its own that adds an
 * identity map of the first 2 MiB to the kernel's upper half.
 */
#include <string.h>

#include "arch.h"
#include "smp.h"
#include "trampoline.h"
#include "x86.h"

/* The trampoline's data block (trampoline.S, smp_tramp_data). */
struct smp_tramp_data {
	u64 gdt[4];
	u16 gdtr_limit;
	u32 gdtr_base;
	u16 pad;
	u32 pml4, cr0, cr4, efer;
	u64 stack, percpu, kcr3, entry;
} __packed;

extern const u8 smp_tramp_start[], smp_tramp_end[], smp_tramp_data[];
extern const u8 smp_tramp_far32[], smp_tramp_far64[], smp_tramp_pm32[], smp_tramp_lm64[];
extern const u8 smp_ap_entry[];

/* Does one of the n ranges r overlap [pa, pa+len)? */
static bool overlaps(const struct phys_range *r, u32 n, u64 pa, u64 len)
{
	for (u32 i = 0; i < n; i++)
		if (pa < r[i].end && r[i].start < pa + len)
			return true;
	return false;
}

/* Does one of the n ranges r hold all of [pa, pa+len)? */
static bool inside(const struct phys_range *r, u32 n, u64 pa, u64 len)
{
	for (u32 i = 0; i < n; i++)
		if (r[i].start <= pa && pa + len <= r[i].end)
			return true;
	return false;
}

/*
 * kmain's memblock_setup reserved the whole first MiB and the boot direct
 * map covers it: nothing else allocates there.
 */
u64 tramp_pick(const struct smp_config *cfg)
{
	const u64 len = TRAMP_SIZE;

	for (u64 pa = 0xA0000 - len; pa >= 0x1000; pa -= 4096)
		if (inside(cfg->ram, cfg->nr_ram, pa, len) &&
		    !overlaps(cfg->in_use, cfg->nr_in_use, pa, len))
			return pa;
	return 0;
}

static struct smp_tramp_data *tramp_data(u64 pa)
{
	return phys_to_virt(pa + (u64)(smp_tramp_data - smp_tramp_start));
}

void tramp_install(u64 pa)
{
	u8 *t = phys_to_virt(pa);
	u64 *pml4 = phys_to_virt(pa + 0x1000), *pdpt = phys_to_virt(pa + 0x2000);
	u64 *pd = phys_to_virt(pa + 0x3000);
	const u64 *kpml4 = phys_to_virt(arch_pgtable_root());
	size_t size = (size_t)(smp_tramp_end - smp_tramp_start);
	struct smp_tramp_data *d = tramp_data(pa);
	u32 far32 = (u32)(pa + (u64)(smp_tramp_pm32 - smp_tramp_start));
	u32 far64 = (u32)(pa + (u64)(smp_tramp_lm64 - smp_tramp_start));

	memset(t, 0, TRAMP_SIZE);
	memcpy(t, smp_tramp_start, size);
	memcpy(t + (smp_tramp_far32 - smp_tramp_start), &far32, 4);
	memcpy(t + (smp_tramp_far64 - smp_tramp_start), &far64, 4);
	d->gdtr_base = (u32)(pa + (u64)(smp_tramp_data - smp_tramp_start));
	/* Entry 0: identity map of the first 2 MiB (present, writable, 2 MiB leaf). */
	memcpy(pml4, kpml4, 4096);
	pml4[0] = (pa + 0x2000) | 0x3;
	pdpt[0] = (pa + 0x3000) | 0x3;
	pd[0] = 0x83;
	d->pml4 = (u32)(pa + 0x1000);
	d->cr0 = (u32)read_cr0();
	d->cr4 = (u32)read_cr4() & ~(1u << 17);	/* PCIDE cannot be set outside long mode */
	d->efer = (u32)(rdmsr(MSR_EFER) & ((1u << 0) | (1u << 8) | (u32)EFER_NXE));
	d->kcr3 = arch_pgtable_root();
	d->entry = (u64)smp_ap_entry;
}

void tramp_prepare_ap(u64 pa, u64 stack_top, void *percpu)
{
	struct smp_tramp_data *d = tramp_data(pa);

	d->stack = stack_top;
	d->percpu = (u64)percpu;
}

void tramp_retire(u64 pa)
{
	memset(phys_to_virt(pa + 0x1000), 0, 3 * 4096);
}
