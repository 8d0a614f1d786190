/*
 * Per-CPU data and the table of CPUs, shared by the AP bring-up
 * (smp_boot.c, which fills them) and the cross-CPU calls (smp_call.c,
 * which hands each online CPU its work).
 */
#ifndef PMEMK_PERCPU_H
#define PMEMK_PERCPU_H

#include "smp.h"
#include "types.h"
#include "x86.h"

#define STACK_SIZE (16 * 1024)	/* each AP's stack; its IST1 stack follows it */

/* One CPU's own data; GS base points at it, `self` first so %gs:0 finds it. */
struct percpu {
	struct percpu *self;
	u32 cpu;
	u32 apic_id;
	volatile u32 online;
	u32 seen_apic_id;	/* what the CPU read from its own local APIC */
	u32 seen_cpu;		/* what it read back through GS */
	struct cpu_tables tables;
	u8 *stack;		/* STACK_SIZE; the IST1 stack follows it */
	u32 busy;		/* atomic: given a call (arch_cpu_start), not yet returned */
	u32 waiter;		/* atomic: CPU halted in arch_cpu_wait for this one, or ~0 */
	u64 tlb_gen;		/* tlb_flush_gen when this CPU last dropped its TLB */
	u64 idle_kicks_seen;	/* idle_kicks when its last walk of the idle work found nothing */
	smp_call_fn call_fn;	/* the call; set after call_arg (atomic) */
	void *call_arg;
};

/*
 * The CPUs smp_init listed (smp_cpus[0] the boot CPU), smp_nr_listed of
 * them; smp_percpu[n] is CPU n's data once it is online, else NULL.
 */
extern struct cpu_info smp_cpus[SMP_MAX_CPUS];
extern struct percpu *smp_percpu[SMP_MAX_CPUS];
extern u32 smp_nr_listed;

/* The wake-up IPI's entry: it only acknowledges (trampoline.S, smp_ipi_handler). */
extern const u8 smp_ipi_entry[];

/* An AP's life once it has reported in: calls, idle work, halts (smp_call.c). */
__noreturn void ap_idle(struct percpu *pc);

#endif
