/*
 * The local APIC in xAPIC mode (Intel SDM vol. 3A ch. 11; FACTS-2 §6.2):
 * the one definition of its registers, and lapic.c's operations on the
 * calling CPU's own local APIC (every CPU sees its own at the same
 * address). x2APIC mode is not used (QEMU's TCG has none).
 */
#ifndef PMEMK_LAPIC_H
#define PMEMK_LAPIC_H

#include "types.h"

/* Register offsets from the MMIO base (SDM vol. 3A table 11-1); plain numbers, idle.c's assembly uses one. */
#define LAPIC_ID 0x20
#define LAPIC_EOI 0xB0
#define LAPIC_SVR 0xF0
#define LAPIC_ESR 0x280
#define LAPIC_ICR_LO 0x300
#define LAPIC_ICR_HI 0x310
#define LAPIC_LVT_TIMER 0x320
#define LAPIC_TIMER_INIT 0x380
#define LAPIC_TIMER_CUR 0x390
#define LAPIC_TIMER_DIV 0x3E0

/* Spurious-interrupt vector register (§11.9). */
#define SVR_ENABLE (1u << 8)
#define LAPIC_SPURIOUS_VECTOR 0xFF

/* Interrupt command register, low word (§11.6.1). */
#define ICR_BUSY (1u << 12)
#define ICR_INIT_ASSERT 0x0000C500u	/* INIT, level, assert */
#define ICR_INIT_DEASSERT 0x00008500u	/* INIT, level, de-assert */
#define ICR_STARTUP 0x00000600u		/* | vector (page number) */
#define ICR_FIXED 0x00004000u		/* fixed delivery, assert; | vector */

/* LVT timer (§11.5.4): masked; bits 18:17 zero mean one-shot. Divide configuration: by 16. */
#define LVT_MASKED (1u << 16)
#define TIMER_DIV_16 0x3

/* IA32_APIC_BASE (§11.4.4): the base address, and the global enable bit. */
#define MSR_APIC_BASE 0x1B
#define APIC_BASE_ENABLE (1ull << 11)

/* The local APIC's registers, mapped by lapic_map (NULL before smp_init or without one). */
extern volatile u32 *lapic;

static inline u32 lapic_read(u32 reg)
{
	return lapic[reg / 4];
}

static inline void lapic_write(u32 reg, u32 v)
{
	lapic[reg / 4] = v;
}

/* The APIC ID of the calling CPU's local APIC. */
static inline u32 lapic_id(void)
{
	return lapic_read(LAPIC_ID) >> 24;
}

/* End of interrupt: the in-service interrupt is done. */
static inline void lapic_eoi(void)
{
	lapic_write(LAPIC_EOI, 0);
}

/* Start the one-shot timer with `count` (at divide 16); 0 stops it. */
static inline void lapic_timer_start(u32 count)
{
	lapic_write(LAPIC_TIMER_INIT, count);
}

/*
 * Enable the local APIC (IA32_APIC_BASE) and map its registers: `lapic`.
 * firmware_pa is where the firmware says it is (0: not said); a different
 * address gets a line, and the CPU's own is used. 0, or -ENOMEM (a line).
 */
int lapic_map(u64 firmware_pa);

/* The calling CPU's local APIC on: software enable, spurious vector 0xFF. */
void lapic_enable_local(void);

/* Send an IPI (icr_lo: ICR_* | vector) to apic_id and wait for delivery: 0 or -ETIMEDOUT. */
int lapic_ipi(u32 apic_id, u32 icr_lo);

/*
 * Measure the timer against the TSC over 1 ms, at divide 16, one-shot on
 * `vector`, and leave it stopped. Returns its counts per ms and leaves it
 * unmasked, or returns 0 and leaves it masked when it counted fewer than
 * 100 (*counted and *ns then say what it saw). Needs the TSC's rate.
 */
u64 lapic_timer_calibrate(u8 vector, u64 *counted, u64 *ns);

#endif
