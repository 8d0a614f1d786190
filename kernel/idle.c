/*
 * Idle (include/idle.h): the walk of the idle work registry that every
 * CPU's idle loop makes, and the boot CPU's policy between walks: read the
 * console at most once a millisecond, poll for idle.halt_poll_ns after the
 * last work, then halt until a NIC or the console may have news.
 */
#include <errno.h>
#include <stdlib.h>

#include "arch.h"
#include "cpu_time.h"
#include "idle.h"
#include "netdev.h"
#include "params.h"
#include "printk.h"

bool idle_work_run(void)
{
	u32 here = arch_cpu_id() == 0 ? IDLE_BOOT_CPU : IDLE_OTHER_CPUS;
	bool work = false;

	for_each_registered(idle_work, w)
		if ((*w)->cpus & here)
			work |= (*w)->fn();
	return work;
}

static u64 halt_poll_ns = IDLE_HALT_POLL_NS;

KERNEL_PARAM_U64("idle.halt_poll_ns", halt_poll_ns, 0, ~0ull,
		 "poll this long after the last work before halting (default 20000)");

void idle_wait(bool work)
{
	static u64 last_work;
	u64 now = arch_cycles();

	if (work) {
		last_work = now;
		return;
	}
	if (arch_cycles_to_ns(now - last_work) < halt_poll_ns)
		return;
	if (netdev_wake_arm_all() && arch_idle(CONSOLE_POLL_NS)) {
		netdev_wake_disarm_all();
		arch_irq_drain();
		return;
	}
	netdev_wake_disarm_all();
}

int console_poll(void)
{
	static u64 last;	/* arch_cycles() of the last read that found nothing */
	u64 now = arch_cycles();

	if (last && arch_cycles_to_ns(now - last) < CONSOLE_POLL_NS)
		return -1;
	int c = arch_console_trygetc();
	last = c < 0 ? now : 0;
	return c;
}

int idle_getc(void)
{
	if (&__start_idle_work[0] == &__stop_idle_work[0])
		return arch_console_getc();
	u32 cpu = arch_cpu_id();
	u64 last = arch_cycles();

	for (;;) {
		int c = console_poll();
		if (c >= 0)
			return c;
		bool work = idle_work_run();
		idle_wait(work);
		/* A pass whose walk found nothing (its halt included) was idle (cpu_time.h). */
		u64 now = arch_cycles();
		if (!work)
			cpu_time_idle(cpu, now - last);
		last = now;
	}
}
