/*
 * Symmetric multiprocessing (issue 14), implemented by arch/x86_64: the
 * CPUs the firmware lists (kmain hands smp_init the MADT's list) are
 * started (INIT-SIPI-SIPI through the xAPIC) and each idles in a halt loop
 * with its own stack, GDT, TSS and per-CPU data (GS base), woken by an IPI
 * to run what arch_cpu_start() gives it: work-queue jobs (lib/workqueue.c),
 * on-cpu shell commands, smp_call_on_each() calls, and idle work
 * (include/idle.h). What they share is locked in the order
 * include/spinlock.h documents.
 */
#ifndef PMEMK_SMP_H
#define PMEMK_SMP_H

#include "arch.h"
#include "paging.h"
#include "types.h"

#define SMP_MAX_CPUS ARCH_MAX_CPUS	/* arch_cpu_id() indexes per-CPU arrays */

enum cpu_state {
	CPU_ABSENT,	/* listed by the firmware as not enabled (hot-plug slot) */
	CPU_SKIPPED,	/* enabled, not started: nr_cpus= or nosmp */
	CPU_FAILED,	/* started but never reported in */
	CPU_ONLINE,	/* reported in, parked in its idle loop */
};

/* What smp_init() knows of each CPU, in the firmware's order (the BSP is CPU 0). */
struct cpu_info {
	u32 apic_id;
	u32 processor_uid;
	enum cpu_state state;
	/* Reported by the CPU itself once online: its local APIC's ID, GS's CPU number. */
	u32 seen_apic_id, seen_cpu;
};

/* CPU 0's per-CPU data and GS base: first thing in kmain, before any arch_cpu_id(). */
void smp_boot_cpu_init(void);

/* One CPU as the firmware lists it (kmain converts the MADT's entries). */
struct smp_cpu_desc {
	u32 apic_id;
	u32 processor_uid;
	bool enabled;	/* may be started; else a slot for a CPU not there (hot plug) */
};

/* An I/O APIC (the MADT's): its registers and the first GSI of its pins. */
struct smp_ioapic_desc {
	u8 id;
	u32 address;
	u32 gsi_base;
};

/*
 * An ISA IRQ the MADT routes elsewhere or signals otherwise (an interrupt
 * source override): its GSI and the MPS INTI flags (ACPI 6.4 §5.2.12.5
 * table 5.50: bits 1:0 polarity, 01 high, 11 low; bits 3:2 trigger, 01
 * edge, 11 level; 00 in either: as the bus says).
 */
struct smp_irq_override {
	u8 irq;
	u32 gsi;
	u16 flags;
};

/*
 * What smp_init needs to know of the machine: kmain fills it from the
 * firmware's tables, so that arch/ reads none itself (as paging_init gets
 * its ranges).
 */
struct smp_config {
	const struct smp_cpu_desc *cpus;	/* the firmware's order, the boot CPU among them */
	u32 nr_cpus;
	u64 lapic_address;	/* where the MADT says the local APIC is; 0: not said */
	/* For device interrupts without MSI (arch/x86_64/ioapic.c): */
	const struct smp_ioapic_desc *ioapics;
	u32 nr_ioapics;
	const struct smp_irq_override *overrides;
	u32 nr_overrides;
	/*
	 * For the AP trampoline: the RAM ranges of the firmware's map, and the
	 * ranges the loader handed over (still in use). smp_init takes pages
	 * below 640 KiB that are RAM and not in use.
	 */
	const struct phys_range *ram;
	u32 nr_ram;
	const struct phys_range *in_use;
	u32 nr_in_use;
};

/*
 * Start every enabled CPU in cfg, at most nr_cpus= in all, none with
 * nosmp. Prints one line per CPU that fails and a summary. Safe to call
 * once, after the heap is up.
 */
void smp_init(const struct smp_config *cfg);

u32 smp_nr_cpus(void);		/* CPUs listed (the BSP included) */
u32 smp_nr_online(void);	/* of those, online */
u32 smp_max_cpus(void);		/* nr_cpus= (1 with nosmp; SMP_MAX_CPUS when not given) */
const struct cpu_info *smp_cpu(u32 n);	/* n < smp_nr_cpus() */
/* This CPU's number (0 = the BSP), read from its per-CPU data through GS. */
u32 smp_processor_id(void);
const char *cpu_state_name(enum cpu_state s);
/* The APIC ID this CPU's local APIC reports (0 before smp_init). */
u32 smp_apic_id_here(void);

/* The vector of the wake-up IPI (its handler only acknowledges it). */
#define SMP_IPI_VECTOR 0xF0

/* Send a fixed IPI with `vector` to online CPU `cpu`: 0, -ENODEV, -ETIMEDOUT. */
int smp_send_ipi(u32 cpu, u8 vector);

typedef void (*smp_call_fn)(void *arg);
/*
 * Run fn(arg) on every online CPU, the caller's included, and wait until
 * all have returned. One call at a time (a lock of rank
 * LOCK_RANK_SMP_CALL). Only from the boot CPU for now: the APs are the
 * ones idling. Returns 0; -ETIMEDOUT (one line per CPU) when a CPU has
 * not finished within 60 s (it may still run fn later); -EBUSY (one line
 * per CPU) when a CPU still runs an earlier call that timed out: it is
 * not given this one.
 */
int smp_call_on_each(smp_call_fn fn, void *arg);

#endif
