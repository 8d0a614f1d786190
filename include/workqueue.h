/*
 * The work queue: a batch of independent jobs run on every idle online CPU,
 * the caller's included, and waited for. Jobs are numbered 0..nr_jobs-1 and
 * handed out one at a time from a shared counter, so a CPU that finishes
 * early takes the next one; which CPU runs which job is not fixed, so jobs
 * must not depend on each other or on the CPU that runs them. CPUs busy with
 * something else (the boot CPU running the shell, a CPU running an `on-cpu`
 * command) are simply not enlisted: with none idle, the caller runs every
 * job itself, in order. Portable: it reaches the other CPUs only through
 * arch_cpu_start()/arch_cpu_busy() (include/arch.h).
 */
#ifndef PMEMK_WORKQUEUE_H
#define PMEMK_WORKQUEUE_H

#include "types.h"

typedef void (*work_fn)(void *ctx, u64 job);

/*
 * Run fn(ctx, j) for every j in [0, nr_jobs) on at most max_cpus CPUs (the
 * caller counts as one; 0 means no limit) and return when every job has
 * returned, with every job's stores visible to the caller. Returns the
 * number of CPUs that took part (1: the caller alone). May be called from
 * any CPU, also from a job or an on-cpu command (it then enlists only CPUs
 * that are idle).
 */
u32 work_run_cpus(work_fn fn, u64 nr_jobs, void *ctx, u32 max_cpus);

/*
 * How far the batch CPU cpu called work_run for is: jobs done of total
 * (both 0 when it runs none). For a long job's progress (the HTTPS API's
 * jobs: a map=mem create's struct page init runs as such a batch). A
 * batch run from inside a job counts in its caller's slot until it
 * returns, then the outer batch's count is back.
 */
void work_progress(u32 cpu, u64 *done, u64 *total);

/* work_run_cpus without a limit: every idle online CPU. */
u32 work_run(work_fn fn, u64 nr_jobs, void *ctx);

#endif
