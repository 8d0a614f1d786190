/*
 * Where each CPU's time goes since it came online (the boot CPU: since
 * cpu_time_boot, kmain's first call): idle, as its idle loop says, or
 * busy, which is all the rest. The boot CPU is idle in idle_getc's walks
 * that find no work and in idle_wait's halt (kernel/idle.c); another CPU
 * in its halt and in walks that find nothing (arch/x86_64/smp_call.c);
 * running a command, a call (arch_cpu_start) or idle work that found
 * something is busy. `uptime` prints it, `metrics` serves it as
 * node_exporter's node_cpu_seconds_total.
 *
 * Each CPU writes only its own figures, and only from its own idle loop,
 * with an arch_cycles() or two per pass and no lock; any CPU reads them
 * with atomic loads (again, for the two stores in which a CPU ends an
 * open idle period), that period counted up to the moment of reading, and
 * never less idle time than an earlier reading found.
 */
#ifndef PMEMK_CPU_TIME_H
#define PMEMK_CPU_TIME_H

#include "types.h"

/* The boot: CPU 0 is online from now, and uptime counts from here. */
void cpu_time_boot(void);
/* The calling CPU `cpu` came online now (an AP, before it reports in). */
void cpu_time_online(u32 cpu);

/* CPU `cpu` (the caller) was idle for `cycles` more (arch_cycles()), just now. */
void cpu_time_idle(u32 cpu, u64 cycles);
/*
 * CPU `cpu` (the caller) is idle from now until cpu_time_idle_exit: for an
 * idle period of no known bound (a halt until the next IPI), which readers
 * then see growing. No cpu_time_idle between the two.
 */
void cpu_time_idle_enter(u32 cpu);
void cpu_time_idle_exit(u32 cpu);

struct cpu_time {
	u64 online_ns;	/* since it came online */
	u64 idle_ns;	/* of that, idle (busy: the rest) */
};
/*
 * CPU cpu's figures now: true, or false when it never came online. CPU
 * 0's online_ns is the uptime.
 */
bool cpu_time_read(u32 cpu, struct cpu_time *t);

#endif
