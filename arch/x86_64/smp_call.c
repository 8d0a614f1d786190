/*
 * Cross-CPU calls (include/arch.h, include/smp.h): an online AP idles in
 * ap_idle, halted until an IPI brings it a call (arch_cpu_start), which it
 * runs with interrupts off, or a kick (arch_idle_kick) sends it walking
 * the idle work (include/idle.h). The caller
 * waits with arch_cpu_wait (halted until the finishing CPU's IPI) or
 * smp_call_on_each. Mappings removed meanwhile are dropped lazily: each
 * AP compares tlb_flush_gen before it runs anything (arch.c).
 */
#include <errno.h>

#include "arch.h"
#include "cpu_time.h"
#include "idle.h"
#include "lapic.h"
#include "percpu.h"
#include "printk.h"
#include "smp.h"
#include "spinlock.h"
#include "x86.h"

/*
 * A bound on smp_call_on_each's wait, not a performance limit: under TCG
 * eight vCPUs share two host cores, and a vCPU preempted while holding a
 * spinlock stalls the others for a host time slice.
 */
#define CALL_WAIT_NS (60ull * 1000 * 1000 * 1000)

static struct spinlock call_lock = SPINLOCK_INIT("smp_call", LOCK_RANK_SMP_CALL);

/* Mappings removed since this CPU last dropped its TLB (arch.c's lazy shootdown): drop them. */
static void tlb_catch_up(struct percpu *pc)
{
	u64 gen = __atomic_load_n(&tlb_flush_gen, __ATOMIC_ACQUIRE);

	if (gen != pc->tlb_gen) {
		write_cr3(read_cr3());
		pc->tlb_gen = gen;
	}
}

/* Kicks so far (arch_idle_kick): an idle CPU compares them with what it saw. */
static u64 idle_kicks;

void arch_idle_kick(void)
{
	__atomic_fetch_add(&idle_kicks, 1, __ATOMIC_SEQ_CST);
	for (u32 i = 1; i < smp_nr_listed; i++)
		if (smp_cpus[i].state == CPU_ONLINE && smp_percpu[i] && i != smp_processor_id() &&
		    !__atomic_load_n(&smp_percpu[i]->busy, __ATOMIC_RELAXED))
			smp_send_ipi(i, SMP_IPI_VECTOR);
}

/*
 * One walk of the idle work (include/idle.h) if there was a kick since the
 * CPU's last walk that found none. Runs with interrupts on; a call given
 * meanwhile waits for the walk's end. A walk that found nothing was idle
 * time (cpu_time.h); one that found work was busy.
 */
static bool ap_idle_work(struct percpu *pc)
{
	u64 kicks = __atomic_load_n(&idle_kicks, __ATOMIC_SEQ_CST);

	if (kicks == pc->idle_kicks_seen)
		return false;
	u64 t0 = arch_cycles();
	tlb_catch_up(pc);
	__asm__ volatile("sti" ::: "memory");
	bool more = idle_work_run();
	__asm__ volatile("cli" ::: "memory");
	if (!more) {
		pc->idle_kicks_seen = kicks;	/* a kick after the load walks again */
		cpu_time_idle(pc->cpu, arch_cycles() - t0);
	}
	return true;
}

/* Run the call pc was given, then say so to whoever waits for it. */
static void ap_run_call(struct percpu *pc, smp_call_fn fn)
{
	tlb_catch_up(pc);
	fn(pc->call_arg);
	__atomic_store_n(&pc->call_fn, NULL, __ATOMIC_RELAXED);
	/*
	 * The call's stores before the caller sees it done; and busy cleared
	 * before waiter is read (seq_cst pairs with arch_cpu_wait: one of the
	 * two sees the other's store).
	 */
	__atomic_store_n(&pc->busy, 0, __ATOMIC_SEQ_CST);
	u32 w = __atomic_load_n(&pc->waiter, __ATOMIC_SEQ_CST);
	if (w != ~0u)
		smp_send_ipi(w, SMP_IPI_VECTOR);
}

/*
 * An AP's life once online: run the call it was given, else idle work,
 * else halt with interrupts on until the next IPI. "sti; hlt" leaves no
 * gap: an IPI that arrived after the check waits for the sti and then ends
 * the hlt. The halt is idle time (cpu_time.h), open-ended: readers see it
 * grow while it lasts.
 */
__noreturn void ap_idle(struct percpu *pc)
{
	for (;;) {
		__asm__ volatile("cli" ::: "memory");
		smp_call_fn fn = __atomic_load_n(&pc->call_fn, __ATOMIC_ACQUIRE);
		if (fn) {
			ap_run_call(pc, fn);
			continue;
		}
		if (ap_idle_work(pc))
			continue;
		cpu_time_idle_enter(pc->cpu);
		__asm__ volatile("sti; hlt" ::: "memory");
		cpu_time_idle_exit(pc->cpu);
	}
}

void smp_ipi_handler(void);
void smp_ipi_handler(void)
{
	lapic_eoi();
}

int smp_send_ipi(u32 cpu, u8 vector)
{
	if (cpu >= smp_nr_listed || smp_cpus[cpu].state != CPU_ONLINE || !lapic)
		return -ENODEV;
	return lapic_ipi(smp_cpus[cpu].apic_id, ICR_FIXED | vector);
}

int arch_cpu_start(u32 cpu, void (*fn)(void *arg), void *arg)
{
	u32 idle = 0;

	if (cpu >= smp_nr_listed || cpu == smp_processor_id() || smp_cpus[cpu].state != CPU_ONLINE)
		return -ENODEV;
	if (cpu == 0)
		return -EBUSY;	/* the boot CPU runs the shell, it never idles */
	/* Claim the CPU: two callers racing for it, one wins. */
	if (!__atomic_compare_exchange_n(&smp_percpu[cpu]->busy, &idle, 1, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return -EBUSY;
	smp_percpu[cpu]->call_arg = arg;
	/* The caller's stores and arg before fn: the AP acquires fn. */
	__atomic_store_n(&smp_percpu[cpu]->call_fn, fn, __ATOMIC_RELEASE);
	smp_send_ipi(cpu, SMP_IPI_VECTOR);
	return 0;
}

bool arch_cpu_busy(u32 cpu)
{
	return cpu < smp_nr_listed && smp_percpu[cpu] &&
	       __atomic_load_n(&smp_percpu[cpu]->busy, __ATOMIC_ACQUIRE);
}

void arch_cpu_wait(u32 cpu)
{
	struct percpu *pc = cpu < smp_nr_listed ? smp_percpu[cpu] : NULL;

	if (!pc)
		return;
	for (;;) {
		__atomic_store_n(&pc->waiter, smp_processor_id(), __ATOMIC_SEQ_CST);
		if (!__atomic_load_n(&pc->busy, __ATOMIC_SEQ_CST))
			break;
		/*
		 * The IPI the CPU sends when done ends the hlt; one that came
		 * after the check is held until sti, which takes effect after
		 * hlt begins. Only LAPIC interrupts can come (smp_init masked
		 * the 8259s), and their handlers only acknowledge.
		 */
		__asm__ volatile("sti; hlt; cli" ::: "memory");
	}
	__atomic_store_n(&pc->waiter, ~0u, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);	/* the call's stores, after busy was seen clear */
}

/* Spin until CPU i's call returns, at most CALL_WAIT_NS: 0, or -ETIMEDOUT (a line). */
static int call_wait(u32 i)
{
	u64 start = arch_cycles();

	while (arch_cpu_busy(i)) {
		if (arch_cycles_to_ns(arch_cycles() - start) > CALL_WAIT_NS) {
			pr_err("smp: CPU %u did not finish its call within %llu s\n", i,
			       CALL_WAIT_NS / 1000000000ull);
			return -ETIMEDOUT;
		}
		cpu_relax();
	}
	return 0;
}

int smp_call_on_each(smp_call_fn fn, void *arg)
{
	u32 self = smp_processor_id();
	bool given[SMP_MAX_CPUS] = { false };
	int err = 0;

	spin_lock(&call_lock);
	for (u32 i = 0; i < smp_nr_listed; i++) {
		if (i == self || smp_cpus[i].state != CPU_ONLINE)
			continue;
		/* Still in an earlier call (one that timed out, or an on-cpu command). */
		if (arch_cpu_start(i, fn, arg)) {
			pr_err("smp: CPU %u is still busy with an earlier call, skipped\n", i);
			err = -EBUSY;
			continue;
		}
		given[i] = true;
	}
	fn(arg);
	for (u32 i = 0; i < smp_nr_listed; i++)
		if (given[i] && call_wait(i))
			err = -ETIMEDOUT;
	spin_unlock(&call_lock);
	return err;
}
