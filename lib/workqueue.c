/* The work queue (include/workqueue.h): jobs from a shared counter, on every idle CPU. */
#include "arch.h"
#include "workqueue.h"

struct work_batch {
	work_fn fn;
	void *ctx;
	u64 nr_jobs;
	u64 next;		/* the next job to hand out (atomic) */
	u32 caller;		/* whose progress slot counts the jobs */
};

/* Each caller CPU's batch in progress: jobs done of total (0: none). */
static struct {
	u64 done, total;
} progress[ARCH_MAX_CPUS];

void work_progress(u32 cpu, u64 *done, u64 *total)
{
	*done = *total = 0;
	if (cpu >= ARCH_MAX_CPUS)
		return;
	*total = __atomic_load_n(&progress[cpu].total, __ATOMIC_RELAXED);
	*done = __atomic_load_n(&progress[cpu].done, __ATOMIC_RELAXED);
	if (*done > *total)	/* read across the start of another batch */
		*done = *total;
}

/* Take jobs until none is left: what every enlisted CPU, and the caller, runs. */
static void work_worker(void *arg)
{
	struct work_batch *b = arg;

	for (;;) {
		u64 j = __atomic_fetch_add(&b->next, 1, __ATOMIC_RELAXED);
		if (j >= b->nr_jobs)
			return;
		b->fn(b->ctx, j);
		__atomic_fetch_add(&progress[b->caller].done, 1, __ATOMIC_RELAXED);
	}
}

u32 work_run_cpus(work_fn fn, u64 nr_jobs, void *ctx, u32 max_cpus)
{
	u32 self = arch_cpu_id(), nr = arch_nr_cpus(), cpus = 1;
	struct work_batch b = { .fn = fn, .ctx = ctx, .nr_jobs = nr_jobs, .next = 0, .caller = self };
	bool started[ARCH_MAX_CPUS] = { false };
	/* A batch run from a job of this CPU's batch: the outer one's count comes back after. */
	u64 outer_done = __atomic_load_n(&progress[self].done, __ATOMIC_RELAXED);
	u64 outer_total = __atomic_load_n(&progress[self].total, __ATOMIC_RELAXED);

	__atomic_store_n(&progress[self].total, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&progress[self].done, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&progress[self].total, nr_jobs, __ATOMIC_RELAXED);

	if (!max_cpus)
		max_cpus = ARCH_MAX_CPUS;
	/* More helpers than jobs would only wake CPUs to find nothing to do. */
	for (u32 cpu = 0; cpu < nr && cpus < max_cpus && cpus < nr_jobs; cpu++) {
		if (cpu == self || arch_cpu_start(cpu, work_worker, &b))
			continue;
		started[cpu] = true;
		cpus++;
	}
	work_worker(&b);
	/* b lives on this stack: every helper must be out of work_worker before we return. */
	for (u32 cpu = 0; cpu < nr; cpu++)
		if (started[cpu])
			arch_cpu_wait(cpu);
	__atomic_store_n(&progress[self].total, outer_total, __ATOMIC_RELAXED);
	__atomic_store_n(&progress[self].done, outer_done, __ATOMIC_RELAXED);
	return cpus;
}

u32 work_run(work_fn fn, u64 nr_jobs, void *ctx)
{
	return work_run_cpus(fn, nr_jobs, ctx, 0);
}
