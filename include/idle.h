/*
 * Idle work: what a CPU does when nothing else is asked of it. Each piece
 * registers itself with IDLE_WORK(fn, cpus) into one linker section, and
 * every CPU's idle loop walks that one registry with idle_work_run():
 *
 *  - the boot CPU while the shell waits for input (idle_getc), and in
 *    commands that wait for the network (idle_wait);
 *  - every other online CPU between the calls it is given (arch_cpu_start),
 *    after a kick (arch_idle_kick) and until a walk finds nothing to do;
 *    then it halts until the next kick (arch/x86_64/smp_call.c).
 *
 * A function must return soon (within a few ms): true when it did some
 * work (the walk is repeated at once), false when it found none. The boot
 * CPU's policy between walks (poll, then halt) is kernel/idle.c's.
 */
#ifndef PMEMK_IDLE_H
#define PMEMK_IDLE_H

#include "types.h"

/* Which CPUs run a piece of idle work. */
#define IDLE_BOOT_CPU (1u << 0)		/* the boot CPU (arch_cpu_id() 0) */
#define IDLE_OTHER_CPUS (1u << 1)	/* every other online CPU */
#define IDLE_ALL_CPUS (IDLE_BOOT_CPU | IDLE_OTHER_CPUS)

struct idle_work {
	bool (*fn)(void);
	u32 cpus;	/* IDLE_* */
};

#define IDLE_WORK(_fn, _cpus) REGISTER(idle_work, struct idle_work, _fn, _fn, _cpus)
REGISTRY(idle_work, struct idle_work);

/*
 * Run every idle work registered for the calling CPU once (IDLE_BOOT_CPU
 * on CPU 0, else IDLE_OTHER_CPUS); true if one did some work.
 */
bool idle_work_run(void);

/*
 * The boot CPU after a walk (`work`: it found some). Once none has been
 * found for IDLE_HALT_POLL_NS (idle.halt_poll_ns=), halt it until a NIC
 * has news or CONSOLE_POLL_NS have passed, when every NIC can wake it
 * (arch_idle, netdev wake_arm); else return at once, and the caller polls
 * again. The poll before the halt is Linux's haltpoll idea: a wake-up
 * costs more than the shortest gaps inside a transfer. Of 0, 20 µs,
 * 200 µs and 2 ms, 20 µs left nbdcopy the most of a 2-CPU host under QEMU
 * TCG (PERFORMANCE "Halting while idle"). idle=poll (arch/x86_64/idle.c)
 * keeps it from halting at all.
 */
#define IDLE_HALT_POLL_NS 20000ull
void idle_wait(bool work);

/*
 * A console byte, or -1, for loops that poll: the console is read at most
 * once per CONSOLE_POLL_NS while nothing arrives, and at once after a byte
 * (pasted input drains at full speed). Under an emulator each read of the
 * UART is a trap that takes the emulator's global lock, which its network
 * devices need too: reading it on every pass of a polling loop slowed NBD
 * and raw TCP alike (PERFORMANCE "Polling the console less often").
 */
#define CONSOLE_POLL_NS 1000000ull
int console_poll(void);

/*
 * The boot CPU's idle loop: wait for the next console byte, walking the
 * idle work and halting (idle_wait) while none has come. Blocks on the
 * console when no idle work is registered at all. A pass whose walk found
 * no work, its halt included, is the CPU's idle time (cpu_time.h); the
 * rest, a command's run included, is busy.
 */
int idle_getc(void);

#endif
