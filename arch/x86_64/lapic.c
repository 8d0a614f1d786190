/* The calling CPU's local APIC (lapic.h): mapping, enabling, IPIs, the timer's rate. */
#include <errno.h>

#include "arch.h"
#include "direct_map.h"
#include "lapic.h"
#include "printk.h"
#include "x86.h"

#define CAL_NS 1000000ull	/* the timer is measured over 1 ms of TSC */

volatile u32 *lapic;

/*
 * Write-back in the PAT like the rest of the direct map (as pci_map_bar
 * does): QEMU ignores caching, and on hardware the firmware's MTRRs make
 * 0xFEE00000 uncached. A UC PAT mapping through the arch interface is
 * still to do.
 */
int lapic_map(u64 firmware_pa)
{
	u64 base = rdmsr(MSR_APIC_BASE);
	u64 pa = base & ~0xfffull & ((1ull << 52) - 1);

	if (!(base & APIC_BASE_ENABLE))
		wrmsr(MSR_APIC_BASE, base | APIC_BASE_ENABLE);
	if (firmware_pa && firmware_pa != pa)
		pr_warn("smp: MADT says the local APIC is at %#llx, the CPU says %#llx: using the CPU's\n",
			firmware_pa, pa);
	if (direct_map_add(pa, 4096)) {
		pr_err("smp: cannot map the local APIC at %#llx\n", pa);
		return -ENOMEM;
	}
	lapic = phys_to_virt(pa);
	return 0;
}

void lapic_enable_local(void)
{
	lapic_write(LAPIC_SVR, SVR_ENABLE | LAPIC_SPURIOUS_VECTOR);
}

/* QEMU delivers at once; hardware clears ICR_BUSY within microseconds. */
int lapic_ipi(u32 apic_id, u32 icr_lo)
{
	lapic_write(LAPIC_ESR, 0);
	lapic_write(LAPIC_ICR_HI, apic_id << 24);	/* high first: the low write sends */
	lapic_write(LAPIC_ICR_LO, icr_lo);
	for (u32 i = 0; i < 1000000; i++) {
		if (!(lapic_read(LAPIC_ICR_LO) & ICR_BUSY))
			return 0;
		cpu_relax();
	}
	return -ETIMEDOUT;
}

u64 lapic_timer_calibrate(u8 vector, u64 *counted, u64 *ns)
{
	lapic_write(LAPIC_TIMER_DIV, TIMER_DIV_16);
	lapic_write(LAPIC_LVT_TIMER, LVT_MASKED | vector);
	lapic_timer_start(0xFFFFFFFFu);
	u64 t0 = rdtsc();
	while ((*ns = arch_cycles_to_ns(rdtsc() - t0)) < CAL_NS)
		cpu_relax();
	u32 left = lapic_read(LAPIC_TIMER_CUR);
	lapic_timer_start(0);	/* stopped */
	*counted = 0xFFFFFFFFull - left;
	if (!left || *counted < 100)
		return 0;
	lapic_write(LAPIC_LVT_TIMER, vector);	/* one-shot, unmasked; idle while stopped */
	return *counted * 1000000ull / *ns;
}
